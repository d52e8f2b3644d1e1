"""Exercise 4's check (toolkit/checks/ex04.py, notebook 08). What every check test holds: tests/conftest.py."""

import time

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

import toolkit as T
from toolkit.checks import ex04, scaled

# ---------------------------------------------------------------------------------- exercise 4


def test_ex04_solution_passes(nb08_solution):
    assert ex04.check(nb08_solution["make_flaky_tool"], nb08_solution["slow_writer_registry"]).ok


def test_ex04_starter_is_not_done(nb08_starter, capsys):
    assert_not_done(ex04.check(nb08_starter["make_flaky_tool"], nb08_starter["slow_writer_registry"]), capsys)


def test_ex04_backoff_matches_the_pack():
    assert ex04.backoff(3) == [0.1, 0.2, 0.4]


def test_ex04_wrong_flaky_tools_fail(nb08_solution):
    writer = nb08_solution["slow_writer_registry"]

    def plain_error(failures):
        count = {"n": 0}

        def quote(symbol: str) -> str:
            """Quote.

            Args:
                symbol: ticker
            """
            count["n"] += 1
            if count["n"] <= failures:
                raise T.ToolError("busy")
            return "ok"

        return quote

    assert_fails_with_sentence(ex04.check(plain_error, writer), "raise T.TransientToolError")

    shared = {"n": 0}

    def shared_counter(failures):
        def quote(symbol: str) -> str:
            """Quote.

            Args:
                symbol: ticker
            """
            shared["n"] += 1
            if shared["n"] <= failures:
                raise T.TransientToolError("busy")
            return "ok"

        return quote

    assert_fails_with_sentence(ex04.check(shared_counter, writer), "share")

    def no_hints(failures):
        def quote(symbol):
            return "ok"

        return quote

    assert_fails_with_sentence(ex04.check(no_hints, writer), "type hint")


def test_ex04_wrong_writers_fail(nb08_solution):
    flaky = nb08_solution["make_flaky_tool"]

    def read_only_writer(seconds, saved):
        def save_note(text: str) -> str:
            """Save.

            Args:
                text: the note
            """
            time.sleep(seconds)
            saved.append(text)
            return "saved"

        registry = T.ToolRegistry()
        registry.add(save_note)
        return registry

    assert_fails_with_sentence(ex04.check(flaky, read_only_writer), "read_only=False")

    def fast_writer(seconds, saved):
        def save_note(text: str) -> str:
            """Save.

            Args:
                text: the note
            """
            saved.append(text)
            return "saved"

        registry = T.ToolRegistry()
        registry.add(save_note, read_only=False)
        return registry

    assert_fails_with_sentence(ex04.check(flaky, fast_writer), "saved its note 0.00", "sleep `seconds` first")
    assert_fails_with_sentence(ex04.check(flaky, lambda s, saved: "nope"), "should return a T.ToolRegistry")


def test_ex04_never_raises(nb08_solution):
    assert_fails_with_sentence(ex04.check(boom, boom), "KeyError")
    assert_fails_with_sentence(
        ex04.check(lambda n: 42, nb08_solution["slow_writer_registry"]), "should return a function"
    )


def _writer(sleep_for, save_what="input", before=False, times=1, wait=time.sleep):
    """A slow writer for the tests: waits ``sleep_for(seconds)`` with ``wait``, then saves its
    input (or ``save_what``) ``times`` times; ``before``: saves first, then waits."""

    def slow_writer_registry(seconds, saved):
        def save_note(text: str) -> str:
            """Save a note.

            Args:
                text: the note
            """
            if before:
                saved.append(text)
            wait(sleep_for(seconds))
            if not before:
                for _ in range(times):
                    saved.append(text if save_what == "input" else save_what)
            return "saved"

        registry = T.ToolRegistry()
        registry.add(save_note, read_only=False)
        return registry

    return slow_writer_registry


def _busy_wait(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


WRONG_WRITERS = {  # what a hurried student writes, and a fragment of the sentence that must answer it
    "a fixed sleep shorter than the check's": (_writer(lambda s: ex04.SLOW / 2), "sleep `seconds` first"),
    "a fixed sleep longer than the check's": (_writer(lambda s: ex04.SLOW * 3), "not a fixed time"),
    "time.sleep(1), at the class's timings": (_writer(lambda s: scaled(1.0)), "not a fixed time"),
    "no sleep at all": (_writer(lambda s: 0), "saved its note 0.00"),
    "saves, then sleeps": (_writer(lambda s: s, before=True), "then append"),
    "saves a constant": (_writer(lambda s: s, save_what="note"), "the text it was given"),
    "saves twice": (_writer(lambda s: s, times=2), "once per call"),
    "waits in a busy loop": (_writer(lambda s: s, wait=_busy_wait), "time.sleep(seconds)"),
}


@pytest.mark.parametrize("name", WRONG_WRITERS)
def test_ex04_writers_that_ignore_their_inputs_fail(name, nb08_solution):
    """Cheap wrong writers: each fails, with a sentence that says what to change."""
    writer, fragment = WRONG_WRITERS[name]
    assert_fails_with_sentence(ex04.check(nb08_solution["make_flaky_tool"], writer), fragment)


def test_ex04_a_save_made_outside_the_call_fails(nb08_solution):
    """A tool that hands the save to a timer returns at once, so the call never takes the time."""
    import threading

    def slow_writer_registry(seconds, saved):
        def save_note(text: str) -> str:
            """Save a note later.

            Args:
                text: the note
            """
            threading.Timer(seconds, saved.append, [text]).start()
            return "will save"

        registry = T.ToolRegistry()
        registry.add(save_note, read_only=False)
        return registry

    result = ex04.check(nb08_solution["make_flaky_tool"], slow_writer_registry)
    assert_fails_with_sentence(result, "before it returns")


def test_ex04_the_slow_writer_verdicts_come_from_recorded_moments(nb08_solution):
    """The check's own record of one right call: the save comes at least `seconds` after the call
    began, with the thread asleep meanwhile (the moments the verdicts read, not a stopwatch)."""
    checker = ex04.Checker("t")
    record = ex04._save_now(checker, nb08_solution["slow_writer_registry"], "save_note", ex04.SLOW)
    assert record.gap() >= ex04.SLOW and record.returned == 1
    assert record.cpu_while_waiting() < ex04.SLOW / 10
    assert list(record.saved) == [ex04.NOTE]


def test_ex04_a_counter_reset_by_each_new_tool_fails(nb08_solution):
    """One module-level count, set back to 0 whenever a tool is made: tools used one after another
    look independent, but two tools used in turn share it."""
    count = {"calls": 0}

    def make_flaky_tool(failures: int):
        count["calls"] = 0

        def quote(symbol: str) -> str:
            """Quote a symbol.

            Args:
                symbol: ticker such as ACME
            """
            count["calls"] += 1
            if count["calls"] <= failures:
                raise T.TransientToolError("busy")
            return "42"

        return quote

    result = ex04.check(make_flaky_tool, nb08_solution["slow_writer_registry"])
    assert_fails_with_sentence(result, "in turn", "share a counter")


def test_ex04_right_answers_written_differently_pass(nb08_solution):
    def make_flaky_tool(failures):
        left = [failures]

        def get_price(ticker: str, currency: str = "EUR") -> float:
            """Price of a share (invented).

            Args:
                ticker: the share's symbol
                currency: the currency to quote in
            """
            if left[0] > 0:
                left[0] -= 1
                raise T.TransientToolError("the price feed is busy; try again")
            return 12.5

        return get_price

    class Writer:
        def __init__(self, seconds, saved):
            self.seconds, self.saved = seconds, saved

        def write(self, note: str) -> str:
            """Write a note down.

            Args:
                note: what to write
            """
            time.sleep(self.seconds)
            self.saved.append(note)
            return "written"

    def slow_writer_registry(seconds, saved):
        registry = T.ToolRegistry()
        registry.add(Writer(seconds, saved).write, name="write_note", read_only=False)
        return registry

    assert ex04.check(make_flaky_tool, slow_writer_registry).ok
    assert ex04.check(nb08_solution["make_flaky_tool"], _writer(lambda s: s)).ok

    def event_writer(seconds, saved):
        """Waits on an Event instead of time.sleep, and saves with extend."""
        import threading

        def store(memo: str, tag: str = "todo") -> str:
            """Store a memo.

            Args:
                memo: the memo
                tag: a label
            """
            threading.Event().wait(seconds)
            saved.extend([memo])
            return "stored"

        registry = T.ToolRegistry()
        registry.add(store, read_only=False, destructive=False)
        return registry

    assert ex04.check(nb08_solution["make_flaky_tool"], event_writer).ok


# ------------------------------------- held-out style: failures that do not all come first


def _flaky(fails_on):
    """A make_flaky_tool whose tool fails on call number ``n`` (from 1) when ``fails_on(n, failures)``."""

    def make_flaky_tool(failures):
        calls = [0]

        def price(ticker: str) -> str:
            """A made-up price.

            Args:
                ticker: the stock's symbol
            """
            calls[0] += 1
            if fails_on(calls[0], failures):
                raise T.TransientToolError("busy, try again")
            return f"{ticker}: 3.5"

        return price

    return make_flaky_tool


NOT_FIRST = {
    "fails in cycles of failures then one success": lambda n, f: n % (f + 1) != 0,
    "fails the first calls, then every other call": lambda n, f: n <= f or n % 2 == 0,
    "fails the first calls, then once more later": lambda n, f: n <= f or n == f + 3,
    "fail, work, fail, work until failures fails": lambda n, f: n % 2 == 1 and n < 2 * f,
}


@pytest.mark.parametrize("name", NOT_FIRST)
def test_ex04_failures_that_do_not_all_come_first_fail(name, nb08_solution):
    result = ex04.check(_flaky(NOT_FIRST[name]), nb08_solution["slow_writer_registry"])
    assert_fails_with_sentence(result, "make_flaky_tool(2)")


def test_ex04_a_countdown_written_differently_passes(nb08_solution):
    def make_flaky_tool(failures):
        left = failures

        def price(ticker: str) -> str:
            """A made-up price.

            Args:
                ticker: the stock's symbol
            """
            nonlocal left
            if left > 0:
                left -= 1
                raise T.TransientToolError("busy")
            return "3.5"

        return price

    assert ex04.check(make_flaky_tool, nb08_solution["slow_writer_registry"]).ok


# ------------------------------ a stalled machine does not fail a right answer (issue 19, point 3)


def test_ex04_a_harness_that_wakes_late_still_sees_the_slow_writer_time_out(nb08_solution, monkeypatch):
    """A busy machine can wake the harness long after its time limit: here each wait for the slow
    writer's thread starts three of its sleeps late. The right answer still passes, because the
    check holds each save until the harness has given its verdict."""
    import threading
    import types

    import toolkit.loop

    class LateThread(threading.Thread):
        def join(self, timeout=None):
            if self.name == "tool:save_note":
                time.sleep(3 * ex04.SLOW)  # the stall: the tool has slept and tried to save meanwhile
            super().join(timeout)

    monkeypatch.setattr(toolkit.loop, "threading", types.SimpleNamespace(Thread=LateThread))
    result = ex04.check(nb08_solution["make_flaky_tool"], nb08_solution["slow_writer_registry"])
    assert result.ok, result.text


def test_ex04_a_stall_in_one_quick_call_does_not_fail_a_right_answer(nb08_solution):
    """The first call with seconds=0 is held up (as a stalled machine would hold it) for longer
    than the call with seconds=SLOW takes; the quickest of the quick calls is judged, so it passes."""
    stalled = []

    def wait(seconds):
        if seconds == 0 and not stalled:
            stalled.append(True)
            time.sleep(2 * ex04.SLOW)  # the stall, once
        time.sleep(seconds)

    result = ex04.check(nb08_solution["make_flaky_tool"], _writer(lambda s: s, wait=wait))
    assert result.ok and stalled, result.text


# ------------------------------------ held-out style: faults that show late or in the amount slept


def _sleeping_writer(how_long):
    """A writer registry that sleeps ``how_long(seconds)`` before it saves."""

    def slow_writer_registry(seconds, saved):
        def save_note(text: str) -> str:
            """Save a note.

            Args:
                text: the note
            """
            time.sleep(how_long(seconds))
            saved.append(text)
            return "saved"

        registry = T.ToolRegistry()
        registry.add(save_note, read_only=False)
        return registry

    return slow_writer_registry


@pytest.mark.parametrize(
    "how_long", [lambda s: 1.5 * s, lambda s: s + scaled(0.2)], ids=["half-as-long-again", "a-fixed-extra"]
)
def test_ex04_a_writer_that_sleeps_longer_than_seconds_fails(nb08_solution, how_long):
    result = ex04.check(nb08_solution["make_flaky_tool"], _sleeping_writer(how_long))
    assert_fails_with_sentence(result, "your tool asked time.sleep for", "and no more")


def test_ex04_a_flaky_tool_that_fails_again_after_a_while_fails(nb08_solution):
    def make_flaky_tool(failures: int):
        count = {"n": 0}

        def quote(symbol: str) -> str:
            """Quote a symbol.

            Args:
                symbol: ticker such as ACME
            """
            count["n"] += 1
            if count["n"] <= failures or count["n"] > 3 * failures + 8:  # breaks again, later
                raise T.TransientToolError("busy")
            return "42"

        return quote

    result = ex04.check(make_flaky_tool, nb08_solution["slow_writer_registry"])
    assert_fails_with_sentence(result, "work on every call after")
