"""Driving JupyterLab from Playwright: open a notebook, run it, read what it shows, move controls.

The server is started with ``expose_app_in_browser``, so ``window.jupyterapp`` gives the same
commands a user reaches from the menus ("Run All Cells", "Start Deck"). What the tests then
check is read from the page itself: outputs in the notebook model, widgets in the DOM, pixels
in a screenshot. Every wait here has a time limit, given in milliseconds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from views import LiveView

OPEN_MS = 60_000  # open a notebook and get an idle kernel
RUN_MS = 180_000  # run every cell of one notebook
RENDER_MS = 30_000  # widgets to draw after the kernel is idle
CHANGE_MS = 20_000  # a view to redraw after a control moved
WIDTH = 1400
SHOT_MAX = 15_000  # Chromium draws at most ~16k pixels in one screenshot

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@dataclass
class NotebookRun:
    name: str
    errors: list = field(default_factory=list)  # error outputs (cell, ename, evalue)
    not_run: list = field(default_factory=list)  # code cells left without a count
    widgets_expected: int = 0
    widgets_rendered: int = 0
    widget_failures: list = field(default_factory=list)
    stderr: list = field(default_factory=list)
    views: dict = field(default_factory=dict)  # view name -> "changed" or a reason
    screenshots: list = field(default_factory=list)
    slides: int = 0
    seconds: float = 0.0
    page_errors: list = field(default_factory=list)  # uncaught exceptions in the page
    phases: dict = field(default_factory=dict)  # step -> seconds, for the timing report


def open_notebook(page, path: str) -> None:
    page.evaluate(
        """async ([path, ms]) => {
        const app = window.jupyterapp;
        const work = (async () => {
            const w = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
            await w.context.ready;
            await w.sessionContext.ready;
            app.shell.activateById(w.id);
            window.__nb = w;
        })();
        const limit = new Promise((_, no) => setTimeout(
            () => no(new Error(`JupyterLab did not open ${path} within ${ms / 1000} s`)), ms));
        await Promise.race([work, limit]);
    }""",
        [path, OPEN_MS],
    )
    page.wait_for_function(
        """() => { const k = window.__nb.sessionContext.session?.kernel;
                                      return k && k.status === 'idle'; }""",
        timeout=OPEN_MS,
    )


def run_all(page) -> None:
    """Clear the stored outputs, then Run All Cells, and wait until it has finished."""
    page.evaluate("""() => {
        const app = window.jupyterapp;
        app.shell.activateById(window.__nb.id);
        window.__run = 'running';
        app.commands.execute('notebook:clear-all-cell-outputs')
          .then(() => app.commands.execute('notebook:run-all-cells'))
          .then(() => { window.__run = 'done'; }, (e) => { window.__run = 'failed: ' + e; });
    }""")
    page.wait_for_function("() => window.__run !== 'running'", timeout=RUN_MS)
    page.wait_for_function("() => window.__nb.sessionContext.session?.kernel?.status === 'idle'", timeout=RUN_MS)
    state = page.evaluate("() => window.__run")
    if state != "done":
        raise RuntimeError(f"Run All Cells did not finish: {state}")


READ_OUTPUTS = (
    """() => {
    const nb = window.__nb.content, out = {errors: [], notRun: [], stderr: [],
                                          expected: 0, rendered: 0, failed: []};
    nb.widgets.forEach((cell, i) => {
        if (cell.model.type !== 'code') return;
        const tags = cell.model.getMetadata('tags') || [];
        const first = cell.model.sharedModel.getSource().split('\\n')[0].slice(0, 80);
        if (cell.model.executionCount === null && cell.model.sharedModel.getSource().trim())
            out.notRun.push(`cell ${i + 1}: ${first}`);
        for (const o of cell.model.outputs.toJSON()) {
            if (o.output_type === 'error' && !tags.includes('raises-exception'))
                out.errors.push(`cell ${i + 1} (${first}): ${o.ename}: ${o.evalue}`);
            if (o.output_type === 'stream' && o.name === 'stderr')
                out.stderr.push(`cell ${i + 1}: ${String(o.text).slice(0, 200)}`);
            if (o.data && o.data['%s']) out.expected += 1;
        }
        cell.node.querySelectorAll('.jp-OutputArea-output').forEach((el) => {
            const text = el.innerText || '';
            const broken = /Error displaying widget|Error rendering widget|Failed to load model|model not found/;
            const root = el.querySelector(':scope > .jupyter-widgets');
            if (root && !root.classList.contains('jupyter-widgets-error-widget') && !broken.test(text))
                out.rendered += 1;
            else if (root || broken.test(text))
                out.failed.push(`cell ${i + 1}: ${text.slice(0, 200) || '(empty)'}`);
        });
    });
    return out;
}"""
    % WIDGET_MIME
)


def read_outputs(page, run: NotebookRun) -> None:
    """Wait (bounded) for every widget output to draw, then record what the notebook shows."""
    try:
        page.wait_for_function(
            f"() => {{ const r = ({READ_OUTPUTS})(); return r.rendered + r.failed.length >= r.expected; }}",
            timeout=RENDER_MS,
        )
    except Exception:  # noqa: BLE001 - the counts below say what is missing
        pass
    r = page.evaluate(READ_OUTPUTS)
    run.errors, run.not_run, run.stderr = r["errors"], r["notRun"], r["stderr"]
    run.widgets_expected, run.widgets_rendered = r["expected"], r["rendered"]
    run.widget_failures = r["failed"]


# What each saved live view shows, read without running anything. A view is "static" when it
# shows the copy saved beside the widget (toolkit/widgets/_base.py), "widget" when the widget
# manager drew it from the notebook's saved state; "pictures" counts the images that loaded.
READ_VIEWS = (
    """() => {
    const out = [];
    window.__nb.content.widgets.forEach((cell, i) => {
        if (cell.model.type !== 'code') return;
        const children = cell.node.querySelectorAll('.jp-OutputArea-child');
        cell.model.outputs.toJSON().forEach((o, k) => {
            if (!(o.data && o.data['%s'])) return;
            const el = children[k] && children[k].querySelector('.jp-OutputArea-output');
            const text = el ? el.innerText || '' : '';
            const imgs = el ? Array.from(el.querySelectorAll('img')) : [];
            const root = el && el.querySelector('.jupyter-widgets');
            out.push({cell: i + 1, text: text.slice(0, 160), pngs: 'image/png' in o.data ? 1 : 0,
                      pictures: imgs.filter((img) => img.complete && img.naturalWidth > 0).length,
                      images: imgs.length,
                      static: !!(el && el.querySelector('.toolkit-static-view')),
                      widget: !!(root && !root.classList.contains('jupyter-widgets-error-widget')
                                 && !/Error displaying widget|Loading widget/.test(text)),
                      loading: /Loading widget/.test(text) || imgs.some((img) => !img.complete)});
        });
    });
    return out;
}"""
    % WIDGET_MIME
)

PLACEHOLDER = (
    "Loading widget",
    "Error displaying widget",
    "Error rendering widget",
    "run the notebook in Jupyter to use it",
    "model not found",
)


def read_views(page) -> list[dict]:
    """Wait (bounded) until no saved live view is still loading, then say what each shows."""
    try:
        page.wait_for_function(
            f"() => {{ const v = ({READ_VIEWS})(); return v.length > 0 && v.every((x) => !x.loading); }}",
            timeout=RENDER_MS,
        )
    except Exception:  # noqa: BLE001 - what is read below says what is missing
        pass
    return page.evaluate(READ_VIEWS)


def blank_views(views: list[dict], want: str) -> list[str]:
    """The views that do not show ``want`` ("static" or "widget") with their pictures loaded."""
    bad = []
    for v in views:
        shown = [p for p in PLACEHOLDER if p in v["text"]]
        if not v[want] or shown or v["pictures"] < max(v["pngs"], 1 if v["images"] else 0):
            bad.append(
                f"cell {v['cell']}: {want}={v[want]}, pictures {v['pictures']}/{v['images']}, text {v['text'][:100]!r}"
            )
    return bad


# the element that scrolls a notebook in JupyterLab 4 (the notebook itself, or its outer panel)
SCROLLER = """() => { const n = window.__nb.content.node;
    return n.classList.contains('jp-WindowedPanel-outer') ? n
         : (n.querySelector('.jp-WindowedPanel-outer') || n); }"""


def screenshot(page, path: Path) -> list[Path]:
    """The whole notebook, top to bottom, in one picture (or a few, if it is very long)."""
    page.evaluate("() => { window.jupyterapp.shell.collapseLeft(); window.jupyterapp.shell.collapseRight(); }")
    page.wait_for_timeout(300)
    height = page.evaluate(f"() => ({SCROLLER})().scrollHeight")
    top = page.evaluate(f"() => ({SCROLLER})().getBoundingClientRect().top")
    old = page.viewport_size
    shots, part, offset = [], 1, 0
    try:
        while True:
            chunk = min(height - offset, SHOT_MAX)
            page.set_viewport_size({"width": WIDTH, "height": int(top + chunk + 30)})
            page.evaluate(f"(y) => {{ ({SCROLLER})().scrollTop = y; }}", offset)
            page.wait_for_timeout(400)
            target = path if part == 1 else path.with_name(f"{path.stem}-{part}{path.suffix}")
            page.screenshot(path=str(target), timeout=30_000)
            shots.append(target)
            offset += chunk
            part += 1
            if offset >= height - 5:
                break
    finally:
        page.set_viewport_size(old)
        page.evaluate(f"() => {{ ({SCROLLER})().scrollTop = 0; }}")
    return shots


SNAPSHOT = """(el) => {
    const out = el.closest('.jp-OutputArea-output');
    const pics = Array.from(out.querySelectorAll('img')).map((i) => i.src).join('|');
    const html = Array.from(out.querySelectorAll('.widget-html-content'))
                      .map((h) => h.innerHTML).join('|');
    return pics + '#' + html;
}"""


def find_control(page, view: LiveView, scope: str = ".jp-Notebook"):
    """The view's control as a Playwright locator (the first match in ``scope``), or None."""
    nb = page.locator(f"{scope} .jp-OutputArea-output")
    if view.kind == "slider":
        loc = nb.locator(".widget-slider").filter(has=page.locator(".widget-label", has_text=view.label))
        exact = [
            i
            for i in range(loc.count())
            if loc.nth(i).locator(".widget-label").first.inner_text().strip() == view.label
        ]
        return loc.nth(exact[0]) if exact else None
    if view.kind == "checkbox":
        loc = nb.locator(".widget-checkbox").filter(has_text=view.label)
        return loc.first if loc.count() else None
    if view.kind == "radio":
        group = f".{view.css}" if view.css else ".widget-radio"
        loc = nb.locator(group).first.locator("input[type=radio]")
        return loc.nth(1) if loc.count() > 1 else None
    raise ValueError(f"unknown control kind {view.kind!r} for {view.name}")


def move_control(page, view: LiveView, control) -> None:
    control.scroll_into_view_if_needed(timeout=10_000)
    if view.kind == "slider":
        handle = control.locator(".noUi-handle").first
        track = control.locator(".noUi-base").first
        hb, tb = handle.bounding_box(), track.bounding_box()
        if not hb or not tb:
            raise RuntimeError(f"{view.name}: the slider '{view.label}' has no size on screen")
        x0, y0 = hb["x"] + hb["width"] / 2, hb["y"] + hb["height"] / 2
        # drag to the far side of the track from where the handle is now
        x1 = tb["x"] + tb["width"] * (0.9 if x0 < tb["x"] + tb["width"] / 2 else 0.1)
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.mouse.move(x1, y0, steps=8)
        page.mouse.up()
    elif view.kind == "checkbox":
        control.locator("input[type=checkbox]").click(timeout=10_000)
    else:
        control.click(timeout=10_000)


def check_view(page, view: LiveView, scope: str = ".jp-Notebook") -> str:
    """Move the view's control; "changed" if its pictures or text changed, else why not."""
    control = find_control(page, view, scope)
    if control is None:
        return (
            f"no {view.kind} labelled '{view.label or view.css}' on the page; if "
            f"toolkit.widgets.{view.function} renamed it, update tests/browser/views.py"
        )
    before = control.evaluate(SNAPSHOT)
    move_control(page, view, control)
    deadline = time.monotonic() + CHANGE_MS / 1000
    while time.monotonic() < deadline:
        if control.evaluate(SNAPSHOT) != before:
            return "changed"
        page.wait_for_timeout(200)
    return f"moved the {view.kind} '{view.label}' but the view did not change in {CHANGE_MS // 1000} s"


def close_notebook(page) -> None:
    """Close without saving (the copy is thrown away anyway) and without a dialog."""
    page.evaluate("""() => { const w = window.__nb; if (!w) return;
                             w.context.model.dirty = false; w.dispose(); window.__nb = null; }""")


def start_deck(page) -> int:
    """Start the slideshow at the first cell; returns how many cells are on screen."""
    page.evaluate("""() => { const nb = window.__nb.content;
                             nb.activeCellIndex = 0; nb.mode = 'command';
                             window.jupyterapp.commands.execute('deck:start'); }""")
    page.wait_for_function("() => document.querySelectorAll('.jp-deck-mod-onscreen').length > 0", timeout=20_000)
    page.wait_for_timeout(500)
    return page.evaluate("() => document.querySelectorAll('.jp-deck-mod-onscreen').length")


def deck_forward_to_widget(page, max_steps: int) -> bool:
    """Step the deck forward until a cell on screen holds a drawn widget."""
    on_screen = (
        "() => Array.from(document.querySelectorAll('.jp-Cell.jp-deck-mod-onscreen'))"
        ".some((c) => c.querySelector('.jupyter-widgets .noUi-handle, "
        ".jupyter-widgets input[type=checkbox]'))"
    )
    for _ in range(max_steps):
        if page.evaluate(on_screen):
            return True
        page.evaluate("() => { window.jupyterapp.commands.execute('deck:forward'); }")
        page.wait_for_timeout(250)
    return page.evaluate(on_screen)


def stop_deck(page) -> None:
    page.evaluate("() => { window.jupyterapp.commands.execute('deck:stop'); }")
    page.wait_for_function("() => document.querySelectorAll('.jp-deck-mod-onscreen').length === 0", timeout=20_000)
