"""The optional your-turn check of notebook 09 §9 (toolkit/checks/opt09_trajectory.py)."""

import copy

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom, cell_namespace

from toolkit.checks import opt09_trajectory
from toolkit.lessons.multi_turn import MULTI_TURN_CASE


@pytest.fixture(scope="module")
def nb09():
    return cell_namespace("09_scoring_calls", "solution"), cell_namespace("09_scoring_calls", "starter")


def test_solution_passes(nb09):
    assert opt09_trajectory.check(nb09[0]["fool_one_check"]).ok


def test_starter_is_not_done(nb09, capsys):
    assert_not_done(opt09_trajectory.check(nb09[1]["fool_one_check"]), capsys)


def extra_write(gold):
    """The other way round: every call of the key, then one more copy (state differs, responses all there)."""
    return [list(t) for t in gold[:-1]] + [list(gold[-1]) + ["cp(source='notes.txt', destination='spare.txt')"]]


def test_the_reverse_direction_passes():
    assert opt09_trajectory.check(extra_write).ok


NEVER_READS = MULTI_TURN_CASE["trajectories"]["never reads the file"]


@pytest.mark.parametrize(
    "answer, fragment",
    [
        (lambda gold: copy.deepcopy(gold), "the answer key itself"),
        (lambda gold: copy.deepcopy(NEVER_READS), "fails both checks"),  # the notebook's example, hard-coded
        (lambda gold: [[] for _ in gold], "fails both checks"),  # does nothing
        (lambda gold: [[]], "give one list of calls per turn"),  # skips the later turns
        (lambda gold: "mv(source='draft.txt', destination='report.txt')", "return a list of turns"),
        (lambda gold: [["ls()"] + t for t in gold], "passes both checks"),
    ],
)
def test_wrong_answers_fail(answer, fragment):
    assert_fails_with_sentence(opt09_trajectory.check(answer), fragment)


def test_editing_the_given_key_fails():
    def in_place(gold):
        for turn in gold:
            turn[:] = [c for c in turn if not c.startswith(("cat", "ls"))]
        return gold

    assert_fails_with_sentence(opt09_trajectory.check(in_place), "changed the answer key")


def test_never_raises():
    assert_fails_with_sentence(opt09_trajectory.check(boom), "KeyError")
