"""The toolkit's layers, checked from the source (issue 13; docs/DESIGN.md, "Layers").

Every module under ``toolkit/`` is parsed with :mod:`ast`, so the rules hold for imports at the
top of a file and for imports inside functions alike, absolute or relative:

- the top level holds only the lab's parts (core), the facade and the command line, and the
  layer packages;
- core never imports lessons, widgets, checks, figures or course code, and imports nothing
  outside the standard library;
- checks never import widgets, and no other layer but widgets itself (and the notebooks) imports
  from widgets: views hold no logic anyone else needs;
- notebooks take a check module whole (``from toolkit.checks import ex05``), never a name from
  inside one;
- nothing in ``toolkit/`` imports the repository's own folders that a wheel does not carry
  (``scripts/``, where the figures' drawing code lives, ``tests/``, ``benchmarks/``).

Each failure names the file, the line and the import, so it says where to look.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLKIT = ROOT / "toolkit"

CORE_MODULES = {"schema", "registry", "loop", "gate", "selection", "scoring", "reliability", "data"}
ENTRY_MODULES = {"__init__", "__main__"}
PACKAGES = {"mcp", "lessons", "widgets", "checks", "course", "figures", "cli"}
OUTER_LAYERS = ("lessons", "widgets", "checks", "figures", "course", "cli")


@dataclass(frozen=True)
class Import:
    """One import statement's target, resolved to an absolute dotted name."""

    path: Path
    line: int
    target: str  # "toolkit.lessons.retail", "json", "toolkit.widgets.transcript_view.transcript_text"
    type_only: bool = False  # under `if TYPE_CHECKING:`: read by type checkers, never run

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line} imports {self.target}"


def module_name(path: Path) -> tuple[str, bool]:
    """``(dotted name, is a package)`` of a file under the repository root."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def imports_of(path: Path) -> list[Import]:
    """Every import in ``path``, at any depth. ``from X import a`` yields ``X.a`` (``a`` may be a
    submodule); relative imports are resolved against the file's package; a constant string
    given to ``importlib.import_module`` or ``__import__`` counts too."""
    name, is_package = module_name(path)
    package = name if is_package else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    type_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and _is_type_checking(node.test)
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(path, node.lineno, alias.name, id(node) in type_only) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found += [
                Import(path, node.lineno, f"{module}.{alias.name}", id(node) in type_only) for alias in node.names
            ]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                target = node.args[0].value
                if target.startswith("."):
                    level = len(target) - len(target.lstrip("."))
                    base = package.split(".")
                    target = ".".join(base[: len(base) - (level - 1)] + [target.lstrip(".")])
                found.append(Import(path, node.lineno, target))
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def in_layer(target: str, layer: str) -> bool:
    return target == f"toolkit.{layer}" or target.startswith(f"toolkit.{layer}.")


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def core_files() -> list[Path]:
    top = [TOOLKIT / f"{name}.py" for name in sorted(CORE_MODULES)]
    return [p for p in top if p.exists()] + python_files(TOOLKIT / "mcp")


def layer_files(layer: str) -> list[Path]:
    return python_files(TOOLKIT / layer)


def violations(files: list[Path], forbidden, at_run_time_only: bool = False) -> list[str]:
    return [
        imp.where()
        for path in files
        for imp in imports_of(path)
        if forbidden(imp.target) and not (at_run_time_only and imp.type_only)
    ]


# --- (a) the top level ---------------------------------------------------------------------------


def top_level_entries(folder: Path) -> tuple[set[str], set[str]]:
    """Modules (``name.py``) and packages (folders holding any ``.py``) directly in ``folder``."""
    modules = {p.stem for p in folder.glob("*.py")}
    packages = {p.name for p in folder.iterdir() if p.is_dir() and p.name != "__pycache__" and any(p.rglob("*.py"))}
    return modules, packages


def test_the_top_level_holds_only_the_labs_parts_and_the_layer_packages():
    modules, packages = top_level_entries(TOOLKIT)
    extra_modules = sorted(modules - CORE_MODULES - ENTRY_MODULES)
    extra_packages = sorted(packages - PACKAGES)
    assert not extra_modules and not extra_packages, (
        f"toolkit/ top level: modules {extra_modules} and packages {extra_packages} are not in the "
        "layer list of docs/DESIGN.md; a lesson world goes to toolkit/lessons/, a view to "
        "toolkit/widgets/, a course operation to toolkit/course/"
    )
    assert CORE_MODULES | ENTRY_MODULES <= modules, sorted(CORE_MODULES | ENTRY_MODULES - modules)
    assert PACKAGES <= packages, sorted(PACKAGES - packages)


UNSHIPPED = ("scripts", "tests", "benchmarks")  # repository folders no install puts on sys.path


def test_the_package_never_imports_what_a_wheel_leaves_out():
    """``from scripts.figures import layout`` would work in a clone and fail after ``pip install``:
    the drawing code (scripts/figures/) may import the toolkit, never the other way round."""
    found = violations(python_files(TOOLKIT), lambda t: t.split(".")[0] in UNSHIPPED)
    assert not found, (
        "toolkit/ imports a folder the wheel does not carry; move what it needs into toolkit/:\n" + "\n".join(found)
    )


# --- (b) core imports no outer layer; (e) core is standard library only ------------------------


def test_core_never_imports_an_outer_layer():
    found = violations(core_files(), lambda t: any(in_layer(t, layer) for layer in OUTER_LAYERS))
    assert not found, (
        "core (toolkit/*.py and toolkit/mcp/) must not import lessons, widgets, "
        "checks, figures or course:\n" + "\n".join(found)
    )


def test_core_imports_only_the_standard_library():
    allowed = set(sys.stdlib_module_names) | {"toolkit", "__future__"}
    found = violations(core_files(), lambda t: t.split(".")[0] not in allowed, at_run_time_only=True)
    assert not found, "core must run on the standard library alone (README, set-up):\n" + "\n".join(found)


# --- (c) checks never import widgets; (f) nothing but views imports views -----------------------


def test_checks_never_import_widgets():
    found = violations(layer_files("checks"), lambda t: in_layer(t, "widgets"))
    assert not found, "toolkit/checks/ must not import toolkit/widgets/:\n" + "\n".join(found)


@pytest.mark.parametrize("layer", ["core", "lessons", "checks", "course"])
def test_no_other_layer_imports_a_name_from_widgets(layer):
    files = core_files() if layer == "core" else layer_files(layer)
    found = violations(files, lambda t: in_layer(t, "widgets"))
    assert not found, (
        f"{layer} imports from toolkit/widgets/; widgets are views only, so whatever "
        "these need belongs in core or lessons:\n" + "\n".join(found)
    )


def reachable(graph: dict[str, set[str]], start: str) -> dict[str, list[str]]:
    """Every toolkit module that importing ``start`` runs, each with one chain of imports that
    leads there. Importing ``a.b.c`` first runs the packages ``a`` and ``a.b``, so those count."""
    chains = {start: [start]}
    todo = [start]
    while todo:
        node = todo.pop()
        nexts = set(graph.get(node, ()))
        nexts |= {".".join(t.split(".")[:i]) for t in graph.get(node, ()) for i in range(2, t.count(".") + 1)}
        for nxt in sorted(nexts & graph.keys()):
            if nxt not in chains:
                chains[nxt] = chains[node] + [nxt]
                todo.append(nxt)
    return chains


@pytest.mark.parametrize("layer", ["core", "lessons", "checks", "course"])
def test_no_other_layer_reaches_widgets_through_another_module(layer):
    """The rule above, through any number of steps: a lesson that imports figures, which imports a
    widget, reaches the view layer as surely as a direct import."""
    graph = import_graph()
    files = core_files() if layer == "core" else layer_files(layer)
    found = []
    for path in files:
        for module, chain in reachable(graph, module_name(path)[0]).items():
            if in_layer(module, "widgets"):
                found.append(" -> ".join(chain))
                break
    assert not found, (
        f"{layer} reaches toolkit/widgets/ through other modules; move the view (or what the "
        "lower layer needs) so that nothing below widgets runs a widget module:\n" + "\n".join(found)
    )


def test_the_transitive_rule_sees_a_back_arrow_two_steps_up(tmp_path, monkeypatch):
    """calculator -> figures -> widgets._base: the shape the direct rule missed (review s4)."""
    package = tmp_path / "toolkit"
    for folder in ("lessons", "figures", "widgets"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("", encoding="utf-8")
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "lessons" / "calc.py").write_text("def plot():\n    from ..figures import describe\n", encoding="utf-8")
    (package / "figures" / "__init__.py").write_text("from ..widgets._base import img_html\n", encoding="utf-8")
    (package / "widgets" / "_base.py").write_text("img_html = None\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "TOOLKIT", package)
    chains = reachable(import_graph(), "toolkit.lessons.calc")
    assert chains["toolkit.widgets._base"] == ["toolkit.lessons.calc", "toolkit.figures", "toolkit.widgets._base"]
    (package / "lessons" / "calc.py").write_text("import json\n", encoding="utf-8")
    assert not [m for m in reachable(import_graph(), "toolkit.lessons.calc") if in_layer(m, "widgets")]


def test_lessons_hold_no_command_line():
    """lessons/ holds what notebooks import: argument parsing and reporting live in toolkit/cli/."""
    found = violations(layer_files("lessons"), lambda t: t.split(".")[0] == "argparse" or in_layer(t, "cli"))
    assert not found, "toolkit/lessons/ must not parse arguments (toolkit/cli/ does):\n" + "\n".join(found)


HTTP_CLIENTS = ("urllib.request", "urllib.error", "http.client", "socket", "ssl", "httpx", "requests", "urllib3")


def test_lessons_send_no_http_themselves():
    """A real model's requests go through the vendors' SDKs, imported at its first request
    (issue 32): lessons/ converts, and holds no HTTP client of its own."""
    found = violations(layer_files("lessons"), lambda t: any(t == c or t.startswith(c + ".") for c in HTTP_CLIENTS))
    assert not found, "toolkit/lessons/ must not speak HTTP itself (the openai/anthropic SDKs do):\n" + "\n".join(found)


# --- (d) notebooks import check modules whole -------------------------------------------------


def test_notebooks_import_check_modules_not_names_inside_them():
    found = []
    for path in sorted((ROOT / "notebooks").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("toolkit.checks."):
                names = ", ".join(alias.name for alias in node.names)
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module} import {names}")
    assert not found, (
        "a notebook takes a check as `from toolkit.checks import exNN` and calls "
        "exNN.check(...); lesson helpers come from toolkit.lessons:\n" + "\n".join(found)
    )


# --- the checker itself ------------------------------------------------------------------------


def test_the_resolver_sees_relative_nested_and_dynamic_imports(tmp_path, monkeypatch):
    """A planted file under a fake toolkit/mcp/http/: each way of reaching a widget is found."""
    fake_root = tmp_path
    nested = fake_root / "toolkit" / "mcp" / "http"
    nested.mkdir(parents=True)
    planted = nested / "planted.py"
    planted.write_text(
        "import json\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from _typeshed import WriteableBuffer\n"
        "from ... import widgets\n"
        "def later():\n"
        "    from ...widgets.transcript_view import transcript_text\n"
        "    import importlib\n"
        "    return importlib.import_module('toolkit.lessons.retail')\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", fake_root)
    targets = [imp.target for imp in imports_of(planted)]
    assert targets == [
        "json",
        "typing.TYPE_CHECKING",
        "toolkit.widgets",
        "_typeshed.WriteableBuffer",
        "toolkit.widgets.transcript_view.transcript_text",
        "importlib",
        "toolkit.lessons.retail",
    ]
    assert [imp.target for imp in imports_of(planted) if imp.type_only] == ["_typeshed.WriteableBuffer"]


# --- docs/DESIGN.md's tree names every module ---------------------------------------------------


def design_tree_modules(text: str) -> set[str]:
    """Paths under toolkit/ that the tree block of docs/DESIGN.md lists, one line per module.
    Depth is two spaces; ``ex01.py … ex12.py`` stands for the whole range."""
    block = text.split("## The tree", 1)[1].split("```")[1]
    stack: list[str] = []
    found = set()
    for line in block.splitlines():
        if not line.strip():
            continue
        depth = (len(line) - len(line.lstrip())) // 2
        name = line.split()[0]
        stack[depth:] = [name.rstrip("/")]
        if name.endswith("/") or stack[0] != "toolkit":
            continue
        folder = "/".join(stack[1:-1])
        span = re.match(r"ex(\d\d)\.py … ex(\d\d)\.py", line.strip())
        names = [f"ex{n:02d}.py" for n in range(int(span[1]), int(span[2]) + 1)] if span else [name]
        found |= {f"{folder}/{n}".lstrip("/") for n in names}
    return found


def test_design_tree_has_one_line_for_every_module():
    listed = design_tree_modules((ROOT / "docs" / "DESIGN.md").read_text(encoding="utf-8"))
    actual = {p.relative_to(TOOLKIT).as_posix() for p in python_files(TOOLKIT)}
    actual -= {p for p in actual if p.endswith("__init__.py") and p.count("/") > 1}  # mcp/http/__init__
    missing, stale = sorted(actual - listed), sorted(listed - actual)
    assert not missing and not stale, (
        f"docs/DESIGN.md, 'The tree': add a line for {missing}; remove the line for {stale}"
    )


# --- no import cycle between toolkit modules (issue 23) ------------------------------------------


def import_graph() -> dict[str, set[str]]:
    """``{module: the toolkit modules it imports}`` over every file under toolkit/. An import of a
    name resolves to the module that defines it; type-only imports count too, since a cycle a type
    checker needs is still two modules that cannot be read one without the other."""
    modules = {module_name(path)[0]: path for path in python_files(TOOLKIT)}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = set()
        for imp in imports_of(path):
            target = imp.target
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as ``[a, b, ..., a]``, or [] when there is none (depth-first)."""
    done: set[str] = set()

    def walk(node: str, path: list[str]) -> list[str]:
        if node in path:
            return path[path.index(node) :] + [node]
        if node in done:
            return []
        for nxt in sorted(graph.get(node, ())):
            cycle = walk(nxt, path + [node])
            if cycle:
                return cycle
        done.add(node)
        return []

    for start in sorted(graph):
        cycle = walk(start, [])
        if cycle:
            return cycle
    return []


def test_no_import_cycle_between_toolkit_modules():
    cycle = find_cycle(import_graph())
    assert not cycle, "toolkit modules import each other in a circle: " + " -> ".join(cycle)
    graph = import_graph()
    assert "toolkit.gate" not in graph["toolkit.registry"] and "toolkit.registry" not in graph["toolkit.gate"]


def test_the_cycle_finder_sees_a_cycle_through_a_type_only_import(tmp_path, monkeypatch):
    """The gate and the registry used to import each other, one side under TYPE_CHECKING."""
    package = tmp_path / "toolkit"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "gate.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .registry import Tool\n", encoding="utf-8"
    )
    (package / "registry.py").write_text("from .gate import carries_outside_text\n", encoding="utf-8")
    (package / "loop.py").write_text("from .gate import wrap\nfrom .registry import Tool\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "TOOLKIT", package)
    assert find_cycle(import_graph()) == ["toolkit.gate", "toolkit.registry", "toolkit.gate"]
    (package / "registry.py").write_text("import json\n", encoding="utf-8")
    assert find_cycle(import_graph()) == []
