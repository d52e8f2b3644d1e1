"""The course apparatus: references, reading guide and glossary (issue 12, points 1 and 3).

data/references.json holds the pack's reference list (pack §9) under the pack's numbers, so
every "[n]" a notebook cites can be resolved; data/reading_guide.json places each reading
(pack §3) in a notebook; data/glossary.json defines the course's terms and points to the
notebook that teaches each one.
"""

import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
NOTEBOOKS = ROOT / "notebooks"
PACK = ROOT.parent / "shared" / "pack" / "week3-tool-use.md"

CITATION = re.compile(r"\[(\d+)\]")
INLINE_CODE = re.compile(r"`[^`]*`")
PACK_ENTRY = re.compile(r"^\s*•\s*\[(\d+)\]\s*(.*)$")


def load(name):
    with open(DATA / name, encoding="utf-8") as f:
        return json.load(f)


REFS = load("references.json")["references"]
GUIDE = load("reading_guide.json")["readings"]
GLOSSARY = load("glossary.json")["terms"]


def markdown_lines(source: str):
    """Prose lines of the markdown cells of a jupytext percent script.

    A markdown cell starts at a "# %% [markdown]" marker and ends at the next "# %%"; its lines
    are comments ("# text" or a bare "#"). Fenced code blocks and inline code spans inside the
    prose are dropped, so an index such as `args[0]` is not read as a citation.
    """
    in_markdown = in_fence = False
    for line in source.splitlines():
        if line.startswith("# %%"):
            in_markdown, in_fence = "[markdown]" in line, False
            continue
        if not in_markdown or not (line.startswith("# ") or line.rstrip() == "#"):
            continue
        text = line[2:]
        if text.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if not in_fence:
            yield INLINE_CODE.sub("", text)


def citations(source: str) -> set:
    return {int(n) for line in markdown_lines(source) for n in CITATION.findall(line)}


def notebook_sources():
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
    assert len(paths) == 12, f"expected the twelve lesson scripts in notebooks/, found {len(paths)}"
    return {p.stem: p.read_text(encoding="utf-8") for p in paths}


def mentions(text: str, word: str) -> bool:
    """True when `word` occurs in `text` as a whole word (case-insensitive)."""
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


# ---------------------------------------------------------------- the citation parser itself


def test_citation_parser_reads_markdown_prose_only():
    source = "\n".join(
        [
            "# %% [markdown]",
            "# Toolformer [1] and MCP [3] [26]; `args[0]` and `x[7]` are code, not citations.",
            "# ```",
            '# {"ids": [5]}',
            "# ```",
            "#",
            "# %%",
            "values = x[0] + y[2]  # [9]",
            '# %% [markdown] slideshow={"slide_type": "slide"}',
            "# ## A heading citing [29]",
        ]
    )
    assert citations(source) == {1, 3, 26, 29}


# ---------------------------------------------------------------- references.json


def test_reference_numbers_are_one_to_n_without_gaps():
    numbers = sorted(int(k) for k in REFS)
    assert numbers == list(range(1, len(numbers) + 1)), numbers


@pytest.mark.parametrize("number", sorted(REFS, key=int))
def test_reference_entry_is_complete(number):
    ref = REFS[number]
    assert isinstance(ref["title"], str) and ref["title"].strip(), f"[{number}] has no title"
    assert isinstance(ref["authors"], list) and ref["authors"], f"[{number}] has no authors"
    assert all(isinstance(a, str) and a.strip() for a in ref["authors"])
    assert ref["status"] in ("required", "added", None)
    if ref.get("beyond_pack"):
        # an entry beyond the pack has no pack mark; a field its source does not give is null and
        # named in not_given
        assert ref["status"] is None and not ref["in_pack_list"], f"[{number}] beyond the pack: no status"
        missing, fields = set(ref.get("not_given", [])), ("venue", "year", "link")
    else:
        missing, fields = set(ref.get("missing_in_pack", [])), ("venue", "year", "link", "status")
    for field in fields:
        # a null field must be declared as missing, and a declared gap must be null
        assert (ref[field] is None) == (field in missing), f"[{number}] {field}: null iff listed as missing"
    if ref["year"] is not None:
        assert isinstance(ref["year"], int) and 1990 <= ref["year"] <= 2030, f"[{number}] year {ref['year']!r}"
    if ref["in_pack_list"]:
        # everything in the pack's list has a link that a References section can show
        assert isinstance(ref["link"], str) and ref["link"].startswith("https://"), f"[{number}] link"
    else:
        assert ref.get("note"), f"[{number}] is not in the pack's list: its note must say where it comes from"


def test_required_readings_are_the_three_of_the_schedule():
    assert {int(k) for k, r in REFS.items() if r["status"] == "required"} == {1, 2, 3}


def pack_entries():
    if not PACK.exists():
        pytest.skip(f"course pack not found at {PACK}")
    entries = {}
    for line in PACK.read_text(encoding="utf-8").splitlines():
        m = PACK_ENTRY.match(line)
        if m:
            entries[int(m.group(1))] = m.group(2)
    return entries


def test_every_number_of_the_pack_list_is_held_with_its_title_and_link():
    entries = pack_entries()
    assert entries, "no '• [n]' entries found in the pack's reference list"
    assert set(entries) <= {int(k) for k in REFS}, f"missing: {sorted(set(entries) - {int(k) for k in REFS})}"
    for n, line in entries.items():
        ref = REFS[str(n)]
        assert ref["in_pack_list"], f"[{n}] is in the pack's list"
        assert ref["title"] in line, f"[{n}] title not transcribed exactly: {ref['title']!r}"
        assert ref["link"] in line, f"[{n}] link not as given in the pack: {ref['link']!r}"
        if ref["year"] is not None:
            assert str(ref["year"]) in line, f"[{n}] year {ref['year']} not in the pack's entry"
        for field in ("venue", "arxiv", "code"):
            if ref.get(field):
                assert ref[field] in line, f"[{n}] {field} {ref[field]!r} not as given in the pack"
        assert all(a in line for a in ref["authors"]), f"[{n}] an author is not as given in the pack"
        assert ref["et_al"] == ("et al." in line), f"[{n}] et_al: the pack's entry says otherwise"
        mark = re.search(r"\((required|added)\)\s*$", line)
        assert ref["status"] == (mark.group(1) if mark else None), f"[{n}] status"


def test_numbers_outside_the_pack_list_are_cited_in_the_pack_text():
    entries = pack_entries()
    text = PACK.read_text(encoding="utf-8")
    for key, ref in REFS.items():
        if int(key) not in entries and not ref.get("beyond_pack"):
            assert not ref["in_pack_list"]
            assert f"[{key}]" in text, f"[{key}] is neither in the pack's list nor cited in its text"


CHECKED = re.compile(r"^2026-\d\d-\d\d$")


@pytest.mark.parametrize(
    "number", [k for k, r in sorted(REFS.items(), key=lambda kv: int(kv[0])) if r.get("beyond_pack")]
)
def test_an_entry_beyond_the_pack_says_it_is_and_when_it_was_checked(number):
    """Issue 21: what goes beyond the pack is labelled so, dated, and says what it supports."""
    ref = REFS[number]
    assert int(number) > max(int(k) for k, r in REFS.items() if not r.get("beyond_pack")), (
        f"[{number}]: entries beyond the pack come after the pack's own numbers"
    )
    assert CHECKED.match(ref["checked"]), f"[{number}] checked {ref['checked']!r}: the date it was checked"
    assert ref["note"].startswith("Beyond the pack."), f"[{number}]: its note should open 'Beyond the pack.'"
    assert ref["link"] and ref["link"].startswith("https://"), f"[{number}]: a source beyond the pack needs its link"


@pytest.mark.parametrize("number", [k for k, r in REFS.items() if r.get("published")])
def test_a_published_venue_keeps_the_packs_beside_it(number):
    """Issue 21, point 2: the pack's venue stays; the published one is added, dated and linked."""
    ref, published = REFS[number], REFS[number]["published"]
    assert ref["in_pack_list"], f"[{number}]: only the pack's own entries get a published venue"
    assert published["venue"] and published["venue"] != ref["venue"] or published.get("authors"), (
        f"[{number}]: a published entry must add something: a new venue or the published author list"
    )
    assert CHECKED.match(published["checked"]), f"[{number}]: when the published venue was checked"
    assert published["link"] is None or published["link"].startswith("https://")
    if published["link"] is None or published.get("authors"):
        assert published.get("note"), f"[{number}]: say where the published details were confirmed"


def test_every_citation_in_the_notebooks_resolves():
    unresolved = {
        stem: sorted(n for n in citations(src) if str(n) not in REFS) for stem, src in notebook_sources().items()
    }
    unresolved = {stem: ns for stem, ns in unresolved.items() if ns}
    assert not unresolved, f"cited but not in data/references.json: {unresolved}"


# ---------------------------------------------------------------- reading_guide.json


def test_reading_guide_places_each_reading_in_a_notebook_that_cites_it():
    sources = notebook_sources()
    for entry in GUIDE:
        ref, stem = entry["ref"], entry["notebook"]
        assert str(ref) in REFS, f"reading [{ref}] is not in data/references.json"
        assert stem in sources, f"reading [{ref}]: no notebook notebooks/{stem}.py"
        assert ref in citations(sources[stem]), f"reading [{ref}] belongs to {stem}, which never cites it"
        assert entry["role"] in ("required", "optional")
        assert entry["why"].strip()
        assert all(q.strip().endswith("?") for q in entry["questions"]), f"[{ref}]: questions end with '?'"


def test_reading_guide_covers_the_required_readings_with_three_to_five_questions():
    required = {e["ref"]: e for e in GUIDE if e["role"] == "required"}
    assert set(required) == {1, 2, 3}
    for ref, entry in required.items():
        assert 3 <= len(entry["questions"]) <= 5, f"[{ref}] has {len(entry['questions'])} questions"
    assert len({e["ref"] for e in GUIDE}) == len(GUIDE), "a reading is listed twice"


def test_reading_guide_lists_spec_pages_of_the_cited_revision():
    mcp = next(e for e in GUIDE if e["ref"] == 3)
    base = REFS["3"]["link"]
    pages = mcp["pages"]
    assert len(pages) >= 5
    for p in pages:
        assert p["page"].strip() and p["look_for"].strip()
        assert p["url"].startswith(base + "/"), f"{p['page']}: {p['url']} is not under {base}"
    assert {"lifecycle", "transports", "server tools"} <= {p["page"] for p in pages}


# ---------------------------------------------------------------- glossary.json


def test_glossary_has_at_least_thirty_distinct_terms():
    terms = [t["term"].strip().lower() for t in GLOSSARY]
    assert len(terms) >= 30, len(terms)
    duplicates = sorted({t for t in terms if terms.count(t) > 1})
    assert not duplicates, f"terms listed twice: {duplicates}"


@pytest.mark.parametrize("entry", GLOSSARY, ids=[t["term"] for t in GLOSSARY])
def test_glossary_term_is_taught_where_it_points(entry):
    sources = notebook_sources()
    stem = entry["notebook"]
    assert stem in sources, f"{entry['term']}: no notebook notebooks/{stem}.py"
    spellings = [entry["term"], *entry.get("aliases", [])]
    assert any(mentions(sources[stem], s) for s in spellings), (
        f"{stem}.py never mentions {entry['term']!r} (nor any of {entry.get('aliases', [])})"
    )
    definition = entry["definition"].strip()
    assert len(definition) >= 30 and definition.endswith((".", ")")), f"{entry['term']}: definition"
    for n in entry.get("refs", []):
        assert str(n) in REFS, f"{entry['term']} cites [{n}], which is not in data/references.json"


# ---------------------------------------------------------------- each notebook's References

LESSON_COUNT = 12
REFERENCE_ITEM = re.compile(r"^[-*] \[(\d+)\]")


def script_cells(source: str):
    """(marker line, body lines) for each cell of a jupytext percent script."""
    cells, marker, body = [], None, []
    for line in source.splitlines():
        if line.startswith("# %%"):
            if marker is not None or body:
                cells.append((marker, body))
            marker, body = line, []
        else:
            body.append(line)
    cells.append((marker, body))
    return cells


def markdown_text(body) -> str:
    """The markdown of a markdown cell's comment lines ("# text" or a bare "#")."""
    return "\n".join(line[2:] if line.startswith("# ") else "" for line in body).strip("\n")


def references_section(source: str):
    """(the script without its References cell, the cell's markdown, whether it is the last cell).

    The References cell is the markdown cell whose text starts with "## References"; the
    markdown is None when there is none.
    """
    cells = script_cells(source)
    found = [
        i
        for i, (marker, body) in enumerate(cells)
        if marker and "[markdown]" in marker and markdown_text(body).startswith("## References")
    ]
    if not found:
        return source, None, False
    i = found[-1]
    rest = [line for j, (marker, body) in enumerate(cells) if j != i for line in ([marker] if marker else []) + body]
    return "\n".join(rest), markdown_text(cells[i][1]), i == len(cells) - 1


def reference_entries(section: str) -> dict:
    """{n: the entry's text, continuation lines joined} for the "- [n] ..." items of a section."""
    entries, current = {}, None
    for line in section.splitlines():
        m = REFERENCE_ITEM.match(line)
        if m:
            current = int(m.group(1))
            assert current not in entries, f"[{current}] is listed twice"
            entries[current] = line
        elif current is not None and line.startswith("  ") and line.strip():
            entries[current] += " " + line.strip()
        else:
            current = None
    return entries


def short_authors(ref) -> str:
    """ "Schick et al.", "Yang and Ryan" or "Anthropic": surnames as a References line gives them."""
    names = [a.split(",")[0] for a in ref["authors"]]
    if ref["et_al"] or len(names) > 2:
        return f"{names[0]} et al."
    return " and ".join(names)


def test_the_references_parser_separates_the_section_from_the_citations():
    source = "\n".join(
        [
            "# %% [markdown]",
            "# Gorilla [2] and the spec [3].",
            "# %%",
            "x = [1]",
            '# %% [markdown] slideshow={"slide_type": "slide"}',
            "# ## References",
            "#",
            "# - [2] Patil et al., *Gorilla*, 2024.",
            "#   <https://arxiv.org/abs/2305.15334>",
            "# - [3] MCP.",
        ]
    )
    body, section, last = references_section(source)
    assert last and citations(body) == {2, 3}
    assert reference_entries(section) == {
        2: "- [2] Patil et al., *Gorilla*, 2024. <https://arxiv.org/abs/2305.15334>",
        3: "- [3] MCP.",
    }
    assert references_section("# %% [markdown]\n# Text [1].")[1] is None
    assert short_authors(REFS["1"]) == "Schick et al." and short_authors(REFS["21"]) == "Anthropic"


@pytest.mark.parametrize("stem", [f"{n:02d}" for n in range(1, LESSON_COUNT + 1)])
def test_each_notebook_ends_with_references_listing_exactly_what_it_cites(stem):
    """Issue 12, point 1: every [n] a notebook cites resolves in its own References section."""
    sources = notebook_sources()
    name = next(s for s in sources if s.startswith(stem + "_"))
    body, section, last = references_section(sources[name])
    assert section is not None, f"{name}.py has no '## References' markdown cell"
    assert last, f"{name}.py: the References section must be the notebook's last cell"
    cited, listed = citations(body), reference_entries(section)
    assert not cited - set(listed), f"{name}.py cites {sorted(cited - set(listed))} but its References do not list them"
    assert not set(listed) - cited, f"{name}.py lists {sorted(set(listed) - cited)} in References but never cites them"
    for n, line in listed.items():
        assert str(n) in REFS, f"{name}.py lists [{n}], which data/references.json does not hold"
        ref = REFS[str(n)]
        assert ref["title"] in line, f"{name}.py [{n}]: the title should read {ref['title']!r}"
        assert short_authors(ref) in line, f"{name}.py [{n}]: authors should read {short_authors(ref)!r}"
        assert str(ref["year"] or "undated") in line, f"{name}.py [{n}]: year {ref['year'] or 'undated'}"
        if ref["link"]:
            assert f"<{ref['link']}>" in line, f"{name}.py [{n}]: give the link as <{ref['link']}>"
        else:
            assert "no link" in line.lower() and "pack" in line, (
                f"{name}.py [{n}]: say there is no link and where in the pack the source is named"
            )
        if ref.get("published"):
            assert flat(published_text(ref)) in flat(line), (
                f"{name}.py [{n}]: show the published venue too: {published_text(ref)!r}"
            )
        if ref.get("beyond_pack"):
            assert "beyond the pack" in line.lower(), f"{name}.py [{n}]: say this source goes beyond the pack"


def published_text(ref) -> str:
    """What a References line adds for a paper that has since appeared: its venue, and a changed author list."""
    published = ref["published"]
    text = f"Published: {published['venue']}"
    extra = [a for a in published.get("authors", []) if a not in ref["authors"]]
    if extra:
        text += f", with {len(published['authors'])} authors (adds {', '.join(extra)})"
    return text + "."


def reference_entry(n: int) -> str:
    """The Markdown line a References section gives [n]: short authors, title, year, link."""
    ref = REFS[str(n)]
    year = ref["year"] or "undated"
    tail = f" {published_text(ref)}" if ref.get("published") else ""
    if ref.get("beyond_pack"):
        tail += " (Beyond the pack.)"
    if ref["link"]:
        return f"- [{n}] {short_authors(ref)}, *{ref['title']}*, {year}. <{ref['link']}>{tail}"
    return (
        f"- [{n}] {short_authors(ref)}, *{ref['title']}*, {ref['venue']}, {year}. No link: the "
        f"course pack names these slides in its credit line and in §2.9 but leaves them out of "
        f"its reference list."
    )


def references_cell(source: str) -> str:
    """A References cell (jupytext percent) for a lesson script: every [n] it cites, in order.

    Print one with `python tests/test_course_references.py NN` and paste it as the last cell.
    """
    body, _, _ = references_section(source)
    lines = [
        '# %% [markdown] slideshow={"slide_type": "slide"}',
        "# ## References",
        "#",
        "# The sources this notebook cites, under the course pack's numbers (all of them, with",
        "# venues, are in `data/references.json`).",
        "#",
    ]
    if any(REFS[str(n)].get("beyond_pack") for n in citations(body)):
        lines[-1:] = [
            "# Sources marked (Beyond the pack.) go past the course pack; each was checked against the",
            "# source itself on the date `data/references.json` gives.",
            "#",
        ]
    for n in sorted(citations(body)):
        wrapped = textwrap.wrap(
            reference_entry(n), 94, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
        )
        lines += ["# " + line for line in wrapped]
    return "\n".join(lines) + "\n"


def test_a_rendered_references_cell_passes_the_check():
    source = "# %% [markdown]\n# Toolformer [1], the slides [30] and MCP [3]."
    cell = references_cell(source)
    _, section, last = references_section(source + "\n\n" + cell)
    assert last and sorted(reference_entries(section)) == [1, 3, 30]


# ---------------------------------------------------------------- the reading guide, shown


def flat(text: str) -> str:
    return " ".join(text.split())


def reading_guide_cell(source: str):
    """The markdown of the cell headed "## Reading guide", flattened to one line (or None)."""
    for marker, body in script_cells(source):
        text = markdown_text(body)
        if marker and "[markdown]" in marker and text.startswith("## Reading guide"):
            return flat(text)
    return None


@pytest.mark.parametrize("entry", GUIDE, ids=[f"[{e['ref']}] {e['notebook'][:2]}" for e in GUIDE])
def test_the_notebook_a_reading_belongs_to_shows_its_questions(entry):
    """Issue 12, point 1: a reading's questions are where a student reads the notebook."""
    stem = entry["notebook"]
    cell = reading_guide_cell(notebook_sources()[stem])
    assert cell is not None, f"{stem}.py has no '## Reading guide' markdown cell (reading [{entry['ref']}])"
    assert f"[{entry['ref']}]" in cell, f"{stem}.py: its reading guide does not name [{entry['ref']}]"
    for question in entry["questions"]:
        assert flat(question) in cell, f"{stem}.py: reading guide lacks the question {question!r}"
    for page in entry.get("pages", []):
        assert page["url"] in cell and flat(page["look_for"]) in cell, f"{stem}.py: spec page {page['page']}"


# ---------------------------------------------------------------- docs: glossary and syllabus

DOCS = ROOT / "docs"
NOTEBOOK_LINK = re.compile(r"^\[(\d\d)\]\(\.\./notebooks/(\d\d_\w+)\.ipynb\)$")


def doc_section(page: str, title: str) -> str:
    """The text of docs/PAGE's "## title" section, up to the next "## " heading."""
    text = (DOCS / page).read_text(encoding="utf-8")
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"docs/{page} has no '## {title}' section"
    return m.group(1)


def table_rows(text: str, first_header: str):
    """Rows (lists of stripped cells) of the Markdown table whose first header cell is first_header."""
    lines = text.splitlines()
    start = next(
        (
            i
            for i, line in enumerate(lines)
            if line.startswith("|") and line.strip("| ").split("|")[0].strip() == first_header
        ),
        None,
    )
    assert start is not None, f"no table headed {first_header!r}"
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not all(set(c) <= set("-: ") for c in cells):
            rows.append(cells)
    return rows


def test_the_readme_glossary_is_the_glossary_data():
    """Issue 12, point 3: docs/glossary.md shows data/glossary.json, and cannot drift from it."""
    header, *rows = table_rows((DOCS / "glossary.md").read_text(encoding="utf-8"), "term")
    assert header == ["term", "meaning", "taught in"], header
    sources = notebook_sources()
    shown = []
    for term, meaning, where in rows:
        link = NOTEBOOK_LINK.match(where)
        assert link and link.group(2) in sources and link.group(2).startswith(link.group(1)), (
            f"{term}: 'taught in' should link a notebook, like [04](../notebooks/04_thousands_of_tools.ipynb)"
        )
        shown.append((term, meaning, link.group(2)))
    expected = [(t["term"], t["definition"], t["notebook"]) for t in GLOSSARY]
    missing = [e for e in expected if e not in shown]
    extra = [s for s in shown if s not in expected]
    assert not missing and not extra, (
        f"docs/glossary.md differs from data/glossary.json: missing {missing}, extra {extra}"
    )
    assert shown == expected, "docs/glossary.md rows should follow the order of data/glossary.json"


# The pack's own time budget (pack §1, "How to use this pack"), in hours.
BUDGET_LINE = re.compile(r"^(\d+(?:\.\d+)?) hours?\t(.+)$")
BUDGET = {"notes": 2.5, "required reading": 3.5, "lab": 3.0, "discussion and quiz": 1.0, "assignment": 2.0}
STUDY_TIME = 12


def test_the_budget_is_the_packs():
    if not PACK.exists():
        pytest.skip(f"course pack not found at {PACK}")
    text = PACK.read_text(encoding="utf-8")
    hours = [float(m.group(1)) for m in map(BUDGET_LINE.match, text.splitlines()) if m]
    assert hours == list(BUDGET.values())  # notes, readings, lab and exercises, discussion, assignment
    assert f"Study time: about {STUDY_TIME} hours" in text and sum(hours) == STUDY_TIME


def minutes(cell: str) -> int:
    cell = cell.strip("* ")
    return 0 if cell in ("–", "-", "") else int(cell)


def test_the_syllabus_time_plan_adds_up_to_the_packs_study_time():
    """Issue 12, point 2: the per-notebook minutes, column by column, are the pack's budget."""
    header, *rows = table_rows(doc_section("teaching.md", "Time plan"), "notebook")
    columns = [
        "notes",
        "required reading",
        "running the cells",
        "exercises",
        "discussion and quiz",
        "assignment",
        "total",
    ]
    assert [h.lower() for h in header[1:]] == columns, header
    lessons = [r for r in rows if re.match(r"\d\d\b", r[0])]
    assert [r[0][:2] for r in lessons] == [f"{n:02d}" for n in range(1, LESSON_COUNT + 1)]
    sums = dict.fromkeys(columns, 0)
    for row in lessons:
        values = [minutes(c) for c in row[1:]]
        assert values[-1] == sum(values[:-1]), f"notebook {row[0]}: its total is not the sum of its parts"
        for column, value in zip(columns, values):
            sums[column] += value
    assert sums["notes"] == BUDGET["notes"] * 60
    assert sums["required reading"] == BUDGET["required reading"] * 60
    assert sums["running the cells"] + sums["exercises"] == BUDGET["lab"] * 60
    assert sums["discussion and quiz"] == BUDGET["discussion and quiz"] * 60
    assert sums["assignment"] == BUDGET["assignment"] * 60
    assert sums["total"] == STUDY_TIME * 60
    total_row = next((r for r in rows if r[0].strip("* ").lower() == "total"), None)
    assert total_row and [minutes(c) for c in total_row[1:]] == list(sums.values()), "the total row"


def exercises_of(source: str) -> set:
    return {int(n) for n in re.findall(r"^# ## Exercise (\d+):", source, re.M)}


def test_the_syllabus_maps_each_objective_to_notebooks_that_teach_it():
    """Issue 12, point 2: the pack's eleven objectives, each taught by at least one notebook."""
    section = doc_section("teaching.md", "Learning objectives")
    header, *rows = table_rows(section, "#")
    assert [h.lower() for h in header[:4]] == ["#", "after the week you can", "notebooks", "exercises"], header
    assert [r[0] for r in rows] == [str(n) for n in range(1, 12)], "the eleven objectives, numbered 1-11"
    sources = notebook_sources()
    by_number = {stem[:2]: src for stem, src in sources.items()}
    for number, objective, notebooks, exercises, *_ in rows:
        named = re.findall(r"\b\d\d\b", notebooks)
        assert named, f"objective {number} names no notebook"
        assert all(n in by_number for n in named), f"objective {number}: {named} are not all notebooks"
        taught = set().union(*(exercises_of(by_number[n]) for n in named))
        listed = {int(e) for e in re.findall(r"\d+", exercises)}
        assert listed <= taught, f"objective {number}: exercises {sorted(listed - taught)} are not in notebooks {named}"
        assert len(objective.split()) >= 6, f"objective {number} is not written out"
    assert doc_section("teaching.md", "The graded assignment").strip(), "teaching.md: the assignment's parts"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "\n## Prerequisites\n" in readme, "the README says what a student needs before the week"


if __name__ == "__main__":
    # Print the References cell a notebook should end with: python tests/test_course_references.py 06
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/test_course_references.py NN   (prints notebook NN's References cell)")
    stems = [s for s in notebook_sources() if s.startswith(sys.argv[1] + "_")]
    if not stems:
        sys.exit(f"no notebook numbered {sys.argv[1]!r} in notebooks/")
    print(references_cell(notebook_sources()[stems[0]]), end="")


BEYOND_HEADING = re.compile(r"^# #{2,3} (.+?) \(beyond the pack\)$", re.M)


def test_every_section_beyond_the_pack_is_in_the_syllabus_as_optional_with_its_minutes():
    """Issue 21: the time plan says which sections were added, that they are optional, and how long they take."""
    section = doc_section("teaching.md", "Optional sections beyond the pack")
    assert "optional" in section.lower()
    header, *rows = table_rows(section, "notebook")
    assert [h.lower() for h in header] == ["notebook", "optional section", "minutes"], header
    listed = [(r[0], r[1]) for r in rows if r[0][:2].isdigit()]
    for stem, source in notebook_sources().items():
        for title in BEYOND_HEADING.findall(source):
            assert (stem[:2], title) in listed, f"{stem}: '{title} (beyond the pack)' is not in the optional table"
    total = next(r for r in rows if r[0].strip("* ").lower() == "total")
    assert minutes(total[2]) == sum(minutes(r[2]) for r in rows if r[0][:2].isdigit())
