"""The pack's Figures 1–9 (drawn by scripts/figures, shown by toolkit.figures): byte for byte, and readable.

The committed files in figures/ must be exactly what the code draws, so a hand edit (or a code
change without a redraw) fails here. Drawing needs matplotlib; the byte comparison also needs
the matplotlib version the files were drawn with, which each SVG records.
"""

import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.figures import DESCRIPTIONS, FIGURES, FIGURES_DIR, describe, figure_path

matplotlib = pytest.importorskip("matplotlib")

from scripts.figures import canvas, draw, layout  # noqa: E402  (needs matplotlib)

ROOT = Path(__file__).resolve().parent.parent


def drawn_with() -> str | None:
    """The matplotlib version recorded in the committed Figure 1 SVG."""
    m = re.search(r"Matplotlib v([0-9][^)<\s]*)", figure_path(1).read_text(encoding="utf-8"))
    return m.group(1) if m else None


same_matplotlib = pytest.mark.skipif(
    drawn_with() != matplotlib.__version__,
    reason=f"figures/ was drawn with matplotlib {drawn_with()}, this is {matplotlib.__version__}; "
    "byte comparison only holds for the pinned version",
)


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def png_chunks(path: Path) -> list[bytes]:
    data, pos, kinds = path.read_bytes(), 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        kinds.append(kind)
        pos += 12 + length
    return kinds


def test_every_figure_has_a_drawing_named_after_its_file():
    assert sorted(draw.DRAWERS) == sorted(FIGURES) == list(range(1, 10))
    for n, fn in draw.DRAWERS.items():
        assert fn.__name__ == FIGURES[n][0], f"Figure {n}: function and file stem differ"
        assert fn.__doc__ and "pack §" in fn.__doc__, f"{fn.__name__} must cite its pack section"


@same_matplotlib
def test_committed_figures_are_exactly_what_the_code_draws():
    # draws in this process; the committed files came from another one, so this also checks
    # that nothing process-specific (ids, dates, hash seeds) leaks into the files
    assert draw.check() == []


@same_matplotlib
def test_a_hand_edited_figure_is_caught(tmp_path):
    for n in (3, 5, 8):
        for ext in ("svg", "png"):
            shutil.copy(figure_path(n, ext), tmp_path)
    svg = tmp_path / f"{FIGURES[3][0]}.svg"
    svg.write_text(svg.read_text(encoding="utf-8").replace("#009e73", "#ff0000"), encoding="utf-8")
    png = tmp_path / f"{FIGURES[5][0]}.png"
    data = bytearray(png.read_bytes())
    data[-100] ^= 0xFF
    png.write_bytes(bytes(data))
    (tmp_path / f"{FIGURES[8][0]}.svg").unlink()
    problems = draw.check(tmp_path, [3, 5, 8])
    assert len(problems) == 3, problems
    assert any("fig3_react_vs_dfsdt.svg differs" in p for p in problems)
    assert any("fig5_mcp_roles.png differs" in p for p in problems)
    assert any("fig8_failure_groups.svg is missing" in p for p in problems)


def test_drawing_twice_gives_identical_bytes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    draw.draw_all(a, [2])
    draw.draw_all(b, [2])
    for name in ("fig2_toolformer_steps.svg", "fig2_toolformer_steps.png"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_cli_check_exits_nonzero_on_a_changed_file(tmp_path):
    for ext in ("svg", "png"):
        shutil.copy(figure_path(1, ext), tmp_path)
    (tmp_path / "fig1_call_loop.svg").write_text("<svg/>", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "scripts.figures", "1", "--check", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 1
    assert "fig1_call_loop.svg differs" in done.stdout
    assert "python -m scripts.figures" in done.stderr  # says how to fix it


def test_files_are_slide_shaped_small_and_undated():
    for n in FIGURES:
        png, svg = figure_path(n, "png"), figure_path(n, "svg")
        assert png_size(png) == (1536, 864), f"{png.name} is not 16:9 at 1536 × 864"
        assert png.stat().st_size < 300_000, f"{png.name} is over 300 KB"
        assert b"tIME" not in png_chunks(png), f"{png.name} carries a timestamp"
        text = svg.read_text(encoding="utf-8")
        assert "<dc:date>" not in text, f"{svg.name} carries a date"


def test_a_label_too_long_for_its_box_is_reported():
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(canvas.style()):
        fig, ax = canvas.new_figure("test")
        canvas.box(ax, 1, 1, 2, 0.8, "fits")
        canvas.box(ax, 4, 1, 2, 0.8, "this label is far too long for a small box")
        assert canvas.overflowing(fig) == ["this label is far too long for a small box"]
        plt.close(fig)


@pytest.mark.parametrize("number", sorted(FIGURES))
def test_no_text_overlaps_text_or_crosses_a_box_edge(number):
    """Every figure the course draws: no label on another, none across a box's border, none
    off the page, nothing crowding the source line (scripts/figures/layout.py has the rules)."""
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(canvas.style()):
        fig = draw.DRAWERS[number]()
        problems = layout.collisions(fig)
        canvas.overflowing(fig)  # drops this figure's (label, box) records
        plt.close(fig)
    assert problems == [], f"Figure {number}:\n" + "\n".join(problems)


def test_the_layout_check_finds_each_kind_of_blemish():
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(canvas.style()):
        fig, ax = canvas.new_figure("test")
        canvas.box(ax, 1, 4, 3, 1.5, "inside")
        canvas.note(ax, 1.0, 3.0, "two words")
        canvas.note(ax, 1.3, 3.05, "on top")  # overlaps "two words"
        canvas.note(ax, 3.6, 4.75, "across")  # over the box's right edge
        canvas.region(ax, 6, 3, 4, 3, "frame label", "tool")  # on its frame: fine
        canvas.note(ax, 15.5, 6, "off the page")  # runs past the right edge
        canvas.source(ax, "the source line")
        canvas.note(ax, 12, 0.3, "a caption in the footer row")  # crowds the footer
        found = layout.collisions(fig)
        canvas.overflowing(fig)
        plt.close(fig)
    assert any("'two words' overlaps text 'on top'" in p for p in found), found
    assert any("'across' crosses the edge" in p for p in found), found
    assert any("'off the page' runs off" in p for p in found), found
    assert any("'a caption in the footer row' shares the footer's row" in p for p in found), found
    assert not any("frame label" in p or "inside" in p for p in found), found
    assert len(found) == 4, found


def test_the_layout_check_sees_a_legend_over_the_data():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar([1, 2, 3], [1.0, 1.0, 1.0], label="tall bars")
    ax.plot([1, 3], [0.5, 0.5], label="a line")
    ax.legend(loc="upper right")
    found = layout.collisions(fig)
    assert "the legend covers bars" in found, found
    ax.get_legend().remove()
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2)  # below the axes
    fig.tight_layout()
    assert layout.collisions(fig) == []
    plt.close(fig)


def text_of(number: int) -> str:
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(canvas.style()):
        fig = draw.DRAWERS[number]()
        words = " ".join(t.get_text() for a in fig.axes for t in a.texts)
        plt.close(fig)
    return words


def test_numbers_on_the_figures_are_the_papers():
    fig3 = text_of(3)
    assert "35.3" in fig3 and "63.8" in fig3 and "Table 3 [4]" in fig3  # ToolLLM, ChatGPT
    fig2 = text_of(2)
    for kept in ("3,680", "994", "138"):  # Toolformer Table 2, calculator
        assert kept in fig2
    fig6 = text_of(6)
    assert "0.59" in fig6 and "0.43" in fig6  # 0.9^5 and 0.9^8, labelled as own arithmetic
    assert "Own arithmetic" in fig6


def test_figure_2_keeps_the_papers_limits_apart_from_its_test_setting():
    """Toolformer's Limitations section names no chaining (among others); "at most one API call
    per input" is how its experiments decoded, not a stated limit [1] (pack §2.3)."""
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(canvas.style()):
        fig = draw.DRAWERS[2]()
        texts = [t.get_text() for t in fig.axes[0].texts]
        plt.close(fig)
    heading = next(i for i, t in enumerate(texts) if t.startswith("Limits the paper"))
    limits = texts[heading + 1]
    assert "chain" in limits and "per input" not in limits, limits
    setting = [t for t in texts if "per input" in t]
    assert setting and all("setting" in t and "not a limit" in t for t in setting), setting


def test_the_toolkit_map_names_files_that_exist():
    from scripts.figures.lab_map import PARTS

    assert [p[0] for p in PARTS] == [1, 2, 3, 4, 5, 6]
    for _, title, files, *_ in PARTS:
        for name in files:
            assert (ROOT / "toolkit" / name).exists(), f"Figure 9 '{title}' names {name}"


def test_the_toolkit_map_numbers_its_cards_in_reading_order():
    """Row by row (cards side by side share a row), left to right: 1, 2, 3, then 4, 5, 6."""
    from scripts.figures.lab_map import PARTS

    cards = sorted(
        ((p[0], p[5][0], p[5][1], p[5][1] + p[6]) for p in PARTS), key=lambda c: -c[3]
    )  # (number, x, bottom, top), highest first
    rows = []
    for card in cards:
        if rows and card[3] > rows[-1][0][2]:  # overlaps the first card of the row: same row
            rows[-1].append(card)
        else:
            rows.append([card])
    order = [c[0] for row in rows for c in sorted(row, key=lambda c: c[1])]
    assert order == [1, 2, 3, 4, 5, 6], f"Figure 9 reads {order}"


def test_figure_path_rejects_a_figure_the_pack_does_not_have():
    with pytest.raises(ValueError, match="Figures 1 to 9"):
        figure_path(10)
    assert figure_path(4, "png") == FIGURES_DIR / "fig4_three_interfaces.png"


def test_importing_the_toolkit_does_not_load_matplotlib():
    code = "import sys, toolkit, toolkit.figures; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


IMG = re.compile(r"<img src='data:image/png;base64,([A-Za-z0-9+/=]+)' alt='([^']*)'")


def test_notebooks_show_the_current_figures():
    """A notebook keeps the figure it showed when it last ran; after a redraw it must run again.
    It shows it with its description as alt text (an HTML <figure>), not as a bare image."""
    import base64
    import html
    import json

    current = {n: figure_path(n, "png").read_bytes() for n in FIGURES}
    stale = []
    for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            m = re.search(r"show_figure\((\d)\)", source) if cell["cell_type"] == "code" else None
            if not m:
                continue
            n = int(m.group(1))
            pages = [
                "".join(o["data"]["text/html"]) for o in cell.get("outputs", []) if "text/html" in o.get("data", {})
            ]
            shown = [IMG.search(page) for page in pages]
            shown = [s for s in shown if s]
            if (
                not shown
                or base64.b64decode(shown[0].group(1)) != current[n]
                or html.unescape(shown[0].group(2)) != DESCRIPTIONS[n]
            ):
                stale.append(
                    f"{nb.name} does not show the current Figure {n} with its "
                    f"description: run `make notebooks NB={nb.name[:2]}`"
                )
    assert not stale, "\n".join(stale)


def shown_by(monkeypatch, call):
    """The outputs ``call()`` displays through IPython, as (data, raw) pairs."""
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False, **kw: shown.append((obj, raw)))
    call()
    return shown


def test_show_gives_the_figure_a_text_alternative_and_a_caption(monkeypatch):
    """A screen reader reaches an <img> with the description and the caption (issue 15); the
    plain-text form holds both for front ends without HTML."""
    import base64
    import html

    from toolkit.figures import show

    [(data, raw)] = shown_by(monkeypatch, lambda: show(3))
    assert raw and set(data) == {"text/html", "text/plain"}
    page = data["text/html"]
    assert page.startswith("<figure") and "<figcaption" in page and FIGURES[3][1] in page
    src, alt = IMG.search(page).groups()
    assert base64.b64decode(src) == figure_path(3, "png").read_bytes()
    assert html.unescape(alt) == DESCRIPTIONS[3] and "35.3" in alt and "63.8" in alt
    assert DESCRIPTIONS[3] in data["text/plain"] and FIGURES[3][1] in data["text/plain"]


def test_every_figure_has_a_description_with_its_key_numbers():
    assert sorted(DESCRIPTIONS) == sorted(FIGURES)
    for n, text in DESCRIPTIONS.items():
        assert 300 < len(text) < 1200, f"Figure {n}: a description says what the figure shows"
    for n, numbers in {
        2: ("3,680", "994", "138", "6.7"),
        3: ("35.3", "63.8"),
        6: ("0.59", "0.43"),
        5: ("2025-06-18",),
        9: ("48-tool",),
    }.items():
        assert all(x in DESCRIPTIONS[n] for x in numbers), f"Figure {n} description lacks {numbers}"


def test_a_described_plot_is_shown_as_a_figure_with_alt_text():
    """describe(): what a notebook shows for a plot is <img alt=...>, not a bare image/png."""
    import base64
    import html

    import matplotlib.pyplot as plt
    from IPython.core.formatters import DisplayFormatter

    fig, ax = plt.subplots(figsize=(2, 2))
    ax.bar([1, 2], [3, 4])
    assert describe(fig, "Two bars: 3 and 4 <tall>", "A test plot") is fig
    data, _ = DisplayFormatter().format(fig)
    plt.close(fig)
    src, alt = IMG.search(data["text/html"]).groups()
    assert html.unescape(alt) == "Two bars: 3 and 4 <tall>"
    assert base64.b64decode(src)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<figcaption" in data["text/html"] and "A test plot" in data["text/html"]
    assert data["text/plain"] == "A test plot: Two bars: 3 and 4 <tall>"


# --- contrast (issue 15): every label readable against what is drawn behind it ---------------


def _rgba(colour):
    from matplotlib.colors import to_rgba

    return to_rgba(colour)


def _over(top, below):
    """``top`` painted over the opaque ``below`` (alpha compositing), as an opaque colour."""
    a = top[3]
    return tuple(t * a + b * (1 - a) for t, b in zip(top[:3], below[:3])) + (1.0,)


def background_of(text, fig, renderer):
    """The colour behind the middle of ``text``: its own patch (an arrow label's white box), or
    the stack of filled shapes under it (boxes, bars, badge circles, an inset plot's face), drawn
    from the figure's background up, as matplotlib paints them."""
    patch = text.get_bbox_patch()
    if patch is not None and patch.get_visible() and _rgba(patch.get_facecolor())[3] > 0:
        return _over(_rgba(patch.get_facecolor()), _rgba(fig.get_facecolor()))
    box = text.get_window_extent(renderer)
    middle = ((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
    colour = _rgba(fig.get_facecolor())
    for ax in fig.axes:  # in drawing order; stop at the text's own axes
        if ax.axison and ax.patch.get_visible() and ax.patch.contains_point(middle):
            colour = _over(_rgba(ax.patch.get_facecolor()), colour)
        if text.axes is ax or text.axes is None:
            shapes = [
                p
                for p in ax.patches
                if p.get_visible() and p.get_fill() and p.get_zorder() <= text.get_zorder() and p.contains_point(middle)
            ]
            for shape in sorted(shapes, key=lambda p: p.get_zorder()):  # stable: order added
                colour = _over(_rgba(shape.get_facecolor()), colour)
        if text.axes is ax:
            break
    return colour


def low_contrast(fig, needed=4.5) -> list[str]:
    """One line per text of ``fig`` below ``needed``:1 against the colour behind it."""
    from matplotlib.colors import to_hex

    from toolkit.widgets.palette import contrast_ratio

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    for text in layout._texts(fig):
        behind = background_of(text, fig, renderer)
        fg, bg = to_hex(_over(_rgba(text.get_color()), behind)), to_hex(behind)
        ratio = contrast_ratio(fg, bg)
        if ratio < needed:
            found.append(f"{' '.join(text.get_text().split())!r}: {fg} on {bg} is {ratio:.2f}:1")
    return found


@pytest.mark.parametrize("number", sorted(FIGURES))
def test_every_label_passes_aa_contrast_against_what_is_behind_it(number):
    """WCAG 2.1 AA: 4.5:1 for every label, large or not. A figure is shown scaled down to the
    notebook's column, so no label can count on being "large text" (3:1). Coloured labels use
    the palette's text twins (toolkit/widgets/palette.TEXT), badges black or white numbers."""
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(canvas.style()):
        fig = draw.DRAWERS[number]()
        problems = low_contrast(fig)
        canvas.overflowing(fig)
        plt.close(fig)
    assert problems == [], f"Figure {number}, labels below 4.5:1:\n" + "\n".join(problems)


def test_the_contrast_check_sees_the_fill_behind_a_label():
    """The check must read the badge's face, a box's fill and a label's own white patch."""
    import matplotlib.pyplot as plt

    with matplotlib.rc_context(canvas.style()):
        fig, ax = canvas.new_figure("test")
        ax.text(2, 2, "7", color="white", zorder=6)  # on the white page
        canvas.box(ax, 4, 1, 3, 2, "", "accent")
        ax.text(5.5, 2, "on a tint", color=canvas.COLORS["accent"][0], zorder=2)
        from matplotlib.patches import Circle

        ax.add_patch(Circle((10, 2), 0.5, facecolor="#000000", zorder=5))
        ax.text(10, 2, "8", color="white", ha="center", va="center", zorder=6)  # white on black: fine
        ax.text(
            12, 2, "patch", color="#CCCCCC", zorder=4, bbox=dict(facecolor="#333333", edgecolor="none")
        )  # light on its dark patch
        found = low_contrast(fig)
        canvas.overflowing(fig)
        plt.close(fig)
    assert len(found) == 2, found
    assert found[0].startswith("'7': #ffffff on #ffffff is 1.00:1"), found
    assert found[1].startswith("'on a tint': #e69f00 on #fcefcf"), found


def test_notebook_01s_accuracy_chart_says_its_numbers_to_a_screen_reader():
    """plot_accuracy's chart (notebook 01) carries every bar's value in its alt text."""
    import html

    import matplotlib.pyplot as plt
    from IPython.core.formatters import DisplayFormatter

    from toolkit.lessons.calculator import DigitRow
    from toolkit.widgets.accuracy import plot_accuracy

    def rows(correct):
        return [DigitRow(d, 100, c, 0, 0.0) for d, c in zip((1, 2, 3), correct)]

    fig = plot_accuracy({"pattern (mock)": rows([100, 55, 3]), "calculator (mock)": rows([100] * 3)}, "Exact answers")
    data, _ = DisplayFormatter().format(fig)
    plt.close(fig)
    alt = html.unescape(IMG.search(data["text/html"]).group(2))
    assert alt.startswith("Exact answers. Bar chart"), alt
    assert "pattern (mock): 100% at 1 digit, 55% at 2 digits, 3% at 3 digits" in alt, alt
    assert "calculator (mock): 100% at 1 digit, 100% at 2 digits, 100% at 3 digits" in alt, alt
