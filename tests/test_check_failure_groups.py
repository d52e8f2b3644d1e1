"""The failure-sorting activity's check (toolkit/checks/failure_groups.py, notebook 12). What every check test holds: tests/conftest.py."""

from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

from toolkit.checks import failure_groups
from toolkit.lessons.failure_runs import failed_runs

# ----------------------------------------------------------------------- sorting failed runs


def test_sorting_solution_passes(nb12_solution):
    result = failure_groups.check(nb12_solution["sort_failures"])
    assert result.ok, result.text
    assert result.total == 2 + len(failed_runs())


def test_sorting_starter_is_not_done(nb12_starter, capsys):
    assert_not_done(failure_groups.check(nb12_starter["sort_failures"]), capsys)


def test_sorting_wrong_answers_fail_with_a_hint_that_does_not_give_the_group_away(nb12_solution):
    right = nb12_solution["sort_failures"]()
    swapped = dict(right, F4="single call", F9="conversation")
    result = failure_groups.check(lambda: swapped)
    assert_fails_with_sentence(result, "F4", "F9", "should_abstain")
    for line in result.lines:
        if line.lstrip().startswith("✗"):
            hint = line.split("Hint:", 1)[1]
            assert not any(g in hint for g in ("single call", "many steps", "conversation")), line
    assert_fails_with_sentence(failure_groups.check(lambda: dict(right, F1="policy")), "not a group")
    assert_fails_with_sentence(failure_groups.check(lambda: {k: v for k, v in right.items() if k != "F3"}), "not filed")
    assert_fails_with_sentence(failure_groups.check(lambda: dict(right, F10="conversation")), "no run F10")
    spelled = {
        k.lower(): {"single call": "Single-call", "many steps": "multi-step", "conversation": "Conversation "}[v]
        for k, v in right.items()
    }
    assert failure_groups.check(lambda: spelled).ok


def test_sorting_never_raises():
    for fn in (boom, lambda: None, lambda: [("F1", "conversation")], lambda: {1: 2, None: []}, 7):
        result = failure_groups.check(fn)
        assert result.status == "checked" and not result.ok
