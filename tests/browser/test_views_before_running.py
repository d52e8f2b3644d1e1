"""A live view is never blank (issue 12, point 8): opened fresh, before any cell runs, and outside
JupyterLab.

Each view is saved twice in its output: the widget (drawn from the notebook's saved widget
state) and a static copy of its first picture (HTML and PNG; toolkit/widgets/_base.py). Which
one a reader sees depends on where the notebook is opened:

* JupyterLab, fresh from git: the notebook is not trusted yet, so JupyterLab draws no widget
  from saved outputs and picks the static copy;
* JupyterLab, trusted (a notebook the user ran and saved): the widget, from the saved state;
* ``jupyter nbconvert --to html`` (what nbviewer runs): a widget script and the saved state,
  which the page draws with the widgets' HTML manager from a CDN;
* a renderer without widget support (GitHub's viewer; nbconvert given no widget state): the
  static copy.

The tests open each notebook that shows a live view in these ways, run no cell, and fail on any
view that shows a placeholder, "Loading widget...", an error or a picture that did not load.
Screenshots: build/screenshots/NN_*-fresh.png, -trusted.png and -export.png.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import driver
import pytest
from views import all_notebooks, notebooks_with_live_views

NOTEBOOKS = notebooks_with_live_views(all_notebooks())
IDS = [nb.stem for nb in NOTEBOOKS]
STATE_MIME = "application/vnd.jupyter.widget-state+json"
VIEW_SCRIPT = re.compile(r'<script type="application/vnd.jupyter.widget-view\+json">\s*(\{.*?\})\s*</script>', re.S)
STATE_SCRIPT = re.compile(r'<script type="application/vnd.jupyter.widget-state\+json">\s*(\{.*?\})\s*</script>', re.S)


def saved_views(nb) -> int:
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    return sum(1 for c in cells for o in c.get("outputs", []) if driver.WIDGET_MIME in o.get("data", {}))


def open_and_read(page, lab, name: str, shot) -> list[dict]:
    try:
        driver.open_notebook(page, name)
        views = driver.read_views(page)
        driver.screenshot(page, shot)
        return views
    finally:
        driver.close_notebook(page)
        lab.shutdown_kernels()


def test_there_are_live_views_to_check():
    assert NOTEBOOKS, "no notebook shows a live view; tests/browser/views.py lists them"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=IDS)
def test_a_fresh_notebook_shows_each_views_first_picture(page, lab, screenshots, nb):
    """As a student meets it after a clone: opened, not run, not trusted."""
    name = lab.add_copy(nb, f"fresh-{nb.name}")  # other tests run and may autosave nb.name
    views = open_and_read(page, lab, name, screenshots / f"{nb.stem}-fresh.png")
    assert len(views) == saved_views(nb) > 0
    bad = driver.blank_views(views, "static")
    assert not bad, f"{nb.name}, opened fresh: views without their picture:\n" + "\n".join(bad)


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=IDS)
def test_a_trusted_notebook_draws_each_view_from_its_saved_state(page, lab, screenshots, nb):
    """A notebook the user trusts (JupyterLab signs what a user runs and saves): widgets are drawn
    from the saved widget state, before any cell runs."""
    name = lab.add_copy(nb, f"trusted-{nb.name}", trusted=True)
    views = open_and_read(page, lab, name, screenshots / f"{nb.stem}-trusted.png")
    assert len(views) == saved_views(nb) > 0
    bad = driver.blank_views(views, "widget")
    assert not bad, f"{nb.name}, trusted: views not drawn from the saved state:\n" + "\n".join(bad)


def export_html(nb, out, keep_state: bool) -> str:
    """``jupyter nbconvert --to html`` of ``nb``; without ``keep_state``, of a copy without the
    saved widget state, which is how a renderer without widget support reads it."""
    source = nb
    if not keep_state:
        data = json.loads(nb.read_text(encoding="utf-8"))
        data["metadata"].pop("widgets", None)
        source = out / f"nostate-{nb.name}"
        source.write_text(json.dumps(data), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return (out / source.with_suffix(".html").name).read_text(encoding="utf-8")


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=IDS)
def test_the_html_export_shows_every_view(browser, screenshots, tmp_path, nb):
    """nbviewer's way (the export holds each view's widget and the state to draw it) and the way of
    a renderer without widgets (the static copies, with their pictures, in a real browser)."""
    count = saved_views(nb)
    page = export_html(nb, tmp_path, keep_state=True)
    shown = [json.loads(m)["model_id"] for m in VIEW_SCRIPT.findall(page)]
    [state] = [json.loads(m)["state"] for m in STATE_SCRIPT.findall(page)]
    assert len(shown) == count and all(model in state for model in shown), (
        f"{nb.name}: the export does not hold every view with its saved state"
    )

    export_html(nb, tmp_path, keep_state=False)
    context = browser.new_context(viewport={"width": driver.WIDTH, "height": 900})
    try:
        tab = context.new_page()
        tab.route(re.compile(r"^https?://"), lambda route: route.abort())  # offline, as in CI
        tab.goto((tmp_path / f"nostate-{nb.stem}.html").as_uri())
        tab.wait_for_load_state("load")
        copies = tab.evaluate("""() => Array.from(document.querySelectorAll('.toolkit-static-view'))
            .map((el) => ({text: el.innerText.length, images: el.querySelectorAll('img').length,
                           pictures: Array.from(el.querySelectorAll('img'))
                                          .filter((i) => i.complete && i.naturalWidth > 0).length}))""")
        first = tab.locator(".toolkit-static-view").first
        if first.count():
            first.screenshot(path=str(screenshots / f"{nb.stem}-export.png"))
    finally:
        context.close()
    assert len(copies) == count, f"{nb.name}: {count} live views, {len(copies)} static copies in the export"
    assert all(c["pictures"] == c["images"] and c["text"] > 40 for c in copies), f"{nb.name}: {copies}"
