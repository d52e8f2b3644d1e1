"""The notebook pipeline: pairs in sync, safe rebuilds, the student edition (issue 4).

These tests read notebooks/ and never write there: anything that builds or edits works on
copies in a temporary folder.
"""

import hashlib
import json
import re
import shutil
import subprocess
import sys
from html import escape as html_escape
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
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".ipynb_checkpoints" not in p.parts
    }


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
    cmd = [
        sys.executable,
        "-m",
        "jupytext",
        "--to",
        "py:percent",
        "--opt",
        "notebook_metadata_filter=-all",
        "--opt",
        "cell_metadata_filter=tags,slideshow,-all",
        "-o",
        "-",
        str(ipynb),
    ]
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
    script = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_sync.py"), str(tmp_path)], capture_output=True, text=True
    )
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
            assert cell.metadata.get("slideshow", {}).get("slide_type") == "slide", (
                f"{ipynb.name}: the '##' heading {cell.source.splitlines()[0]!r} needs slide_type 'slide'"
            )
        if cell.cell_type != "code":
            continue
        assert cell.execution_count is not None, f"{ipynb.name}: a code cell was never run"
        assert not any(o.output_type == "error" for o in cell.outputs), f"{ipynb.name}: stored error"
        if "nbval-ignore-output" in tags:
            assert any(WIDGET in o.get("data", {}) for o in cell.outputs), (
                f"{ipynb.name}: nbval-ignore-output is only for cells that show a widget"
            )
        elif cell.outputs:
            compared += 1
        if "check" in tags:
            text = "".join(o.get("text", "") for o in cell.outputs)
            assert "checks passed" in text and "not done" not in text and "✗" not in text, (
                f"{ipynb.name}: a check cell's stored output should show the solution passing"
            )
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


DEMO = "# %% [markdown]\n# # demo\n\n# %%\nimport toolkit as T\nprint(6 * 7)\n"


@pytest.mark.kernel
def test_build_writes_outputs_and_stable_ids(tmp_path):
    py, ipynb = make_pair(tmp_path, DEMO)
    nb = P.read_ipynb(ipynb)
    assert nb.cells[1].outputs[0]["text"] == "42\n"
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert P.py_text(nb) == py.read_text(encoding="utf-8")
    first = [c.id for c in nb.cells]
    P.build_one(py, ipynb)
    assert [c.id for c in P.read_ipynb(ipynb).cells] == first


@pytest.mark.kernel
def test_rebuilding_an_unchanged_notebook_writes_the_same_bytes(tmp_path):
    """Widget model ids are random and stdout arrives in chunks; neither may change the file."""
    pytest.importorskip("ipywidgets")
    source = DEMO + (
        "\n# %%\nimport ipywidgets as w\nw.VBox([w.IntSlider(3), w.HTML('hi')])\n"
        "\n# %%\nimport sys\nfor i in range(300):\n    print(i)\n    sys.stdout.flush()\n"
    )
    py, ipynb = make_pair(tmp_path, source)
    first = ipynb.read_bytes()
    nb = P.read_ipynb(ipynb)
    assert nb.metadata["widgets"][P.WIDGET_STATE]["state"]
    [stream] = nb.cells[-1].outputs
    assert stream["text"] == "".join(f"{i}\n" for i in range(300))
    P.build_one(py, ipynb)
    assert ipynb.read_bytes() == first


@pytest.mark.kernel
def test_rebuild_plan_protects_edits_made_in_jupyter(tmp_path):
    py, ipynb = make_pair(tmp_path, DEMO)
    assert P.plan(py, ipynb).action == "build"  # in sync: fine to re-run
    py.write_text(DEMO.replace("6 * 7", "6 * 8"), encoding="utf-8")
    assert P.plan(py, ipynb).action == "build"  # only the .py changed
    nb = P.read_ipynb(ipynb)
    nb.cells[1].source = "print('my own work')"  # edited in Jupyter, .py not synced
    nbformat.write(nb, str(ipynb))
    refused = P.plan(py, ipynb)
    assert refused.action == "refuse"
    assert "jupytext --sync" in refused.reason and "FORCE=1" in refused.reason
    assert P.plan(py, ipynb, force=True).action == "build"
    assert P.plan(tmp_path / "51_none.py", ipynb).action == "refuse"


@pytest.mark.kernel
def test_execute_pair_runs_in_a_child_process_and_times_out(tmp_path):
    py, ipynb = tmp_path / "60_slow.py", tmp_path / "60_slow.ipynb"
    py.write_text(DEMO, encoding="utf-8")
    seconds = P.execute_pair(py, ipynb, timeout=120)
    assert seconds > 0 and P.read_ipynb(ipynb).cells[1].outputs[0]["text"] == "42\n"
    before = ipynb.read_bytes()
    py.write_text(DEMO + "\n# %%\nimport time\ntime.sleep(60)\n", encoding="utf-8")
    with pytest.raises(P.PipelineError, match="did not finish within"):
        P.execute_pair(py, ipynb, timeout=3)  # stopped during the start or the sleep: the same error
    assert ipynb.read_bytes() == before  # left as it was
    py.write_text(DEMO + "\n# %%\n1 / 0\n", encoding="utf-8")
    with pytest.raises(P.PipelineError, match="failed while running"):
        P.execute_pair(py, ipynb, timeout=120)
    assert ipynb.read_bytes() == before


@pytest.mark.kernel
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

EXERCISE = """# %% [markdown] slideshow={"slide_type": "slide"}
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
"""


def run_copy(nb, folder: Path):
    return P.execute_notebook(nbformat.from_dict(json.loads(json.dumps(nb))), folder)


def check_text(nb) -> str:
    return "".join(o.get("text", "") for c in nb.cells if "check" in P.tags_of(c) for o in c.outputs)


@pytest.mark.kernel
def test_student_edition_of_an_exercise(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    py, ipynb = make_pair(src, EXERCISE, "90_exercise")
    teacher = P.read_ipynb(ipynb)
    assert "All 2 checks passed" in check_text(teacher)  # the solution passes
    student = P.to_student(teacher)
    sources = "\n".join(c.source for c in student.cells)
    assert "return 2 * x" not in sources and "SECRET-MODEL-ANSWER" not in sources
    assert P.SOLUTION_STUB in sources and P.ANSWER_STUB in sources
    assert all(
        not c.outputs
        for c in student.cells
        if c.cell_type == "code" and set(P.tags_of(c)) & {"starter", "check", "your-turn"}
    )
    ran = run_copy(student, src)  # never crashes ...
    assert "not done yet" in check_text(ran)  # ... and says what to do
    attempt = nbformat.from_dict(json.loads(json.dumps(student)))
    for cell in attempt.cells:
        if "starter" in P.tags_of(cell):
            cell.source = "def double(x):\n    return x + 2\n"  # a wrong attempt
    wrong = check_text(run_copy(attempt, src))
    assert "1 of 2 checks passed" in wrong and "Traceback" not in wrong


def widget_output(model_id: str):
    return nbformat.v4.new_output(
        "display_data",
        data={WIDGET: {"model_id": model_id, "version_major": 2, "version_minor": 0}, "text/plain": "<a live view>"},
    )


def code(source: str, *outputs, tags=()):
    cell = nbformat.v4.new_code_cell(source, outputs=list(outputs), execution_count=1)
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def printed(text: str):
    return nbformat.v4.new_output("stream", name="stdout", text=text)


def test_student_edition_clears_what_a_solution_computed():
    """Outputs of later cells that read what a solution defined (directly, through a function,
    or through a name computed from it) are cleared, with the saved state of their widgets;
    outputs that do not depend on a solution stay, and so does their widget state."""
    a, b, c, d, e = (f"{n:032x}" for n in range(1, 6))
    teacher = nbformat.v4.new_notebook(
        cells=[
            code("def double(x):\n    raise NotImplementedError", tags=["starter"]),
            code("def double(x):\n    return 2 * x\nprint('SECRET')", printed("SECRET\n"), tags=["solution"]),
            code("check(double)", printed("All checks passed.\n"), tags=["check"]),
            code("print(double(21))", printed("42\n"), widget_output(a)),  # 3: direct
            code("def later():\n    return double(5)\nprint(later())", printed("10\n")),  # 4: in a function
            code("y = double(1)"),  # 5: no output
            code("print(y + 1)", printed("3\n")),  # 6: through y
            code("def show(double):\n    print(double)\nshow(7)", printed("7\n")),  # 7: a parameter
            code("print('lesson')", printed("lesson\n"), widget_output(c)),  # 8: independent
            code("y = 0\nprint(y)", printed("0\n")),  # 9: y replaced
            code("print(y)", printed("0\n")),  # 10: safe again
        ]
    )
    teacher.metadata["widgets"] = {
        P.WIDGET_STATE: {
            "version_major": 2,
            "version_minor": 0,
            "state": {
                a: {"model_name": "HTMLModel", "state": {"value": "42 SECRET", "layout": f"IPY_MODEL_{b}"}},
                b: {"model_name": "LayoutModel", "state": {}},
                c: {"model_name": "HTMLModel", "state": {"value": "lesson", "layout": f"IPY_MODEL_{d}"}},
                d: {"model_name": "LayoutModel", "state": {}},
                e: {"model_name": "HTMLModel", "state": {"value": "SECRET, shown nowhere"}},
            },
        }
    }
    student = P.to_student(teacher)
    kept = [i for i, cell in enumerate(student.cells) if cell.get("outputs")]
    assert kept == [7, 8, 9, 10]
    assert student.cells[8].outputs == teacher.cells[8].outputs
    state = student.metadata["widgets"][P.WIDGET_STATE]["state"]
    assert sorted(state) == [c, d]
    assert "SECRET" not in json.dumps(student)
    del teacher.cells[8]  # no widget left to show: no saved state
    assert "widgets" not in P.to_student(teacher).metadata


def test_make_student_builds_the_edition_and_leaves_notebooks_alone(student_edition, notebooks_before):
    out = student_edition
    written = sorted((out / "notebooks").glob("*.ipynb"))
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


def test_student_edition_never_overwrites_a_students_work(tmp_path, student_edition):
    out = tmp_path / "student"
    shutil.copytree(student_edition, out, symlinks=True)
    [first, *_] = P.build_student(out)  # unchanged since the session's build: rebuilding is fine
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


# -- a live view is never blank (issue 12, point 8) ----------------------------------------------

STATIC_VIEW = "toolkit-static-view"


def live_views(nb):
    """``(cell index, output)`` for every output that shows a widget."""
    return [
        (i, o)
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for o in cell.outputs
        if WIDGET in o.get("data", {})
    ]


@pytest.mark.parametrize("ipynb", lessons(), ids=lambda p: p.stem)
def test_every_saved_live_view_can_be_drawn_without_a_kernel(ipynb):
    """A renderer that cannot draw widgets (GitHub, nbconvert without widget state, a JupyterLab
    that does not trust the notebook yet) picks the static copy: HTML with the view's picture, and
    the picture as PNG when the view has a plot. One that can (a trusted JupyterLab, nbviewer)
    draws the widget from the saved state, so every model it needs is saved."""
    nb = P.read_ipynb(ipynb)
    state = P.widget_state(nb)
    for i, output in live_views(nb):
        data = output["data"]
        assert STATIC_VIEW in data.get("text/html", ""), (
            f"{ipynb.name} cell {i}: a live view without its static copy; show views through "
            f"toolkit.widgets and run `make notebooks NB={ipynb.name[:2]}`"
        )
        models = P.widget_models(state, [data[WIDGET]["model_id"]])
        assert models and models[0] == data[WIDGET]["model_id"], f"{ipynb.name} cell {i}: no saved state"
        for model_id in models:
            refs = re.findall(r"IPY_MODEL_([0-9a-f]{32})", json.dumps(state[model_id]["state"]))
            assert set(refs) <= set(state), f"{ipynb.name} cell {i}: {model_id} names a model not saved"
        if any(state[m]["model_name"] == "ImageModel" for m in models):
            assert "image/png" in data and "data:image/png;base64," + data["image/png"].strip() in data["text/html"], (
                f"{ipynb.name} cell {i}: the plot is missing from the static copy"
            )


def test_the_student_edition_drops_the_static_copy_of_a_solutions_view():
    """Notebook 04's Exercise 8 explorer is drawn from the reference solution's queries: the
    instructor's copy shows them in the view's static picture, the student's copy holds neither
    the output nor those queries anywhere (metadata included)."""
    teacher = P.read_ipynb(NOTEBOOKS / "04_thousands_of_tools.ipynb")
    solution = next(c for c in teacher.cells if "solution" in P.tags_of(c) and "def my_queries" in c.source)
    queries = re.findall(r'\("([^"]+)", "\w+"\)', solution.source)
    assert len(queries) >= 5
    [(index, output)] = [(i, o) for i, o in live_views(teacher) if "my_queries()" in teacher.cells[i].source]
    page = output["data"]["text/html"]
    assert STATIC_VIEW in page and all(html_escape(q) in page for q in queries)
    student = P.to_student(teacher)
    assert student.cells[index].outputs == []
    text = nbformat.writes(student)
    assert not [q for q in queries if html_escape(q) in text or json.dumps(q)[1:-1] in text]
    assert len(live_views(student)) == len(live_views(teacher)) - 1
    assert all(STATIC_VIEW in o["data"]["text/html"] for _, o in live_views(student))


def test_makefile_runs_every_step():
    dry = subprocess.run(
        ["make", "-n", "test", "notebooks", "student"], capture_output=True, text=True, cwd=ROOT
    ).stdout
    assert "check_sync.py" in dry and "--nbval" in dry and "nbval_sanitize.cfg" in dry
    assert "execute_notebooks.py" in dry and "make_student.py" in dry
    assert "notebooks/[0-9][0-9]_*.ipynb" in dry


# -- hub sizing (scripts/measure_memory.py, docs/running-a-class.md "Deploying to a class") -----------------------


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_memory_script_reads_proc_and_the_readme_follows_its_rule():
    """The guide's per-student figures are what the script's rule gives for the guide's own
    measurements, and the script finds a kernel's child processes and their memory."""
    import os

    import measure_memory as M

    guide = (ROOT / "docs" / "running-a-class.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Deploying to a class") :]
    section = section[: section.index("\n## ", 5)]
    peaks = [int(m) for m in re.findall(r"^\| `\d\d_\w+` \| \d+ \| (\d+)", section, re.M)]
    assert len(peaks) == len(lessons()), "one row per notebook in the memory table"
    server = int(re.search(r"(\d+) MiB idle with one notebook open", section)[1])
    guarantee, limit = M.recommend(max(peaks) * M.MIB, server * M.MIB)
    assert f"guarantee {guarantee} MiB" in section and f"limit {limit} MiB" in section
    assert f'mem_guarantee = "{guarantee}M"' in section and f'mem_limit = "{limit}M"' in section
    script = "import time; print('up', flush=True); time.sleep(30)"
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "up\n"  # Python is loaded, not just forked
        assert child.pid in M.descendants(os.getpid())
        assert M.rss(child.pid) > 1024 * 1024 and M.peak_rss(os.getpid()) >= M.rss(os.getpid()) > 0
    finally:
        child.kill()
        child.communicate()
    assert M.rss(child.pid) == 0  # gone: 0, not an error
