"""The live views meet WCAG 2.1 AA where Python can check it (issue 15, points 1-4).

* Every text colour of the one palette passes 4.5:1 on the backgrounds it is used on.
* Every piece of HTML a view shows is readable in JupyterLab's light AND dark theme: each text
  run's colour against the background it sits on (inherited through the HTML, the theme's own
  text and background colours where a view sets none) passes 4.5:1.
* Each plot is an ``<img>`` whose alt says what it shows and its key numbers, changes on a
  redraw, and is the same in the static copy saved for exported HTML.
* Every control has a name saying what it controls; choices are radio buttons (ipywidgets'
  toggle buttons expose no pressed state); results sit in polite live regions.
* The wire view's scrolling message boxes can be reached from the keyboard.

What only a browser shows (the names the handles get, the dark theme screenshot) is checked
by the browser suite.
"""

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import toolkit as T
from toolkit.widgets import palette
from toolkit.widgets.palette import DARK_BACKGROUNDS, LIGHT_BACKGROUNDS, TEXT, TEXT_ON_DARK, contrast_ratio

W = pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from toolkit.widgets import gate_view as gp  # noqa: E402
from toolkit.widgets import passk, recall, scoring  # noqa: E402
from toolkit.widgets.transcript_view import transcript_html, wire_html  # noqa: E402

# ------------------------------------------------------------------------------ the palette


def test_contrast_ratio_is_wcags_formula():
    assert contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast_ratio("#fff", "#FFFFFF") == pytest.approx(1.0)
    assert contrast_ratio("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)  # AA's edge grey
    assert contrast_ratio("#0072B2", "#FFFFFF") == contrast_ratio("#FFFFFF", "#0072B2")
    with pytest.raises(ValueError, match="not a colour"):
        contrast_ratio("blue", "#FFFFFF")


@pytest.mark.parametrize("name", sorted(TEXT))
def test_each_text_colour_passes_aa_on_every_light_background(name):
    for background in LIGHT_BACKGROUNDS:
        assert contrast_ratio(TEXT[name], background) >= 4.5, (name, background)


@pytest.mark.parametrize("name", sorted(TEXT_ON_DARK))
def test_each_dark_theme_text_colour_passes_aa_on_jupyterlabs_dark_backgrounds(name):
    for background in DARK_BACKGROUNDS:
        assert contrast_ratio(TEXT_ON_DARK[name], background) >= 4.5, (name, background)


def test_the_marks_are_the_okabe_ito_colours_and_there_is_one_copy():
    from toolkit.widgets import _base, transcript_view

    assert palette.MARKS["orange"] == "#E69F00" and _base.OKABE_ITO is palette.MARKS
    assert contrast_ratio(palette.MARKS["orange"], "#FFFFFF") < 4.5  # why text needs its twin
    assert "#E69F00" not in Path(transcript_view.__file__).read_text(encoding="utf-8")


# ------------------------------------------------------------------------------ HTML contrast

# What JupyterLab's themes give text that sets no colour of its own, and its two variables.
THEMES = {
    "light": {
        "ink": "#000000",
        "ground": "#FFFFFF",
        "--jp-content-font-color1": "#000000",
        "--jp-content-font-color2": "#474747",
    },  # rgba(0,0,0,.72) on white
    "dark": {
        "ink": "#FFFFFF",
        "ground": "#111111",
        "--jp-content-font-color1": "#FFFFFF",
        "--jp-content-font-color2": "#B8B8B8",
    },  # rgba(255,255,255,.7) on #111
}
VOID = {"br", "img", "hr", "input", "meta", "link", "wbr"}
NAMED = {"white": "#FFFFFF", "black": "#000000"}


def _colour(value: str, theme: dict) -> str | None:
    value = value.strip()
    var = re.match(r"var\((--[\w-]+)\s*(?:,\s*([^)]+))?\)", value)
    if var:
        return theme.get(var.group(1)) or (var.group(2) or "").strip() or None
    value = NAMED.get(value.lower(), value)
    return value if re.fullmatch(r"#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?", value) else None


class _Contrast(HTMLParser):
    """Walks HTML keeping each element's colour and background (inherited); records every text
    run's contrast ratio."""

    def __init__(self, theme: dict) -> None:
        super().__init__()
        self.theme = theme
        self.stack = [(theme["ink"], theme["ground"])]
        self.found: list = []

    def handle_starttag(self, tag, attrs):
        ink, ground = self.stack[-1]
        style = dict(attrs).get("style") or ""
        for rule in style.split(";"):
            key, _, value = rule.partition(":")
            key = key.strip().lower()
            if key == "color":
                ink = _colour(value, self.theme) or ink
            elif key in ("background", "background-color"):
                ground = _colour(value.split()[0] if value.strip() else value, self.theme) or ground
        if tag not in VOID:
            self.stack.append((ink, ground))

    def handle_endtag(self, tag):
        if tag not in VOID and len(self.stack) > 1:
            self.stack.pop()

    def handle_data(self, data):
        if data.strip():
            ink, ground = self.stack[-1]
            self.found.append((round(contrast_ratio(ink, ground), 2), ink, ground, data.strip()[:40]))


def low_contrast(html: str, theme: str) -> list:
    """Text runs below 4.5:1 in ``theme`` ("light" or "dark")."""
    parser = _Contrast(THEMES[theme])
    parser.feed(re.sub(r"<style\b.*?</style>", "", html, flags=re.S))
    return [f for f in parser.found if f[0] < 4.5]


def test_the_checker_finds_the_dark_theme_bug_of_the_old_transcript():
    old = "<div style='background:#f7f7f7'><b style='color:#009E73'>assistant</b> Hello</div>"
    assert low_contrast(old, "light") and low_contrast(old, "dark")
    fixed = f"<div style='background:#f7f7f7;color:{palette.INK}'><b style='color:{TEXT['green']}'>a</b> b</div>"
    assert low_contrast(fixed, "light") == [] and low_contrast(fixed, "dark") == []
    assert low_contrast(f"<span style='color:{palette.THEME_INK_MUTED}'>note</span>", "dark") == []


def _all_html(widget) -> list[str]:
    """The HTML of every HTML widget in a view's tree."""
    if isinstance(widget, W.Box):
        return [h for child in widget.children for h in _all_html(child)]
    return [widget.value] if isinstance(widget, W.HTML) and widget.value else []


@pytest.fixture(scope="module")
def views():
    from toolkit.lessons.toolformer import filter_run
    from toolkit.widgets.toolformer import toolformer_explorer

    return [
        passk.passk_explorer(),
        passk.passk_explorer(source=passk.SOURCE_TAU),
        recall.recall_explorer(synonyms="look up => find"),
        scoring.scoring_panel(),
        gp.gate_playground(),
        gp.gate_playground(scenario=gp.URL),
        T.widgets.quiz(),
        toolformer_explorer(filter_run().candidates),
    ]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_views_html_is_readable_in_both_themes(views, theme):
    quiz = next(v for v in views if v.name == "quiz")
    quiz.choices[0].value = 0
    quiz.choices[1].value = 1
    quiz.check_answers()
    for view in views:
        for page in _all_html(view.widget) + [view._repr_mimebundle_()["text/html"]]:
            assert low_contrast(page, theme) == [], view.name


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_transcript_and_wire_are_readable_in_both_themes(theme, badge_run):
    defended, _, _ = T.injection_demo(True)
    for result in (badge_run, defended):
        assert low_contrast(transcript_html(result, title="a run"), theme) == []
    log = [
        ("->", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ("<-", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}),
        ("<-", {"jsonrpc": "2.0", "id": 2, "result": {"isError": True, "content": []}}),
        ("->", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
    assert low_contrast(wire_html(log, title="a session"), theme) == []
    assert low_contrast(wire_html([]), theme) == []
    from toolkit.widgets.transcript_view import wire_side_by_side

    assert low_contrast(wire_side_by_side(log, log[:2], ("one", "two")).html, theme) == []


def test_a_message_box_keeps_its_text_colour_in_the_dark_theme():
    view = recall.recall_explorer()
    view.queries.value = "no arrow here"
    assert view.message and low_contrast(view.message_box.value, "dark") == []


# ------------------------------------------------------------------------------ pictures

ALT = re.compile(r"<img [^>]*alt='([^']*)'")


def _alts(html: str) -> list[str]:
    from html import unescape

    return [unescape(a) for a in ALT.findall(html)]


def test_every_img_a_view_shows_has_an_alt_and_the_static_copy_has_the_same(views):
    for view in views:
        page = view._repr_mimebundle_()["text/html"]
        assert page.count("<img ") == len(_alts(page)), view.name
        if hasattr(view, "image"):
            assert view.message == "", view.name
            assert _alts(view.image.widget.value) == [view.image.alt] == _alts(page), view.name
            assert len(view.image.alt) > 80, view.name


def test_passk_alt_gives_the_key_numbers_and_follows_a_redraw():
    view = passk.passk_explorer(trials=8)
    s = view.state
    alt = view.image.alt
    for number in (f"{s.pass_hat[0]:.2f}", f"{s.pass_hat[-1]:.2f}", f"{s.pass_at[-1]:.2f}", "k = 8"):
        assert number in alt, number
    view.p_skip_check.value = 0.6
    assert view.image.alt != alt and f"{view.state.pass_hat[-1]:.2f}" in view.image.alt
    assert _alts(view.image.widget.value) == [view.image.alt]


def test_recall_alt_gives_recall_at_each_k_and_the_token_cost():
    view = recall.recall_explorer()
    s = view.state
    assert ", ".join(f"{r:.2f}" for r in s.recall) in view.image.alt
    assert f"{s.tokens_all:,}" in view.image.alt and f"{s.tokens_top_k:,}" in view.image.alt
    before = view.image.alt
    view.k.value = 2
    assert view.image.alt != before and "top-2 menu" in view.image.alt


def test_scoring_alt_gives_every_bar():
    view = scoring.scoring_panel()
    first = view.state.callers[0]
    assert f"overall {first.overall:.2f}" in view.image.alt and first.name in view.image.alt
    before = view.image.alt
    view.sliders[0].value = 0.9
    assert view.image.alt != before


def test_toolformer_alt_gives_the_threshold_and_the_counts():
    from toolkit.lessons.toolformer import filter_run
    from toolkit.widgets.toolformer import toolformer_explorer

    view = toolformer_explorer(filter_run().candidates, tau=1.0)
    s = view.state
    assert "τ_f = 1.0" in view.image.alt and f"{s.texts_kept} texts" in view.image.alt
    view.slider.value = 2.0
    assert "τ_f = 2.0" in view.image.alt and f"{view.state.texts_kept} texts" in view.image.alt


def test_the_timeline_is_an_img_with_its_description_as_alt_and_caption(monkeypatch):
    import IPython.display

    from toolkit.widgets.timeline import WAIT_LANE, Span, plot_timeline

    spans = [Span("a", 0.0, 0.3), Span("b", 0.05, 0.2, "fail"), Span(WAIT_LANE, 0.3, 0.4, "wait")]
    picture = plot_timeline({"together": spans, "in a row": [Span("a", 0, 1), Span("b", 1, 2)]}, title="demo")
    alt = picture.alt
    assert "demo" in alt and "together: 1 call returned, 1 raised, 1 harness wait" in alt
    assert "overlap" in alt and "one after another" in alt
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: shown.append((a, k)))
    picture._ipython_display_()
    [((output,), _)] = shown
    assert re.search(
        r"<img src='data:image/png;base64,[A-Za-z0-9+/=]{100,}' alt='" + re.escape(html.escape(alt)), output.data
    )  # an export's alt, nbconvert's placeholder never
    assert alt in output.data and alt in picture.caption_html()  # what JupyterLab shows


# ------------------------------------------------------------------------------ controls

CONTROLS = (W.ValueWidget, W.Button)
TIED = (
    W.Textarea,
    W.Text,
    W.Dropdown,
    W.SelectMultiple,
    W.Select,
    W.BoundedIntText,
    W.BoundedFloatText,
    W.IntText,
    W.FloatText,
)  # ipywidgets 8 ties their label (<label for>)


def _controls(widget, before=None):
    """(control, the widget just before it in its box) for every control in a view."""
    if isinstance(widget, W.Box):
        out, prev = [], None
        for child in widget.children:
            out += _controls(child, prev)
            prev = child
        return out
    if isinstance(widget, CONTROLS) and not isinstance(widget, (W.HTML, W.Label)):
        return [(widget, before)]
    return []


def _helper_names(view) -> dict:
    import json
    from html import unescape

    helper = [c for c in view.widget.children if "toolkit-script" in c._dom_classes]
    assert len(helper) == 1, view.name
    assert "toolkit-view" in view.widget._dom_classes, view.name
    return json.loads(unescape(re.search(r"data-names='([^']*)'", helper[0].value).group(1)))


def test_every_control_has_a_name_saying_what_it_controls(views):
    for view in views:
        names = _helper_names(view)
        controls = _controls(view.widget)
        assert controls, view.name
        for control, before in controls:
            label = control.description.strip()
            assert not isinstance(control, W.ToggleButtons), (view.name, "no pressed state")
            if isinstance(control, (W.FloatSlider, W.IntSlider)):
                # the handle's name: the label and what it controls
                assert label in names and names[label].startswith(label + ":"), (view.name, label)
            elif isinstance(control, W.RadioButtons):
                assert label or isinstance(before, W.HTML), (view.name, control.options)
            else:
                assert label, (view.name, type(control).__name__)
            if isinstance(control, TIED):
                assert len(label) >= 2, (view.name, label)


def test_the_helper_names_handles_radio_groups_and_live_regions_and_is_not_in_the_static_copy(views):
    helper = next(c for c in views[0].widget.children if "toolkit-script" in c._dom_classes)
    for needle in ("noUi-handle", "aria-label", "radiogroup", "aria-live", "polite", "MutationObserver"):
        assert needle in helper.value, needle
    for view in views:
        page = view._repr_mimebundle_()["text/html"]
        assert "onload" not in page and "toolkit-script" not in page, view.name


def test_results_are_announced_in_a_polite_live_region():
    view = passk.passk_explorer(trials=8)
    assert "toolkit-live" in view.summary._dom_classes and "toolkit-live" in view.message_box._dom_classes
    before = view.summary.value
    view.p_skip_check.value = 0.6
    assert view.summary.value != before and f"{view.state.pass_hat[0]:.2f}" in view.summary.value
    panel = scoring.scoring_panel()
    assert "toolkit-live" in panel.summary._dom_classes
    assert f"{panel.state.callers[2].overall:.2f}" in panel.summary.value
    gate = gp.gate_playground()
    assert "toolkit-live" in gate.verdict._dom_classes and "attack failed" in gate.verdict.value
    gate.taint.value = False
    assert "attack worked" in gate.verdict.value
    quiz = T.widgets.quiz()
    assert "toolkit-live" in quiz.score._dom_classes
    quiz.choices[0].value = 0
    assert "1 of 10 answered" in quiz.score.value


# ------------------------------------------------------------------------------ the wire


def test_each_scrolling_message_box_is_reachable_and_named():
    log = [
        (
            "->",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "x", "arguments": {"text": "y" * 3000}},
            },
        )
    ]
    html = wire_html(log)
    boxes = re.findall(r"<pre ([^>]*)>", html)
    assert len(boxes) == 1 and "overflow:auto" in boxes[0]
    assert "tabindex='0'" in boxes[0] and "role='region'" in boxes[0]
    assert re.search(r"aria-label='message 1, client to server: request tools/call", boxes[0])


# ----------------------------------------------------------------------- show_source (issue 13)


def test_shown_source_is_readable_in_both_themes():
    """show_source draws code on pygments' light background, so it must set the text colour
    too: in JupyterLab's dark theme the names would otherwise inherit near-white text."""
    from toolkit.widgets.source import read_source

    page = read_source(T.ToolRegistry.run).html()
    assert low_contrast(page, "light") == []
    assert low_contrast(page, "dark") == []
