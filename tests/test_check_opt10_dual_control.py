"""The optional your-turn check of notebook 10 §6 (toolkit/checks/opt10_dual_control.py)."""

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

from toolkit.checks import opt10_dual_control
from toolkit.lessons.dual_control import AGENTS


def test_solution_passes(nb10_solution):
    assert opt10_dual_control.check(nb10_solution["guide"]).ok


def test_starter_is_not_done(nb10_starter, capsys):
    assert_not_done(opt10_dual_control.check(nb10_starter["guide"]), capsys)


def scripted(lines):
    """The notebook's scripted agent: recites its lines in order, reading nothing."""
    state = {"n": 0}

    def guide(status, user_said):
        line = lines[min(state["n"], len(lines) - 1)]
        state["n"] += 1
        return line

    return guide


def both_every_turn(status, user_said):
    return "Please turn off airplane mode and turn on mobile data."


def airplane_only(status, user_said):
    """Skips the data case: asks for airplane mode whenever the line is down."""
    if not status["data session"]:
        return "Please turn off airplane mode."
    return "All good."


def ignores_registration(status, user_said):
    """Asks for data whenever the data session is down, even when airplane mode is the cause."""
    if not status["data session"]:
        return "Please turn on mobile data."
    return "All good."


@pytest.mark.parametrize(
    "guide, fragment",
    [
        (scripted(AGENTS["tells the user what to do"]), "flipped"),
        (scripted(AGENTS["only checks its own side"]), "the line is still down"),
        (both_every_turn, "the line is still down"),
        (airplane_only, "the line is still down"),
        (ignores_registration, "the line is still down"),
        (lambda status, user_said: None, "return the message to the user"),
    ],
)
def test_wrong_agents_fail(guide, fragment):
    assert_fails_with_sentence(opt10_dual_control.check(guide), fragment)


def test_never_raises():
    assert_fails_with_sentence(opt10_dual_control.check(boom), "KeyError")
