"""Shared helpers for the tests of the exercise checks (tests/test_checks_*.py).

Starter and solution code are read from the notebooks' jupytext sources, so the tests follow
the cells students actually get.
"""

import ast
from pathlib import Path

import jupytext

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def cell_namespace(stem: str, tag: str) -> dict:
    """Run the notebook's first code cell, then its cells tagged ``tag``; return the names defined."""
    nb = jupytext.read(NOTEBOOKS / f"{stem}.py")
    code = [c for c in nb.cells if c.cell_type == "code"]
    namespace: dict = {}
    exec(code[0].source, namespace)  # the imports and setup every later cell relies on
    for cell in code:
        if tag in cell.metadata.get("tags", []):
            exec(cell.source, namespace)
    return namespace


def failed_lines(result):
    return [line for line in result.lines if line.lstrip().startswith("✗")]


def assert_fails_with_sentence(result, *fragments):
    """The check ran, did not pass, and some ✗ line explains itself and names each fragment."""
    assert result.status == "checked" and not result.ok, result.text
    bad = failed_lines(result)
    assert bad and all(": " in line for line in bad), result.text
    for fragment in fragments:
        assert any(fragment in line for line in bad), f"{fragment!r} not in:\n{result.text}"


def assert_not_done(result, capsys):
    assert result.status == "not done" and not result.ok
    assert "not done yet" in capsys.readouterr().out


def boom(*args, **kwargs):
    raise KeyError("oops")


def check_cell(stem: str, module: str) -> str:
    """The source of the notebook's check cell that calls ``module.check(...)``."""
    nb = jupytext.read(NOTEBOOKS / f"{stem}.py")
    for cell in nb.cells:
        if cell.cell_type == "code" and "check" in cell.metadata.get("tags", []) and f"{module}.check(" in cell.source:
            return cell.source
    raise LookupError(f"no check cell calling {module}.check in {stem}")


def run_check_cell(stem: str, module: str, namespace: dict):
    """Run the check cell as a student's kernel would, with ``namespace``'s names; return the result."""
    tree = ast.parse(check_cell(stem, module))
    last = tree.body.pop()
    scope = dict(namespace)
    exec(compile(tree, f"<{stem} check cell>", "exec"), scope)
    return eval(compile(ast.Expression(last.value), f"<{stem} check cell>", "eval"), scope)
