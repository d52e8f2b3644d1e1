"""The notebook pipeline: pairs in sync, safe rebuilds, the student edition (issue 4).

These tests read notebooks/ and never write there: anything that builds or edits works on
copies in a temporary folder.
"""

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("jupytext")
pytest.importorskip("nbclient")

import nbpipeline as P  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
NAME = re.compile(r"^\d\d_[a-z0-9_]+$")
WIDGET = "application/vnd.jupyter.widget-view+json"


def lessons():
    return [ipynb for _, ipynb in P.pairs(NOTEBOOKS) if ipynb.exists()]


def folder_hash(folder: Path) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".ipynb_checkpoints" not in p.parts}


@pytest.fixture(scope="module")
def notebooks_before():
    return folder_hash(NOTEBOOKS)


# -- pairs and the sync check -----------------------------------------------------------------


def test_there_are_notebooks_and_every_pair_is_in_sync():
    assert lessons(), "notebooks/ has no lessons; run `make notebooks`"
    problems = P.sync_problems(NOTEBOOKS)
    assert problems == [], "\n\n".join(problems)


def test_the_in_process_check_agrees_with_the_projects_command():
    """The project's sync check is a jupytext command line; ours must give the same text."""
    ipynb = lessons()[0]
    cmd = [sys.executable, "-m", "jupytext", "--to", "py:percent",
           "--opt", "notebook_metadata_filter=-all",
           "--opt", "cell_metadata_filter=tags,slideshow,-all", "-o", "-", str(ipynb)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out == ipynb.with_suffix(".py").read_text(encoding="utf-8")
    assert out == P.py_text(P.read_ipynb(ipynb))


def test_jupytext_config_matches_the_pipeline():
    text = (ROOT / "jupytext.toml").read_text()
    assert 'formats = "ipynb,py:percent"' in text
    assert 'notebook_metadata_filter = "-all"' in text
    assert 'cell_metadata_filter = "tags,slideshow,-all"' in text


def test_sync_check_reports_each_kind_of_problem(tmp_path):
    src = lessons()[0]
    py, ipynb = tmp_path / src.with_suffix(".py").name, tmp_path / src.name
    py.write_text(src.with_suffix(".py").read_text(encoding="utf-8"), encoding="utf-8")
    ipynb.write_bytes(src.read_bytes())
    assert P.sync_problems(tmp_path) == []
    py.write_text(py.read_text(encoding="utf-8") + "\n# %%\nprint('new cell')\n", encoding="utf-8")
    [problem] = P.sync_problems(tmp_path)
    assert "differ" in problem and "make notebooks" in problem and "new cell" in problem
    (tmp_path / "99_lonely.py").write_text("# %%\n1\n", encoding="utf-8")
    (tmp_path / "98_orphan.ipynb").write_bytes(src.read_bytes())
    problems = "\n".join(P.sync_problems(tmp_path))
    assert "99_lonely.py has no 99_lonely.ipynb" in problems
    assert "98_orphan.ipynb has no 98_orphan.py" in problems
    (tmp_path / "97_broken.py").write_text("# %%\n1\n", encoding="utf-8")
    (tmp_path / "97_broken.ipynb").write_text("{not json", encoding="utf-8")
    assert "not a readable notebook" in "\n".join(P.sync_problems(tmp_path))
    script = subprocess.run([sys.executable, str(ROOT / "scripts" / "check_sync.py"), str(tmp_path)],
                            capture_output=True, text=True)
    assert script.returncode == 1 and "problem(s)" in script.stdout


# -- conventions every lesson follows (notebooks/AUTHORING.md) ------------------------------


@pytest.mark.parametrize("ipynb", lessons(), ids=lambda p: p.stem)
def test_lesson_follows_the_conventions(ipynb):
    assert NAME.match(ipynb.stem), f"{ipynb.name}: names look like 03_learning_to_call_tools"
    nb = P.read_ipynb(ipynb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and "import toolkit as T" in code[0].source, "the first code cell imports toolkit as T"
    compared = 0
    for cell in nb.cells:
        tags = P.tags_of(cell)
        if cell.cell_type == "markdown" and cell.source.startswith("## ") and "solution" not in tags:
            assert cell.metadata.get("slideshow", {}).get("slide_type") == "slide", \
                f"{ipynb.name}: the '##' heading {cell.source.splitlines()[0]!r} needs slide_type 'slide'"
        if cell.cell_type != "code":
            continue
        assert cell.execution_count is not None, f"{ipynb.name}: a code cell was never run"
        assert not any(o.output_type == "error" for o in cell.outputs), f"{ipynb.name}: stored error"
        if "nbval-ignore-output" in tags:
            assert any(WIDGET in o.get("data", {}) for o in cell.outputs), \
                f"{ipynb.name}: nbval-ignore-output is only for cells that show a widget"
        elif cell.outputs:
            compared += 1
        if "check" in tags:
            text = "".join(o.get("text", "") for o in cell.outputs)
            assert "checks passed" in text and "not done" not in text and "✗" not in text, \
                f"{ipynb.name}: a check cell's stored output should show the solution passing"
    assert compared, f"{ipynb.name}: needs at least one output that nbval compares"


@pytest.mark.parametrize("ipynb", lessons(), ids=lambda p: p.stem)
def test_exercise_cells_come_in_order(ipynb):
    """starter → solution → check; a solution or check never appears on its own."""
    expected = {"solution": "starter", "check": "solution"}
    last = None
    for cell in P.read_ipynb(ipynb).cells:
        if cell.cell_type != "code":
            continue
        tags = [t for t in P.tags_of(cell) if t in P.EXERCISE_TAGS]
        for tag in tags:
            if tag in expected:
                assert last == expected[tag], f"{ipynb.name}: a '{tag}' cell must follow a '{expected[tag]}' cell"
            last = tag
        if not tags:
            last = None


# -- safe rebuilds ------------------------------------------------------------------------------


def make_pair(folder: Path, source: str, stem: str = "50_demo") -> tuple[Path, Path]:
    py, ipynb = folder / f"{stem}.py", folder / f"{stem}.ipynb"
    py.write_text(source, encoding="utf-8")
    P.build_one(py, ipynb)
    return py, ipynb


DEMO = '# %% [markdown]\n# # demo\n\n# %%\nimport toolkit as T\nprint(6 * 7)\n'


def test_build_writes_outputs_and_stable_ids(tmp_path):
    py, ipynb = make_pair(tmp_path, DEMO)
    nb = P.read_ipynb(ipynb)
    assert nb.cells[1].outputs[0]["text"] == "42\n"
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert P.py_text(nb) == py.read_text(encoding="utf-8")
    first = [c.id for c in nb.cells]
    P.build_one(py, ipynb)
    assert [c.id for c in P.read_ipynb(ipynb).cells] == first


def test_rebuilding_an_unchanged_notebook_writes_the_same_bytes(tmp_path):
    """Widget model ids are random and stdout arrives in chunks; neither may change the file."""
    pytest.importorskip("ipywidgets")
    source = DEMO + ("\n# %%\nimport ipywidgets as w\nw.VBox([w.IntSlider(3), w.HTML('hi')])\n"
                     "\n# %%\nimport sys\nfor i in range(300):\n    print(i)\n    sys.stdout.flush()\n")
    py, ipynb = make_pair(tmp_path, source)
    first = ipynb.read_bytes()
    nb = P.read_ipynb(ipynb)
    assert nb.metadata["widgets"][P.WIDGET_STATE]["state"]
    [stream] = nb.cells[-1].outputs
    assert stream["text"] == "".join(f"{i}\n" for i in range(300))
    P.build_one(py, ipynb)
    assert ipynb.read_bytes() == first


def test_rebuild_plan_protects_edits_made_in_jupyter(tmp_path):
    py, ipynb = make_pair(tmp_path, DEMO)
    assert P.plan(py, ipynb).action == "build"                 # in sync: fine to re-run
    py.write_text(DEMO.replace("6 * 7", "6 * 8"), encoding="utf-8")
    assert P.plan(py, ipynb).action == "build"                 # only the .py changed
    nb = P.read_ipynb(ipynb)
    nb.cells[1].source = "print('my own work')"                 # edited in Jupyter, .py not synced
    nbformat.write(nb, str(ipynb))
    refused = P.plan(py, ipynb)
    assert refused.action == "refuse"
    assert "jupytext --sync" in refused.reason and "FORCE=1" in refused.reason
    assert P.plan(py, ipynb, force=True).action == "build"
    assert P.plan(tmp_path / "51_none.py", ipynb).action == "refuse"


def test_execute_pair_runs_in_a_child_process_and_times_out(tmp_path):
    py, ipynb = tmp_path / "60_slow.py", tmp_path / "60_slow.ipynb"
    py.write_text(DEMO, encoding="utf-8")
    seconds = P.execute_pair(py, ipynb, timeout=120)
    assert seconds > 0 and P.read_ipynb(ipynb).cells[1].outputs[0]["text"] == "42\n"
    before = ipynb.read_bytes()
    py.write_text(DEMO + "\n# %%\nimport time\ntime.sleep(60)\n", encoding="utf-8")
    with pytest.raises(P.PipelineError, match="did not finish within"):
        P.execute_pair(py, ipynb, timeout=6)
    assert ipynb.read_bytes() == before                         # left as it was
    py.write_text(DEMO + "\n# %%\n1 / 0\n", encoding="utf-8")
    with pytest.raises(P.PipelineError, match="failed while running"):
        P.execute_pair(py, ipynb, timeout=120)
    assert ipynb.read_bytes() == before


def test_make_notebooks_refuses_with_a_clear_message(tmp_path, monkeypatch):
    """The command-line script, end to end, on a copy: refuses and changes nothing."""
    import execute_notebooks
    py, ipynb = make_pair(tmp_path, DEMO)
    nb = P.read_ipynb(ipynb)
    nb.cells[1].source = "print('edited in Jupyter')"
    nbformat.write(nb, str(ipynb))
    before = ipynb.read_bytes()
    monkeypatch.setattr(execute_notebooks, "NOTEBOOKS", tmp_path)
    assert execute_notebooks.main([]) == 1
    assert ipynb.read_bytes() == before
    assert execute_notebooks.main(["no_such_notebook"]) == 1


# -- the student edition -------------------------------------------------------------------------

EXERCISE = '''# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercise 99: double it

# %%
import toolkit as T
from toolkit.checks import Checker


def check_double(fn):
    c = Checker("Exercise 99: double it")
    c.run("double(2) is 4", lambda: c.call(fn, 2) == 4, "multiply by two")
    c.run("double(-3) is -6", lambda: c.call(fn, -3) == -6, "negative numbers too")
    return c.done()

# %% tags=["starter"]
def double(x):
    raise NotImplementedError("Exercise 99: return twice x")

# %% tags=["solution"]
def double(x):
    return 2 * x

# %% tags=["check"]
check_double(double)

# %% [markdown]
# Why is doubling easy?

# %% [markdown] tags=["solution"]
# Because SECRET-MODEL-ANSWER.
'''


def run_copy(nb, folder: Path):
    return P.execute_notebook(nbformat.from_dict(json.loads(json.dumps(nb))), folder)


def check_text(nb) -> str:
    return "".join(o.get("text", "") for c in nb.cells if "check" in P.tags_of(c) for o in c.outputs)


def test_student_edition_of_an_exercise(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    py, ipynb = make_pair(src, EXERCISE, "90_exercise")
    teacher = P.read_ipynb(ipynb)
    assert "All 2 checks passed" in check_text(teacher)           # the solution passes
    student = P.to_student(teacher)
    sources = "\n".join(c.source for c in student.cells)
    assert "return 2 * x" not in sources and "SECRET-MODEL-ANSWER" not in sources
    assert P.SOLUTION_STUB in sources and P.ANSWER_STUB in sources
    assert all(not c.outputs for c in student.cells if c.cell_type == "code"
               and set(P.tags_of(c)) & {"starter", "check", "your-turn"})
    ran = run_copy(student, src)                                  # never crashes ...
    assert "not done yet" in check_text(ran)                      # ... and says what to do
    attempt = nbformat.from_dict(json.loads(json.dumps(student)))
    for cell in attempt.cells:
        if "starter" in P.tags_of(cell):
            cell.source = "def double(x):\n    return x + 2\n"   # a wrong attempt
    wrong = check_text(run_copy(attempt, src))
    assert "1 of 2 checks passed" in wrong and "Traceback" not in wrong


def test_make_student_builds_the_edition_and_leaves_notebooks_alone(tmp_path, notebooks_before):
    out = tmp_path / "student"
    written = P.build_student(out)
    assert folder_hash(NOTEBOOKS) == notebooks_before
    assert sorted(p.name for p in written) == sorted(p.name for p in lessons())
    if (ROOT / "figures").is_dir() and any((ROOT / "figures").iterdir()):
        assert any((out / "figures").iterdir())
    assert 'formats = "ipynb"' in (out / "jupytext.toml").read_text()
    for teacher_path, student_path in zip(sorted(lessons()), sorted(written)):
        teacher, student = P.read_ipynb(teacher_path), P.read_ipynb(student_path)
        assert len(teacher.cells) == len(student.cells)
        for t, s in zip(teacher.cells, student.cells):
            if "solution" in P.tags_of(t):
                assert s.source in (P.SOLUTION_STUB, P.ANSWER_STUB)
                if t.source.strip():
                    assert t.source not in s.source
            elif set(P.tags_of(t)) & {"starter", "check"}:
                assert s.source == t.source and not s.outputs
            else:
                assert s.source == t.source


def test_student_edition_never_overwrites_a_students_work(tmp_path):
    out = tmp_path / "student"
    [first, *_] = P.build_student(out)
    P.build_student(out)                                           # unchanged: rebuild is fine
    nb = P.read_ipynb(first)
    nb.cells[0].source += "\n\nmy notes"
    nbformat.write(nb, str(first))
    mine = first.read_bytes()
    with pytest.raises(P.PipelineError, match="FORCE=1"):
        P.build_student(out)
    assert first.read_bytes() == mine
    P.build_student(out, force=True)
    assert first.read_bytes() != mine
    with pytest.raises(P.PipelineError, match="outside"):
        P.build_student(NOTEBOOKS / "student")


def test_every_student_notebook_runs_top_to_bottom(tmp_path, notebooks_before):
    """The edition a class gets runs without a crash; unfinished checks say 'not done yet'."""
    out = tmp_path / "student"
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_student.py"), "--out", str(out)],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert folder_hash(NOTEBOOKS) == notebooks_before
    for path in sorted((out / "notebooks").glob("*.ipynb")):
        nb = P.read_ipynb(path)
        has_checks = any("check" in P.tags_of(c) for c in nb.cells)
        ran = P.execute_notebook(nb, path.parent)
        if has_checks:
            assert "not done yet" in check_text(ran), path.name


def test_makefile_runs_every_step():
    dry = subprocess.run(["make", "-n", "test", "notebooks", "student"], capture_output=True, text=True,
                         cwd=ROOT).stdout
    assert "check_sync.py" in dry and "--nbval" in dry and "nbval_sanitize.cfg" in dry
    assert "execute_notebooks.py" in dry and "make_student.py" in dry
    assert "notebooks/[0-9][0-9]_*.ipynb" in dry
