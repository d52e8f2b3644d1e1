"""Exercise 5 (notebook 08, pack §2.8 "Many calls"): parallel or not.

Part 1: the student writes ``time_one_turn(parallel, n_calls=4, delay=0.2)``, which builds
``n_calls`` tools that each sleep ``delay`` seconds, lets a mock model ask for all of them in one
turn, runs :func:`~toolkit.run_agent` and returns the seconds the run took. The check calls it
for the pack's case (four calls of 0.2 s: about 0.2 s together, about 0.8 s one after another,
the pack's own arithmetic) and for two unseen ones (a longer ``delay`` with fewer calls, more
calls with a shorter ``delay``, so a timer that ignores either parameter fails), and compares the returned time with its own
stopwatch. It prints the student's two times for the pack's case next to that arithmetic, so
the comparison the exercise asks for is on the page.

Part 2: the second call needs the first call's result ("find Dana's latest order, then cancel
it"). The student writes ``chained_model()``, a mock that asks for ``find_order`` alone, reads
the id from the tool message, and only then asks for ``cancel_order``. The check runs it against
order books the student has not seen, with ids drawn at check time (not printed unless the
model gets one wrong), so an id typed into the script fails.
"""

from __future__ import annotations

import random
import string
import time
from collections.abc import Callable

from ..lessons.order_shop import order_registry
from ..loop import run_agent
from . import Checker, CheckResult, StudentError, not_done, probe_parts

__all__ = ["check", "REQUEST"]

TITLE = "Exercise 5: parallel or not"
REQUEST = "Cancel Dana's latest order."


def _unseen_ids(count: int = 2) -> list[str]:
    """Order ids drawn afresh at each check, never the notebook's K2 nor the other order Z1."""
    rng = random.Random()
    ids: list[str] = []
    while len(ids) < count:
        new = rng.choice(string.ascii_uppercase.replace("K", "").replace("Z", "")) + str(rng.randint(3, 99))
        if new not in ids:
            ids.append(new)
    return ids


def _timed(c: Checker, time_one_turn: Callable, parallel: bool, n: int, delay: float) -> tuple[float, float]:
    start = time.perf_counter()
    value = c.call(time_one_turn, parallel, n, delay)
    wall = time.perf_counter() - start
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise StudentError(f"time_one_turn should return the seconds as a number, got {value!r}")
    return float(value), wall


def check(time_one_turn: Callable, chained_model: Callable) -> CheckResult:
    """Time the student's turns; run the chained model on order books the student has not seen.

    Notebook 08.
    """
    c = Checker(TITLE)
    _, all_stubs = probe_parts(
        c, {"time_one_turn": (time_one_turn, (True, 1, 0.0)), "chained_model": (chained_model, ())}
    )
    if all_stubs:
        return not_done(TITLE)
    run = c.run
    seen: dict = {}

    def timing(n: int, delay: float):
        def body():
            together, wall_t = _timed(c, time_one_turn, True, n, delay)
            apart, wall_a = _timed(c, time_one_turn, False, n, delay)
            for label, value, wall in (("parallel=True", together, wall_t), ("parallel=False", apart, wall_a)):
                assert 0 < value <= wall + 0.02, (
                    f"{label}: you returned {value:.2f} s, but the call took {wall:.2f} s by the check's "
                    "clock; measure the run with time.perf_counter() around run_agent"
                )
            assert together >= delay * 0.9, (
                f"{n} calls of {delay} s run together should take about {delay} s; you measured {together:.2f} s. "
                "Make each tool sleep `delay` seconds, the number time_one_turn was given, not a fixed time"
            )
            assert together < delay * 2, (
                f"{n} calls of {delay} s run together should take about {delay} s; you measured {together:.2f} s. "
                "Put all the calls in one model turn and pass parallel=True"
            )
            assert apart >= n * delay * 0.95, (
                f"{n} calls of {delay} s one after another should take about {n * delay:.1f} s; you "
                f"measured {apart:.2f} s. Build `n_calls` tools (the number time_one_turn was given), each "
                "sleeping `delay` seconds, ask for all of them, and pass parallel=False"
            )
            seen[(n, delay)] = (together, apart)
            return True

        return body

    def chained_on(order_id: str):
        def body():
            registry, db = order_registry(order_id)
            model = c.call(chained_model)
            if not (hasattr(model, "respond") or callable(model)):
                raise StudentError(
                    f"chained_model() should return a model (such as T.ScriptedModel), got {type(model).__name__}"
                )
            result = run_agent(model, registry, REQUEST, max_steps=5)
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

        return body

    run("four calls of 0.2 s: about 0.2 s together, at least 0.8 s one after another", timing(4, 0.2))
    run("unseen case: two calls of 0.3 s", timing(2, 0.3))
    run("unseen case: six calls of 0.1 s", timing(6, 0.1))
    first_id, second_id = _unseen_ids()
    run(
        "the chained model cancels the order find_order returned, on an order book you have not seen",
        chained_on(first_id),
    )
    run("and again on another unseen order book", chained_on(second_id))
    step = "Now answer the question below."
    if (4, 0.2) in seen:
        together, apart = seen[(4, 0.2)]
        step = (
            f"By your own clock, {together:.1f} s together and {apart:.1f} s one after another, "
            "for four calls of 0.2 s; the pack's arithmetic says about 0.2 s and 0.8 s. " + step
        )
    return c.done(next_step=step)
