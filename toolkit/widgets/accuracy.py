"""Notebook 01's chart: exact answers by problem size, one bar colour per model (pack §1).

The counts come from :func:`toolkit.lessons.calculator.accuracy_by_digits`; this module only
draws them, so the lesson layer never reaches a view.
"""

from __future__ import annotations

from ..lessons.calculator import DigitRow
from .pictures import describe

__all__ = ["plot_accuracy"]


def plot_accuracy(named_rows: dict[str, list[DigitRow]], title: str = ""):
    """Bar chart of accuracy by digit count, one bar colour per model (needs matplotlib).

    The legend sits under the chart, outside the axes, so no bar can hide behind it however
    tall the bars are (tests/test_calculator.py checks this with scripts/figures/layout.py). In a
    notebook the chart is shown with a text alternative that lists every bar's value.

    Notebook 01.
    """
    import matplotlib.pyplot as plt  # lazy: importing this module needs no matplotlib

    names = list(named_rows)
    sizes = [row.digits for row in named_rows[names[0]]]
    width = 0.8 / len(names)
    fig, ax = plt.subplots(figsize=(6.4, 3.5))
    for k, name in enumerate(names):
        xs = [s + (k - (len(names) - 1) / 2) * width for s in sizes]
        ax.bar(xs, [r.accuracy for r in named_rows[name]], width=width, label=name)
    ax.set_xticks(sizes)
    ax.set_xlabel("digits in each number")
    ax.set_ylabel("exact answers")
    ax.set_ylim(0, 1.05)
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:.0%}")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.24), ncol=len(names), fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    bars = "; ".join(
        f"{name}: " + ", ".join(f"{r.accuracy:.0%} at {r.digits} digit{'s' * (r.digits > 1)}" for r in named_rows[name])
        for name in names
    )
    heading = f"{title}. " if title else ""
    return describe(fig, f"{heading}Bar chart of exact answers by the number of digits in each number. {bars}.")
