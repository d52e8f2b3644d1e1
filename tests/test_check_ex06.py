"""Exercise 6's check (toolkit/checks/ex06.py, notebook 06). What every check test holds: tests/conftest.py."""

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom, failed_lines

from toolkit.checks import ex06

# ---------------------------------------------------------------------------------- exercise 6


def test_ex06_solution_passes(nb06_solution, capsys):
    assert ex06.check(nb06_solution["hand_typed_lines"]).ok
    ex06.talk(nb06_solution["hand_typed_lines"])
    shown = capsys.readouterr().out
    assert "-32700" in shown and "(no reply)" in shown


def test_ex06_starter_is_not_done(nb06_starter, capsys):
    assert_not_done(ex06.check(nb06_starter["hand_typed_lines"]), capsys)
    ex06.talk(nb06_starter["hand_typed_lines"])
    assert "still the starter stub" in capsys.readouterr().out


def test_ex06_wrong_lines_fail(nb06_solution):
    good = nb06_solution["hand_typed_lines"]()
    wrong = list(good)
    wrong[1] = '{"jsonrpc": "2.0", "id": 9, "method": "notifications/initialized"}'
    wrong[2] = good[2].replace('"id": 2', '"id": 1')
    wrong[5] = '{"valid": "json"}'
    result = ex06.check(lambda: wrong)
    assert_fails_with_sentence(result, 'remove the "id" key', "ids must not be reused", "valid JSON")
    assert result.passed == 3  # lines 1, 4 and 5 are still right


def test_ex06_bad_initialize_is_explained(nb06_solution):
    lines = nb06_solution["hand_typed_lines"]()
    lines[0] = '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}'
    assert_fails_with_sentence(ex06.check(lambda: lines), "initialize needs params with protocolVersion")


@pytest.mark.parametrize(
    "index, line, fragment",
    [
        (3, '{"id": null}', "a request with a method"),
        (3, '{"id": null, "method": "ping"}', "a request with a method"),
        (4, "[]", "a batch of requests"),
        (4, "[1, 2]", "a batch of requests"),
    ],
)
def test_ex06_lines_that_are_not_what_they_claim_fail(nb06_solution, index, line, fragment):
    """The server rejects these too, but not for the rule the line is meant to show."""
    lines = nb06_solution["hand_typed_lines"]()
    lines[index] = line
    assert_fails_with_sentence(ex06.check(lambda: lines), fragment)


def test_ex06_other_right_answers_pass(nb06_solution):
    lines = nb06_solution["hand_typed_lines"]()
    lines[0] = (
        lines[0].replace('"id": 1', '"id": "init"').replace('"capabilities": {}', '"capabilities": {"roots": {}}')
    )
    lines[1] = '  {"method": "notifications/initialized", "jsonrpc": "2.0", "params": {}}  '
    lines[2] = '{"jsonrpc":"2.0","id":"list-1","method":"tools/list","params":{}}'
    lines[3] = '{"jsonrpc":"2.0","method":"tools/list","id":null}'
    lines[4] = (
        '[{"jsonrpc": "2.0", "id": 7, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/initialized"}]'
    )
    lines[5] = '{"jsonrpc": "2.0", "method"'
    assert ex06.check(lambda: lines).ok


def test_ex06_wrong_count_and_never_raises():
    assert_fails_with_sentence(ex06.check(lambda: ["{}"]), "should return 6 lines")
    assert_fails_with_sentence(ex06.check(lambda: ["a\nb"] * 6), "newline inside it")
    assert_fails_with_sentence(ex06.check(boom), "KeyError")


def test_ex06_a_very_long_line_that_is_not_json_passes(nb06_solution):
    """Held-out style: the "not JSON" line is a pasted log of several MB, over the server's
    line limit; the idea (a line a JSON parser rejects) is right, whatever its size."""
    from toolkit.mcp.server import MAX_LINE_BYTES

    lines = nb06_solution["hand_typed_lines"]()
    pasted_log = "2026-12-01 12:00:00 INFO request served " * (3 * MAX_LINE_BYTES // 40)
    assert ex06.check(lambda: lines[:5] + [pasted_log]).ok
    assert ex06.check(lambda: lines[:5] + ["x" * (MAX_LINE_BYTES + 10)]).ok


def test_ex06_a_very_long_line_that_is_json_still_fails(nb06_solution):
    from toolkit.mcp.server import MAX_LINE_BYTES

    lines = nb06_solution["hand_typed_lines"]()
    long_json = '{"jsonrpc": "2.0", "method": "ping", "id": 9, "params": {"pad": "' + "x" * MAX_LINE_BYTES + '"}}'
    assert_fails_with_sentence(ex06.check(lambda: lines[:5] + [long_json]), "this line is valid JSON")


# ------------------------------------------ lines that get no reply (issue 19 audit F2)


def test_ex06_lines_that_get_no_reply_are_named_without_waiting_for_them(nb06_solution, capsys):
    """A placeholder of six empty strings, or a request written without its id: the server
    answers none of them, and the check says which lines got nothing (the check's own ping
    after each line tells it so; it does not wait for the reply that never comes)."""
    lines = nb06_solution["hand_typed_lines"]()
    result = ex06.check(lambda: [""] * 6)
    assert_fails_with_sentence(result, "without any reply", "sent no reply to this line")
    assert sum("no reply" in line or "without any reply" in line for line in failed_lines(result)) == 6
    no_id = lines[:3] + ['{"jsonrpc": "2.0", "method": "ping"}'] + lines[4:5] + [""]
    result = ex06.check(lambda: no_id)
    assert_fails_with_sentence(result, 'give this request "id": null', "it skips a blank line")
    ex06.talk(lambda: [""] + lines[1:])
    assert "(no reply)" in capsys.readouterr().out


def test_ex06_a_server_that_never_answers_is_named_within_the_sessions_time(nb06_solution, monkeypatch, capsys):
    """The whole cell is bounded: a server that reads every line and answers none (here a
    child that only reads) stops the session at START_TIME, and the report says so."""
    import sys

    monkeypatch.setattr(ex06, "SERVER_CMD", [sys.executable, "-c", "import sys\nfor _ in sys.stdin: pass"])
    monkeypatch.setattr(ex06, "START_TIME", 0.5)
    result = ex06.check(nb06_solution["hand_typed_lines"])
    assert_fails_with_sentence(result, "the server did not start within 0.5 s")
    ex06.talk(nb06_solution["hand_typed_lines"])
    assert "Stopped: the server did not start" in capsys.readouterr().out


SLOW_START = "import runpy, sys, time\ntime.sleep(1.5)\nsys.argv = ['toolkit', 'serve']\nrunpy.run_module('toolkit', run_name='__main__')"


def test_ex06_a_server_slow_to_start_on_a_busy_machine_does_not_fail_a_right_answer(nb06_solution, monkeypatch):
    """A hub with every core busy may take seconds to start the server: that time is not the
    session's, so the notebook's own answer still passes when the start takes longer than it."""
    import sys

    monkeypatch.setattr(ex06, "SERVER_CMD", [sys.executable, "-c", SLOW_START])
    monkeypatch.setattr(ex06, "SESSION_TIME", 1.0)
    result = ex06.check(nb06_solution["hand_typed_lines"])
    assert result.passed == result.total > 0, result.text
