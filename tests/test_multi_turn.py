"""toolkit.lessons.multi_turn: a BFCL V3-style case, scored on state and responses (notebook 09)."""

from toolkit.lessons.multi_turn import (
    MULTI_TURN_CASE,
    FileSystem,
    run_turns,
    score_by_answer_key,
    score_state_and_response,
)

GOLD = MULTI_TURN_CASE["ground_truth"]
PATHS = MULTI_TURN_CASE["trajectories"]


def test_the_answer_key_passes_both_ways():
    assert score_by_answer_key(GOLD, GOLD) and score_state_and_response(GOLD, GOLD)["pass"]


def test_another_valid_path_fails_the_answer_key_and_passes_the_state_and_response_check():
    path = PATHS["looks first, same effect"]
    assert not score_by_answer_key(path, GOLD)
    assert score_state_and_response(path, GOLD)["pass"]


def test_skipping_a_read_leaves_the_state_right_and_is_caught_only_by_the_response_check():
    verdict = score_state_and_response(PATHS["never reads the file"], GOLD)
    assert verdict["state"] and not verdict["response"] and not verdict["pass"]
    assert verdict["why"].startswith("turn 2")


def test_a_wrong_effect_is_caught_by_the_state_check_in_the_turn_it_happens():
    verdict = score_state_and_response(PATHS["copies instead of renaming"], GOLD)
    assert not verdict["state"] and verdict["why"].startswith("turn 1")


def test_a_missing_turn_and_a_bad_call_fail_without_a_traceback():
    assert not score_state_and_response(GOLD[:1], GOLD)["pass"]
    states, responses = run_turns([["cat(file_name='nope.txt')", "rm(name='x')"]])
    assert responses[0][0].startswith("error: No file 'nope.txt'") and "no tool 'rm'" in responses[0][1]
    assert states[0] == FileSystem().state(), "failed calls change nothing"
