"""Exercise 5 (notebook 08, pack §2.8 "Many calls"): parallel or not.

Part 1: the student writes ``time_one_turn(parallel, n_calls=4, delay=0.2)``, which builds
``n_calls`` tools that each sleep ``delay`` seconds, lets a mock model ask for all of them in one
turn, runs :func:`~toolkit.run_agent` and returns the seconds the run took. The check calls it
for the pack's case (four calls of 0.2 s: about 0.2 s together, about 0.8 s one after another,
the pack's own arithmetic) and for two unseen ones (a longer ``delay`` with fewer calls, more
calls with a shorter ``delay``). It judges from what the run itself recorded, never from a
total against a constant (a busy machine makes every run slower): while ``time_one_turn``
runs, every tool call the registry runs is timed from its own start to its own end
(:func:`recorded_calls`), with the seconds it asked ``time.sleep`` for. With ``parallel=True`` the
calls' intervals must overlap, with ``parallel=False`` each must start after the one before
ended; there must be ``n_calls`` of them, each at least ``delay`` long and asking to sleep
``delay`` (when it sleeps through ``time.sleep``); and the time returned must cover those intervals and fit inside the
check's own stopwatch around the call. Before each call the check adds its own short pause
(:data:`PAUSE`), so a time worked out from ``delay`` and ``n_calls`` instead of measured falls
short of what the calls took. It prints the student's two times for the pack's case next to the
pack's arithmetic, so the comparison the exercise asks for is on the page.

Part 2: the second call needs the first call's result ("find Dana's latest order, then cancel
it"). The student writes ``chained_model()``, a mock that asks for ``find_order`` alone, reads
the id from the tool message, and only then asks for ``cancel_order``. The check runs it against
order books the student has not seen, with ids drawn at check time (not printed unless the
model gets one wrong), so an id typed into the script fails.
"""

from __future__ import annotations

import contextlib
import random
import string
import threading
import time
from collections.abc import Callable, Iterator

from ..lessons.order_shop import order_registry
from ..loop import run_agent
from ..registry import ToolRegistry
from . import Checker, CheckResult, StudentError, not_done, probe_parts, scaled

__all__ = ["check", "REQUEST", "recorded_calls", "PAUSE"]

TITLE = "Exercise 5: parallel or not"
REQUEST = "Cancel Dana's latest order."
PAUSE = 0.01  # seconds the check waits before each tool call it records (not scaled: it must beat SLACK)
SLACK = 0.002  # seconds two clocks (the student's and the check's) may disagree by
MEET_LIMIT = (
    1.0  # at most, seconds a call asked to run in parallel waits for the others (a right answer never waits it out)
)
PACK_CASE = (4, 0.2)  # four calls of 0.2 s, the pack's example
UNSEEN = ((2, 0.3), (6, 0.1))


def _unseen_ids(count: int = 2) -> list[str]:
    """Order ids drawn afresh at each check, never the notebook's K2 nor the other order Z1."""
    rng = random.Random()
    ids: list[str] = []
    while len(ids) < count:
        new = rng.choice(string.ascii_uppercase.replace("K", "").replace("Z", "")) + str(rng.randint(3, 99))
        if new not in ids:
            ids.append(new)
    return ids


@contextlib.contextmanager
def recorded_calls(meet: int = 0, meet_limit: float = MEET_LIMIT) -> Iterator[list]:
    """While inside, every :meth:`ToolRegistry.run` (whoever calls it, in any thread) waits
    :data:`PAUSE`, runs, and adds ``(start, end, asked)`` to the list yielded: its own start and
    end (``time.perf_counter``) and the seconds it asked ``time.sleep`` for (None when it never
    called ``time.sleep``, as with ``from time import sleep`` or a busy wait).

    ``meet``: the number of calls that should run at once. Each call then waits, after its start
    is recorded, until that many have started (at most ``meet_limit`` seconds), so calls that really
    run together overlap however late a busy machine starts their threads; calls run one after
    another cannot meet, and their intervals still show it.

    Notebook 08, through check.
    """
    spans: list = []
    barrier = threading.Barrier(meet) if meet > 1 else None
    lock = threading.Lock()
    here = threading.local()
    original, real_sleep = ToolRegistry.run, time.sleep

    def counted_sleep(seconds):
        asked = getattr(here, "asked", None)
        if asked is not None:
            asked.append(seconds)
        return real_sleep(seconds)

    def timed_run(self, *args, **kwargs):
        start = time.perf_counter()
        if barrier is not None:
            try:
                barrier.wait(meet_limit)
            except threading.BrokenBarrierError:
                pass  # the calls did not all come at once: their intervals will say so
        real_sleep(PAUSE)
        here.asked = []
        try:
            return original(self, *args, **kwargs)
        finally:
            asked, here.asked = here.asked, None
            with lock:
                spans.append((start, time.perf_counter(), sum(asked) if asked else None))

    ToolRegistry.run = timed_run  # type: ignore[method-assign]
    time.sleep = counted_sleep
    try:
        yield spans
    finally:
        ToolRegistry.run = original  # type: ignore[method-assign]
        time.sleep = real_sleep


def _timed(c: Checker, time_one_turn: Callable, parallel: bool, n: int, delay: float) -> tuple[float, list, float]:
    """(the seconds returned, the recorded (start, end) of each tool call, the check's own seconds)."""
    # a wrong answer's calls wait for each other only a part of the time the check allows it
    meet_limit = MEET_LIMIT if c.time_limit is None else min(MEET_LIMIT, c.time_limit / 4)
    with recorded_calls(n if parallel else 0, meet_limit) as spans:
        start = time.perf_counter()
        value = c.call(time_one_turn, parallel, n, delay)
        wall = time.perf_counter() - start
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise StudentError(f"time_one_turn should return the seconds as a number, got {value!r}")
    return float(value), sorted(spans), wall


def _chained(spans: list) -> bool:
    """True when, in start order, each call began before the calls that started earlier had all
    ended: the intervals form one overlapping block."""
    latest_end = spans[0][1]
    for start, end, _ in spans[1:]:
        if start >= latest_end:
            return False
        latest_end = max(latest_end, end)
    return True


def _in_turn(spans: list) -> bool:
    """True when each call started after the one before it ended."""
    return all(later[0] >= earlier[1] for earlier, later in zip(spans, spans[1:]))


def _one_setting(label: str, n: int, delay: float, run: tuple[float, list, float]) -> None:
    """What holds whatever ``parallel`` was: the calls' count, their length, and a measured time."""
    value, spans, wall = run
    assert len(spans) == n, (
        f"{label}: the harness ran {len(spans)} tool calls, not {n}. Build `n_calls` tools (the number "
        "time_one_turn was given), ask for all of them in one turn, and let T.run_agent run them"
    )
    shortest = min(end - start for start, end, _ in spans) - PAUSE
    asked = [a for _, _, a in spans if a is not None and abs(a - delay) > delay * 0.01]
    assert shortest >= delay * 0.999 and not asked, (
        f"{label}: a tool call "
        + (f"slept {asked[0]:g} s" if asked else f"returned after {shortest:.3f} s")
        + f", but each tool should sleep `delay` ({delay:g} s here), the number time_one_turn was given, "
        "not a fixed time"
    )
    span = max(end for _, end, _ in spans) - spans[0][0]
    assert value >= span - SLACK, (
        f"{label}: you returned {value:.3f} s, but the tool calls alone took {span:.3f} s from the "
        "first start to the last end (the check adds a short pause of its own to each call). "
        "Measure the run: time.perf_counter() before and after T.run_agent, not arithmetic"
    )
    assert 0 < value <= wall + SLACK, (
        f"{label}: you returned {value:.3f} s, but the whole call took {wall:.3f} s by the check's "
        "clock; measure the run with time.perf_counter() around run_agent"
    )


def _timing(c: Checker, time_one_turn: Callable, n: int, delay: float, seen: dict) -> bool:
    together = _timed(c, time_one_turn, True, n, delay)
    apart = _timed(c, time_one_turn, False, n, delay)
    _one_setting("parallel=True", n, delay, together)
    _one_setting("parallel=False", n, delay, apart)
    assert _chained(together[1]), (
        f"with parallel=True the {n} calls ran one after another (their start and end times do not "
        "overlap). Put all the calls in one model turn and pass parallel=True"
    )
    assert _in_turn(apart[1]), (
        f"with parallel=False the {n} calls overlapped; pass parallel=False to T.run_agent "
        "(the `parallel` time_one_turn was given)"
    )
    seen[(n, delay)] = (together[0], apart[0])
    return True


def _model_of(c: Checker, chained_model: Callable):
    model = c.call(chained_model)
    if not (hasattr(model, "respond") or callable(model)):
        raise StudentError(
            f"chained_model() should return a model (such as T.ScriptedModel), got {type(model).__name__}"
        )
    return model


def _chained_on(c: Checker, chained_model: Callable, order_id: str) -> bool:
    registry, db = order_registry(order_id)
    result = run_agent(_model_of(c, chained_model), registry, REQUEST, max_steps=5)
    turns = [m for m in result.messages if m["role"] == "assistant" and m.get("tool_calls")]
    assert turns, "your model asked for no tool at all; turn 1 should call find_order"
    first = [tc.get("name") for tc in turns[0]["tool_calls"]]
    assert first == ["find_order"], (
        f"turn 1 asked for {first}; it should ask for find_order alone, since the cancel needs its answer"
    )
    cancelled = [
        (call.get("arguments") or {}).get("order_id")
        for call, _ in result.results
        if call.get("name") == "cancel_order"
    ]
    wrong = [x for x in cancelled if x != order_id]
    assert not wrong, (
        f"find_order returned {order_id!r} this time, but your model asked to cancel "
        f"{wrong[0]!r}. Read the id from the tool message (json.loads of its content)"
    )
    errors = [r.content for _, r in result.results if not r.ok]
    assert not errors, f"a call failed: {errors[0]!r}"
    assert db[order_id] == "canceled", (
        f"find_order returned {order_id!r} this time, but that order was not cancelled "
        f"(orders now: {db}). Read the id from the tool message (json.loads of its content)"
    )
    assert db["Z1"] == "pending", "another order was cancelled too"
    assert len(turns) == 2, f"expected two turns with tool calls, got {len(turns)}"
    assert result.stop_reason == "final", "after the cancel, answer the user in text"
    return True


def _next_step(seen: dict, case: tuple) -> str:
    step = "Now answer the question below."
    if case not in seen:
        return step
    together, apart = seen[case]
    n, delay = case
    return (
        f"By your own clock, {together:.1f} s together and {apart:.1f} s one after another, for "
        f"{n} calls of {delay:g} s; the pack's arithmetic says about {delay:g} s and {n * delay:g} s. " + step
    )


def _case(n: int, delay: float) -> tuple[int, float]:
    return n, scaled(delay)


def check(time_one_turn: Callable, chained_model: Callable) -> CheckResult:
    """Time the student's turns from the calls' own start and end times; run the chained model
    on order books the student has not seen.

    Notebook 08.
    """
    c = Checker(TITLE)
    _, all_stubs = probe_parts(
        c, {"time_one_turn": (time_one_turn, (True, 1, 0.0)), "chained_model": (chained_model, ())}
    )
    if all_stubs:
        return not_done(TITLE)
    seen: dict = {}
    pack, longer, shorter = _case(*PACK_CASE), _case(*UNSEEN[0]), _case(*UNSEEN[1])
    c.run(
        f"four calls of {pack[1]:g} s: they overlap together, run in turn one after another, and you measured the run",
        lambda: _timing(c, time_one_turn, *pack, seen),
    )
    c.run(f"unseen case: two calls of {longer[1]:g} s", lambda: _timing(c, time_one_turn, *longer, seen))
    c.run(f"unseen case: six calls of {shorter[1]:g} s", lambda: _timing(c, time_one_turn, *shorter, seen))
    first_id, second_id = _unseen_ids()
    c.run(
        "the chained model cancels the order find_order returned, on an order book you have not seen",
        lambda: _chained_on(c, chained_model, first_id),
    )
    c.run("and again on another unseen order book", lambda: _chained_on(c, chained_model, second_id))
    return c.done(next_step=_next_step(seen, pack))
