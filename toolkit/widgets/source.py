"""Read the toolkit's real code inside a notebook: ``show_source(T.ToolIndex.search)``.

Notebooks 02, 04, 05, 06, 09, 11. The lab's six parts (registry, loop, index, schema, MCP
server and client, scorer, gate) are meant to be read, not only called. This view shows the
code the notebook has just run: the file it lives in, its line numbers, and the lines as they
are on disk now, so an edit to the file shows on the next run of the cell (to run the edited
code, restart the kernel). In a notebook the code is highlighted (pygments, which comes with
JupyterLab); elsewhere it prints as plain numbered text.
"""

from __future__ import annotations

import ast
import html
import inspect
import linecache
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .palette import INK

__all__ = ["SourceView", "read_source", "show_source"]

_REPO = Path(__file__).resolve().parents[2]  # the folder that holds toolkit/


@dataclass(frozen=True)
class SourceView:
    """One object's source: where it lives and its lines, numbered from ``start``.

    Shows itself as highlighted HTML in a notebook and as numbered plain text anywhere else.

    Notebooks 02, 04, 05, 06, 09, 11, through show_source.
    """

    name: str
    path: str
    start: int
    lines: tuple[str, ...]

    @property
    def end(self) -> int:
        return self.start + len(self.lines) - 1

    def heading(self) -> str:
        return f"{self.name}: {self.path}, lines {self.start}-{self.end}"

    def text(self) -> str:
        """The heading, then each line with its number."""
        width = len(str(self.end))
        body = [f"{n:>{width}}  {line}" for n, line in enumerate(self.lines, self.start)]
        return "\n".join([self.heading(), *body])

    def html(self) -> str:
        """The heading and the highlighted, numbered code (a plain ``<pre>`` without pygments)."""
        code = "\n".join(self.lines) + "\n"
        try:
            from pygments import highlight
            from pygments.formatters import HtmlFormatter
            from pygments.lexers import PythonLexer
        except ImportError:  # pragma: no cover - pygments comes with JupyterLab
            width = len(str(self.end))
            numbered = "\n".join(f"{n:>{width}}  {html.escape(line)}" for n, line in enumerate(self.lines, self.start))
            body = f"<pre>{numbered}</pre>"
        else:
            formatter = HtmlFormatter(linenos="table", linenostart=self.start, noclasses=True, style="default")
            body = _own_table_style(highlight(code, PythonLexer(), formatter))
        # pygments draws on a light background, so the text colour is set too: JupyterLab's
        # dark theme would otherwise give the plain names near-white text on it.
        panel = f"background:{PANEL};color:{INK};margin:0.5em 0;padding:2px 6px;text-align:left"
        return (
            f'<figure class="toolkit-source" style="{panel}" aria-label="source of {html.escape(self.name)}">'
            f"<figcaption><code>{html.escape(self.heading())}</code></figcaption>"
            f"{body}</figure>"
        )

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        return {"text/plain": self.text(), "text/html": self.html()}

    def __str__(self) -> str:
        return self.text()


PANEL = "#f8f8f8"  # pygments' own background for its default style


def _own_table_style(table: str) -> str:
    """Pygments' line-number table with its cells styled in place. JupyterLab's output CSS
    right-aligns table cells and paints rows with the theme's background (near-black in the dark
    theme) as it does every ``<pre>``: that right-aligned the code, lost its indentation and hid
    the names; inline styles
    keep the code left-aligned on the light panel in either theme."""
    cell = f"background:{PANEL};color:{INK};border:none;padding:0 4px;vertical-align:top"
    table = table.replace("<tr>", f'<tr style="background:{PANEL}">')
    own = f"background:{PANEL};color:{INK};"  # JupyterLab paints <pre> with the theme's background too
    table = table.replace('<pre style="', f'<pre style="{own}').replace("<pre>", f'<pre style="{own}">')
    table = table.replace('<td class="linenos">', f'<td class="linenos" style="{cell};text-align:right">')
    return table.replace('<td class="code">', f'<td class="code" style="{cell};text-align:left">')


def _target(obj: Any) -> Any:
    """The function or class behind a bound method, property, classmethod or decorator."""
    if isinstance(obj, property):
        obj = obj.fget
    obj = getattr(obj, "__func__", obj)  # bound methods, classmethod, staticmethod
    return inspect.unwrap(obj)


def _no_source(obj: Any, why: str) -> TypeError:
    name = getattr(obj, "__qualname__", None) or type(obj).__name__
    return TypeError(
        f"{name} has no Python source to show: {why}. Read about it with help({name}) instead; "
        "show_source reads functions, methods and classes written in Python, such as "
        "show_source(T.ToolIndex.search)."
    )


def _fresh_lines(path: str, qualname: str) -> tuple[int, list[str]] | None:
    """The lines of ``qualname`` in the file as it is on disk now, found by name, or None."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return None
    nodes: list[ast.AST] = [tree]
    node: ast.AST | None = None
    for part in qualname.split("."):
        node = next(
            (
                n
                for parent in nodes
                for n in ast.iter_child_nodes(parent)
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part
            ),
            None,
        )
        if node is None:
            return None
        nodes = [node]
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    lines = text.splitlines()[first - 1 : node.end_lineno]
    return first, lines


def _shown_path(path: str) -> str:
    """A toolkit file relative to the repository (``toolkit/selection.py``), others as given."""
    try:
        return Path(path).resolve().relative_to(_REPO).as_posix()
    except ValueError:
        return path


def read_source(obj: Any) -> SourceView:
    """The current source of a function, method or class, with its file and line numbers.

    The file is read again each time, so an edit shows at once. A builtin (written in C), or an
    object that is not a function, method or class, raises :class:`TypeError` saying what to do
    instead.

    Notebooks 02, 04, 05, 06, 09, 11, through show_source.
    """
    target = _target(obj)
    if not (inspect.isfunction(target) or inspect.isclass(target) or inspect.ismethod(target)):
        if inspect.isbuiltin(target) or inspect.ismethoddescriptor(target):
            raise _no_source(target, "it is built into Python, written in C")
        raise _no_source(obj, f"it is a value of type {type(obj).__name__}, not a function, method or class")
    try:
        path = inspect.getsourcefile(target)
    except TypeError:
        raise _no_source(target, "it is built into Python, written in C") from None
    if path is None:
        raise _no_source(target, "its file cannot be found")
    qualname = getattr(target, "__qualname__", target.__name__)
    found = None if "<locals>" in qualname else _fresh_lines(path, qualname)
    if found is None:  # defined in a notebook cell, inside a function, or not found by name
        linecache.checkcache(path)
        try:
            lines, first = inspect.getsourcelines(target)
        except (OSError, TypeError):
            raise _no_source(target, "its source file cannot be read") from None
        found = (max(first, 1), [line.rstrip("\n") for line in lines])
    first, lines = found
    return SourceView(name=qualname, path=_shown_path(path), start=first, lines=tuple(lines))


def show_source(obj: Any) -> None:
    """Show the real source of ``obj`` (a function, method or class): file, line numbers, code.

    In a notebook the code is highlighted; outside IPython it is printed as numbered plain
    text. For a builtin it says so and what to read instead.

    Notebooks 02, 04, 05, 06, 09, 11.
    """
    try:
        view = read_source(obj)
    except TypeError as exc:
        print(exc)
        return
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(view)
    else:
        print(view.text())
