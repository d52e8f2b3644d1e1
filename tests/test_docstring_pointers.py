"""Every public function and class says where the course teaches or uses it, and that is true.

The pointer is one line of the docstring, on its own, in one of these forms:

``Notebook 04.`` / ``Notebooks 02, 06.``
    The notebook(s) that teach or use the name. Each number must resolve to exactly one
    ``notebooks/NN_*.py``, and that file must mention the name (as a word) or import its module.
``Notebook 09, through classify.`` / ``Notebooks 09, 12, through classify.``
    A helper the notebook reaches through a name it does call: the notebook must mention
    ``classify``, and ``classify`` must use the helper, in its own source or through functions
    of its own module that it calls (three calls deep at most).
``Used by: WHERE.``
    No notebook uses it. WHERE is ``python -m toolkit CMD`` (a command of toolkit/cli/__init__.py),
    ``make TARGET`` (a Makefile target), ``PAGE.md: Heading`` (a heading of a Markdown page of the
    repository, such as ``docs/real-models.md: Using a real model``), or a repository path or glob (``toolkit/checks/ex*.py``, ``benchmarks/compare_bfcl.py``) of which at least
    one file mentions the name.

Public means listed in ``__all__`` of any module under ``toolkit/`` (core, mcp, lessons, checks,
course, widgets, figures); a name re-exported elsewhere is checked once, where it is defined.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import toolkit

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"

POINTER = re.compile(
    r"^(?:Notebooks? (?P<nbs>\d\d(?:, \d\d)*)(?:, through (?P<via>[A-Za-z_][\w.]*))?"
    r"|Used by: (?P<where>.+))\.$"
)


def _modules() -> list[str]:
    names = ["toolkit"]
    for info in pkgutil.walk_packages(toolkit.__path__, "toolkit."):
        if info.name.rsplit(".", 1)[-1] != "__main__":  # running it is not importing it
            names.append(info.name)
    return names


def public_objects() -> dict[str, object]:
    """``{"module.QualName": obj}`` for every function and class in some module's ``__all__``."""
    found: dict[int, tuple[str, object]] = {}
    for module_name in _modules():
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                home = getattr(obj, "__module__", module_name)
                found.setdefault(id(obj), (f"{home}.{obj.__qualname__}", obj))
    return dict(sorted(found.values(), key=lambda kv: kv[0]))


def _notebook_texts() -> dict[str, str]:
    texts: dict[str, list[str]] = {}
    for path in NOTEBOOKS.glob("*.py"):
        match = re.match(r"(\d\d)_\w+\.py$", path.name)
        if match:
            texts.setdefault(match.group(1), []).append(path.read_text(encoding="utf-8"))
    return {nn: files[0] for nn, files in texts.items() if len(files) == 1}


def _mentions(text: str, word: str) -> bool:
    return (
        re.search(rf"(?<![\w.]){re.escape(word)}\b", text) is not None
        or re.search(rf"\.{re.escape(word)}\b", text) is not None
    )


def _imports_module(text: str, module: str) -> bool:
    """The notebook names the module: ``toolkit.lessons.catalog``, or ``from toolkit.lessons
    import catalog`` (also inside parentheses over several lines)."""
    if re.search(rf"\b{re.escape(module)}\b", text):
        return True
    parent, _, leaf = module.rpartition(".")
    for imported in re.findall(rf"^from {re.escape(parent)} import (\([^)]*\)|.*)$", text, re.M):
        if re.search(rf"\b{re.escape(leaf)}\b", imported):
            return True
    return False


def _where_ok(where: str, name: str) -> str | None:
    """None if ``Used by: WHERE`` resolves, else what is wrong."""
    if where.startswith("python -m toolkit "):
        cmd = where.split()[3]
        main = (ROOT / "toolkit" / "cli" / "__init__.py").read_text(encoding="utf-8")
        return None if f'"{cmd}"' in main else f"`python -m toolkit` has no command {cmd!r}"
    if where.startswith("make "):
        target = where.split()[1]
        makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
        return (
            None if re.search(rf"^{re.escape(target)}:", makefile, re.M) else f"the Makefile has no target {target!r}"
        )
    page = re.match(r"^(?P<page>[\w./-]+\.md): (?P<heading>.+)$", where)
    if page:
        path, heading = ROOT / page["page"], page["heading"]
        if not path.is_file():
            return f"no page {page['page']}"
        text = path.read_text(encoding="utf-8")
        return (
            None
            if re.search(rf"^#+ {re.escape(heading)}\s*$", text, re.M)
            else f"{page['page']} has no heading {heading!r}"
        )
    files = sorted(ROOT.glob(where.split(" ")[0])) if not where.startswith("/") else []
    if not files:
        return f"no file matches {where!r}"
    if not any(_mentions(f.read_text(encoding="utf-8"), name) for f in files if f.is_file()):
        return f"{where} does not mention {name}"
    return None


def pointer_problem(qualified: str, obj: object, notebooks: dict[str, str]) -> str | None:
    """None if ``obj``'s docstring has a true pointer, else a sentence saying what is wrong."""
    doc = inspect.getdoc(obj) or ""
    lines = [line.strip() for line in doc.splitlines()]
    pointers = [m for m in map(POINTER.match, lines) if m]
    if not pointers:
        return "no pointer line (e.g. 'Notebook 04.' or 'Used by: python -m toolkit demo.')"
    if len(pointers) > 1:
        return "more than one pointer line"
    match = pointers[0]
    module, _, qualname = qualified.rpartition(".")
    while module not in _modules():  # a method's qualname: Class.method
        module, _, _ = module.rpartition(".")
    name = qualname.split(".")[0] if "." in qualname else qualname
    if match.group("where"):
        return _where_ok(match.group("where"), name)
    numbers = match.group("nbs").split(", ")
    if numbers != sorted(set(numbers)):
        return f"notebook numbers not in increasing order: {match.group('nbs')}"
    via = match.group("via")
    for nn in numbers:
        text = notebooks.get(nn)
        if text is None:
            return f"notebook {nn} does not resolve to one notebooks/{nn}_*.py"
        if via:
            if not _mentions(text, via.rsplit(".", 1)[-1]):
                return f"notebook {nn} does not mention {via}"
        elif not (_mentions(text, name) or _imports_module(text, module)):
            return f"notebook {nn} mentions neither {name} nor its module {module}"
    if via:
        via_obj = _resolve(via, module)
        if via_obj is None:
            return f"{via} is not a name of {module} or toolkit"
        if not _reaches(via_obj, name):
            return f"{via} does not use {name}"
    return None


@functools.cache
def _source(obj: object) -> str:
    try:
        return inspect.getsource(obj)  # type: ignore[arg-type]
    except (OSError, TypeError):
        return ""


def _reaches(obj: object, name: str, depth: int = 3) -> bool:
    """Does ``obj``'s source use ``name``, itself or through functions of its own module that it
    calls (up to ``depth`` calls deep)?"""
    source = _source(obj)
    if _mentions(source, name):
        return True
    if depth == 0:
        return False
    home = inspect.getmodule(obj)
    for word in set(re.findall(r"[A-Za-z_]\w*", source)):
        helper = getattr(home, word, None)
        if (
            helper is not obj
            and (inspect.isfunction(helper) or inspect.isclass(helper))
            and inspect.getmodule(helper) is home
            and _reaches(helper, name, depth - 1)
        ):
            return True
    return False


def _resolve(dotted: str, module: str):
    for base in (importlib.import_module(module), toolkit):
        obj = base
        for part in dotted.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                break
        if obj is not None:
            return obj
    return None


def test_every_public_function_and_class_points_to_where_it_is_taught():
    notebooks = _notebook_texts()
    assert len(notebooks) == 12, sorted(notebooks)
    objects = public_objects()
    assert len(objects) > 200  # the walk found the whole package
    problems = []
    for qualified, obj in objects.items():
        problem = pointer_problem(qualified, obj, notebooks)
        if problem:
            problems.append(f"{qualified}: {problem}")
    assert not problems, f"{len(problems)} public names lack a true pointer:\n" + "\n".join(problems)


def _fake(doc: str):
    def probe_function():
        pass

    probe_function.__doc__ = doc
    probe_function.__module__ = "toolkit.selection"
    return probe_function


@pytest.mark.parametrize(
    "doc, wrong",
    [
        ("Does things.", "no pointer line"),
        ("Does things.\n\nNotebook 4.", "no pointer line"),
        ("Does things.\n\nNotebook 13.", "does not resolve"),
        ("Does things.\n\nNotebooks 06, 04.", "increasing order"),
        ("Does things.\n\nNotebook 03.", "mentions neither"),
        ("Does things.\n\nNotebook 03, through ToolIndex.", "does not mention ToolIndex"),
        ("Does things.\n\nUsed by: python -m toolkit fly.", "no command 'fly'"),
        ("Does things.\n\nUsed by: make everything.", "no target"),
        ("Does things.\n\nUsed by: docs/teaching.md: No Such Heading.", "no heading"),
        ("Does things.\n\nUsed by: docs/nowhere.md: Anything.", "no page"),
        ("Does things.\n\nUsed by: benchmarks/*.py.", "does not mention"),
        ("Does things.\n\nUsed by: nowhere/at_all.py.", "no file matches"),
    ],
)
def test_a_false_or_malformed_pointer_is_caught(doc, wrong):
    problem = pointer_problem("toolkit.selection.probe_function", _fake(doc), _notebook_texts())
    assert problem is not None and wrong in problem


def test_true_pointers_of_each_form_pass():
    notebooks = _notebook_texts()
    index = toolkit.ToolIndex
    for doc in (
        "Notebook 04.",
        "Notebooks 04, 07.",
        "Used by: python -m toolkit demo.",
        "Used by: make test.",
        "Used by: docs/running-a-class.md: Deploying to a class.",
    ):
        index_like = type("ToolIndex", (), {"__doc__": "An index.\n\n" + doc, "__module__": "toolkit.selection"})
        assert pointer_problem("toolkit.selection.ToolIndex", index_like, notebooks) is None, doc
    assert index  # the real class is what the notebooks mention
