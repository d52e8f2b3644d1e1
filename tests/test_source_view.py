"""toolkit.widgets.source: the notebooks show the real, current source of the lab's parts."""

import ast
import importlib
import re
import sys
import textwrap
from pathlib import Path

import pytest

import toolkit as T
from toolkit.widgets.source import SourceView, read_source, show_source


@pytest.fixture
def temp_module(tmp_path, monkeypatch):
    """A module written to a temp folder, imported; returns (module, path)."""
    path = tmp_path / "lesson_tmp_mod.py"
    path.write_text(
        textwrap.dedent('''\
        """A module to edit."""


        def double(x):
            return 2 * x


        class Box:
            def size(self):
                return 1
        '''),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("lesson_tmp_mod", None)
    module = importlib.import_module("lesson_tmp_mod")
    yield module, path
    sys.modules.pop("lesson_tmp_mod", None)


def test_shows_the_function_with_its_file_and_line_numbers(temp_module):
    module, path = temp_module
    view = read_source(module.double)
    assert view.start == 4 and view.lines == ("def double(x):", "    return 2 * x")
    assert str(path) in view.heading()
    assert view.text().splitlines()[1:] == ["4  def double(x):", "5      return 2 * x"]


def test_an_edit_to_the_file_shows_without_reimporting(temp_module):
    module, path = temp_module
    text = path.read_text(encoding="utf-8")
    # two lines added above and the body changed: the view follows the file, not the old code
    path.write_text(
        text.replace('"""A module to edit."""', '"""A module to edit."""\nA = 1\nB = 2').replace(
            "return 2 * x", "return x + x  # edited"
        ),
        encoding="utf-8",
    )
    view = read_source(module.double)
    assert view.start == 6
    assert view.lines[-1] == "    return x + x  # edited"


def test_a_method_through_the_class_or_an_instance(temp_module):
    module, _ = temp_module
    for method in (module.Box.size, module.Box().size):
        view = read_source(method)
        assert view.name == "Box.size"
        assert view.lines[0].strip() == "def size(self):" and view.start == 9


def test_the_toolkit_parts_show_with_a_repository_path():
    view = read_source(T.ToolIndex.search)
    assert view.path == "toolkit/selection.py"
    assert view.lines[0].lstrip().startswith("def search(")
    assert any("def call_matches(" in line for line in read_source(T.call_matches).lines)


@pytest.mark.parametrize("obj", [len, dict.get, str.upper, dict])
def test_a_builtin_says_what_to_do_instead(obj, capsys):
    with pytest.raises(TypeError, match=r"built into Python.*help\("):
        read_source(obj)
    show_source(obj)  # never raises: it prints the advice
    out = capsys.readouterr().out
    assert "no Python source to show" in out and "help(" in out


def test_a_plain_value_is_refused_with_advice(capsys):
    show_source(3)
    assert "value of type int" in capsys.readouterr().out


def test_plain_text_outside_ipython_and_html_in_a_notebook(capsys):
    show_source(T.call_matches)
    out = capsys.readouterr().out
    assert out.startswith("call_matches: toolkit/scoring.py, lines ")
    view = read_source(T.call_matches)
    bundle = view._repr_mimebundle_()
    assert bundle["text/plain"] == view.text()
    html = bundle["text/html"]
    assert "toolkit/scoring.py" in html and "call_matches" in html
    shown = re.sub(r"<[^>]+>", "", html)  # the text a reader sees
    assert f"{view.start + 1}\n{view.start + 2}\n" in shown  # the lines are numbered
    assert "def call_matches(pred" in shown


def test_in_a_notebook_the_view_is_displayed_not_printed(monkeypatch, capsys):
    IPython = pytest.importorskip("IPython")
    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    show_source(T.ToolIndex.search)
    assert capsys.readouterr().out == ""
    assert len(shown) == 1 and isinstance(shown[0], SourceView)
    assert shown[0].name == "ToolIndex.search"


# The notebooks that teach the lab's parts show their code; each shown function must be short
# enough to read on one screen (about 40 lines; JupyterLab on a laptop shows some 48).
SCREEN_LINES = 48
TEACHING_NOTEBOOKS = ("02", "04", "05", "06", "09", "11")


def _shown_in(notebook: Path) -> list[str]:
    """The expressions passed to show_source in a notebook's .py, evaluated with its imports."""
    tree = ast.parse(notebook.read_text(encoding="utf-8"))
    namespace: dict = {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            exec(compile(ast.Module([node], []), str(notebook), "exec"), namespace)
    shown = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "show_source":
            shown.append((ast.unparse(node.args[0]), eval(ast.unparse(node.args[0]), namespace)))
    return shown


@pytest.mark.parametrize("number", TEACHING_NOTEBOOKS)
def test_each_teaching_notebook_shows_code_that_fits_on_one_screen(number):
    (notebook,) = (Path(__file__).resolve().parents[1] / "notebooks").glob(f"{number}_*.py")
    shown = _shown_in(notebook)
    assert shown, f"notebook {number} shows no source"
    for text, obj in shown:
        view = read_source(obj)
        assert view.path.startswith("toolkit/"), (text, view.path)
        assert len(view.lines) <= SCREEN_LINES, f"{text}: {len(view.lines)} lines; split it"
