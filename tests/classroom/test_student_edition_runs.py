"""The student edition a class gets, run top to bottom (issues 12 and 22; scripts/make_student.py).

The session's ``make student --git`` edition (tests/conftest.py) is copied and each of its twelve
notebooks runs in a fresh kernel, two at a time: none may crash, an unfinished check says "not
done yet", every output the edition keeps is one the student's own notebook prints, and no text
that only a solution produces is left anywhere in it. How the edition is built and protected is
tested, faster, in tests/test_notebook_pipeline.py.
"""

import concurrent.futures
import json
import multiprocessing
import re
import shutil

import pytest
from test_notebook_pipeline import NOTEBOOKS, P, check_text, folder_hash, lessons, nbformat


@pytest.fixture(scope="module")
def notebooks_before():
    return folder_hash(NOTEBOOKS)


@pytest.fixture(scope="module")
def student_run(notebooks_before, student_edition, tmp_path_factory):  # notebooks_before: hashed before the build
    """The session's `make student` edition (the script itself) and each notebook run top to bottom:
    ``[(name, teacher, saved student notebook, the same notebook after running)]``. They run in a
    copy, as a student's would, so that the shared edition stays as built (no __pycache__, no
    files the lessons write)."""
    copy = shutil.copytree(student_edition, tmp_path_factory.mktemp("student-run") / "student", symlinks=True)
    paths = sorted((copy / "notebooks").glob("*.ipynb"))
    # two notebooks at a time, each from its own process (nbclient's event loops belong to one
    # thread): much of a run is a kernel starting up and waiting
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=2, mp_context=spawn) as pool:
        ran = list(pool.map(P.execute_notebook, [P.read_ipynb(p) for p in paths], [p.parent for p in paths]))
    return [
        (p.name, P.read_ipynb(NOTEBOOKS / p.name), P.read_ipynb(p), P.coalesce_streams(nb)) for p, nb in zip(paths, ran)
    ]


@pytest.mark.kernel
def test_every_student_notebook_runs_top_to_bottom(student_run, notebooks_before):
    """The edition a class gets runs without a crash; unfinished checks say 'not done yet'."""
    assert folder_hash(NOTEBOOKS) == notebooks_before
    assert sorted(name for name, *_ in student_run) == sorted(p.name for p in lessons())
    for name, _, saved, ran in student_run:
        if any("check" in P.tags_of(c) for c in saved.cells):
            assert "not done yet" in check_text(ran), name


# -- the student edition holds no answer (issue 12) ---------------------------------------------

MODEL_ID = re.compile(r"[0-9a-f]{32}")


def sanitize_patterns():
    """nbval's patterns (notebooks/nbval_sanitize.cfg): what may vary from run to run."""
    import configparser

    cfg = configparser.ConfigParser()
    cfg.read(NOTEBOOKS / "nbval_sanitize.cfg", encoding="utf-8")
    return [(re.compile(cfg[s]["regex"]), cfg[s]["replace"]) for s in cfg.sections()]


def shown(cell, patterns) -> str:
    """What a cell's outputs show, as text (images left out; widget ids and run-to-run noise masked).
    For a cell whose output legitimately varies (a live view), only the kinds of output count."""
    parts = []
    for o in cell.get("outputs", []):
        if "nbval-ignore-output" in P.tags_of(cell):
            parts.append(f"{o.output_type} {o.get('name', '')} {sorted(o.get('data', {}))}")
        elif o.output_type == "stream":
            parts.append(o.text)
        elif o.output_type == "error":
            parts.append(f"error {o.ename}")
        else:
            parts += [
                f"{k}: {v if isinstance(v, str) else json.dumps(v, sort_keys=True)}"
                for k, v in sorted(o.get("data", {}).items())
                if not k.startswith("image/")
            ]
    text = MODEL_ID.sub("MODEL", "\n".join(parts))
    for pattern, replace in patterns:
        text = pattern.sub(replace, text)
    return text


@pytest.mark.kernel
def test_saved_student_outputs_are_what_the_student_edition_prints(student_run):
    """Every output the student edition keeps is one the student's own notebook produces when run
    before any exercise is done: nothing saved there was computed by a reference solution."""
    patterns = sanitize_patterns()
    differ = []
    for name, _, saved, ran in student_run:
        for i, (before, after) in enumerate(zip(saved.cells, ran.cells)):
            if before.cell_type == "code" and before.outputs and shown(before, patterns) != shown(after, patterns):
                differ.append(f"{name} cell {i}: {before.source[:70]!r}")
    assert differ == [], "saved outputs the student edition does not produce by itself:\n" + "\n".join(differ)


def strings_in(value):
    """Every string inside a JSON value (keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def output_lines(cell):
    for o in cell.get("outputs", []):
        texts = [o.get("text", "")] + [
            v for k, v in o.get("data", {}).items() if isinstance(v, str) and not k.startswith("image/")
        ]
        yield from (line.strip() for text in texts for line in text.splitlines())


def solution_text(teacher) -> set[str]:
    """Distinctive text from a notebook's solution cells: their source lines, the string
    literals in their code, and what they printed in the instructor's notebook."""
    import ast

    found = set()
    for cell in teacher.cells:
        if "solution" not in P.tags_of(cell):
            continue
        found |= {line.strip() for line in cell.source.splitlines()}
        found |= set(output_lines(cell))
        try:
            tree = ast.parse(cell.source) if cell.cell_type == "code" else None
        except SyntaxError:  # not plain Python: its lines above still count
            tree = None
        found |= {
            node.value.strip()
            for node in ast.walk(tree or ast.Module(body=[], type_ignores=[]))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
        }
    return {s for s in found if len(s) >= 12 or (len(s) >= 8 and " " in s)}


@pytest.mark.kernel
def test_no_student_notebook_holds_text_only_a_solution_produces(student_run):
    """Held out from how `make student` strips: scan each student notebook whole (cells, outputs,
    notebook metadata, saved widget state) for text from its solution cells. Text the student
    edition has anyway (the lesson's own sources, what it prints and draws when run without the
    solutions) does not count."""
    leaks = []
    for name, teacher, saved, ran in student_run:
        public = "\n".join(c.source for c in teacher.cells if "solution" not in P.tags_of(c))
        public += "\n".join(strings_in(json.loads(nbformat.writes(ran))))
        secret = {s for s in solution_text(teacher) if s not in public}
        for where in ("cells", "metadata"):
            for text in strings_in(json.loads(nbformat.writes(saved))[where]):
                leaks += [f"{name} ({where}): {s[:80]!r}" for s in secret if s in text]
    assert leaks == [], "solution text in the student edition:\n" + "\n".join(sorted(set(leaks)))
