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

No verdict reads a stopwatch against a constant; each reads what the run recorded. The check
hands the slow writer a ``saved`` list that notes the moment of each save, and wraps its tool
to note when each call began and returned (:class:`_Record`). "Sleeps ``seconds`` before it
saves" is save minus start of the call, at least ``seconds`` (a busy machine only adds to it),
with the tool's thread asleep meanwhile (its processor time stays small); "uses ``seconds``"
compares those gaps, the quickest of up to three runs with 0 against the quicker of two with
:data:`SLOW`: the one relation a stall could break, and only by delaying every run with 0 by
SLOW/2 more than the quicker slow one; under the harness's time limit each save is held until
the harness has given its verdict, so the call times out however late a busy machine wakes the
harness; "finishes once in the background" is awaited (the tool's own return, within the
check's shared time) and then counted. The sleeps
scale with ``TOOLKIT_TIME_SCALE`` (:func:`~toolkit.checks.scaled`); the flaky tool's calls get
the checker's own per-call limit.
"""

from __future__ import annotations

import functools
import threading
import time
import types
from collections.abc import Callable
from typing import Any, NamedTuple

from ..lessons.toy_tools import sample_args
from ..loop import ScriptedModel, run_agent
from ..registry import ToolRegistry
from . import Checker, CheckResult, StudentError, StudentTimeout, not_done, probe_parts, scaled

__all__ = ["check", "backoff", "run_flaky"]

TITLE = "Exercise 4: retries"
TIMEOUT = scaled(0.04)  # seconds the harness waits for the slow writer
SLOW = scaled(0.4)  # seconds the slow writer sleeps: ten times TIMEOUT
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
        call_timeout=c.time_limit,  # the checker's limit for one call of student code
    )
    tool_result = result.results[0][1]
    if tool_result.kind == "timeout":
        raise c.hung(
            make_flaky_tool,
            f"the tool `{getattr(getattr(registry.get('flaky_quote'), 'fn', None), '__name__', '?')}` from make_flaky_tool({failures}) "
            f"did not return within {c.time_limit:g} s; "
            "look in it for a loop that never ends or a long `sleep`",
        )
    return tool_result, result.events, [round(w, 4) for w in waits], len(runs)


def _transient_kind(c: Checker, make_flaky_tool: Callable, state: dict) -> bool:
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


def _kinds(c: Checker, make_flaky_tool: Callable, failures: int) -> list[str]:
    """What a fresh tool's first ``4 * failures + 20`` calls give: 'transient', 'ok', ... (long
    after it starts to work, so a tool that fails again later is seen)."""
    registry, _ = _registry_for(c, make_flaky_tool, failures)
    args = sample_args(registry.get("flaky_quote"))
    return [registry.run("flaky_quote", args).kind for _ in range(4 * failures + 20)]


def _own_count(c: Checker, make_flaky_tool: Callable, state: dict) -> bool:
    first, second = _kinds(c, make_flaky_tool, 2), _kinds(c, make_flaky_tool, 2)
    seen = [len(k) if "ok" not in k else k.index("ok") for k in (first, second)]
    shared = seen[0] != seen[1] or (seen[0] == 0 and state.get("fresh_fails"))
    assert not shared, (
        "two tools made with make_flaky_tool(2) should each fail twice on their own; they "
        f"failed {seen[0]} and {seen[1]} times, so they share a counter with other tools. Keep the "
        "count inside make_flaky_tool (a list or dict, or nonlocal)"
    )
    assert seen[0] == 2, (
        f"make_flaky_tool(2) should fail on its first 2 calls, then work; it failed "
        f"{seen[0]} times. Count the calls so far and compare with `failures`"
    )
    want = ["transient"] * 2 + ["ok"] * (len(first) - 2)
    assert first == want, (
        f"make_flaky_tool(2) should fail on its first 2 calls and work on every call after; its first "
        f"{len(first)} calls gave {first}. Fail while the count is at most `failures`, then always work"
    )
    return _used_in_turn(c, make_flaky_tool)


def _used_in_turn(c: Checker, make_flaky_tool: Callable) -> bool:
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


def _retries(c: Checker, make_flaky_tool: Callable, max_retries: int, failures: int, should_work: bool) -> bool:
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


class _Moment(NamedTuple):
    """When something happened inside the student's tool, as the check saw it happen."""

    wall: float  # time.monotonic()
    cpu: float  # time.thread_time() of the thread it happened in
    thread: int  # that thread's id


def _now() -> _Moment:
    return _Moment(time.monotonic(), time.thread_time(), threading.get_ident())


class _Saved(list):
    """The ``saved`` list the check gives the slow writer: a list that also tells its
    :class:`_Record` the moment of every save (``append``, ``extend``, ``insert``, ``+=``)."""

    def __init__(self, record: _Record) -> None:
        super().__init__()
        self._record = record

    def append(self, item: Any) -> None:
        self._record.saving()
        super().append(item)

    def extend(self, items: Any) -> None:
        items = list(items)
        self._record.saving()
        super().extend(items)

    def insert(self, index: Any, item: Any) -> None:
        self._record.saving()
        super().insert(index, item)

    def __iadd__(self, items: Any) -> _Saved:  # type: ignore[misc]  # list.__iadd__ would not note the save
        self.extend(items)
        return self


class _Record:
    """What one slow writer did, recorded as it happened: when each call began, each save and
    each return. Every verdict on the slow writer reads these moments, never a stopwatch around
    the run, so a stalled machine only makes the recorded waits longer.

    ``held``: each save waits until :meth:`release` (the check calls it once the harness has
    given its verdict), so the harness sees the call still running at its time limit however
    late a busy machine lets it look; ``hold_limit`` bounds that wait."""

    def __init__(self, held: bool = False, hold_limit: float | None = None) -> None:
        self.saved = _Saved(self)
        self.calls: list[_Moment] = []
        self.saves: list[_Moment] = []
        self.returned = 0
        self.slept: list[float] = []  # each time.sleep the tool asked for, in seconds
        self.asked_before_save: float | None = None  # their sum at the first save (None: none seen)
        self._changed = threading.Condition()
        self._released = threading.Event()
        self._hold_limit = hold_limit
        if not held:
            self._released.set()

    def saving(self) -> None:
        if not self.saves:
            self.asked_before_save = sum(self.slept) if self.slept else None
        self.saves.append(_now())
        self._released.wait(self._hold_limit)

    def release(self) -> None:
        self._released.set()

    def watch(self, fn: Callable) -> Callable:
        """``fn``, noting when each call begins and when it returns."""

        counted = _counting_sleeps(fn, self.slept)

        @functools.wraps(fn)
        def watched(*args, **kwargs):
            self.calls.append(_now())
            try:
                return counted(*args, **kwargs)
            finally:
                with self._changed:
                    self.returned += 1
                    self._changed.notify_all()

        return watched

    def wait_returns(self, count: int, limit: float | None) -> bool:
        """Wait (at most ``limit`` seconds, the check's time left) until ``count`` calls have returned."""
        with self._changed:
            return self._changed.wait_for(lambda: self.returned >= count, timeout=limit)

    def gap(self) -> float | None:
        """Seconds from the first call's start to its first save (None: nothing saved)."""
        if not self.calls or not self.saves:
            return None
        return self.saves[0].wall - self.calls[0].wall

    def cpu_while_waiting(self) -> float | None:
        """Processor time the tool's thread used between the call's start and its first save
        (None when the save came from another thread)."""
        if not self.calls or not self.saves or self.calls[0].thread != self.saves[0].thread:
            return None
        return self.saves[0].cpu - self.calls[0].cpu


def _counting_sleeps(fn: Callable, slept: list) -> Callable:
    """``fn`` with its own globals, except that the ``time`` module and ``time.sleep`` it names
    are stand-ins that note each sleep it asks for (in seconds), then sleep. What the tool asked
    for is recorded, not timed; a tool that waits another way (an Event's wait) runs as it is."""
    if isinstance(fn, types.MethodType):  # a bound method: its function, bound again
        inner = _counting_sleeps(fn.__func__, slept)
        return fn if inner is fn.__func__ else types.MethodType(inner, fn.__self__)
    if not isinstance(fn, types.FunctionType):
        return fn
    code, names = fn.__code__, fn.__globals__

    def sleep(secs: float) -> None:
        slept.append(float(secs))
        time.sleep(secs)

    clock = types.SimpleNamespace(**{k: getattr(time, k) for k in dir(time) if not k.startswith("_")})
    clock.sleep = sleep
    swapped = {n: clock if v is time else sleep for n, v in names.items() if v is time or v is time.sleep}
    if not swapped:
        return fn
    twin = types.FunctionType(code, {**names, **swapped}, fn.__name__, fn.__defaults__, fn.__closure__)
    twin.__kwdefaults__ = fn.__kwdefaults__
    return twin


def _sleeps_as_asked(record: _Record, seconds: float) -> None:
    """The sleep the tool asked for before it saved is ``seconds``, not more (when it used time.sleep)."""
    asked = record.asked_before_save
    assert asked is None or asked <= seconds * 1.25 + 0.01, (
        f"with seconds={seconds:g} your tool asked time.sleep for {asked:g} s in all before it saved; sleep "
        "`seconds` and no more: every extra moment holds up the whole turn"
    )


def _writer(c: Checker, slow_writer_registry: Callable, seconds: float, saved: list) -> ToolRegistry:
    registry = c.call(slow_writer_registry, seconds, saved, copy_args=False)
    if not isinstance(registry, ToolRegistry):
        raise StudentError(f"slow_writer_registry should return a T.ToolRegistry, got {type(registry).__name__}")
    return registry


def _watched_tool(c: Checker, slow_writer_registry: Callable, name: str, seconds: float, record: _Record):
    """A new registry from the student's ``slow_writer_registry(seconds, record.saved)``, its tool watched."""
    registry = _writer(c, slow_writer_registry, seconds, record.saved)
    tool = registry.get(name)
    if tool is None:
        raise StudentError(
            f"a second registry from slow_writer_registry has no tool {name!r}; give it the same tool each time"
        )
    tool.fn = record.watch(tool.fn)
    return registry, tool


def _writer_flags(c: Checker, slow_writer_registry: Callable, state: dict) -> bool:
    tools = _writer(c, slow_writer_registry, SLOW, []).tools()
    assert len(tools) == 1, f"the registry should hold one tool; it holds {[t.name for t in tools]}"
    assert not tools[0].read_only, (
        "the tool changes state, so register it with read_only=False; "
        "the harness uses that flag to decide whether a retry is safe"
    )
    state["tool"] = tools[0].name
    return _writer_uses_its_inputs(c, slow_writer_registry, state["tool"])


def _save_now(c: Checker, slow_writer_registry: Callable, name: str, seconds: float) -> _Record:
    """One call of the tool, run by the registry in this thread; what it did, recorded."""
    record = _Record()
    registry, tool = _watched_tool(c, slow_writer_registry, name, seconds, record)
    try:
        result = c.call(registry.run, name, note_args(tool))
    except StudentTimeout as exc:  # said once; later calls to the student's function fail at once
        raise c.hung(slow_writer_registry, str(exc)) from None
    assert result.ok, f"with seconds={seconds:g} the tool should simply work; the registry said {result.content!r}"
    assert record.saves, (
        f"the tool returned without saving anything (`saved` holds {list(record.saved)}); append the text it "
        "was given to the `saved` list it was given, inside the tool, before it returns"
    )
    assert _saved_the_note(record.saved), (
        f"the tool was asked to save {NOTE!r}, but `saved` holds {list(record.saved)}; "
        "append the text it was given to the `saved` list it was given"
    )
    assert len(record.saved) == 1, (
        f"one call of the tool saved {len(record.saved)} notes; append the text to `saved` once per call"
    )
    return record


def _sleeps_then_saves(record: _Record, seconds: float) -> float:
    """The recorded wait before the save: at least ``seconds`` (load only makes it longer), and spent asleep."""
    gap = record.gap() or 0.0
    assert gap >= seconds * 0.95, (
        f"with seconds={seconds:g} your tool saved its note {gap:.3f} s after it was called; sleep "
        "`seconds` first, then append to `saved`, so the save is what takes the time"
    )
    cpu = record.cpu_while_waiting()
    assert cpu is None or cpu < seconds / 10, (
        f"while it waited {gap:.2f} s your tool kept the processor busy for {cpu:.2f} s (a loop watching "
        "the clock?); call time.sleep(seconds), which waits without using the processor the other "
        "kernels on the machine need"
    )
    return gap


def _writer_uses_its_inputs(c: Checker, slow_writer_registry: Callable, name: str) -> bool:
    def gap(seconds: float) -> float:
        record = _save_now(c, slow_writer_registry, name, seconds)
        _sleeps_as_asked(record, seconds)
        return _sleeps_then_saves(record, seconds) if seconds else record.gap() or 0.0

    # seconds=0 must save at least SLOW/2 sooner than seconds=SLOW. A stall only ever delays a
    # save, so the quickest runs of each are compared (up to three with 0, as needed, and two
    # with SLOW); a fixed sleep is as slow every time.
    quick, slow = [gap(0.0)], min(gap(SLOW), gap(SLOW))
    left = c.remaining()
    while min(quick) > slow - SLOW / 2 and len(quick) < 3 and (left is None or left > 3 * max(quick)):
        quick.append(gap(0.0))
        left = c.remaining()
    assert min(quick) <= slow - SLOW / 2, (
        f"with seconds=0 your tool saved its note {min(quick):.2f} s after it was called, with "
        f"seconds={SLOW:g} after {slow:.2f} s; sleep for `seconds`, the number slow_writer_registry "
        "was given, not a fixed time"
    )
    return True


def _timed_out_run(c: Checker, slow_writer_registry: Callable, name: str, read_only: bool, retries: int):
    """The tool under the harness's short ``call_timeout``, each save held until the run is over;
    returns the run, the recorded moments and the back-off waits."""
    record = _Record(held=True, hold_limit=c.remaining())
    registry, tool = _watched_tool(c, slow_writer_registry, name, SLOW, record)
    tool.read_only = read_only
    waits: list = []
    model = _one_call_model(tool.name, note_args(tool))
    try:
        result = run_agent(
            model, registry, "Save a note.", call_timeout=TIMEOUT, max_retries=retries, sleep=waits.append
        )
    finally:
        record.release()
    return result, record, waits


def _finished_in_background(c: Checker, slow_writer_registry: Callable, record: _Record, tries: int) -> None:
    if not record.wait_returns(tries, c.remaining()):
        raise c.hung(
            slow_writer_registry,
            "the tool from slow_writer_registry did not finish in the background within the check's "
            "time; look in it for a loop that never ends, or a sleep far longer than `seconds`",
        )


def _writer_not_retried(c: Checker, slow_writer_registry: Callable, state: dict) -> bool:
    assert "tool" in state, "fix slow_writer_registry first (the line above)"
    result, record, waits = _timed_out_run(c, slow_writer_registry, state["tool"], False, 3)
    tool_result = result.results[0][1]
    assert tool_result.kind == "timeout", (
        f"with call_timeout={TIMEOUT:g} s and a tool that sleeps {SLOW:g} s, the call should time out; "
        f"it gave {tool_result.kind!r}. Does your tool sleep `seconds`, then save, before it returns?"
    )
    assert not any(e.startswith("retry") for e in result.events) and not waits, (
        f"the harness retried a tool that changes state: {result.events}"
    )
    _finished_in_background(c, slow_writer_registry, record, 1)
    assert len(record.saved) == 1, (
        f"after the timeout the tool should still finish once in the background and "
        f"save one note; saved holds {len(record.saved)}. Append to `saved` once, after the sleep"
    )
    _sleeps_then_saves(record, SLOW)
    state["ok"] = True
    return True


def _read_only_would_repeat(c: Checker, slow_writer_registry: Callable, state: dict) -> bool:
    assert state.get("ok"), "fix the slow writer first (the lines above)"
    _, record, _ = _timed_out_run(c, slow_writer_registry, state["tool"], True, 2)  # pretend it only reads
    _finished_in_background(c, slow_writer_registry, record, 3)
    assert len(record.saved) == 3, f"expected 3 saved notes from 3 tries, got {len(record.saved)}"
    return True


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
    state: dict = {}
    flaky, writer = make_flaky_tool, slow_writer_registry
    c.run(
        "the flaky tool fails as 'transient' (a T.TransientToolError) on its first calls only, and each tool counts "
        "for itself",
        lambda: _transient_kind(c, flaky, state) and _own_count(c, flaky, state),
    )
    c.run(
        "5 failures, max_retries=0: one try, no retry, the model sees the failure",
        lambda: _retries(c, flaky, 0, 5, False),
    )
    c.run(
        "5 failures, max_retries=2: three tries, waits 0.1 and 0.2 s, then 'Gave up after 3 tries.'",
        lambda: _retries(c, flaky, 2, 5, False),
    )
    c.run(
        "5 failures, max_retries=5: six tries, waits 0.1 to 1.6 s, and it works", lambda: _retries(c, flaky, 5, 5, True)
    )
    c.run(
        "unseen cases: 0 failures (no retry), 3 failures with max_retries=4",
        lambda: _retries(c, flaky, 3, 0, True) and _retries(c, flaky, 4, 3, True),
    )
    c.run(
        "the slow writer is registered as not read-only, and sleeps `seconds` then saves its text",
        lambda: _writer_flags(c, writer, state),
    )
    c.run(
        f"it times out after {TIMEOUT:g} s and is not retried, yet it still saves its note once",
        lambda: _writer_not_retried(c, writer, state),
    )
    c.run(
        "the same tool marked read-only would be retried, and would save the note 3 times",
        lambda: _read_only_would_repeat(c, writer, state),
    )
    return c.done(next_step="Now say, below, why the loop must not retry that timed-out call.")
