"""Exercise 4's check (toolkit/checks/ex04.py, notebook 08). What every check test holds: tests/conftest.py."""

import time

from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

import toolkit as T
from toolkit.checks import ex04

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

    assert_fails_with_sentence(ex04.check(flaky, fast_writer), "should time out")
    assert_fails_with_sentence(ex04.check(flaky, lambda s, saved: "nope"), "should return a T.ToolRegistry")


def test_ex04_never_raises(nb08_solution):
    assert_fails_with_sentence(ex04.check(boom, boom), "KeyError")
    assert_fails_with_sentence(
        ex04.check(lambda n: 42, nb08_solution["slow_writer_registry"]), "should return a function"
    )


def _writer(sleep_for, save_what="input", before=False):
    """A slow writer for the tests: sleeps ``sleep_for(seconds)``, saves its input (or a constant)."""

    def slow_writer_registry(seconds, saved):
        def save_note(text: str) -> str:
            """Save a note.

            Args:
                text: the note
            """
            if before:
                saved.append(text)
            time.sleep(sleep_for(seconds))
            if not before:
                saved.append(text if save_what == "input" else save_what)
            return "saved"

        registry = T.ToolRegistry()
        registry.add(save_note, read_only=False)
        return registry

    return slow_writer_registry


def test_ex04_writers_that_ignore_their_inputs_fail(nb08_solution):
    """Cheap wrong writers: a fixed sleep, saving before the sleep, saving a constant."""
    flaky = nb08_solution["make_flaky_tool"]
    assert_fails_with_sentence(ex04.check(flaky, _writer(lambda s: 0.25)), "seconds=0")
    assert_fails_with_sentence(ex04.check(flaky, _writer(lambda s: 1.0)), "seconds=0")
    assert_fails_with_sentence(ex04.check(flaky, _writer(lambda s: s, before=True)), "then append")
    assert_fails_with_sentence(ex04.check(flaky, _writer(lambda s: s, save_what="note")), "the text it was given")


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
