"""Scoring panel: three mock callers with one bad habit each, scored the BFCL way.

Pack §2.9 ("BFCL: checking the call itself"), lab exercise 9; a worked example only, since
Part B of the assignment asks for the student's own cases. The callers of :mod:`toolkit.lessons.mock_callers` answer the pack's 7 cases and the course's 32
(``data/course_cases.json``): one invents function names, one drops values, one calls a tool
when none fits. Each has a slip-rate slider. The view shows accuracy by category (bars, AST
scoring), the count of each failure type from :func:`toolkit.classify`, and how often AST
scoring and exact string match disagree, with examples.

The callers are mocks: the scores describe their habits and our scorer, not any model.

``scoring_state`` is the pure computation. In a notebook::

    from toolkit.widgets import scoring_panel
    scoring_panel()
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ..lessons.mock_callers import CALLER_TYPES, gold_text, scoring_cases
from ..scoring import FAILURE_TYPES, case_category, classify, exact_string_match
from ._base import FONT, OKABE_ITO, InputError, LiveFigure, LiveView, Picture, esc

__all__ = ["CallerScore", "ScoringState", "scoring_state", "ScoringPanel", "scoring_panel", "CASE_SETS"]

CASE_SETS = {"all 39 cases": "all", "the pack's 7": "pack", "the course's 32": "course"}
COLOURS = [OKABE_ITO["blue"], OKABE_ITO["orange"], OKABE_ITO["green"]]


@dataclass
class CallerScore:
    """One mock caller's replies, verdicts and accuracy.

    Notebook 09.
    """

    name: str
    habit: str
    slip: float
    replies: list
    labels: list  # classify() per case: "pass" or a failure type
    exact: list  # exact_string_match per case
    overall: float
    by_category: dict
    failures: dict

    @property
    def exact_overall(self) -> float:
        return sum(self.exact) / len(self.exact)

    @property
    def disagreements(self) -> list[int]:
        """Indexes of cases where AST scoring and exact match give different verdicts."""
        return [i for i, (lab, ex) in enumerate(zip(self.labels, self.exact)) if (lab == "pass") != ex]


@dataclass
class ScoringState:
    """What the scoring panel shows: every mock caller scored on one case set.

    Notebook 09.
    """

    case_set: str
    cases: list
    categories: list
    callers: list  # CallerScore per caller
    gold_texts: list
    settings: dict = field(default_factory=dict)

    def caller(self, name_or_index) -> CallerScore:
        if isinstance(name_or_index, int):
            return self.callers[name_or_index]
        return next(c for c in self.callers if c.name == name_or_index)


@functools.cache
def _case_list(case_set: str) -> tuple:
    """The cases of one set, loaded once (the view never changes them)."""
    return tuple(scoring_cases(case_set)[1])


@functools.lru_cache(maxsize=256)
def _score_one(kind: int, slip: float, seed: int, case_set: str) -> CallerScore:
    """One caller's replies and verdicts; cached, so moving one slider rescores one caller."""
    cases = _case_list(case_set)
    golds = [gold_text(c) for c in cases]
    caller = CALLER_TYPES[kind](slip, seed)
    replies = caller.answers(cases)
    labels = [classify(c, r) for c, r in zip(cases, replies)]
    exact = [exact_string_match(r, g) for r, g in zip(replies, golds)]
    # the same tallies as toolkit.evaluate_calls, from the labels already computed
    totals: dict = {}
    failures: dict = {}
    for case, label in zip(cases, labels):
        t = totals.setdefault(case_category(case), [0, 0])
        t[1] += 1
        if label == "pass":
            t[0] += 1
        else:
            failures[label] = failures.get(label, 0) + 1
    overall = labels.count("pass") / len(cases)
    return CallerScore(
        caller.name,
        caller.habit,
        caller.slip,
        replies,
        labels,
        exact,
        overall,
        {c: ok / n for c, (ok, n) in totals.items()},
        failures,
    )


def scoring_state(slips=(0.3, 0.3, 0.3), seed: int = 0, case_set: str = "all") -> ScoringState:
    """Score each mock caller on a case set; deterministic for the same slips and seed.

    The per-caller numbers equal :func:`toolkit.evaluate_calls` on the same replies.

    Notebook 09.
    """
    slips = list(slips)
    if len(slips) != len(CALLER_TYPES):
        raise InputError(f"give {len(CALLER_TYPES)} slip rates, one per mock caller.")
    for s in slips:
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 1:
            raise InputError(f"each slip rate must be a number from 0 to 1, got {s!r}.")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InputError(f"the seed must be a whole number, got {seed!r}.")
    if case_set not in CASE_SETS.values():
        raise InputError(f"case_set must be one of {', '.join(CASE_SETS.values())}, got {case_set!r}.")
    cases = list(_case_list(case_set))
    categories = list(_categories_of(cases))
    scores = [_score_one(i, round(float(s), 6), seed, case_set) for i, s in enumerate(slips)]
    return ScoringState(
        case_set,
        cases,
        categories,
        scores,
        [gold_text(c) for c in cases],
        {"slips": slips, "seed": seed, "case_set": case_set},
    )


# -------------------------------------------------------------------------------------- tables

_CELL = "padding:3px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top"


def _table(head: list, rows: list) -> str:
    h = "".join(f"<th style='{_CELL}'>{x}</th>" for x in head)
    body = "".join("<tr>" + "".join(f"<td style='{_CELL}'>{x}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table style='border-collapse:collapse;font-size:13px'><tr>{h}</tr>{body}</table>"


def summary_line(state: ScoringState) -> str:
    """Each mock caller's overall AST accuracy in one sentence (read out when it changes)."""
    scores = "; ".join(f"{s.name} (slip {s.slip:.2f}): {s.overall:.2f}" for s in state.callers)
    return f"Overall accuracy on {len(state.cases)} cases, AST scoring: {scores}."


def alt_text(state: ScoringState) -> str:
    """What the bar chart shows, with every bar's height: the picture's text alternative."""
    groups = list(state.categories) + ["overall"]
    bars = "; ".join(
        s.name + ": " + ", ".join(f"{g} {s.by_category[g] if g != 'overall' else s.overall:.2f}" for g in groups)
        for s in state.callers
    )
    return (
        f"Bar chart of the share of cases passed by category, three mock callers, AST "
        f"scoring, {len(state.cases)} cases. {bars}."
    )


def accuracy_html(state: ScoringState) -> str:
    head = ["mock caller (slip)"] + [esc(c) for c in state.categories] + ["overall (AST)"]
    rows = [
        [f"<b>{esc(s.name)}</b> ({s.slip:.2f})"]
        + [f"{s.by_category[c]:.2f}" for c in state.categories]
        + [f"<b>{s.overall:.2f}</b>"]
        for s in state.callers
    ]
    return _table(head, rows)


def failures_html(state: ScoringState) -> str:
    present = [f for f in FAILURE_TYPES if any(s.failures.get(f) for s in state.callers)]
    if not present:
        return "<div style='font-size:13px'>No failures: every reply passed AST scoring.</div>"
    head = ["failure type"] + [esc(s.name) for s in state.callers]
    rows = [[f"<code>{f}</code>"] + [str(s.failures.get(f, 0)) for s in state.callers] for f in present]
    return _table(head, rows)


def agreement_html(state: ScoringState, examples: int = 3) -> str:
    n = len(state.cases)
    rows = []
    for s in state.callers:
        d = s.disagreements
        strict = sum(1 for i in d if s.labels[i] == "pass")
        rows.append(
            [
                f"<b>{esc(s.name)}</b>",
                f"{s.overall:.2f}",
                f"{s.exact_overall:.2f}",
                f"{len(d)} of {n}",
                f"{strict}",
                f"{len(d) - strict}",
            ]
        )
    table = _table(
        [
            "mock caller",
            "AST accuracy",
            "exact-match accuracy",
            "disagree on",
            "AST pass, exact fail",
            "AST fail, exact pass",
        ],
        rows,
    )
    shown = []
    for s in state.callers:
        for i in s.disagreements[:examples]:
            verdict = "AST: pass, exact: fail" if s.labels[i] == "pass" else f"AST: {s.labels[i]}, exact: pass"
            shown.append(
                [
                    esc(s.name),
                    esc(state.cases[i]["id"]),
                    f"<code>{esc(s.replies[i]) or '(no call)'}</code>",
                    f"<code>{esc(state.gold_texts[i]) or '(no call)'}</code>",
                    verdict,
                ]
            )
    details = ""
    if shown:
        details = (
            "<details><summary style='font-size:13px;cursor:pointer'>Examples of disagreement "
            f"(up to {examples} per caller)</summary>"
            + _table(["caller", "case", "reply", "gold text", "verdicts"], shown)
            + "</details>"
        )
    return table + details


# -------------------------------------------------------------------------------------- widget


class ScoringPanel(LiveView):
    """One slip slider per mock caller, a seed and a case set; bars and tables follow.

    Notebook 09.
    """

    name = "scoring panel"

    def __init__(self, slips=(0.3, 0.3, 0.3), seed: int = 0, case_set: str = "all") -> None:
        super().__init__()
        W = self.W
        slider = dict(
            min=0,
            max=1,
            step=0.05,
            continuous_update=False,
            readout_format=".2f",
            style={"description_width": "130px"},
            layout=W.Layout(width="380px"),
        )
        self.sliders = [W.FloatSlider(value=s, description=cls.name, **slider) for cls, s in zip(CALLER_TYPES, slips)]
        self.invents, self.drops, self.eager = self.sliders
        self.seed = W.BoundedIntText(value=seed, min=0, max=10**6, description="seed", layout=W.Layout(width="180px"))
        label_of = {v: k for k, v in CASE_SETS.items()}
        self.case_set = W.RadioButtons(
            options=list(CASE_SETS), value=label_of[case_set], description="cases", layout=W.Layout(width="auto")
        )
        swatch = "display:inline-block;width:0.8em;height:0.8em;margin-right:4px;background:{}"
        self.habits = W.HTML(
            "<div style='font-size:13px'>"
            + "<br>".join(
                f"<span style='{swatch.format(col)}'></span><b>{esc(cls.name)}</b> (mock): {esc(cls.habit)}"
                for col, cls in zip(COLOURS, CALLER_TYPES)
            )
            + "</div>"
        )
        self.image = Picture(W, max_width="950px")
        self.summary = self.live(W.HTML())
        self.accuracy = W.HTML()
        self.failures = W.HTML()
        self.agreement = W.HTML()
        self.widget = W.VBox(
            [
                self.habits,
                W.HBox([W.VBox(self.sliders), W.VBox([self.seed])]),
                self.case_set,
                self.message_box,
                self.image.widget,
                self.summary,
                W.HTML("<b>Accuracy by category (AST scoring)</b>"),
                self.accuracy,
                W.HTML("<b>Failure types (classify)</b>"),
                self.failures,
                W.HTML("<b>AST scoring against exact string match</b>"),
                self.agreement,
            ]
        )
        self.accessible(
            {cls.name: f"{cls.name}: how often this mock caller slips" for cls in CALLER_TYPES}
            | {"cases": "which cases to score"}
        )
        self.figure = LiveFigure(9.5, 4.2, dpi=100)
        # One set of axes per list of categories (the pack's cases have no missing_parameter),
        # each drawn once now, so switching case sets later never pays for a full draw.
        self.panels: dict = {}
        for which in CASE_SETS.values():
            self._panel(_categories_of(_case_list(which)))
        self.watch(*self.sliders, self.seed, self.case_set)
        self.refresh()
        for key in self.panels:
            self._show(key)
            self.figure.render(key=key)
        self._show(tuple(self.state.categories))

    def compute(self) -> ScoringState:
        return scoring_state([s.value for s in self.sliders], self.seed.value, CASE_SETS[self.case_set.value])

    def _panel(self, categories: tuple):
        """Axes and bars for one list of categories (static parts are drawn once)."""
        if categories in self.panels:
            return self.panels[categories]
        ax = self.figure.fig.add_axes((0.08, 0.2, 0.66, 0.68))
        groups = list(categories) + ["overall"]
        width = 0.8 / len(CALLER_TYPES)
        bars = []
        for j, (cls, colour) in enumerate(zip(CALLER_TYPES, COLOURS)):
            xs = [i + (j - 1) * width for i in range(len(groups))]
            group = ax.bar(
                xs, [0] * len(groups), width=width * 0.95, color=colour, label=f"{cls.name} (mock)", edgecolor="white"
            )
            bars.append(list(group))
            self.figure.animate(*group)
        ax.set_xticks(range(len(groups)), labels=[g.replace("_", "\n") for g in groups])
        ax.set_ylim(0, 1.05)
        ax.set_xlim(-0.6, len(groups) - 0.4)
        ax.axvline(len(groups) - 1.5, color="#999", lw=1)
        ax.tick_params(labelsize=FONT["tick"])
        ax.set_ylabel("share of cases passed", fontsize=FONT["label"])
        ax.set_title("Accuracy by category, three mock callers (AST scoring)", fontsize=FONT["title"], loc="left")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=FONT["legend"], frameon=False)
        self.panels[categories] = (ax, bars)
        return self.panels[categories]

    def _show(self, categories: tuple) -> None:
        for key, (ax, _) in self.panels.items():
            ax.set_visible(key == categories)

    def draw(self, state: ScoringState) -> None:
        categories = tuple(state.categories)
        ax, bars = self._panel(categories)
        self._show(categories)
        for group, score in zip(bars, state.callers):
            values = [score.by_category[c] for c in categories] + [score.overall]
            for bar, value in zip(group, values):
                bar.set_height(value)
        self.image.show(self.figure.render(key=categories), alt_text(state))
        self.summary.value = f"<div style='font-size:14px;margin:4px 0'>{esc(summary_line(state))}</div>"
        self.accuracy.value = accuracy_html(state)
        self.failures.value = failures_html(state)
        self.agreement.value = agreement_html(state)


def _categories_of(cases) -> tuple:
    out: list = []
    for c in cases:
        if case_category(c) not in out:
            out.append(case_category(c))
    return tuple(out)


def scoring_panel(**settings) -> ScoringPanel:
    """The scoring panel, ready to show: ``scoring_panel()`` as a cell's last line.

    Notebook 09.
    """
    return ScoringPanel(**settings)
