"""Toolformer's filter threshold τ_f as a slider, beside the paper's Table 2 counts.

Pack §2.3 ("The filter threshold matters a lot") [1]. The candidates come from
:func:`toolkit.lessons.toolformer.filter_run`: a tiny language model trained in the notebook, and every
calculator call sampled in a few hundred fresh texts, each scored by L⁻ − L⁺. The view shows,
for the chosen τ_f, how many texts keep at least one call (the unit of the paper's Table 2),
a histogram of each text's best L⁻ − L⁺ with the threshold drawn in, the counts this run keeps
at τ_f = 0.5, 1.0 and 2.0 beside the paper's calculator counts, and the call that only just
passes and the one that only just fails.

``filter_state`` is the pure computation; :class:`ToolformerFilterView` draws it. In a
notebook::

    from toolkit.widgets.toolformer import toolformer_explorer
    toolformer_explorer(run.candidates)
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from ..lessons.toolformer import Candidate, best_per_text, filter_run, threshold_table
from ._base import FONT, OKABE_ITO, InputError, LiveFigure, LiveView, Picture, esc
from .palette import PANEL, THEME_INK_MUTED

__all__ = [
    "FilterState",
    "FilterData",
    "filter_state",
    "ToolformerFilterView",
    "toolformer_explorer",
    "TAU_MIN",
    "TAU_MAX",
    "TAU_STEP",
]

TAU_MIN, TAU_MAX, TAU_STEP = 0.0, 3.0, 0.1
BIN = 0.1  # histogram bin width, in nats


@dataclass
class FilterState:
    """What the view shows at one threshold, computed without any widget.

    Notebook 03.
    """

    tau: float
    texts: int  # texts that had at least one candidate call
    candidates: int
    texts_kept: int
    calls_kept: int
    rows: list  # threshold_table rows for 0.5, 1.0, 2.0
    kept_example: Candidate | None
    dropped_example: Candidate | None


def _check_tau(tau) -> float:
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or math.isnan(tau):
        raise InputError(f"τ_f must be a number, got {tau!r}.")
    if not TAU_MIN <= tau <= TAU_MAX:
        raise InputError(f"τ_f must be between {TAU_MIN} and {TAU_MAX}, got {tau}.")
    return round(float(tau), 6)


class FilterData:
    """The candidates, sorted once so that any threshold is answered by binary search.

    Notebook 03.
    """

    def __init__(self, candidates: list) -> None:
        if not candidates:
            raise InputError("there are no candidate calls to filter; run the filter first.")
        self.candidates = list(candidates)
        self.gains = sorted(c.gain for c in self.candidates)
        self.best = sorted(best_per_text(self.candidates).values(), key=lambda c: (c.gain, c.text_id))
        self.best_gains = [c.gain for c in self.best]
        self.rows = threshold_table(self.candidates)

    def kept(self, gains: list, tau: float) -> int:
        return len(gains) - bisect.bisect_left(gains, tau)


def filter_state(candidates, tau: float) -> FilterState:
    """Counts, the comparison table and the two borderline examples at ``tau``.
    ``candidates`` is a list of :class:`~toolkit.lessons.toolformer.Candidate` or a :class:`FilterData`.

    Notebook 03.
    """
    tau = _check_tau(tau)
    data = candidates if isinstance(candidates, FilterData) else FilterData(candidates)
    i = bisect.bisect_left(data.best_gains, tau)
    kept = data.best[i] if i < len(data.best) else None
    dropped = next((c for c in reversed(data.best[:i]) if c.result in c.tokens[c.position :]), None)
    return FilterState(
        tau,
        len(data.best),
        len(data.candidates),
        len(data.best) - i,
        data.kept(data.gains, tau),
        data.rows,
        kept,
        dropped,
    )


def _table_html(state: FilterState) -> str:
    cell = "padding:3px 10px;border-bottom:1px solid #ddd;text-align:right"
    head = (
        "<tr>"
        + "".join(
            f"<th style='{cell}'>{h}</th>"
            for h in ("τ_f", "texts kept (this toy)", "share", "Toolformer, calculator [1]", "share")
        )
        + "</tr>"
    )
    body = []
    for r in state.rows:
        bold = abs(r["tau"] - state.tau) < 1e-9
        style = cell + (";font-weight:bold;background:#eef6fb" if bold else "")
        share = "-" if r["share"] is None else f"{r['share']:.0%}"
        paper_share = "-" if r["paper_share"] is None else f"{r['paper_share']:.1%}"
        paper = "-" if r["paper"] is None else f"{r['paper']:,}"
        body.append(
            f"<tr><td style='{style}'>{r['tau']}</td><td style='{style}'>{r['texts_kept']}</td>"
            f"<td style='{style}'>{share}</td><td style='{style}'>{paper}</td>"
            f"<td style='{style}'>{paper_share}</td></tr>"
        )
    return (
        f"<table style='border-collapse:collapse;font-size:14px;{PANEL}'>{head}{''.join(body)}</table>"
        f"<div style='font-size:12px;color:{THEME_INK_MUTED};max-width:560px'>Shares are relative to the "
        "τ_f = 0.5 row (our own arithmetic). The paper filtered a large web corpus with GPT-J "
        "[1]; this toy filters a few hundred template sentences, so compare how fast each "
        "column falls, not the sizes.</div>"
    )


def alt_text(state: FilterState) -> str:
    """What the histogram shows, with its key numbers: the picture's text alternative."""
    dropped = state.texts - state.texts_kept
    return (
        f"Histogram of each text's best L⁻ − L⁺ over {state.texts} texts, in bins of {BIN} "
        f"nats, with the threshold τ_f = {state.tau:.1f} drawn as a vertical line: "
        f"{state.texts_kept} texts at or above it keep a call, {dropped} below it "
        f"(shaded grey) are dropped."
    )


def _example_html(label: str, c: Candidate | None, colour: str) -> str:
    if c is None:
        return f"<div style='font-size:14px;margin:4px 0'><b>{esc(label)}</b>: none</div>"
    return (
        f"<div style='font-size:14px;margin:4px 0;border-left:4px solid {colour};padding-left:8px'>"
        f"<b>{esc(label)}</b> (L⁻ − L⁺ = {c.gain:.2f})<br>"
        f"<span style='font-family:monospace'>{esc(c.augmented())}</span></div>"
    )


class ToolformerFilterView(LiveView):
    """A τ_f slider, the histogram of each text's best L⁻ − L⁺, and the paper's counts.

    Notebook 03.
    """

    name = "Toolformer filter explorer"

    def __init__(self, candidates: list, tau: float = 1.0) -> None:
        super().__init__()
        W = self.W
        self.data = FilterData(candidates)
        self.gains = self.data.best_gains
        self.slider = W.FloatSlider(
            value=tau,
            min=TAU_MIN,
            max=TAU_MAX,
            step=TAU_STEP,
            description="τ_f",
            readout_format=".1f",
            continuous_update=True,
            style={"description_width": "40px"},
            layout=W.Layout(width="480px"),
        )
        self.image = Picture(W, width="720px", max_width="100%")
        self.summary = self.live(W.HTML())
        self.table = W.HTML()
        self.examples = W.HTML()
        self.widget = W.VBox(
            [self.slider, self.message_box, self.summary, self.image.widget, self.table, self.examples]
        )
        self.accessible({"τ_f": "τ_f: the filter threshold on L⁻ − L⁺"})
        self._build_figure()
        self.watch(self.slider)
        self.refresh()

    def compute(self) -> FilterState:
        return filter_state(self.data, self.slider.value)

    def _build_figure(self) -> None:
        self.figure = LiveFigure(7.2, 3.0, dpi=100)
        fig = self.figure.fig
        ax = self.ax = fig.add_axes((0.09, 0.2, 0.88, 0.68))
        low = math.floor(min(self.gains + [0.0]) / BIN) * BIN
        high = max(math.ceil(max(self.gains + [TAU_MAX]) / BIN) * BIN, TAU_MAX)
        edges = [low + i * BIN for i in range(int(round((high - low) / BIN)) + 1)]
        ax.hist(self.gains, bins=edges, color=OKABE_ITO["blue"], edgecolor="white")
        ax.set_xlim(low, high)
        ax.set_xlabel("best L⁻ − L⁺ in the text (nats, weighted)", fontsize=FONT["label"])
        ax.set_ylabel("texts", fontsize=FONT["label"])
        ax.tick_params(labelsize=FONT["tick"])
        ax.set_title("Each text's most useful calculator call (toy model)", fontsize=FONT["title"], loc="left")
        top = ax.get_ylim()[1]
        self.shade = ax.axvspan(low, low, color="#999999", alpha=0.25, lw=0)
        self.line = ax.axvline(0, color=OKABE_ITO["vermillion"], lw=2.5)
        ax.set_ylim(0, top)
        self.low = low
        self.figure.animate(self.shade, self.line)

    def draw(self, state: FilterState) -> None:
        self.line.set_xdata([state.tau, state.tau])
        self.shade.set_x(self.low)
        self.shade.set_width(state.tau - self.low)
        self.image.show(self.figure.render(key="histogram"), alt_text(state))
        self.summary.value = (
            f"<div style='font-size:15px;margin:4px 0'>At τ_f = <b>{state.tau:.1f}</b>: "
            f"<b>{state.texts_kept}</b> of {state.texts} texts keep a call "
            f"({state.calls_kept} of {state.candidates:,} sampled calls). Grey: dropped.</div>"
        )
        self.table.value = _table_html(state)
        self.examples.value = _example_html("Only just kept", state.kept_example, OKABE_ITO["green"]) + _example_html(
            "Only just dropped", state.dropped_example, OKABE_ITO["vermillion"]
        )


def toolformer_explorer(candidates: list | None = None, tau: float = 1.0) -> ToolformerFilterView:
    """The τ_f explorer, ready to show as a cell's last line. Without ``candidates`` it uses
    :func:`toolkit.lessons.toolformer.filter_run` with its default settings.

    Notebook 03.
    """
    if candidates is None:
        candidates = filter_run().candidates
    return ToolformerFilterView(candidates, tau)
