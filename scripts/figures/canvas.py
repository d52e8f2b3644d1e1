"""The shared look of the nine figures, and saving them so the bytes never change.

Every figure is a 16 × 9 grid of boxes, arrows and short labels, drawn with the course's one
palette (Okabe and Ito's colour-blind-safe set, toolkit/widgets/palette.py; text in its darker
twins, so every label passes WCAG AA contrast) and fonts big enough to read from the back of a
lecture room. :func:`save` writes SVG and PNG with no dates, no software stamps and a fixed
hash salt, so drawing twice gives the same files byte for byte.

matplotlib is imported inside the functions, when a figure is drawn.
"""

from __future__ import annotations

import functools
from pathlib import Path

from toolkit.widgets.palette import INK, MARKS, TEXT, contrast_ratio
from toolkit.widgets.palette import INK_MUTED as MUTED

from .layout import footer, on_edge

# The course's one palette (toolkit/widgets/palette.py): Okabe & Ito's colour-blind-safe marks.
# Each role of a figure has a hue; its edge colour (strong) is the mark, its fill a light tint.
HUES = {
    "model": "blue",  # the language model
    "harness": "vermillion",  # your code, the harness
    "tool": "green",  # tools and servers
    "data": "grey",  # text, data, neutral things
    "warn": "purple",  # attacks, failures
    "accent": "orange",  # highlights, numbers
    "sky": "sky",  # a second neutral role
}
FILLS = {
    "model": "#D6E9F5",
    "harness": "#FBE3D3",
    "tool": "#D3F0E6",
    "data": "#EDEDED",
    "warn": "#F6E2EE",
    "accent": "#FCEFCF",
    "sky": "#E0F1FB",
}
COLORS = {role: (MARKS[hue], FILLS[role]) for role, hue in HUES.items()}
# a mark's colour is too light for text (orange on white is 2.2:1); text takes its darker twin
_TEXT_TWIN = {MARKS[hue].lower(): TEXT[hue] for hue in HUES.values()}


def readable(colour: str) -> str:
    """The colour to write text in: a mark colour's darker twin (palette.TEXT), which passes
    WCAG AA (4.5:1) on white and on the fills; any other colour (INK, MUTED) unchanged."""
    return _TEXT_TWIN.get(colour.lower(), colour)


def ink_on(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (a badge's number)."""
    return max(("#FFFFFF", "#000000"), key=lambda c: contrast_ratio(c, fill))


FONT = "DejaVu Sans"  # ships with matplotlib, so every machine draws the same glyphs
MONO = "DejaVu Sans Mono"  # for code, names on the wire, tool names
WIDTH, HEIGHT = 16.0, 9.0  # the drawing grid, in the same 16:9 shape as a slide
INCHES = (12.8, 7.2)
PNG_DPI = 120  # 1536 × 864 pixels: sharp on a projector, small on disk
SVG_SALT = "toolkit-figures"  # fixes the ids matplotlib writes into SVG files (the old home's name: same bytes)

BASE = 17  # body text, points
SMALL = 14  # notes and sources
TITLE = 26


def new_figure(title: str, subtitle: str | None = None):
    """A blank 16:9 figure with the title at the top; returns ``(fig, ax)`` in grid units."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=INCHES)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, WIDTH)
    ax.set_ylim(0, HEIGHT)
    ax.set_axis_off()
    ax.text(0.45, HEIGHT - 0.55, title, fontsize=TITLE, fontweight="bold", color=INK, ha="left", va="center")
    if subtitle:
        ax.text(0.45, HEIGHT - 1.1, subtitle, fontsize=BASE, color=MUTED, ha="left", va="center")
    return fig, ax


def drawing(title: str, subtitle: str | None = None):
    """Decorator for a figure's drawing code: ``body(ax)`` draws on a new figure titled
    ``title``; calling the decorated function returns the matplotlib figure."""

    def wrap(body):
        @functools.wraps(body)
        def draw():
            fig, ax = new_figure(title, subtitle)
            body(ax)
            return fig

        return draw

    return wrap


def box(
    ax,
    x,
    y,
    w,
    h,
    text="",
    role="data",
    *,
    size=BASE,
    weight="normal",
    align="center",
    filled=True,
    dashed=False,
    radius=0.15,
    text_color=INK,
    lw=2.2,
    mono=False,
):
    """A rounded box with its lower-left corner at ``(x, y)``; text centred unless ``align``."""
    from matplotlib.patches import FancyBboxPatch

    edge, fill = COLORS[role]
    patch = FancyBboxPatch(
        (x, y),
        w,
        h,
        boxstyle=f"round,pad=0,rounding_size={radius}",
        facecolor=fill if filled else "white",
        edgecolor=edge,
        linewidth=lw,
        linestyle=(0, (5, 3)) if dashed else "-",
        zorder=1,
    )
    ax.add_patch(patch)
    if text:
        left = align == "left"
        label = ax.text(
            x + 0.2 if left else x + w / 2,
            y + h / 2,
            text,
            fontsize=size,
            color=text_color,
            ha="left" if left else "center",
            va="center",
            fontweight=weight,
            linespacing=1.35,
            zorder=2,
            family=MONO if mono else FONT,
        )
        _FITS.setdefault(id(ax.figure), []).append((label, (x, y, w, h)))
    return (x, y, w, h)


# (text, box) pairs per figure, so :func:`overflowing` can check each label fits its box
_FITS: dict[int, list] = {}


def overflowing(fig, margin=0.05) -> list[str]:
    """The labels that spill out of their boxes (after drawing); empty when all fit."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    to_data = ax.transData.inverted()
    bad = []
    for label, (x, y, w, h) in _FITS.pop(id(fig), []):
        (x0, y0), (x1, y1) = to_data.transform(label.get_window_extent(renderer).get_points())
        if x0 < x + margin or x1 > x + w - margin or y0 < y + margin or y1 > y + h - margin:
            bad.append(label.get_text().replace("\n", " "))
    return bad


def card(ax, x, y, w, h, number, title, code, body, role):
    """A numbered box with a bold title, a line of file names in mono, and body lines."""
    box(ax, x, y, w, h, "", role)
    badge(ax, x + 0.4, y + h - 0.4, str(number), role)
    rect = (x, y, w, h)
    texts = [
        ax.text(
            x + 0.8,
            y + h - 0.4,
            title,
            fontsize=SMALL + 2,
            fontweight="bold",
            color=INK,
            ha="left",
            va="center",
            zorder=2,
        ),
        ax.text(
            x + 0.25, y + h - 0.9, code, fontsize=SMALL - 3, family=MONO, color=MUTED, ha="left", va="center", zorder=2
        ),
        ax.text(
            x + 0.25, y + 0.2, body, fontsize=SMALL - 1, color=INK, ha="left", va="bottom", linespacing=1.3, zorder=2
        ),
    ]
    _FITS.setdefault(id(ax.figure), []).extend((t, rect) for t in texts)


def region(ax, x, y, w, h, label, role):
    """A large dashed frame with a label on its top edge: a zone such as "your code"."""
    edge, _ = COLORS[role]
    box(ax, x, y, w, h, role=role, filled=False, dashed=True, radius=0.25, lw=2)
    on_edge(
        ax.text(
            x + 0.25,
            y + h,
            f" {label} ",
            fontsize=BASE,
            fontweight="bold",
            color=readable(edge),
            ha="left",
            va="center",
            backgroundcolor="white",
            zorder=2,
        )
    )


def arrow(
    ax,
    start,
    end,
    text=None,
    *,
    color=INK,
    rad=0.0,
    dashed=False,
    size=SMALL,
    text_at=0.5,
    text_offset=(0.0, 0.0),
    lw=2.4,
    both=False,
):
    """An arrow from ``start`` to ``end`` (grid units), with an optional label on a white patch
    (the label in the darker twin of the arrow's colour)."""
    from matplotlib.patches import FancyArrowPatch

    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle="<|-|>" if both else "-|>",
            mutation_scale=22,
            color=color,
            linewidth=lw,
            linestyle=(0, (5, 3)) if dashed else "-",
            connectionstyle=f"arc3,rad={rad}",
            shrinkA=2,
            shrinkB=2,
            zorder=3,
        )
    )
    if text:
        tx = start[0] + (end[0] - start[0]) * text_at + text_offset[0]
        ty = start[1] + (end[1] - start[1]) * text_at + text_offset[1]
        ax.text(
            tx,
            ty,
            text,
            fontsize=size,
            color=readable(color),
            ha="center",
            va="center",
            linespacing=1.3,
            zorder=4,
            bbox=dict(boxstyle="round,pad=0.25", facecolor="white", edgecolor="none"),
        )


def badge(ax, x, y, label, role="accent", size=SMALL):
    """A small filled circle with a number or letter, to tie a spot to a legend line."""
    from matplotlib.patches import Circle

    edge, _ = COLORS[role]
    ax.add_patch(Circle((x, y), 0.24, facecolor=edge, edgecolor="white", linewidth=1.5, zorder=5))
    on_edge(
        ax.text(x, y, label, fontsize=size, color=ink_on(edge), ha="center", va="center", fontweight="bold", zorder=6)
    )


def note(ax, x, y, text, *, size=SMALL, color=MUTED, ha="left", va="center", **kw):
    """Plain text: a source line, a remark, a label outside any box (a mark colour is written
    in its darker twin)."""
    return ax.text(x, y, text, fontsize=size, color=readable(color), ha=ha, va=va, linespacing=1.35, **kw)


def source(ax, text):
    """The figure's source line, bottom left, where every figure keeps it, alone in its row."""
    footer(note(ax, 0.45, 0.3, text, size=SMALL - 1))


def style():
    """The rcParams every figure is drawn under (use as ``with matplotlib.rc_context(style())``)."""
    return {
        "font.family": FONT,
        "font.size": BASE,
        "mathtext.fontset": "dejavusans",
        "svg.hashsalt": SVG_SALT,
        "svg.fonttype": "path",  # glyphs as outlines: same look without the font installed
        "path.simplify": True,
        "axes.unicode_minus": True,
        "savefig.facecolor": "white",
    }


def save(fig, out_dir: Path, stem: str) -> list[Path]:
    """Write ``stem.svg`` and ``stem.png`` with nothing in them that changes between runs."""
    import matplotlib
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    # the stamp names the drawing code's first home, toolkit.figures; changing it would change every file
    creator = f"toolkit.figures (Matplotlib v{matplotlib.__version__})"
    svg, png = out_dir / f"{stem}.svg", out_dir / f"{stem}.png"
    fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": creator})
    fig.savefig(png, format="png", dpi=PNG_DPI, metadata={"Software": None, "Creator": None, "Description": creator})
    plt.close(fig)
    _FITS.pop(id(fig), None)
    return [svg, png]
