"""What notebooks 05, 07, 08, 10 and 12 say and print, where a sentence can be wrong.

Issue 12, points 4 to 6: the vendor shape labelled "OpenAI, strict" obeys strict mode's
rules; the repair lesson does not call a doubtful fix certain; every discussion prompt names
the pack's question and is followed by an answer for instructors; exercise instructions never
point at cells the student edition hides, and what an exercise asks students to compare is
printed. Read from the notebooks as they are stored (sources and saved outputs).
"""

import ast
import copy
import html
import inspect
import json
import re
import sys
from pathlib import Path

import jupytext
import pytest
from exercise_helpers import cell_namespace

import toolkit as T
from toolkit.checks import ex01, ex05

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def cells(stem):
    return jupytext.read(NOTEBOOKS / f"{stem}.py").cells


def stored(stem):
    with open(NOTEBOOKS / f"{stem}.ipynb", encoding="utf-8") as f:
        return json.load(f)


# ------------------------------------------------------------ OpenAI strict mode (notebook 05)

# The subset of JSON Schema that OpenAI's strict mode accepts, as its structured-outputs guide
# lists it (pack [23]): types, enums, anyOf, definitions, and a few string, number and array
# constraints. `default` is not in it, and every object must close itself and require all keys.
STRICT_KEYWORDS = {
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$defs",
    "$ref",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
}


def strict_mode_problems(schema, path="parameters"):
    """Every way ``schema`` breaks OpenAI's strict-mode rules (empty when it follows them)."""
    problems = [f"{path}: {key!r} is outside strict mode's subset" for key in schema if key not in STRICT_KEYWORDS]
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties must be false")
        props = schema.get("properties")
        if props is None:
            problems.append(f"{path}: an object must name its properties")
            props = {}
        left_out = [p for p in props if p not in schema.get("required", [])]
        if left_out:
            problems.append(f"{path}: every property must be in required; left out: {left_out}")
        for name, sub in props.items():
            problems += strict_mode_problems(sub, f"{path}.{name}")
    if isinstance(schema.get("items"), dict):
        problems += strict_mode_problems(schema["items"], f"{path}[]")
    for i, sub in enumerate(schema.get("anyOf", [])):
        problems += strict_mode_problems(sub, f"{path}|{i}")
    return problems


def strict_tool_problems(tool):
    fn = tool.get("function", tool)
    params = fn.get("parameters", {})
    problems = strict_mode_problems(params)
    if params.get("type") != "object" or "anyOf" in params:
        problems.append("parameters: the root must be a plain object")
    if fn.get("strict") is not True:
        problems.append('"strict": true is missing')
    return problems


def shown_shapes(stem="05_schemas_and_function_calling"):
    """Title -> JSON of each column of the side-by-side views in the stored notebook."""
    shapes = {}
    for cell in stored(stem)["cells"]:
        for out in cell.get("outputs", []):
            page = "".join(out.get("data", {}).get("text/html", ""))
            for title, body in re.findall(r"<b>(.*?)</b><pre[^>]*>(.*?)</pre>", page, re.S):
                shapes[html.unescape(title)] = json.loads(html.unescape(body))
    return shapes


def test_the_checker_knows_the_rules():
    plain = ex01.unseen_tools()[0]["inputSchema"]  # optional fields, a default
    found = strict_mode_problems(plain)
    assert any("left out" in p for p in found) and any("'default'" in p for p in found)
    nested = {
        "type": "object",
        "properties": {"a": {"type": "object", "properties": {}}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert strict_mode_problems(nested) == ["parameters.a: additionalProperties must be false"]


def test_the_schema_notebook_05_labels_strict_follows_strict_mode():
    shapes = shown_shapes()
    strict = [title for title in shapes if title.startswith("OpenAI, strict")]
    assert strict, f"no 'OpenAI, strict' column among {list(shapes)}"
    for title in strict:
        assert strict_tool_problems(shapes[title]) == [], title


@pytest.fixture(scope="module")
def strict_parameters():
    """The notebook's own rewriting helper, run from its source."""
    nb = cells("05_schemas_and_function_calling")
    code = [c for c in nb if c.cell_type == "code"]
    namespace = {}
    exec(code[0].source, namespace)
    cell = ast.parse(next(c.source for c in code if "def strict_parameters" in c.source))
    defs = ast.Module([node for node in cell.body if isinstance(node, ast.FunctionDef)], type_ignores=[])
    exec(compile(defs, "notebook 05", "exec"), namespace)  # the helpers only, not the cell's demo
    return namespace["strict_parameters"]


def test_the_notebooks_helper_makes_any_course_tool_strict_and_keeps_its_input(strict_parameters):
    for tool in ex01.unseen_tools():
        given = copy.deepcopy(tool["inputSchema"])
        out = strict_parameters(given)
        assert given == tool["inputSchema"]
        assert strict_mode_problems(out) == [], tool["name"]
        assert list(out["properties"]) == list(given["properties"])
        for name in set(given["properties"]) - set(given["required"]):  # optional: may be null
            assert {"type": "null"} in out["properties"][name]["anyOf"]


def test_the_notebooks_helper_refuses_a_free_form_object(strict_parameters):
    free = {"type": "object", "properties": {"extra": {"type": "object"}}, "required": ["extra"]}
    with pytest.raises(ValueError, match="extra"):
        strict_parameters(free)


# ---------------------------------------------------------------- repair (notebook 05, §4)


def test_the_repair_lesson_does_not_call_number_to_string_certain():
    prose = "\n".join(c.source for c in cells("05_schemas_and_function_calling") if c.cell_type == "markdown")
    section = prose[prose.index("## 4.") : prose.index("## 5.")]
    claim = re.search(r"not in doubt[^.]*\.", section)
    assert not (claim and "number" in claim.group(0)), claim.group(0)
    outputs = json.dumps(stored("05_schemas_and_function_calling"))
    assert "No weather for '5'" in outputs  # the notebook shows where the "valid" call ends up


# ----------------------------------------------------------- discussion questions and answers

PROMPT = re.compile(r"\*\*For discussion\.\*\* \*\(Pack discussion question (\d+), in our words\.\)\*")


def test_question_12_is_asked_once_in_the_course():
    asked = [p.stem for p in sorted(NOTEBOOKS.glob("*.py")) if "12" in PROMPT.findall(p.read_text(encoding="utf-8"))]
    assert asked == ["05_schemas_and_function_calling"]


LESSONS = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.py"))
PACK_MENTION = re.compile(r"Pack discussion questions? (\d+)", re.IGNORECASE)


def discussion_prompts():
    """(number, notebook, the cell after the prompt) for every discussion prompt of the course,
    plus the problems found: a mention of a pack question that is not in the prompt form, or
    two prompts in one cell."""
    found, problems = [], []
    for stem in LESSONS:
        nb = cells(stem)
        for i, cell in enumerate(nb):
            if cell.cell_type != "markdown" or "solution" in cell.metadata.get("tags", []):
                continue
            numbers = [int(n) for n in PROMPT.findall(cell.source)]
            if len(PACK_MENTION.findall(cell.source)) != len(numbers):
                problems.append(
                    f"{stem}: a pack discussion question is named outside the prompt form "
                    f"'**For discussion.** *(Pack discussion question N, in our words.)*' "
                    f"(a pointer should say where it is posed, without 'Pack discussion question')"
                )
            if len(numbers) > 1:
                problems.append(f"{stem}: prompts {numbers} share a cell; give each its own, then its answer")
            found += [(n, stem, nb[i + 1] if i + 1 < len(nb) else None) for n in numbers]
    return found, problems


def test_the_prompt_finder_sees_loose_and_grouped_mentions(monkeypatch):
    fake = {
        "01_a": [
            jupytext.reads(
                "# %% [markdown]\n# *(Pack discussion questions 4 and 5, in our words.)*", fmt="py:percent"
            ).cells[0]
        ]
    }
    monkeypatch.setattr(sys.modules[__name__], "LESSONS", list(fake))
    monkeypatch.setattr(sys.modules[__name__], "cells", fake.__getitem__)
    found, problems = discussion_prompts()
    assert found == [] and len(problems) == 1


def test_the_course_poses_the_twelve_pack_questions_once_each_with_an_answer_next():
    """Issue 12, point 4: pack discussion questions 1-12, each posed once in the course, each
    followed directly by a markdown cell tagged solution that holds a real answer."""
    found, problems = discussion_prompts()
    numbers = sorted(n for n, _, _ in found)
    where = {n: [s for m, s, _ in found if m == n] for n in numbers}
    assert numbers == list(range(1, 13)), (
        f"expected questions 1-12 once each; found {where}, missing {sorted(set(range(1, 13)) - set(numbers))}"
    )
    for n, stem, after in found:
        if not (
            after is not None
            and after.cell_type == "markdown"
            and "solution" in after.metadata.get("tags", [])
            and len(after.source.split()) > 60
        ):
            problems.append(f"{stem}: question {n} is not followed by a markdown 'solution' cell with a real answer")
    assert not problems, "\n".join(problems)


# Where each pack question is posed: with the topic it is about (docs/teaching.md).
POSED_IN = {
    1: "03",
    2: "03",
    3: "04",
    4: "04",
    5: "04",
    6: "06",
    7: "06",
    8: "09",
    9: "10",
    10: "07",
    11: "11",
    12: "05",
}


def test_each_question_is_posed_where_its_topic_is_taught():
    found, _ = discussion_prompts()
    assert {n: stem[:2] for n, stem, _ in found} == POSED_IN


# -------------------------------------------------------- exercises as the student edition has them

ALL_STEMS = sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.py"))


@pytest.mark.parametrize("stem", ALL_STEMS)
def test_instructions_never_point_at_a_hidden_cell(stem):
    for cell in cells(stem):
        if "solution" in cell.metadata.get("tags", []):
            continue
        assert "solution cell" not in cell.source.lower(), cell.source[:200]


def test_exercise_5_prints_both_timings(capsys):
    solution = cell_namespace("08_parallel_chained_retried", "solution")
    assert ex05.check(solution["time_one_turn"], solution["chained_model"]).ok
    out = capsys.readouterr().out
    found = re.search(
        r"By your own clock, (\d+\.\d) s together and (\d+\.\d) s one after another, for (\d+) calls of ([\d.]+) s", out
    )
    together, apart, n_calls, delay = map(float, found.groups())
    # the waits follow TOOLKIT_TIME_SCALE (tests/conftest.py); the printed times are rounded to 0.1 s
    assert together < apart and apart >= n_calls * delay - 0.05


def test_exercise_4_retry_runs_are_outside_the_solution_cell():
    code = [c for c in cells("08_parallel_chained_retried") if c.cell_type == "code"]
    runs = [c for c in code if "for max_retries in (0, 2, 5)" in c.source]
    assert runs and all(not {"solution", "starter"} & set(c.metadata.get("tags", [])) for c in runs)


# ---------------------------------------------------------------- notebook 10's benchmark prose


def test_the_relatives_of_tau_bench_are_counted_right():
    words = {"Two": 2, "Three": 3, "Four": 4}
    cell = next(c.source for c in cells("10_reliability_pass_k") if "relatives are worth knowing" in c.source)
    match = re.search(r"(Two|Three|Four) relatives are worth knowing\.(.*?)(?:\n\s*\n|\Z)", cell, re.S)
    named = re.findall(r"\*\*([^*]+)\*\*", match.group(2))  # each relative is named in bold
    assert words[match.group(1)] == len(named), named


def test_notebook_10_says_the_paper_and_leaderboard_may_use_different_snapshots():
    prose = " ".join(c.source for c in cells("10_reliability_pass_k") if c.cell_type == "markdown")
    section = prose[prose.index("## 4.") : prose.index("## 5.")]
    assert "snapshot" in section and "ATTRIBUTION.md" in section


# ---------------------------------------------------------------- jargon, defined where first used

# Issue 12, point 3: a term the course's readers may not know, and words its definition must use.
JARGON = {
    "EM": "expectation–maximization",
    "nats": "natural logarithm",
    "NDCG@1": "normalized discounted cumulative gain",
    "simple_python": "one Python function",
    "RAG": "retrieval-augmented generation",
    "AST": "abstract syntax tree",
}


def first_mentions(term):
    """(notebook of the first mention anywhere, first markdown cell that mentions the term)."""
    word = re.compile(rf"(?<![\w@]){re.escape(term)}(?![\w@])")
    first_stem = first_cell = None
    for stem in LESSONS:
        for cell in cells(stem):
            if not word.search(cell.source) or "solution" in cell.metadata.get("tags", []):
                continue
            first_stem = first_stem or stem
            if cell.cell_type == "markdown":
                return first_stem, cell.source
    return first_stem, first_cell


@pytest.mark.parametrize("term", JARGON)
def test_jargon_is_defined_where_it_is_first_used(term):
    stem, cell = first_mentions(term)
    assert cell is not None, f"{term} is never explained in the prose"
    assert JARGON[term].lower() in " ".join(cell.split()).lower(), (
        f"the first prose mention of {term} (notebook {stem}) should define it ({JARGON[term]!r})"
    )


# ------------------------------------------------- only public toolkit names in the notebooks

# Issue 12, point 11: a notebook shows students how to use the toolkit, so it calls only what
# the toolkit promises (docs/API.md, `toolkit.__all__`, `toolkit.mcp.__all__`, a module's
# `__all__`); a name with a leading underscore is the toolkit's business and may change.
# Reading is not calling: a private helper handed to `show_source(...)` is shown, not used
# (issue 13, point 3: the student reads the real code, helpers included).


def private_uses(source):
    """Every private name a code cell reaches: ``obj._name`` (not ``self._name`` in a class the
    cell defines itself, and not a dunder such as ``__name__``), and ``_name`` imported from, or
    found in the path of, a toolkit module."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    tree = ast.parse("\n".join(lines))

    def private(name):
        return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))

    shown = {
        id(arg)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "show_source"
        for arg in node.args
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in shown:
            continue
        if isinstance(node, ast.Attribute) and private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "toolkit":
            found += [f"{node.module}.{a.name}" for a in node.names if private(a.name)]
            found += [node.module] if any(private(part) for part in node.module.split(".")) else []
        elif isinstance(node, ast.Import):
            found += [
                a.name
                for a in node.names
                if a.name.split(".")[0] == "toolkit" and any(private(p) for p in a.name.split("."))
            ]
    return found


def test_the_private_name_finder_sees_each_way_in():
    source = "\n".join(
        [
            "%matplotlib inline",
            "import toolkit as T",
            "from toolkit.widgets._base import LiveView",
            "from toolkit.mcp.client import _brief, MCPClient",
            "import toolkit.widgets._base",
            "client._request('resources/list')  # a private method of a toolkit object",
            "show_source(T.MCPServer._request)  # read, not called: allowed",
            "show_source(T.MCPServer._request)._x",
            "print(T.mcp._LAZY, type(client).__name__, 'text with a._b in it')",
            "class Counter:",
            "    def __init__(self):",
            "        self._n = 0",
        ]
    )
    assert sorted(private_uses(source)) == sorted(
        [
            "toolkit.widgets._base",
            "toolkit.mcp.client._brief",
            "toolkit.widgets._base",
            "client._request",
            "show_source(T.MCPServer._request)._x",
            "T.mcp._LAZY",
        ]
    )


@pytest.mark.parametrize("stem", LESSONS)
def test_code_cells_use_only_public_toolkit_names(stem):
    used = [
        (i, name)
        for i, cell in enumerate(cells(stem))
        if cell.cell_type == "code"
        for name in private_uses(cell.source)
    ]
    assert not used, (
        f"{stem}.py reaches private names {used} (cell index, name): call a public "
        "function instead, or add one to the toolkit with a docstring and a test"
    )


# ------------------------------------------- the graded assignment is not solved by course code

# Issue 12, point 6: the course hands out building blocks, never a finished part. Notebook 12
# says, part by part, what the student may reuse and what a notebook has built already (which
# does not count as the student's answer); what the course ships is read from the code, so a
# new worked example in the toolkit fails this test until the assignment text names it.


def assignment_parts():
    """{"A": text, ..., "D": text, "intro": text} from notebook 12's section 5, and its cells."""
    nb = cells("12_failures_project_review")
    start = next(i for i, c in enumerate(nb) if c.source.startswith("## 5. The graded assignment"))
    end = next(i for i, c in enumerate(nb) if i > start and c.source.startswith("## "))
    section = nb[start:end]
    parts = {"intro": section[0].source}
    for cell in section:
        found = re.match(r"### Part ([A-D])\.", cell.source)
        if found:
            parts[found.group(1)] = " ".join(cell.source.split())
    return parts, section


def test_each_part_says_what_to_reuse_and_what_is_already_built():
    parts, _ = assignment_parts()
    assert set(parts) == {"intro", "A", "B", "C", "D"}
    for part in "ABCD":
        text = parts[part]
        assert "*Reuse:*" in text and "*Already in the course:*" in text, f"Part {part}"
        reuse = text[text.index("*Reuse:*") : text.index("*Already in the course:*")]
        named = re.findall(r"`T\.(\w+)", reuse)
        assert named, f"Part {part} names no course function to reuse"
        assert set(named) <= set(T.__all__), f"Part {part}: not public in toolkit: {set(named) - set(T.__all__)}"
        params = {
            p for name in named if callable(getattr(T, name)) for p in inspect.signature(getattr(T, name)).parameters
        }
        for keyword in re.findall(r"`(\w+)=`", reuse):
            assert keyword in params, f"Part {part}: none of {named} takes {keyword}="


def test_what_the_course_already_ships_is_named_as_not_the_students_answer():
    from toolkit.lessons import mock_callers as callers
    from toolkit.lessons import retail

    parts, _ = assignment_parts()
    # Part A: validate_args already checks nested objects; run_agent already caps results.
    nested = {
        "type": "object",
        "properties": {"to": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
    }
    assert T.validate_args({"to": {}}, nested) == ["missing required parameter 'to.city'"]
    assert "max_result_chars" in T.run_agent.__kwdefaults__
    assert "nested objects" in parts["A"] and "`max_result_chars`" in parts["A"]
    # Part B: notebook 09's cases and mock callers.
    _, course_cases = callers.scoring_cases("course")
    assert f"{len(course_cases)} cases" in parts["B"]
    for kind in callers.CALLER_TYPES:
        assert f"`{kind.__name__}`" in parts["B"], kind.__name__
    # Part C: every task the toolkit ships, and the tools of its ordered task.
    ids = [t["id"] for t in retail.RETAIL_TASKS_EXTENDED]
    assert f"{ids[0]} to {ids[-1]}" in parts["C"], ids
    for task in retail.RETAIL_TASKS_EXTENDED:
        for step in task.get("steps", []):
            assert f"`{step}`" in parts["C"], step
    assert "None of them counts" in parts["C"]


def test_no_pointer_to_a_ready_made_part_stays_in_the_course():
    _, section = assignment_parts()
    code = [c.source for c in section if c.cell_type == "code"]
    assert code == ["show_figure(9)"], "section 5 runs nothing but Figure 9: no ready world is printed"
    twelve = (NOTEBOOKS / "12_failures_project_review.py").read_text(encoding="utf-8")
    stored12 = (NOTEBOOKS / "12_failures_project_review.ipynb").read_text(encoding="utf-8")
    for text in (twelve, stored12):
        assert "RETAIL_TASKS_EXTENDED" not in text and "(writes, in order:" not in text
    pointer = re.compile(r"head start|here is one|\bready\b|as it is|hand it in", re.IGNORECASE)
    for stem in LESSONS:
        for cell in cells(stem):
            if cell.cell_type != "markdown":
                continue
            for sentence in re.split(r"(?<=[.!?])\s+", " ".join(cell.source.split())):
                if re.search(r"\bPart [A-D]\b|assignment", sentence):
                    assert not pointer.search(sentence), f"{stem}: {sentence!r}"


# Notebook 07 teaches tool design through discussion: it has none of the pack's exercises. Its
# only exercise cells are the optional "your turn" of §7 (issue 28), checked by opt07.


def test_notebook_07_has_no_pack_exercise_cells():
    nb = jupytext.read(NOTEBOOKS / "07_designing_tools.py")
    # a markdown `solution` cell (the instructor's answer to a discussion question) is fine
    code = [c for c in nb.cells if c.cell_type == "code"]
    checks = [c.source for c in code if "check" in c.metadata.get("tags", [])]
    assert all(re.match(r"opt07_\w+\.check\(", src.strip()) for src in checks), checks
    assert not any(re.search(r"\bex\d\d\b", c.source) for c in code if c.metadata.get("tags"))


# ---------------------------------------------------------------- issue 21, point 4

_RANGE = re.compile(r"(\d+)\s*[–-]\s*(\d+)")


def _opening_numbers(opening: str, kind: str) -> set:
    """The question numbers an opening cell names after 'discussion question(s)' or 'quiz question(s)'."""
    numbers: set = set()
    for m in re.finditer(rf"{kind} questions? ((?:\d+(?:\s*[–-]\s*\d+)?(?:,\s*|\s+and\s+)?)+)", opening):
        text = m.group(1)
        for a, b in _RANGE.findall(text):
            numbers |= set(range(int(a), int(b) + 1))
        numbers |= {int(n) for n in re.findall(r"\d+", _RANGE.sub("", text))}
    return numbers


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py")), ids=lambda p: p.stem[:2])
def test_the_opening_cell_lists_every_discussion_and_quiz_question_the_notebook_carries(path):
    """Issue 21, point 4: a student sees in the first cell which of the pack's questions are inside."""
    source = path.read_text(encoding="utf-8")
    opening = " ".join(source.split("# %%")[1].replace("\n#", " ").split())
    for kind in ("discussion", "quiz"):
        carried = {int(n) for n in re.findall(rf"Pack {kind} question (\d+)", source)}
        missing = carried - _opening_numbers(opening, kind)
        assert not missing, f"{path.name}: the opening cell does not name {kind} question(s) {sorted(missing)}"


def test_the_opening_cell_parser_reads_ranges_and_lists():
    assert _opening_numbers("discussion questions 3–5, quiz question 3", "discussion") == {3, 4, 5}
    assert _opening_numbers("discussion questions 6 and 7.", "discussion") == {6, 7}
    assert _opening_numbers("quiz question 8), both", "quiz") == {8}
    assert _opening_numbers("no questions here", "quiz") == set()


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py")), ids=lambda p: p.stem[:2])
def test_the_opening_cell_links_the_glossary(path):
    """Issue 21, point 4: the glossary's terms are a link away from the first cell of every notebook."""
    opening = path.read_text(encoding="utf-8").split("# %%")[1]
    assert "](../docs/glossary.md)" in opening, f"{path.name}: link the glossary in the opening cell"
