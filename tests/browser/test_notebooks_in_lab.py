"""Every notebook, as a student meets it: opened in JupyterLab in Chromium, every cell run.

For each notebook: no cell shows an error, every cell ran, every widget output draws a widget,
a screenshot is saved under build/screenshots/, and the slideshow (jupyterlab-slideshow's deck)
starts on its first slide. Each live view is then moved by one control and must change. A
view whose module or notebook does not exist yet is skipped with the reason.
"""

from __future__ import annotations

import time

import driver
import pytest
from views import LIVE_VIEWS, all_notebooks, code_of, notebooks_showing

NOTEBOOKS = all_notebooks()
RUNS: dict[str, driver.NotebookRun] = {}


def run_notebook(page, lab, screenshots, nb) -> driver.NotebookRun:
    """Run one notebook in the shared tab (once per session) and record what it shows."""
    if nb.name in RUNS:
        return RUNS[nb.name]
    run = driver.NotebookRun(nb.name)
    errors_before = len(page.console_errors)
    start = time.monotonic()
    last = start

    def phase(name):
        nonlocal last
        now = time.monotonic()
        run.phases[name] = round(now - last, 1)
        last = now

    try:
        driver.open_notebook(page, nb.name)
        phase("open")
        driver.run_all(page)
        phase("run all")
        driver.read_outputs(page, run)
        run.screenshots = driver.screenshot(page, screenshots / f"{nb.stem}.png")
        phase("check + screenshot")
        for view in LIVE_VIEWS:
            if view.module_present() and view.call in code_of(nb):
                run.views[view.name] = driver.check_view(page, view)
        phase("live views")
        run.slides = driver.start_deck(page)
        page.screenshot(path=str(screenshots / f"{nb.stem}-slide1.png"), timeout=30_000)
        driver.stop_deck(page)
        phase("slideshow")
    finally:
        driver.close_notebook(page)
        lab.shutdown_kernels()
        run.seconds = time.monotonic() - start
        run.page_errors = page.console_errors[errors_before:]
        RUNS[nb.name] = run
    return run


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[nb.stem for nb in NOTEBOOKS])
def test_notebook_runs_clean_in_jupyterlab(page, lab, screenshots, nb):
    run = run_notebook(page, lab, screenshots, nb)
    print(f"{nb.name}: {run.seconds:.1f} s {run.phases}; {run.widgets_rendered} widgets; views {run.views}")
    assert not run.errors, f"{nb.name}: cells show errors:\n" + "\n".join(run.errors)
    assert not run.not_run, f"{nb.name}: cells did not run:\n" + "\n".join(run.not_run)
    assert not run.widget_failures, f"{nb.name}: widgets did not draw:\n" + "\n".join(run.widget_failures)
    assert run.widgets_rendered == run.widgets_expected, (
        f"{nb.name}: {run.widgets_expected} widget outputs, {run.widgets_rendered} drawn"
    )
    assert run.screenshots and all(p.stat().st_size > 10_000 for p in run.screenshots)
    assert run.slides > 0, f"{nb.name}: the slideshow showed no cell"
    assert not run.page_errors, f"{nb.name}: the page threw: {run.page_errors}"


@pytest.mark.parametrize("view", LIVE_VIEWS, ids=[v.name for v in LIVE_VIEWS])
def test_live_view_follows_its_control(page, lab, screenshots, view):
    if not view.module_present():
        pytest.skip(f"not present: toolkit.widgets.{view.function} is not written yet")
    shown_in = notebooks_showing(view, NOTEBOOKS)
    if not shown_in:
        pytest.skip(f"not present: no notebook calls {view.call}…) yet")
    run = run_notebook(page, lab, screenshots, shown_in[0])
    assert run.views.get(view.name) == "changed", f"{view.name} in {shown_in[0].name}: {run.views.get(view.name)}"


def test_a_live_view_works_inside_the_slideshow(page, lab, screenshots):
    """Present a notebook as slides, step to its first live view, and move its control."""
    candidates = [(v, nb) for v in LIVE_VIEWS if v.module_present() for nb in notebooks_showing(v, NOTEBOOKS)]
    if not candidates:
        pytest.skip("not present: no notebook shows a live view yet")
    nb = candidates[0][1]
    try:
        driver.open_notebook(page, nb.name)
        driver.run_all(page)
        driver.start_deck(page)
        cells = page.evaluate("() => window.__nb.content.widgets.length")
        assert driver.deck_forward_to_widget(page, cells), (
            f"stepped through {cells} slides of {nb.name} without meeting a widget"
        )
        scope = ".jp-Cell.jp-deck-mod-onscreen"
        views = [v for v, n in candidates if n == nb and driver.find_control(page, v, scope) is not None]
        assert views, f"no known live view on the current slide of {nb.name}"
        page.screenshot(path=str(screenshots / f"slideshow-{nb.stem}-before.png"))
        result = driver.check_view(page, views[0], scope)
        page.screenshot(path=str(screenshots / f"slideshow-{nb.stem}-after.png"))
        assert result == "changed", f"{views[0].name} in the slideshow: {result}"
        driver.stop_deck(page)
    finally:
        driver.close_notebook(page)
        lab.shutdown_kernels()
