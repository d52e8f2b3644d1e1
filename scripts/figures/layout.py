"""Find the blemishes a reader sees at once: words on top of words, a label across a box's edge,
text cut off at the figure's edge, a legend over the data.

:func:`collisions` works on any drawn matplotlib figure: the nine figures of this package and
the plots the toolkit draws in notebooks (notebook 01's bar chart). It measures each piece of
text with the renderer (``get_window_extent``), so what it checks is what gets drawn.

The rules, each with a small gap (``pad`` points) so that "just touching" counts too:

* no two pieces of text overlap;
* a piece of text is either inside a box (rounded box, bar, badge circle) or clear of it, never
  across its edge; text marked with :func:`on_edge` (a frame's own label, a badge's number)
  sits on an edge on purpose and is exempt from this rule only;
* all text is inside the figure;
* a footer (the source line, marked with :func:`footer`) keeps its row to itself: no other
  text and no box reaches into its band, so the bottom of a figure never gets crowded;
* a legend covers no bar and no point or segment of a plotted line.

matplotlib is imported inside the functions, like the rest of ``scripts.figures``.
"""

from __future__ import annotations

__all__ = ["collisions", "footer", "on_edge"]


def on_edge(text):
    """Mark ``text`` as placed across a box's edge on purpose (a frame label, a badge).

    Used by: scripts/figures/canvas.py.
    """
    text.toolkit_on_edge = True
    return text


def footer(text):
    """Mark ``text`` as the figure's footer (its source line), which keeps its row to itself.

    Used by: scripts/figures/canvas.py.
    """
    text.toolkit_footer = True
    return text


def _describe(text) -> str:
    return repr(" ".join(text.get_text().split()))


def _shown(text) -> bool:
    return text.get_visible() and bool(text.get_text().strip())


def _tick_labels(axis):
    """The tick labels actually drawn: those of ticks inside the view."""
    low, high = sorted(axis.get_view_interval())
    for tick, loc in zip(axis.get_major_ticks(), axis.get_majorticklocs()):
        if low - 1e-9 <= loc <= high + 1e-9 and tick.label1.get_visible():
            yield tick.label1


def _texts(fig):
    """Every piece of text the figure draws (figure texts, axes texts, titles, axis and tick
    labels, legend entries)."""
    found = list(fig.texts)
    for ax in fig.axes:
        found += ax.texts
        found += [
            ax.title,
            getattr(ax, "_left_title", None),
            getattr(ax, "_right_title", None),
            ax.xaxis.label,
            ax.yaxis.label,
        ]
        found += list(_tick_labels(ax.xaxis)) + list(_tick_labels(ax.yaxis))
    for legend in _legends(fig):
        found += legend.get_texts() + [legend.get_title()]
    return [t for t in found if t is not None and _shown(t)]


def _legends(fig):
    legends = list(fig.legends)
    for ax in fig.axes:
        if ax.get_legend() is not None:
            legends.append(ax.get_legend())
    return [leg for leg in legends if leg.get_visible()]


def _boxes(fig):
    """The shapes text must not straddle: rounded boxes, rectangles (bars) and circles (badges)."""
    from matplotlib.patches import Circle, FancyBboxPatch, Rectangle

    return [
        p
        for ax in fig.axes
        for p in ax.patches
        if isinstance(p, (FancyBboxPatch, Rectangle, Circle)) and p.get_visible()
    ]


def _extent(text, renderer):
    """The text's box on the page; with its background patch, if it has one (that patch hides
    whatever lies under it)."""
    from matplotlib.transforms import Bbox

    box = text.get_window_extent(renderer)
    patch = text.get_bbox_patch()
    if patch is not None and patch.get_visible():
        box = Bbox.union([box, patch.get_window_extent(renderer)])
    return box


def _grow(bbox, d):
    from matplotlib.transforms import Bbox

    return Bbox.from_extents(bbox.x0 - d, bbox.y0 - d, bbox.x1 + d, bbox.y1 + d)


def _inside(inner, outer) -> bool:
    return inner.x0 >= outer.x0 and inner.x1 <= outer.x1 and inner.y0 >= outer.y0 and inner.y1 <= outer.y1


def _legend_over_data(legend, ax, renderer, gap) -> list[str]:
    """What a legend covers in its own axes: bars, and points or segments of lines."""
    import numpy as np
    from matplotlib.patches import Rectangle

    area = _grow(legend.get_window_extent(renderer), gap)
    hits = []
    bars = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_visible() and p.get_height() > 0]
    if any(area.overlaps(p.get_window_extent(renderer)) for p in bars):
        hits.append("the legend covers bars")
    for line in ax.lines:
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), float))
        if len(xy) > 1:  # points along each segment, not only the vertices
            steps = np.linspace(0, 1, 21)[:, None, None]
            xy = (xy[:-1] + steps * (xy[1:] - xy[:-1])).reshape(-1, 2)
        if any(area.contains(x, y) for x, y in xy):
            hits.append(f"the legend covers the line {line.get_label()!r}")
    return hits


def collisions(fig, pad: float = 2.0) -> list[str]:
    """One sentence per blemish in ``fig`` (empty when there is none); draws the figure first.

    ``pad`` is the smallest gap, in points, that counts as clear.

    Used by: scripts/figures/draw.py.
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    gap = pad * fig.dpi / 72
    texts = _texts(fig)
    extents = [_extent(t, renderer) for t in texts]
    problems = []
    for i, (a, box_a) in enumerate(zip(texts, extents)):
        for b, box_b in zip(texts[i + 1 :], extents[i + 1 :]):
            if _grow(box_a, gap / 2).overlaps(_grow(box_b, gap / 2)):
                problems.append(f"text {_describe(a)} overlaps text {_describe(b)}")
    for text, box in zip(texts, extents):
        if getattr(text, "toolkit_on_edge", False):
            continue
        for patch in _boxes(fig):
            shape = patch.get_window_extent(renderer)
            if not (_inside(box, _grow(shape, -gap)) or not _grow(shape, gap).overlaps(box)):
                problems.append(
                    f"text {_describe(text)} crosses the edge of a box at "
                    f"({shape.x0:.0f}, {shape.y0:.0f})-({shape.x1:.0f}, {shape.y1:.0f}) px"
                )
    for foot, band in zip(texts, extents):
        if not getattr(foot, "toolkit_footer", False):
            continue
        low, high = band.y0 - gap, band.y1 + gap
        others = [(_describe(t), box) for t, box in zip(texts, extents) if t is not foot]
        others += [("a box", p.get_window_extent(renderer)) for p in _boxes(fig)]
        problems += [
            f"{what} shares the footer's row ({_describe(foot)})"
            for what, box in others
            if box.y0 < high and box.y1 > low
        ]
    page = _grow(fig.bbox, -gap)
    problems += [f"text {_describe(t)} runs off the figure" for t, box in zip(texts, extents) if not _inside(box, page)]
    for legend in _legends(fig):
        if legend.axes is not None:
            problems += _legend_over_data(legend, legend.axes, renderer, gap)
    return problems
