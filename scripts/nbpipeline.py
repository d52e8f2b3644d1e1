"""The notebook pipeline's shared parts: pairing, sync check, execution, student edition.

Each notebook is a pair (see notebooks/AUTHORING.md):

* ``notebooks/NN_name.py``: jupytext percent format, the file authors edit and review;
* ``notebooks/NN_name.ipynb``: the same cells with outputs, the file students open.

The three command-line scripts next to this file (``check_sync.py``,
``execute_notebooks.py``, ``make_student.py``) are thin wrappers around these functions, and
``tests/test_notebook_pipeline.py`` tests them. Nothing here ever writes into ``notebooks/``
except :func:`execute_pair`, and that refuses to replace an ``.ipynb`` whose cells were
edited since it was built (unless forced).
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
FIGURES = ROOT / "figures"

# The text format of the pair. It must match jupytext.toml and the project's sync check:
# jupytext --to py:percent --opt notebook_metadata_filter=-all
#          --opt cell_metadata_filter=tags,slideshow,-all -o - NB.ipynb | diff -q NB.py -
PY_FORMAT = {
    "extension": ".py",
    "format_name": "percent",
    "notebook_metadata_filter": "-all",
    "cell_metadata_filter": "tags,slideshow,-all",
}
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}
BUILD_KEY = "courseware"  # notebook metadata written by execute_pair
EXERCISE_TAGS = ("starter", "solution", "check")
SOLUTION_STUB = "# Your turn: write your solution in the starter cell above, run it, then run the check cell below."
ANSWER_STUB = "**Your answer:**"
STUDENT_MARKER = ".student-edition.json"
DEFAULT_TIMEOUT = 120.0  # seconds per notebook (the whole run, one process)
CELL_TIMEOUT = 60  # seconds per cell


class PipelineError(Exception):
    """A problem the person running the command must fix; the message says how."""


# --------------------------------------------------------------------------------------------
# pairs and the sync check


def _jupytext():
    try:
        import jupytext  # noqa: F401
    except ImportError:  # pragma: no cover - only without the lab extra
        raise PipelineError("jupytext is not installed; run `make lab` or `pip install -e '.[dev]'` first") from None
    return jupytext


def rel(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def pairs(folder: Path = NOTEBOOKS) -> list[tuple[Path, Path]]:
    """``(py, ipynb)`` for every notebook stem in ``folder`` (either file may be missing),
    sorted by name. Only names that start with two digits count as lessons."""
    folder = Path(folder)
    stems = {p.stem for p in folder.glob("[0-9][0-9]_*.py")} | {p.stem for p in folder.glob("[0-9][0-9]_*.ipynb")}
    return [(folder / f"{s}.py", folder / f"{s}.ipynb") for s in sorted(stems)]


def read_ipynb(path: Path):
    import nbformat

    try:
        return nbformat.read(str(path), as_version=4)
    except Exception as exc:  # a broken file: say which one and what to do
        raise PipelineError(
            f"{rel(path)} is not a readable notebook ({type(exc).__name__}: {exc}). "
            "Restore it from git, or rebuild it from its .py with "
            "`make notebooks FORCE=1`."
        ) from None


def py_text(nb) -> str:
    """The notebook's cells as the canonical jupytext percent text."""
    return _jupytext().writes(nb, fmt=PY_FORMAT)


def read_py(path: Path):
    """A notebook (no outputs) from a percent-format ``.py`` file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise PipelineError(f"cannot read {rel(path)}: {exc}") from None
    nb = _jupytext().reads(text, fmt=dict(PY_FORMAT))
    nb.metadata = {"kernelspec": dict(KERNELSPEC)}
    return nb


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def short_diff(a: str, b: str, a_name: str, b_name: str, limit: int = 20) -> str:
    lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), a_name, b_name, lineterm="", n=1))
    if len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(lines) - limit} more diff lines)"]
    return "\n".join(lines)


def sync_problems(folder: Path = NOTEBOOKS) -> list[str]:
    """Every way the pairs in ``folder`` are out of step; empty when all is well."""
    problems = []
    for py, ipynb in pairs(folder):
        if not py.exists():
            problems.append(
                f"{rel(ipynb)} has no {py.name}. Create it with `jupytext --set-formats ipynb,py:percent {rel(ipynb)}`."
            )
            continue
        if not ipynb.exists():
            problems.append(f"{rel(py)} has no {ipynb.name}. Build it with `make notebooks`.")
            continue
        try:
            nb = read_ipynb(ipynb)
        except PipelineError as exc:
            problems.append(str(exc))
            continue
        want, have = py.read_text(encoding="utf-8"), py_text(nb)
        if want != have:
            problems.append(
                f"{rel(py)} and {ipynb.name} differ. After editing the .py, run `make notebooks`; "
                f"after editing the notebook in Jupyter, run `jupytext --sync {rel(ipynb)}`.\n"
                + short_diff(want, have, py.name, ipynb.name + " (as .py)")
            )
        if nb.metadata.get("kernelspec", {}).get("name") != "python3":
            problems.append(f"{rel(ipynb)} should use the python3 kernel; rebuild it with `make notebooks`.")
    return problems


# --------------------------------------------------------------------------------------------
# execution


@dataclass
class BuildPlan:
    py: Path
    ipynb: Path
    action: str  # "build" or "refuse"
    reason: str


def plan(py: Path, ipynb: Path, force: bool = False) -> BuildPlan:
    """Decide whether ``make notebooks`` may (re)write ``ipynb`` from ``py``.

    It may when the ``.ipynb`` is missing, when its cells equal the ``.py``, or when its cells
    are exactly what the last build wrote (so only the ``.py`` changed since). Otherwise the
    notebook was edited in Jupyter without its ``.py`` being updated, and rebuilding would
    throw those edits away: refuse, unless ``force``.
    """
    if not py.exists():
        return BuildPlan(
            py,
            ipynb,
            "refuse",
            f"{rel(ipynb)} has no {py.name}; create it with "
            f"`jupytext --set-formats ipynb,py:percent {rel(ipynb)}`, then run this again.",
        )
    if not ipynb.exists() or force:
        return BuildPlan(py, ipynb, "build", "forced" if force and ipynb.exists() else "new")
    nb = read_ipynb(ipynb)
    current = py_text(nb)
    if current == py.read_text(encoding="utf-8"):
        return BuildPlan(py, ipynb, "build", "in sync")
    built_from = nb.metadata.get(BUILD_KEY, {}).get("source_sha256")
    if built_from == text_hash(current):
        return BuildPlan(py, ipynb, "build", ".py changed")
    return BuildPlan(
        py,
        ipynb,
        "refuse",
        f"{rel(ipynb)} has edits that are not in {py.name} (it was changed in Jupyter "
        f"without jupytext pairing). Nothing was overwritten. To keep the edits, run "
        f"`jupytext --sync {rel(ipynb)}` (it copies them into the .py), check the diff, "
        f"then run `make notebooks` again. To throw them away, run `make notebooks FORCE=1`.",
    )


def _cell_id(stem: str, index: int, source: str) -> str:
    digest = hashlib.sha1(f"{stem}\n{index}\n{source}".encode()).hexdigest()[:8]
    return f"c{index:02d}-{digest}"


def execute_notebook(nb, cwd: Path, cell_timeout: int = CELL_TIMEOUT):
    """Run every cell of ``nb`` in a fresh python3 kernel with ``cwd`` as working folder."""
    from nbclient import NotebookClient

    client = NotebookClient(
        nb,
        timeout=cell_timeout,
        kernel_name="python3",
        allow_errors=False,
        record_timing=False,
        store_widget_state=True,
        resources={"metadata": {"path": str(cwd)}},
    )
    client.execute()
    return nb


def prepare(py: Path):
    """The notebook to run for ``py`` (stable cell ids, python3 kernel) and the canonical
    text of its cells."""
    nb = read_py(py)
    canonical = py_text(nb)
    for i, cell in enumerate(nb.cells):
        cell["id"] = _cell_id(py.stem, i, cell.source)
    nb.metadata[BUILD_KEY] = {"source_sha256": text_hash(canonical)}
    return nb, canonical


# A widget model names the models it holds as "IPY_MODEL_<id>"; an Output widget's saved
# outputs name the widgets shown in it by "model_id".
_MODEL_REF = re.compile(r'IPY_MODEL_([0-9a-f]{32})|"model_id": "([0-9a-f]{32})"')
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def widget_state(nb) -> dict:
    """The saved widget models of ``nb`` (model id -> model), empty when there are none."""
    return nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


def shown_widgets(cells) -> list[str]:
    """The model ids that the outputs of ``cells`` display, in order."""
    ids = []
    for cell in cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if isinstance(view, dict) and view.get("model_id"):
                ids.append(view["model_id"])
    return ids


def widget_models(state: dict, roots) -> list[str]:
    """The models of ``state`` reachable from ``roots`` (the roots, then what they hold, depth
    first), each once."""
    order: list[str] = []
    stack = list(reversed(list(roots)))
    while stack:
        model_id = stack.pop()
        if model_id in order or model_id not in state:
            continue
        order.append(model_id)
        refs = _MODEL_REF.findall(json.dumps(state[model_id].get("state", {}), sort_keys=True))
        stack += reversed([a or b for a, b in refs])
    return order


def stable_widget_ids(nb, salt: str):
    """Replace the random widget model ids of an executed notebook with ids derived from
    ``salt`` and the order in which the outputs reach each model, so that re-running an
    unchanged notebook writes the same bytes (no churn in git). Returns ``nb``."""
    import nbformat

    state = widget_state(nb)
    if not state:
        return nb
    order = widget_models(state, shown_widgets(nb.cells))
    rest = sorted((m for m in state if m not in order), key=lambda m: json.dumps(state[m], sort_keys=True))
    for model_id in rest:
        order += [m for m in widget_models(state, [model_id]) if m not in order]
    prefix = hashlib.sha1(salt.encode("utf-8")).hexdigest()[:24]
    mapping = {old: f"{prefix}{i:08x}" for i, old in enumerate(order)}
    text = json.dumps(nb, sort_keys=True)
    text = re.sub("|".join(map(re.escape, mapping)), lambda m: mapping[m.group(0)], text)
    return nbformat.from_dict(json.loads(text))


def coalesce_streams(nb):
    """Merge neighbouring stdout (or stderr) outputs of a cell into one, so that how the
    kernel happened to flush its buffers does not change the stored file."""
    for cell in nb.cells:
        merged = []
        for output in cell.get("outputs", []):
            if (
                output.get("output_type") == "stream"
                and merged
                and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == output.get("name")
            ):
                merged[-1]["text"] += output["text"]
            else:
                merged.append(output)
        if "outputs" in cell:
            cell["outputs"] = merged
    return nb


def run_and_write(nb, ipynb: Path, cwd: Path) -> None:
    """Execute ``nb`` and write it to ``ipynb`` (atomically: a failure leaves the old file)."""
    import nbformat

    execute_notebook(nb, cwd)
    nb = stable_widget_ids(coalesce_streams(nb), ipynb.stem)
    tmp = ipynb.with_name(ipynb.name + ".tmp")
    nbformat.write(nb, str(tmp))
    os.replace(tmp, ipynb)


def build_one(py: Path, ipynb: Path) -> None:
    """Read ``py``, run it, write ``ipynb`` with outputs, all in this process."""
    nb, canonical = prepare(py)
    run_and_write(nb, ipynb, py.parent)
    _tidy_py(py, canonical)


def _tidy_py(py: Path, canonical: str) -> None:
    if py.read_text(encoding="utf-8") != canonical:  # same cells, tidier layout
        py.write_text(canonical, encoding="utf-8")
        print(f"  note: rewrote {rel(py)} in jupytext's canonical layout (no cell changed)")


def child_env() -> dict:
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    return env


def execute_pair(py: Path, ipynb: Path, timeout: float = DEFAULT_TIMEOUT) -> float:
    """Build one notebook: its cells are read here, run in a child process under ``timeout``
    seconds, and the result replaces ``ipynb`` only if the run succeeded. Returns the time."""
    import nbformat

    start = time.perf_counter()
    nb, canonical = prepare(py)
    job = ipynb.with_name(ipynb.name + ".job")
    nbformat.write(nb, str(job))
    cmd = [sys.executable, str(Path(__file__).resolve().parent / "execute_notebooks.py"), "--one", str(job), str(ipynb)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=child_env(), cwd=str(py.parent))
    except subprocess.TimeoutExpired:
        raise PipelineError(
            f"{rel(py)} did not finish within {timeout:g} s and was stopped; "
            f"{ipynb.name} was left as it was. Look for a cell that waits or "
            "loops, or raise the limit with NOTEBOOK_TIMEOUT=…"
        ) from None
    finally:
        job.unlink(missing_ok=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
        raise PipelineError(f"{rel(py)} failed while running; {ipynb.name} was left as it was.\n{tail}")
    _tidy_py(py, canonical)
    return time.perf_counter() - start


# --------------------------------------------------------------------------------------------
# the student edition


def tags_of(cell) -> list[str]:
    tags = cell.get("metadata", {}).get("tags", [])
    return list(tags) if isinstance(tags, list) else []


def _scopes(table):
    yield table
    for child in table.get_children():
        yield from _scopes(child)


def cell_names(source: str):
    """What a code cell does with the notebook's top-level names: ``(read, bound, changed)``.

    ``read``: names it looks up at top level, or as globals inside the functions and classes
    it defines; ``bound``: names it (re)assigns, defines or imports at top level; ``changed``:
    names whose object it may change in place (a method call ``x.add(...)``, or ``x.a = ...``,
    ``x[k] = ...``). ``None`` when the cell is not plain Python.
    """
    import ast
    import symtable

    try:
        top = symtable.symtable(source, "<cell>", "exec")
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    read = {sym.get_name() for sym in top.get_symbols() if sym.is_referenced()}
    bound = {
        sym.get_name() for sym in top.get_symbols() if sym.is_assigned() or sym.is_imported() or sym.is_namespace()
    }
    for scope in _scopes(top):
        if scope is not top:
            read |= {sym.get_name() for sym in scope.get_symbols() if sym.is_referenced() and sym.is_global()}
            bound |= {sym.get_name() for sym in scope.get_symbols() if sym.is_declared_global() and sym.is_assigned()}
    # A name the cell sets in one statement and only uses in later ones is its own, not a
    # read of an earlier cell's value ("y = 0" then "print(y)").
    first_set, first_use = {}, {}
    for i, statement in enumerate(tree.body):
        for name in _top_level_stores(statement):
            first_set.setdefault(name, i)
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                first_use.setdefault(node.id, i)
    read = {name for name in read if name not in first_set or first_use.get(name, len(tree.body)) <= first_set[name]}
    changed = set()
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            target = node.value
        while isinstance(target, (ast.Attribute, ast.Subscript)):
            target = target.value
        if isinstance(target, ast.Name) and target.id in read:
            changed.add(target.id)
    return read, bound, changed


def _top_level_stores(node):
    """Names a statement binds in the notebook's namespace (not inside the functions, classes,
    lambdas or comprehensions it contains). Missing one only makes the caller more careful."""
    import ast

    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
        return
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        yield node.id
    yield from _import_names(node)
    for child in ast.iter_child_nodes(node):
        yield from _top_level_stores(child)


def after_solutions(nb) -> set[int]:
    """Indexes of the code cells (other than exercise cells) whose saved outputs may show what a
    reference solution computed: they read a name that a ``solution`` cell defined or changed,
    or a name computed from one, before anything replaced it. A cell that is not plain Python
    counts as reading every such name. Names bound by imports are modules: calling into them
    does not make them depend on a solution."""
    tainted: set[str] = set()
    modules: set[str] = set()
    found = set()
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = tags_of(cell)
        names = cell_names(cell.source)
        if names is None:
            read, bound, changed = set(tainted), set(), set()
        else:
            read, bound, changed = names
            modules |= _imported(cell.source)
        changed -= modules
        if "solution" in tags:
            tainted |= bound | changed
        elif any(t in tags for t in EXERCISE_TAGS):
            continue  # starter and check cells lose their outputs anyway
        elif read & tainted:
            found.add(index)
            tainted |= bound | changed
        else:
            tainted -= bound
    return found


def _import_names(node) -> list[str]:
    """The names an import statement binds (``import a.b`` binds ``a``); [] for other nodes."""
    import ast

    if not isinstance(node, (ast.Import, ast.ImportFrom)):
        return []
    return [(alias.asname or alias.name).split(".")[0] for alias in node.names]


def _imported(source: str) -> set[str]:
    import ast

    return {name for node in ast.parse(source).body for name in _import_names(node)}


def keep_shown_widgets(nb):
    """Drop the saved state of every widget model that no remaining output shows (directly or
    inside another widget), so a cleared output leaves nothing behind in the notebook's
    metadata; drop the metadata entry when no widget is left. Returns ``nb``."""
    state = widget_state(nb)
    if not state:
        return nb
    keep = set(widget_models(state, shown_widgets(nb.cells)))
    for model_id in [m for m in state if m not in keep]:
        del state[model_id]
    if not state:
        nb.metadata.pop("widgets", None)
    return nb


def to_student(nb):
    """A copy of ``nb`` with solutions replaced and every output that could give one away cleared.

    * a code cell tagged ``solution`` becomes a one-line comment that sends the student to the
      starter cell above it;
    * a markdown cell tagged ``solution`` (a model answer) becomes "**Your answer:**";
    * ``starter``, ``solution`` and ``check`` cells lose their outputs and execution counts, and
      so does every later cell that uses what a solution computed (:func:`after_solutions`);
    * saved widget state is kept only for the widgets that remaining outputs show
      (:func:`keep_shown_widgets`): a live kernel re-creates widgets anyway.
    Other cells keep their outputs, so the lesson still reads well before it is run.
    """
    import nbformat

    out = copy.deepcopy(nb)
    clear = after_solutions(out)
    cells = []
    for index, cell in enumerate(out.cells):
        tags = tags_of(cell)
        if "solution" in tags:
            keep_tags = [t for t in tags if t != "solution"] + ["your-turn"]
            if cell.cell_type == "code":
                new = nbformat.v4.new_code_cell(SOLUTION_STUB)
            else:
                new = nbformat.v4.new_markdown_cell(ANSWER_STUB)
            new.metadata = {"tags": keep_tags}
            new["id"] = cell.get("id", new.get("id"))
            cell = new
        if cell.cell_type == "code" and (index in clear or any(t in tags for t in EXERCISE_TAGS)):
            cell.outputs = []
            cell.execution_count = None
        cells.append(cell)
    out.cells = cells
    out.metadata.pop(BUILD_KEY, None)
    return keep_shown_widgets(out)


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_student(out: Path, source: Path = NOTEBOOKS, force: bool = False, figures: Path = FIGURES) -> list[Path]:
    """Write the student edition into ``out`` (``out/notebooks``, ``out/figures``).

    Never writes into ``source``. A notebook in ``out`` that was changed since the last
    build (a student's work) is not overwritten unless ``force``; the error names it.
    """
    import nbformat

    out, source = Path(out).resolve(), Path(source).resolve()
    if out == source or source in out.parents or out in source.parents:
        raise PipelineError(f"the student edition must go outside {rel(source)} and not contain it; got {out}")
    found = [ipynb for py, ipynb in pairs(source) if ipynb.exists()]
    if not found:
        raise PipelineError(f"no notebooks in {rel(source)}; run `make notebooks` first")
    target = out / "notebooks"
    marker = out / STUDENT_MARKER
    written = json.loads(marker.read_text()) if marker.exists() else {}
    edited = []
    for ipynb in found:
        dest = target / ipynb.name
        if dest.exists() and not force and written.get(ipynb.name) != _file_hash(dest):
            edited.append(rel(dest))
    if edited:
        raise PipelineError(
            "these student notebooks were changed since they were built and were "
            "left alone: " + ", ".join(edited) + ". Move them somewhere safe, or run "
            "`make student FORCE=1` to replace them."
        )
    target.mkdir(parents=True, exist_ok=True)
    paths = []
    for ipynb in found:
        student = to_student(read_ipynb(ipynb))
        dest = target / ipynb.name
        nbformat.write(student, str(dest))
        written[ipynb.name] = _file_hash(dest)
        paths.append(dest)
    if figures.is_dir():
        shutil.copytree(figures, out / "figures", dirs_exist_ok=True)
    # Inside the repository, the root jupytext.toml would pair these copies with new .py files
    # when they are saved; the student edition is notebooks only.
    (out / "jupytext.toml").write_text(
        '# The student edition: notebooks only, no paired .py files.\nformats = "ipynb"\n', encoding="utf-8"
    )
    marker.write_text(json.dumps(written, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return paths
