"""WCAG 2.1 AA for the course's own content, measured with axe-core (issue 15, point 5).

Two places a student reads the course:

* every notebook's HTML export (``jupyter nbconvert --to html``), as a renderer without live
  widgets shows it: each live view as its static copy, figures and plots as images; opened
  offline in Chromium;
* the live views of notebooks 04 and 10 in JupyterLab, run, in the light and the dark theme.

Each fails on any axe violation in the course's content, on any image there without a real text
alternative, and on any control without an accessible name. What is content and what is the
template (prompt numbers, code cells' syntax highlighting, printed text, link colours) is
defined, with reasons, in ``a11y.py``. The dark-theme picture of notebook 02's transcript goes to
build/screenshots/02_the_call_loop-transcript-dark.png; every count to build/screenshots/axe.txt.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import driver
import pytest
from a11y import audit
from views import all_notebooks

NOTEBOOKS = all_notebooks()
LIVE = [nb for nb in NOTEBOOKS if nb.name[:2] in ("04", "10")]
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}
AUDITS: list = []  # every Audit of the session, written to axe.txt at the end


def report(result, screenshots) -> None:
    AUDITS.append(result)
    print(result.summary())
    (screenshots / "axe.txt").write_text("\n".join(a.summary() for a in AUDITS) + "\n", encoding="utf-8")


def check(result) -> None:
    problems = result.lines()
    problems += [f"image without a text alternative: {i}" for i in result.images_without_alt]
    assert not problems, f"{result.summary()}\n  " + "\n  ".join(problems)
    assert not result.unnamed_controls  # counted among the violations above


def export_without_widget_state(nb, out):
    """The notebook as nbconvert writes it for a renderer without widgets: live views as their
    static copies (the saved widget state dropped, as in test_views_before_running.py)."""
    data = json.loads(nb.read_text(encoding="utf-8"))
    data["metadata"].pop("widgets", None)
    copy = out / nb.name
    copy.write_text(json.dumps(data), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", str(out), str(copy)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return out / f"{nb.stem}.html"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_the_html_export_passes_axe_in_the_courses_content(browser, screenshots, tmp_path, nb):
    page_path = export_without_widget_state(nb, tmp_path)
    context = browser.new_context(viewport={"width": driver.WIDTH, "height": 900})
    try:
        tab = context.new_page()
        tab.route(re.compile(r"^https?://"), lambda route: route.abort())  # offline, as in CI
        tab.goto(page_path.as_uri())
        tab.wait_for_load_state("load")
        result = audit(tab, f"{nb.stem} (HTML export)")
    finally:
        context.close()
    report(result, screenshots)
    check(result)


def set_theme(page, theme: str) -> None:
    light = "true" if theme == "light" else "false"
    page.evaluate("(name) => window.jupyterapp.commands.execute('apputils:change-theme', {theme: name})", THEMES[theme])
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'", timeout=20_000)
    page.wait_for_timeout(800)  # the theme's stylesheet applies after the attribute flips


def run_in_lab(page, nb) -> None:
    driver.open_notebook(page, nb.name)
    driver.run_all(page)
    run = driver.NotebookRun(nb.name)
    driver.read_outputs(page, run)  # waits (bounded) for every widget to draw
    assert run.widgets_rendered == run.widgets_expected > 0, (
        f"{nb.name}: {run.widgets_rendered} of {run.widgets_expected} live views drawn"
    )


@pytest.mark.parametrize("nb", LIVE, ids=[nb.stem for nb in LIVE])
def test_the_live_views_pass_axe_in_jupyterlab_light_and_dark(page, lab, screenshots, nb):
    results = []
    try:
        run_in_lab(page, nb)
        for theme in THEMES:
            set_theme(page, theme)
            result = audit(page, f"{nb.stem} (JupyterLab, {theme} theme)")
            report(result, screenshots)
            results.append(result)
    finally:
        set_theme(page, "light")
        driver.close_notebook(page)
        lab.shutdown_kernels()
    for result in results:
        check(result)


def test_notebook_02s_transcript_is_readable_in_the_dark_theme(page, lab, screenshots):
    """The transcript sets its own light panel and text colour, so JupyterLab's dark theme (whose
    text is near-white) cannot turn it white on white; the picture is for a person to look at."""
    [nb] = [nb for nb in NOTEBOOKS if nb.name.startswith("02_")]
    try:
        driver.open_notebook(page, nb.name)
        driver.run_all(page)
        set_theme(page, "dark")
        transcript = page.locator(".jp-OutputArea-output .toolkit-transcript").first
        transcript.scroll_into_view_if_needed(timeout=10_000)
        transcript.screenshot(path=str(screenshots / f"{nb.stem}-transcript-dark.png"))
        result = audit(page, f"{nb.stem} transcript (JupyterLab, dark theme)", context=".jp-OutputArea-output")
    finally:
        set_theme(page, "light")
        driver.close_notebook(page)
        lab.shutdown_kernels()
    report(result, screenshots)
    check(result)
