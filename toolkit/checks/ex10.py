"""Exercise 10 (notebook 10, pack §2.9): vary the agent, and compute one pass^2 by hand.

The student writes ``passk_table(p_skip_check, p_typo)``, which runs the mock retail agent
(:func:`toolkit.run_retail_trials`, 8 trials of each of the pack's three tasks) and returns
pass^1 … pass^8; picks slip rates of their own; and reports one task's success count and its
pass^2 worked out by hand. The check runs ``passk_table`` on settings the student has not
seen, recomputes their chosen task's count, and checks the hand arithmetic against
C(c, 2) / C(8, 2). Its last line sets their curve beside the pack's 0.9^k rule of thumb [5].
"""

from __future__ import annotations

import random
from collections.abc import Callable
from math import comb
from numbers import Real

from ..data import load_json
from ..lessons.retail import run_retail_trials
from ..reliability import pass_hat_k
from . import Checker, CheckResult, StudentError, not_done, probe_parts, restore_course_data

__all__ = ["check", "reference_table", "unseen_settings", "N_TRIALS", "DEFAULTS", "UNSEEN_SETTINGS"]

TITLE = "Exercise 10: vary the agent"
N_TRIALS = 8
DEFAULTS = (0.2, 0.05)
# Settings the notebook never shows. They are not secret (you can print them); the check also
# draws two more at random each time it runs, so a table must follow its arguments.
UNSEEN_SETTINGS = ((0.0, 0.0), (0.6, 0.2), (1.0, 0.0))
TOLERANCE = 0.0005 + 1e-9  # a table rounded to three places still counts; a wrong curve is further off
HAND_TOLERANCE = 0.0015  # a hand result rounded to three places still counts


def reference_table(p_skip_check: float, p_typo: float, seed: int = 0, n: int = N_TRIALS) -> list[float]:
    """pass^1 … pass^n of the mock agent at these slip rates (the answer passk_table should give).

    Notebook 10, through check.
    """
    successes = run_retail_trials(n=n, p_skip_check=p_skip_check, p_typo=p_typo, seed=seed, tasks=_tasks())
    return [pass_hat_k(successes, n, k) for k in range(1, n + 1)]


def _tasks() -> list[dict]:
    """The pack's three tasks as the data file has them: student code run during the check
    cannot change what the check counts."""
    return load_json("retail.json")["tasks"]


def unseen_settings(rng: random.Random | None = None) -> list[tuple[float, float]]:
    """The fixed unseen settings plus two drawn afresh: one that moves only ``p_skip_check`` and one
    that moves only ``p_typo`` away from the defaults, so a table that ignores either argument fails.

    Notebook 10, through check.
    """
    rng = rng or random.Random()
    skip = round(rng.uniform(0.3, 0.9), 2)
    typo = round(rng.uniform(0.3, 0.8), 2)
    return list(UNSEEN_SETTINGS) + [(skip, DEFAULTS[1]), (DEFAULTS[0], typo)]


def _is_number(x) -> bool:
    """A real number that is not a bool: int, float, Fraction, numpy scalars all count."""
    return isinstance(x, Real) and not isinstance(x, bool)


def _as_list(value, n: int = N_TRIALS) -> list[float]:
    """Accept a list/tuple of n numbers or a dict {1: …, n: …}; raise StudentError otherwise."""
    if isinstance(value, dict):
        if sorted(value) != list(range(1, n + 1)):
            raise StudentError(f"passk_table returned a dict with keys {sorted(value)}; use k = 1 to {n}")
        value = [value[k] for k in range(1, n + 1)]
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple)):  # a numpy array or pandas Series
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise StudentError(
            f"passk_table should return {n} numbers, pass^1 to pass^{n}; "
            f"it returned {type(value).__name__}"
            + (f" of length {len(value)}" if isinstance(value, (list, tuple)) else "")
        )
    if not all(_is_number(v) for v in value):
        raise StudentError("passk_table should return numbers (floats from 0 to 1)")
    return [float(v) for v in value]


def _fmt(values: list[float]) -> str:
    return ", ".join(f"{v:.3f}" for v in values)


def _is_rate(x) -> bool:
    return _is_number(x) and 0 <= x <= 1


def _matches(c: Checker, passk_table: Callable, settings: tuple[float, float], seed: int) -> bool:
    got = _as_list(c.call(passk_table, *settings))
    want = reference_table(*settings, seed=seed)
    assert all(abs(g - w) <= TOLERANCE for g, w in zip(got, want)), (
        f"at p_skip_check={settings[0]}, p_typo={settings[1]} you gave [{_fmt(got)}], the "
        f"trials give [{_fmt(want)}]. Run T.run_retail_trials(n={N_TRIALS}, ..., seed=SEED), "
        "then T.pass_hat_k(successes, n, k) for each k from 1 to 8"
    )
    return True


def _settings_ok(p_skip_check, p_typo) -> bool:
    assert _is_rate(p_skip_check) and _is_rate(p_typo), (
        f"P_SKIP_CHECK and P_TYPO must be numbers from 0 to 1; you have {p_skip_check!r} and {p_typo!r}"
    )
    assert (p_skip_check, p_typo) != DEFAULTS, (
        f"P_SKIP_CHECK and P_TYPO are still the defaults {DEFAULTS}; choose slip rates of your own"
    )
    return True


def _hand_count(c: Checker, my_pass2_by_hand: Callable, odds: tuple, state: dict) -> bool:
    p_skip_check, p_typo, seed = odds
    hand = c.call(my_pass2_by_hand)
    if not isinstance(hand, dict) or not {"task", "successes", "pass2"} <= set(hand):
        raise StudentError("my_pass2_by_hand() should return a dict with keys 'task', 'successes' and 'pass2'")
    tasks = _tasks()
    ids = [t["id"] for t in tasks]
    task = str(hand["task"]).strip().upper()  # "t3" and " T3" name the same task
    assert task in ids, f"{hand['task']!r} is not a task; choose one of {', '.join(ids)}"
    assert _is_rate(p_skip_check) and _is_rate(p_typo), "fix your slip rates first (the line above)"
    counts = run_retail_trials(n=N_TRIALS, p_skip_check=p_skip_check, p_typo=p_typo, seed=seed, tasks=tasks)
    c_true = counts[ids.index(task)]
    state.update(hand=hand, task=task, c=c_true)
    assert hand["successes"] == c_true, (
        f"at your slip rates, task {task} succeeded {c_true} times out of {N_TRIALS}, "
        f"not {hand['successes']!r}; print T.run_retail_trials(...) and read its count"
    )
    return True


def _hand_value(state: dict) -> bool:
    if "c" not in state:
        raise AssertionError("fix the success count first (the line above)")
    count = state["c"]
    assert 2 <= count < N_TRIALS, (
        f"task {state['task']} succeeded {count} times out of {N_TRIALS}, so its pass^2 is "
        f"{'1' if count == N_TRIALS else '0'} with nothing to work out; choose a task, or slip rates, "
        f"where it succeeded between 2 and {N_TRIALS - 1} times"
    )
    want = comb(count, 2) / comb(N_TRIALS, 2)
    got = state["hand"]["pass2"]
    assert _is_number(got), f"'pass2' should be a number, got {type(got).__name__}"
    assert abs(got - want) <= HAND_TOLERANCE, (
        f"{got!r} is not C({state['c']}, 2) / C({N_TRIALS}, 2); count the pairs of successful "
        f"trials, then divide by the number of pairs of trials, {comb(N_TRIALS, 2)}"
    )
    return True


def _summary(p_skip_check, p_typo, seed: int) -> str:
    if not (_is_rate(p_skip_check) and _is_rate(p_typo)):
        return ""
    yours = reference_table(p_skip_check, p_typo, seed=seed)
    return (
        f"Your agent (p_skip_check={p_skip_check}, p_typo={p_typo}, mock): "
        f"pass^1 = {yours[0]:.3f}, pass^8 = {yours[7]:.3f}.\n"
        f"Our own arithmetic for comparison: 0.9^8 = {0.9**8:.3f}; "
        f"{yours[0]:.3f}^8 = {yours[0] ** 8:.3f}, what pass^8 would be if every try of\n"
        "every task succeeded independently with pass^1's chance. "
        "Use these numbers in the question below."
    )


def check(passk_table: Callable, my_pass2_by_hand: Callable, p_skip_check, p_typo, seed: int = 0) -> CheckResult:
    """Run the student's table on unseen settings; check their settings and hand arithmetic.

    Notebook 10.
    """
    c = Checker(TITLE)
    restore_course_data(c, "T.RETAIL_TASKS")
    _, all_stubs = probe_parts(c, {"passk_table": (passk_table, DEFAULTS), "my_pass2_by_hand": (my_pass2_by_hand, ())})
    if all_stubs:
        return not_done(TITLE)
    c.run(
        f"passk_table{DEFAULTS} gives pass^1 … pass^{N_TRIALS} of the default agent",
        lambda: _matches(c, passk_table, DEFAULTS, seed),
    )
    unseen = unseen_settings()
    c.run(
        f"passk_table gives the right curve for {len(unseen)} settings you have not seen "
        "(some move only p_skip_check, some only p_typo)",
        lambda: all(_matches(c, passk_table, s, seed) for s in unseen),
    )
    c.run(
        "your own slip rates: P_SKIP_CHECK and P_TYPO are rates from 0 to 1, not the defaults",
        lambda: _settings_ok(p_skip_check, p_typo),
    )
    state: dict = {}
    c.run(
        "my_pass2_by_hand() names a task and its success count at your slip rates",
        lambda: _hand_count(c, my_pass2_by_hand, (p_skip_check, p_typo, seed), state),
    )
    c.run(
        "its pass^2, worked out by hand, equals C(c, 2) / C(8, 2), for a task that neither always nor never succeeds",
        lambda: _hand_value(state),
    )
    summary = _summary(p_skip_check, p_typo, seed)
    result = c.done()
    if summary and result.status == "checked":
        print(summary)
        result.lines.append(summary)
    return result
