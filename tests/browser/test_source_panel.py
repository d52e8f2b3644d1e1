"""show_source's panel as JupyterLab renders it (toolkit/widgets/source.py; notebooks 02, 04, 05,
06, 09, 11), in the light and the dark theme.

JupyterLab's output stylesheet right-aligns table cells and paints table rows with the theme's
background, and pygments lays the numbered code out as a table: the code came out right-aligned
(its indentation lost) and, in the dark theme, on a near-black row with dark-blue names. This
test runs one show_source cell in a throw-away notebook, then reads from the rendered page the
code cell's computed ``text-align`` and the contrast of every coloured run of code against the
background actually painted behind it. Screenshots: build/screenshots/source-panel-<theme>.png.
"""

from __future__ import annotations

import json

import driver
import nbformat
import pytest
from test_accessibility import THEMES, set_theme

MIN_CONTRAST = 4.5  # WCAG 2.x AA for body text

MEASURE = """() => {
    const panel = document.querySelector('.jp-Notebook .toolkit-source');
    if (!panel) return {missing: true};
    const rgb = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
        const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const paint = (el) => {  // the first opaque background from el outwards
        for (let e = el; e; e = e.parentElement) {
            const c = rgb(getComputedStyle(e).backgroundColor);
            if (c.length >= 3 && (c.length === 3 || c[3] > 0)) return c.slice(0, 3);
        }
        return [255, 255, 255];
    };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const code = panel.querySelector('td.code pre') || panel.querySelector('pre');
    const runs = [...code.querySelectorAll('span'), code].filter((s) => s.textContent.trim());
    const worst = runs.map((s) => ({text: s.textContent.trim().slice(0, 30),
        ratio: ratio(rgb(getComputedStyle(s).color), paint(s))})).sort((a, b) => a.ratio - b.ratio);
    const lines = code.textContent.split('\\n').filter((l) => l.trim());
    const box = code.getBoundingClientRect();
    return {align: getComputedStyle(code).textAlign, cellAlign: getComputedStyle(code.parentElement).textAlign,
            worst: worst.slice(0, 3), background: paint(code), indented: lines.some((l) => /^ {4}/.test(l)),
            left: Math.round(box.left), width: Math.round(box.width)};
}"""


def _notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import toolkit as T\nfrom toolkit.widgets.source import show_source"),
        nbformat.v4.new_code_cell("show_source(T.ToolIndex.search)"),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


@pytest.fixture(scope="module")
def source_notebook(lab, tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("source") / "source_panel.ipynb"
    nbformat.write(_notebook(), path)
    return lab.add_copy(path, "source_panel.ipynb")


def test_show_source_is_left_aligned_and_readable_in_both_themes(page, lab, screenshots, source_notebook):
    driver.open_notebook(page, source_notebook)
    try:
        driver.run_all(page)
        page.wait_for_selector(".jp-Notebook .toolkit-source td.code pre", timeout=60_000)
        seen = {}
        for theme in THEMES:
            set_theme(page, theme)
            seen[theme] = page.evaluate(MEASURE)
            page.locator(".jp-Notebook .toolkit-source").screenshot(path=str(screenshots / f"source-panel-{theme}.png"))
    finally:
        set_theme(page, "light")
        driver.close_notebook(page)
    (screenshots / "source-panel.json").write_text(json.dumps(seen, indent=2))
    for theme, got in seen.items():
        assert not got.get("missing"), f"{theme}: no show_source panel was drawn"
        assert got["align"] in ("left", "start") and got["cellAlign"] in ("left", "start"), (theme, got)
        assert got["indented"], f"{theme}: the code lost its indentation: {got}"
        assert got["worst"][0]["ratio"] >= MIN_CONTRAST, f"{theme}: text below {MIN_CONTRAST}:1 on its panel: {got}"
