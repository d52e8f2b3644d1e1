"""pass^k explorer: drag the mock agent's slip rates and watch reliability fall with k.

Pack §2.9 ("How pass^k is computed"), lab exercises 10 and 11; a worked example only, since
Part C of the assignment asks for a world of the student's own. The mock retail agent
(:mod:`toolkit.lessons.retail`, five tasks) runs ``trials`` times per task; the view plots pass^k (all k tries succeed) and pass@k (at least one does) against k, with 0.9^k dashed as the
pack's rule of thumb, and lists each task's trials. A switch moves the cancel policy into
``cancel_order`` (exercise 11). A second source shows τ-bench's own per-task counts for
gpt-4o on τ-airline (4 trials × 50 tasks) [5].

The slip rates are our own choices for a mock, not measurements of any model.

``passk_state`` is the pure computation; :class:`PassKExplorer` draws it. In a notebook::

    from toolkit.widgets import passk_explorer
    passk_explorer()
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from typing import Any

from ..lessons.retail import RETAIL_TASKS_EXTENDED, retail_outcomes
from ..reliability import load_taubench, pass_at_k, pass_hat_k
from ._base import FONT, LINE_WIDTH, OKABE_ITO, InputError, LiveFigure, LiveView, Picture, esc
from .palette import PANEL, TEXT, THEME_INK_MUTED

__all__ = [
    "PassKState",
    "passk_state",
    "passk_curves",
    "PassKExplorer",
    "passk_explorer",
    "SOURCE_MOCK",
    "SOURCE_TAU",
    "MAX_TRIALS",
]

SOURCE_MOCK = "mock retail agent"
SOURCE_TAU = "real data: gpt-4o on τ-airline [5]"
MAX_TRIALS = 32
RULE_OF_THUMB = 0.9


@dataclass
class PassKState:
    """Everything the view shows, computed without any widget.

    Notebook 10, through passk_explorer.
    """

    source: str
    n: int
    task_ids: list
    instructions: list
    successes: list
    outcomes: list | None  # per task, each trial's pass/fail (None for τ-bench counts)
    ks: list = field(default_factory=list)
    pass_hat: list = field(default_factory=list)
    pass_at: list = field(default_factory=list)
    rule: list = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    def pass_hat_at(self, k: int) -> float:
        """pass^k at one k (ValueError when k is larger than the trials run)."""
        return pass_hat_k(self.successes, self.n, k)

    def pass_at_at(self, k: int) -> float:
        return pass_at_k(self.successes, self.n, k)


def passk_curves(successes: list, n: int) -> tuple[list, list, list]:
    """``(ks, pass^k, pass@k)`` for k = 1 … n.

    Notebook 10, through passk_explorer.
    """
    ks = list(range(1, n + 1))
    return ks, [pass_hat_k(successes, n, k) for k in ks], [pass_at_k(successes, n, k) for k in ks]


# Outcome per (task, policy switch, rolled plan); at most a few hundred entries for the five
# tasks. See retail_outcomes: results are the same as running every trial.
_PLAN_MEMO: dict = {}


@functools.lru_cache(maxsize=512)
def _mock_outcomes(p_skip_check: float, p_typo: float, n: int, seed: int, policy_in_tool: bool) -> tuple:
    rows = retail_outcomes(n, p_skip_check, p_typo, seed, RETAIL_TASKS_EXTENDED, policy_in_tool, memo=_PLAN_MEMO)
    return tuple(tuple(r) for r in rows)


def _check_rate(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InputError(f"{name} must be a number from 0 to 1, got {value!r}.")
    return round(float(value), 6)  # slider steps like 0.15000000000000002 share one cache entry


def passk_state(
    p_skip_check: float = 0.2,
    p_typo: float = 0.05,
    trials: int = 8,
    seed: int = 0,
    policy_in_tool: bool = False,
    source: str = SOURCE_MOCK,
) -> PassKState:
    """Run (or load) the trials and compute pass^k, pass@k and the 0.9^k reference.

    Deterministic: the same arguments always give the same numbers. Trial ``i`` of a task
    depends only on the seed, so more trials add rows without changing the earlier ones.

    Notebook 10, through passk_explorer.
    """
    if source == SOURCE_TAU:
        tau = load_taubench()
        n = int(tau["trials_per_task"])
        successes = list(tau["successes"])
        ids = [f"airline {t}" for t in tau["task_ids"]]
        instructions = [""] * len(ids)
        outcomes = None
        settings: dict[str, Any] = {"source": source}
    elif source == SOURCE_MOCK:
        p_skip_check = _check_rate("p_skip_check", p_skip_check)
        p_typo = _check_rate("p_typo", p_typo)
        if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= MAX_TRIALS:
            raise InputError(f"trials must be a whole number from 1 to {MAX_TRIALS}, got {trials!r}.")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InputError(f"the seed must be a whole number, got {seed!r}.")
        n = trials
        outcomes = [list(r) for r in _mock_outcomes(p_skip_check, p_typo, n, seed, bool(policy_in_tool))]
        successes = [sum(r) for r in outcomes]
        ids = [t["id"] for t in RETAIL_TASKS_EXTENDED]
        instructions = [t["instruction"] for t in RETAIL_TASKS_EXTENDED]
        settings = {
            "source": source,
            "p_skip_check": p_skip_check,
            "p_typo": p_typo,
            "trials": n,
            "seed": seed,
            "policy_in_tool": bool(policy_in_tool),
        }
    else:
        raise InputError(f"unknown source {source!r}; choose {SOURCE_MOCK!r} or {SOURCE_TAU!r}.")
    ks, hat, at = passk_curves(successes, n)
    return PassKState(
        source, n, ids, instructions, successes, outcomes, ks, hat, at, [RULE_OF_THUMB**k for k in ks], settings
    )


def summary_line(state: PassKState) -> str:
    """One sentence with the numbers a lecturer would read out."""
    n = state.n
    k_big = max(k for k in (1, 2, 4, 8, 16, 32) if k <= n)
    first, last = state.pass_hat[0], state.pass_hat[k_big - 1]
    text = (
        f"pass^1 = {first:.2f}; pass^{k_big} = {last:.2f}; pass@{k_big} = {state.pass_at[k_big - 1]:.2f}. "
        f"An agent that succeeded independently 90% of the time would have "
        f"pass^{k_big} = {RULE_OF_THUMB**k_big:.2f} (our own arithmetic)."
    )
    if state.source == SOURCE_MOCK:
        text += " Slip rates are our own choices for a mock, not measurements."
    return text


def settings_line(state: PassKState) -> str:
    """What produced the curves, in one line (shown under the plot)."""
    if state.source != SOURCE_MOCK:
        return f"τ-bench's own results: {len(state.task_ids)} airline tasks × {state.n} trials, gpt-4o [5]"
    s = state.settings
    policy = "the tool" if s["policy_in_tool"] else "the prompt"
    rates = f"p_skip_check = {s['p_skip_check']:.2f}, p_typo = {s['p_typo']:.2f}"
    return (
        f"Mock agent, {len(state.task_ids)} tasks × {state.n} trials: {rates}, policy in {policy}, seed = {s['seed']}"
    )


def alt_text(state: PassKState) -> str:
    """What the plot shows, with its key numbers: the picture's text alternative."""
    n = state.n
    return (
        f"{_title(state.source, len(state.task_ids))}. Line plot against k from 1 to {n} "
        f"(log scale): pass^k falls from {state.pass_hat[0]:.2f} at k = 1 to "
        f"{state.pass_hat[-1]:.2f} at k = {n}; pass@k rises from {state.pass_at[0]:.2f} to "
        f"{state.pass_at[-1]:.2f}; a dashed line shows 0.9^k ({RULE_OF_THUMB**n:.2f} at k = {n})."
    )


def table_html(state: PassKState) -> str:
    """Each task's trials as ✓/✗ marks, or τ-bench's counts grouped by successes."""
    ok, bad = TEXT["green"], TEXT["vermillion"]
    style = f"border-collapse:collapse;font-size:14px;{PANEL}"
    cell = "padding:3px 8px;border-bottom:1px solid #ddd;text-align:left"
    if state.outcomes is None:
        counts = [state.successes.count(c) for c in range(state.n + 1)]
        head = "".join(f"<th style='{cell}'>{c} of {state.n}</th>" for c in range(state.n + 1))
        row = "".join(f"<td style='{cell}'>{k}</td>" for k in counts)
        return (
            f"<table style='{style}'><tr><th style='{cell}'>successes per task</th>{head}</tr>"
            f"<tr><td style='{cell}'>tasks</td>{row}</tr></table>"
            f"<div style='font-size:12px;color:{THEME_INK_MUTED}'>τ-bench historical trajectories, "
            f"{len(state.successes)} airline tasks × {state.n} trials (MIT licence). This run gives "
            f"pass^1 = {state.pass_hat[0]:.2f}; the paper's main table reports 0.352 for gpt-4o "
            f"on airline, from another run [5].</div>"
        )
    rows = []
    for tid, text, marks, c in zip(state.task_ids, state.instructions, state.outcomes, state.successes):
        strip = "".join(
            f"<span style='color:{ok if m else bad};font-weight:bold'>{'✓' if m else '✗'}</span>" for m in marks
        )
        rows.append(
            f"<tr><td style='{cell}'><b>{esc(tid)}</b></td><td style='{cell}'>{esc(text)}</td>"
            f"<td style='{cell};font-family:monospace;letter-spacing:1px'>{strip}</td>"
            f"<td style='{cell}'>{c}/{state.n}</td></tr>"
        )
    head = "".join(f"<th style='{cell}'>{h}</th>" for h in ("task", "the user says", "trials", "passed"))
    return f"<table style='{style}'><tr>{head}</tr>{''.join(rows)}</table>"


class PassKExplorer(LiveView):
    """Sliders for the mock agent, a plot of pass^k / pass@k against k, a per-task table.

    Notebook 10, through passk_explorer.
    """

    name = "pass^k explorer"

    def __init__(self, *args: Any, **settings: Any) -> None:
        """The arguments of :func:`passk_state`, with its defaults, are the controls' first values."""
        start = inspect.signature(passk_state).bind(*args, **settings)  # TypeError for a wrong name
        start.apply_defaults()
        p_skip_check, p_typo, trials, seed, policy_in_tool, source = start.arguments.values()
        super().__init__()
        W = self.W
        slider = dict(continuous_update=False, style={"description_width": "120px"}, layout=W.Layout(width="420px"))
        self.p_skip_check = W.FloatSlider(
            value=p_skip_check, min=0, max=1, step=0.05, description="p_skip_check", readout_format=".2f", **slider
        )
        self.p_typo = W.FloatSlider(
            value=p_typo, min=0, max=0.5, step=0.01, description="p_typo", readout_format=".2f", **slider
        )
        self.trials = W.IntSlider(value=trials, min=1, max=MAX_TRIALS, step=1, description="trials per task", **slider)
        self.seed = W.BoundedIntText(
            value=seed,
            min=0,
            max=10**6,
            description="seed",
            style={"description_width": "120px"},
            layout=W.Layout(width="220px"),
        )
        self.policy_in_tool = W.Checkbox(
            value=policy_in_tool,
            indent=False,
            layout=W.Layout(width="auto"),
            description="policy in the tool (cancel_order refuses non-pending orders)",
        )
        self.source = W.RadioButtons(
            options=[SOURCE_MOCK, SOURCE_TAU], value=source, description="data", layout=W.Layout(width="auto")
        )
        self.image = Picture(W, max_width="900px")
        self.summary = self.live(W.HTML())
        self.table = W.HTML()
        mock_box = W.VBox(
            [W.HBox([self.p_skip_check, self.p_typo]), W.HBox([self.trials, self.seed]), self.policy_in_tool]
        )
        self.widget = W.VBox([self.source, mock_box, self.message_box, self.image.widget, self.summary, self.table])
        self.accessible(
            {
                "p_skip_check": "p_skip_check: how often the mock agent skips the order check",
                "p_typo": "p_typo: how often the mock agent mistypes an argument",
                "trials per task": "trials per task: how many times each task is run",
                "data": "data shown: the mock agent or τ-bench's real results",
            }
        )
        # one control per argument of passk_state, named alike
        self._inputs = {name: getattr(self, name) for name in start.arguments}
        self._mock_controls = (self.p_skip_check, self.p_typo, self.trials, self.seed, self.policy_in_tool)
        self._build_figure()
        # draw the τ-bench background now, so the first switch of source is as fast as any
        self.title.set_text(_title(SOURCE_TAU, len(load_taubench()["successes"])))
        self.figure.render(key=self.title.get_text())
        self.watch(*self._inputs.values())
        self.refresh()

    # ---------------------------------------------------------------- pure part
    def compute(self) -> PassKState:
        return passk_state(**{name: control.value for name, control in self._inputs.items()})

    # ---------------------------------------------------------------- drawing
    def _build_figure(self) -> None:
        self.figure = LiveFigure(9.0, 4.4, dpi=100)
        fig = self.figure.fig
        ax = self.ax = fig.add_axes((0.08, 0.14, 0.62, 0.74))
        ax.set_xscale("log", base=2)
        ax.set_xlim(0.85, MAX_TRIALS * 1.15)
        ax.set_ylim(-0.02, 1.04)
        ax.set_xticks([1, 2, 4, 8, 16, 32], labels=["1", "2", "4", "8", "16", "32"])
        ax.tick_params(labelsize=FONT["tick"])
        ax.set_xlabel("k (number of tries of the same task)", fontsize=FONT["label"])
        ax.set_ylabel("share of tasks (estimate)", fontsize=FONT["label"])
        ax.grid(True, which="major", alpha=0.3)
        ks = list(range(1, MAX_TRIALS + 1))
        ax.plot(ks, [RULE_OF_THUMB**k for k in ks], ls="--", lw=2, color=OKABE_ITO["grey"], label="0.9^k rule of thumb")
        (self.hat_line,) = ax.plot(
            [], [], lw=LINE_WIDTH, marker="o", ms=6, color=OKABE_ITO["blue"], label="pass^k\n(all k tries succeed)"
        )
        (self.at_line,) = ax.plot(
            [], [], lw=LINE_WIDTH, marker="s", ms=6, color=OKABE_ITO["orange"], label="pass@k\n(at least one of k)"
        )
        ax.legend(
            handles=[self.hat_line, self.at_line, ax.lines[0]],
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            fontsize=FONT["legend"],
            frameon=False,
            labelspacing=1.0,
        )
        # Text is slow to draw, so the title is part of the cached background: one per source.
        self.title = ax.set_title("", fontsize=FONT["title"], loc="left")
        self.figure.animate(self.hat_line, self.at_line)

    def draw(self, state: PassKState) -> None:
        self.hat_line.set_data(state.ks, state.pass_hat)
        self.at_line.set_data(state.ks, state.pass_at)
        title = _title(state.source, len(state.task_ids))
        self.title.set_text(title)
        self.image.show(self.figure.render(key=title), alt_text(state))
        self.summary.value = (
            f"<div style='font-size:14px;margin:4px 0'><b>{esc(settings_line(state))}</b>"
            f"<br>{esc(summary_line(state))}</div>"
        )
        self.table.value = table_html(state)
        disabled = state.source != SOURCE_MOCK
        for c in self._mock_controls:
            c.disabled = disabled


def _title(source: str, tasks: int) -> str:
    if source == SOURCE_MOCK:
        return f"pass^k and pass@k: mock retail agent, {tasks} tasks"
    return f"pass^k and pass@k: gpt-4o on τ-airline, {tasks} tasks [5]"


def passk_explorer(**settings) -> PassKExplorer:
    """The pass^k explorer, ready to show: ``passk_explorer()`` as a cell's last line.

    Notebook 10.
    """
    return PassKExplorer(**settings)
