"""Exercise 6's check (toolkit/checks/ex06.py, notebook 06). What every check test holds: tests/conftest.py."""

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

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
