"""Draw all nine figures into a folder, or check that a folder holds exactly what the code draws.

``draw_all`` writes ``<stem>.svg`` and ``<stem>.png`` for each entry of :data:`FIGURES`;
``check`` draws into a scratch folder and lists every file that differs from the committed one.
Both refuse to write a figure whose labels spill out of their boxes, or whose text overlaps
other text, crosses a box's edge or crowds the source line (:mod:`scripts.figures.layout`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from toolkit.figures import FIGURES, FIGURES_DIR

from .how_it_works import (
    fig1_call_loop,
    fig2_toolformer_steps,
    fig3_react_vs_dfsdt,
    fig4_three_interfaces,
    fig5_mcp_roles,
)
from .how_to_trust import fig6_three_ways_to_score, fig7_injection_controls, fig8_failure_groups
from .lab_map import fig9_toolkit_parts

DRAWERS = {
    1: fig1_call_loop,
    2: fig2_toolformer_steps,
    3: fig3_react_vs_dfsdt,
    4: fig4_three_interfaces,
    5: fig5_mcp_roles,
    6: fig6_three_ways_to_score,
    7: fig7_injection_controls,
    8: fig8_failure_groups,
    9: fig9_toolkit_parts,
}


class FigureLayoutError(ValueError):
    """A label does not fit inside its box, or text collides with text or a box's edge."""


def draw_one(number: int, out_dir: Path) -> list[Path]:
    """Draw Figure ``number`` into ``out_dir``; returns the SVG and PNG paths."""
    import matplotlib

    matplotlib.use("Agg", force=False)  # no window; harmless inside a notebook
    from . import canvas, layout

    if number not in DRAWERS:
        raise ValueError(f"there is no Figure {number}; choose one of 1 to {len(DRAWERS)}")
    with matplotlib.rc_context(canvas.style()):
        fig = DRAWERS[number]()
        spilled = canvas.overflowing(fig)
        clashes = layout.collisions(fig)
        if spilled or clashes:
            import matplotlib.pyplot as plt

            plt.close(fig)
            found = [f"label spills out of its box: {label!r}" for label in spilled] + clashes
            raise FigureLayoutError(
                f"Figure {number} has text out of place:\n  "
                + "\n  ".join(found)
                + "\nShorten the text, or move or widen the box, in scripts/figures/."
            )
        return canvas.save(fig, Path(out_dir), FIGURES[number][0])


def draw_all(out_dir: Path = FIGURES_DIR, numbers=None) -> list[Path]:
    """Draw the chosen figures (all nine by default) into ``out_dir``."""
    paths = []
    for n in numbers or sorted(DRAWERS):
        paths += draw_one(n, out_dir)
    return paths


def check(committed_dir: Path = FIGURES_DIR, numbers=None) -> list[str]:
    """Redraw figures (all by default) in a scratch folder; one line per file that differs."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for fresh in draw_all(Path(tmp), numbers):
            old = Path(committed_dir) / fresh.name
            if not old.exists():
                problems.append(f"{old} is missing")
            elif old.read_bytes() != fresh.read_bytes():
                problems.append(f"{old} differs from what the code draws")
    return problems
