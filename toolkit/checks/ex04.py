"""Exercise 4 (notebook 08, pack §2.8 "Retries, timeouts and limits"): retries.

The student writes two things:

* ``make_flaky_tool(failures)``: a typed, documented tool function that raises
  :class:`~toolkit.TransientToolError` on its first ``failures`` calls and then works. Each
  tool it returns keeps its own count.
* ``slow_writer_registry(seconds, saved)``: a registry with one tool that changes state
  (registered as not read-only): it sleeps ``seconds``, then appends its input to ``saved``.

The check runs both through :func:`~toolkit.run_agent`: the flaky tool with ``max_retries``
0, 2 and 5 and some unseen counts, reading the events and the back-off waits (recorded, not
slept); the slow writer under a short ``call_timeout``, where the harness must not retry, and
where the call still finishes in the background, which is why a retry would have been unsafe.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable

from ..lessons.toy_tools import sample_args
from ..loop import ScriptedModel, run_agent
from ..registry import ToolRegistry
from . import Checker, CheckResult, StudentError, not_done, probe_parts

__all__ = ["check", "backoff", "run_flaky"]

TITLE = "Exercise 4: retries"
TIMEOUT = 0.05  # seconds the harness waits for the slow writer
SLOW = 0.25  # seconds the slow writer takes
NOTE = "note 7: water the plants"  # the text the check asks the slow writer to save


def backoff(retries: int) -> list[float]:
    """The waits the loop asks for before each retry: 0.1, 0.2, 0.4, ... seconds.

    Notebook 08, through check.
    """
    return [round(0.1 * 2**i, 4) for i in range(retries)]


def note_args(tool) -> dict:
    """:func:`sample_args`, with :data:`NOTE` as each text argument, so the check can find it in ``saved``."""
    args = sample_args(tool)
    return {k: NOTE if isinstance(v, str) else v for k, v in args.items()}


def _saved_the_note(saved: list) -> bool:
    return bool(saved) and all(NOTE in str(item) for item in saved)


def _one_call_model(name: str, args: dict) -> ScriptedModel:
    return ScriptedModel([{"tool_calls": [{"id": "c1", "name": name, "arguments": args}]}, {"content": "(done)"}])


def _registry_for(c: Checker, make_flaky_tool: Callable, failures: int) -> tuple[ToolRegistry, list]:
    fn = c.call(make_flaky_tool, failures)
    if not callable(fn):
        raise StudentError(f"make_flaky_tool({failures}) should return a function, got {type(fn).__name__}")
    runs: list = []

    @functools.wraps(fn)
    def counted(*args, **kwargs):
        runs.append(1)
        return fn(*args, **kwargs)

    registry = ToolRegistry()
    try:
        registry.add(counted, name="flaky_quote")
    except TypeError as exc:
        raise StudentError(
            f"the registry cannot describe your tool ({exc}); give every parameter "
            "a type hint, as in quote(symbol: str) -> str"
        ) from None
    return registry, runs


def run_flaky(c: Checker, make_flaky_tool: Callable, failures: int, max_retries: int):
    """Run a fresh flaky tool through the loop once; returns (tool result, events, waits, runs).

    Notebook 08, through check.
    """
    registry, runs = _registry_for(c, make_flaky_tool, failures)
    waits: list = []
    args = sample_args(registry.get("flaky_quote"))
    result = run_agent(
        _one_call_model("flaky_quote", args),
        registry,
        "Quote ACME.",
        max_retries=max_retries,
        sleep=waits.append,
        call_timeout=2.0,
    )
    tool_result = result.results[0][1]
    return tool_result, result.events, [round(w, 4) for w in waits], len(runs)


def _wait_for(saved: list, count: int, limit: float = 3.0) -> None:
    """Wait until ``saved`` holds ``count`` entries (or ``limit`` seconds pass), then a little more."""
    end = time.perf_counter() + limit
    while len(saved) < count and time.perf_counter() < end:
        time.sleep(0.02)
    time.sleep(SLOW / 2)


def check(make_flaky_tool: Callable, slow_writer_registry: Callable) -> CheckResult:
    """Run the flaky tool and the slow writer through the loop; say what happened and why.

    Notebook 08.
    """
    c = Checker(TITLE)
    _, all_stubs = probe_parts(
        c, {"make_flaky_tool": (make_flaky_tool, (1,)), "slow_writer_registry": (slow_writer_registry, (0.0, []))}
    )
    if all_stubs:
        return not_done(TITLE)
    run = c.run
    state: dict = {}

    def transient_kind():
        result, _, _, n = run_flaky(c, make_flaky_tool, 5, 0)
        assert result.kind == "transient", (
            f"the first call should fail as 'transient', but the harness saw {result.kind!r} "
            f"({result.content[:80]!r}); raise T.TransientToolError, the harness's sign that trying "
            "again may help"
            if result.kind != "ok"
            else "make_flaky_tool(5) worked on its first call; it should fail five times first"
        )
        assert n == 1, f"with max_retries=0 the tool should run once; it ran {n} times"
        state["fresh_fails"] = True  # a fresh tool failed: a later fresh tool that does not was changed by this one
        return True

    def own_count():
        def failures_seen(failures: int) -> int:
            """How many of a fresh tool's first calls fail as 'transient' before one works."""
            registry, _ = _registry_for(c, make_flaky_tool, failures)
            args = sample_args(registry.get("flaky_quote"))
            kinds = [registry.run("flaky_quote", args).kind for _ in range(failures + 2)]
            return len(kinds) if "ok" not in kinds else kinds.index("ok")

        first, second = failures_seen(2), failures_seen(2)
        shared = first != second or (first == 0 and state.get("fresh_fails"))
        assert not shared, (
            "two tools made with make_flaky_tool(2) should each fail twice on their own; they "
            f"failed {first} and {second} times, so they share a counter with other tools. Keep the "
            "count inside make_flaky_tool (a list or dict, or nonlocal)"
        )
        assert first == 2, (
            f"make_flaky_tool(2) should fail on its first 2 calls, then work; it failed "
            f"{first} times. Count the calls so far and compare with `failures`"
        )
        return used_in_turn()

    def used_in_turn():
        """Two tools made first, then called in turn: a count that each new tool resets is still shared."""
        pair = [_registry_for(c, make_flaky_tool, 2)[0] for _ in range(2)]
        args = sample_args(pair[0].get("flaky_quote"))
        kinds: list[list[str]] = [[], []]
        for _ in range(3):
            for registry, seen in zip(pair, kinds):
                seen.append(registry.run("flaky_quote", args).kind)
        want = ["transient", "transient", "ok"]
        assert kinds == [want, want], (
            f"two tools from make_flaky_tool(2), called in turn, should each fail twice then work; they gave "
            f"{kinds[0]} and {kinds[1]}, so they share a counter. Keep the count inside make_flaky_tool "
            "(a list or dict, or nonlocal), not in a variable outside it"
        )
        return True

    def retries(max_retries: int, failures: int, should_work: bool):
        def body():
            result, events, waits, n = run_flaky(c, make_flaky_tool, failures, max_retries)
            tries = min(failures, max_retries) + 1
            assert n == tries, (
                f"with {failures} failures and max_retries={max_retries}, the tool should run {tries} times; it ran {n}"
            )
            assert result.ok == should_work, (
                f"with {failures} failures and max_retries={max_retries} the call should "
                + ("work in the end" if should_work else "still fail")
                + f"; the harness said {result.content!r}"
            )
            want_events = [f"retry {i}/{max_retries} for flaky_quote (transient)" for i in range(1, tries)]
            assert [e for e in events if e.startswith("retry")] == want_events, (
                f"expected the events {want_events}, got {events}"
            )
            assert waits == backoff(tries - 1), f"expected the waits {backoff(tries - 1)}, got {waits}"
            if not should_work and max_retries:
                assert result.content.endswith(f"Gave up after {tries} tries."), (
                    f"the last result should end with 'Gave up after {tries} tries.': {result.content!r}"
                )
            return True

        return body

    def writer_flags():
        saved: list = []
        registry = c.call(slow_writer_registry, SLOW, saved, copy_args=False)
        if not isinstance(registry, ToolRegistry):
            raise StudentError(f"slow_writer_registry should return a T.ToolRegistry, got {type(registry).__name__}")
        tools = registry.tools()
        assert len(tools) == 1, f"the registry should hold one tool; it holds {registry.names()}"
        assert not tools[0].read_only, (
            "the tool changes state, so register it with read_only=False; "
            "the harness uses that flag to decide whether a retry is safe"
        )
        state["tool"] = tools[0].name
        return writer_uses_its_inputs()

    def writer_uses_its_inputs():
        saved: list = []
        registry = c.call(slow_writer_registry, 0.0, saved, copy_args=False)
        tool = registry.get(state["tool"])
        start = time.perf_counter()
        result = registry.run(tool.name, note_args(tool))
        took = time.perf_counter() - start
        assert result.ok, f"with seconds=0 the tool should simply work; the registry said {result.content!r}"
        assert took < 0.15, (
            f"with seconds=0 the tool took {took:.2f} s; sleep for `seconds`, the number "
            "slow_writer_registry was given, not a fixed time"
        )
        assert _saved_the_note(saved), (
            f"the tool was asked to save {NOTE!r}, but `saved` holds {saved}; "
            "append the text it was given to the `saved` list it was given"
        )
        return True

    def writer_not_retried():
        assert "tool" in state, "fix slow_writer_registry first (the line above)"
        saved: list = []
        registry = c.call(slow_writer_registry, SLOW, saved, copy_args=False)
        tool = registry.get(state["tool"])
        waits: list = []
        start = time.perf_counter()
        result = run_agent(
            _one_call_model(tool.name, note_args(tool)),
            registry,
            "Save a note.",
            call_timeout=TIMEOUT,
            max_retries=3,
            sleep=waits.append,
        )
        early = saved[:] if time.perf_counter() - start < SLOW * 0.8 else None  # None: too late to tell
        tool_result = result.results[0][1]
        assert tool_result.kind == "timeout", (
            f"with call_timeout={TIMEOUT} s and a tool that sleeps {SLOW} s, the call should time out; "
            f"it gave {tool_result.kind!r}. Does your tool sleep `seconds` before it saves?"
        )
        assert not any(e.startswith("retry") for e in result.events) and not waits, (
            f"the harness retried a tool that changes state: {result.events}"
        )
        assert not early, (
            "the note was saved before the sleep was over; sleep `seconds` first, then append "
            "to `saved`, so the save is what takes the time"
        )
        _wait_for(saved, 1)
        assert len(saved) == 1, (
            f"after the timeout the tool should still finish once in the background and "
            f"save one note; saved holds {len(saved)}. Append to `saved` after the sleep"
        )
        state["ok"] = True
        return True

    def read_only_would_repeat():
        assert state.get("ok"), "fix the slow writer first (the lines above)"
        saved: list = []
        registry = c.call(slow_writer_registry, SLOW, saved, copy_args=False)
        tool = registry.get(state["tool"])
        tool.read_only = True  # pretend it only reads: now a timeout is retried
        run_agent(
            _one_call_model(tool.name, sample_args(tool)),
            registry,
            "Save a note.",
            call_timeout=TIMEOUT,
            max_retries=2,
            sleep=lambda s: None,
        )
        _wait_for(saved, 3)
        assert len(saved) == 3, f"expected 3 saved notes from 3 tries, got {len(saved)}"
        return True

    run(
        "the flaky tool fails as 'transient' (a T.TransientToolError), and each tool counts for itself",
        lambda: transient_kind() and own_count(),
    )
    run("5 failures, max_retries=0: one try, no retry, the model sees the failure", retries(0, 5, False))
    run(
        "5 failures, max_retries=2: three tries, waits 0.1 and 0.2 s, then 'Gave up after 3 tries.'",
        retries(2, 5, False),
    )
    run("5 failures, max_retries=5: six tries, waits 0.1 to 1.6 s, and it works", retries(5, 5, True))
    run(
        "unseen cases: 0 failures (no retry), 3 failures with max_retries=4",
        lambda: retries(3, 0, True)() and retries(4, 3, True)(),
    )
    run("the slow writer is registered as not read-only, and sleeps `seconds` then saves its text", writer_flags)
    run(f"it times out after {TIMEOUT} s and is not retried, yet it still saves its note once", writer_not_retried)
    run("the same tool marked read-only would be retried, and would save the note 3 times", read_only_would_repeat)
    return c.done(next_step="Now say, below, why the loop must not retry that timed-out call.")
