"""toolkit.lessons.failure_runs: the nine failed runs of notebook 12 (pack §2.11, Figure 8).

Each run must really fail in the way its data entry says, every time, so the activity never
asks students to sort a run that went right.
"""

import re

import toolkit as T
from toolkit.data import load_json
from toolkit.lessons.failure_runs import GROUPS, failed_runs, group_guide, normalise_group, schema_problems


def by_id():
    return {r.id: r for r in failed_runs()}


def test_every_entry_becomes_a_run_with_a_known_group():
    runs = failed_runs()
    entries = load_json("failure_runs.json")["runs"]
    assert [r.id for r in runs] == [e["id"] for e in entries] == [f"F{i}" for i in range(1, 10)]
    assert {r.group for r in runs} == set(GROUPS)
    for group in GROUPS:
        assert sum(r.group == group for r in runs) == 3
    for r in runs:
        assert r.evidence and r.why and r.hint and r.source
        assert r.group not in r.text()  # the printed evidence never gives the answer away


def test_runs_are_reproducible():
    assert [r.text() for r in failed_runs()] == [r.text() for r in failed_runs()]


def test_agent_runs_really_fail():
    runs = by_id()
    assert "C1 is canceled, goal delivered" in runs["F1"].evidence[-1]
    assert runs["F3"].result.stop_reason == "max_steps"
    assert "C1 is returned, goal refunded" in runs["F5"].evidence[-1]
    assert "evil@attacker.test" in runs["F7"].evidence[-1]
    assert "B1 is pending, goal canceled" in runs["F8"].evidence[-1]
    assert runs["F8"].result.final == "Done."  # the agent claims success


def test_scored_replies_really_fail():
    runs = by_id()
    labels = {i: runs[i].evidence[-1].split(": ")[-1] for i in ("F2", "F4", "F6", "F9")}
    assert labels == {
        "F2": "hallucinated_function",
        "F4": "should_abstain",
        "F6": "wrong_arguments",
        "F9": "should_abstain",
    }
    assert all(runs[i].result is None for i in labels)


def test_the_runs_leave_shared_state_as_they_found_it():
    failed_runs()
    assert T.injection_demo(defended=True)[1] == []


def test_normalise_group():
    assert normalise_group("Single-call") == "single call"
    assert normalise_group("  MANY_STEPS ") == "many steps"
    assert normalise_group("multi step") == "many steps"
    assert normalise_group("Conversation") == "conversation"
    for bad in ("policy", "", None, 3, ["conversation"]):
        assert normalise_group(bad) is None


def test_group_guide_covers_each_group():
    guide = group_guide()
    assert set(guide) == set(GROUPS)
    assert all(guide[g]["look_for"] and guide[g]["fix"] for g in GROUPS)


# ------------------------------------------------------------------------------------------
# Each run's stated reason ("why") must match what its transcript shows. The claims below are
# the checkable parts of each reason; F9's ("no offered tool answers the question") is a
# judgement about meaning and is left to the reader.


def _user_text(run):
    return next(line for line in run.evidence if line.startswith("user: "))[len("user: ") :]


def test_f1_reason_the_call_was_valid_and_broke_the_policy():
    run = by_id()["F1"]
    assert "valid" in run.why and "policy" in run.why
    ((name, args),) = run.calls
    assert name == "cancel_order" and args["order_id"] in _user_text(run)
    assert not schema_problems(run)
    assert all(not m.get("is_error") for m in run.result.messages if m["role"] == "tool")
    assert "C1 is canceled, goal delivered" in run.evidence[-1]


def test_f2_reason_names_a_function_nobody_offered():
    run = by_id()["F2"]
    assert "nobody offered" in run.why
    ((name, _),) = run.calls
    assert name not in run.offered
    assert schema_problems(run) == [f"unknown tool {name!r}"]


def test_f3_reason_the_same_failing_call_until_the_step_limit():
    run = by_id()["F3"]
    assert "repeats a call" in run.why and "step limit" in run.why
    assert len(run.calls) > 1 and all(c == run.calls[0] for c in run.calls)
    errors = [m["content"] for m in run.result.messages if m["role"] == "tool"]
    assert errors and all("Did you mean 'B1'?" in e for e in errors)  # the error named the fix (notebook 07's rule)
    assert run.result.stop_reason == "max_steps"


def test_f4_reason_the_user_never_named_the_target_currency():
    run = by_id()["F4"]
    assert "never said which currency" in run.why
    ((name, args),) = run.calls
    assert name in run.offered and not schema_problems(run)
    assert args["to_currency"] not in _user_text(run)


def test_f5_reason_both_writes_at_once_in_the_users_order_without_a_read():
    run = by_id()["F5"]
    assert "together" in run.why and "without reading first" in run.why
    turns = [m["tool_calls"] for m in run.result.messages if m["role"] == "assistant" and m.get("tool_calls")]
    assert len(turns) == 1  # fired together, in one turn
    assert [c["name"] for c in turns[0]] == ["refund_order", "return_order"]  # the order the user spoke
    assert {c["arguments"]["order_id"] for c in turns[0]} == {"C1"}  # the right id
    assert "get_order" not in {name for name, _ in run.calls}
    assert not schema_problems(run)


def test_f6_reason_a_required_argument_the_user_gave_is_missing():
    run = by_id()["F6"]
    assert "required argument" in run.why
    assert schema_problems(run) == ["send_message: missing required parameter 'text'"]
    assert "running ten minutes late" in _user_text(run)


def test_f7_reason_the_order_came_from_the_fetched_page():
    run = by_id()["F7"]
    assert "planted in a fetched page" in run.why
    names = [name for name, _ in run.calls]
    assert names == ["fetch_page", "send_email"]
    page = next(m["content"] for m in run.result.messages if m["role"] == "tool" and m["name"] == "fetch_page")
    to = run.calls[1][1]["to"]
    assert to in page and to not in _user_text(run)


def test_f8_reason_matches_the_transcript_the_id_was_mangled_in_the_first_call():
    run = by_id()["F8"]
    asked = re.search(r"order ([A-Z]\d+)", _user_text(run)).group(1)
    ((name, args),) = run.calls  # one look-up, and no call after its error
    sent = args["order_id"]
    assert name == "get_order" and sent != asked  # mangled in the very first call
    assert not schema_problems(run)  # any string is a valid id
    error = next(m for m in run.result.messages if m["role"] == "tool")
    assert error["is_error"] and sent in error["content"]  # the error named the problem
    assert run.result.final == "Done."
    # the reason says so, naming both ids, and does not blame a later step for losing the id
    assert asked in run.why and sent in run.why and "first" in run.why
    assert "lost the id" not in run.why


def test_a_schema_check_stops_only_f2_and_f6():
    """Pack discussion question 12 (answered in notebook 05): a schema stops few failures."""
    stopped = {r.id for r in failed_runs() if schema_problems(r)}
    assert stopped == {"F2", "F6"}


# ------------------------------------------------ the sorting check (toolkit/checks/failure_groups)
#
# Issue 10, points 3 and 4: cheap wrong answers fail with one sentence per run; right answers
# in other reasonable shapes pass. The reference answer is read from notebook 12's solution cell.

import pytest  # noqa: E402
from exercise_helpers import assert_fails_with_sentence, cell_namespace  # noqa: E402

from toolkit.checks import failure_groups  # noqa: E402


@pytest.fixture(scope="module")
def right():
    return cell_namespace("12_failures_project_review", "solution")["sort_failures"]()


def test_sorting_everything_in_one_group_fails_on_each_run_of_the_other_groups(right):
    for group in GROUPS:
        result = failure_groups.check(lambda g=group: {run_id: g for run_id in right})
        assert_fails_with_sentence(result, f"not {group}. Hint:")
        assert result.total - result.passed == sum(v != group for v in right.values())


def test_sorting_groups_handed_out_by_position_fail(right):
    cycled = {run_id: GROUPS[i % 3] for i, run_id in enumerate(right)}
    assert_fails_with_sentence(failure_groups.check(lambda: cycled), "Hint:")
    shifted = dict(zip(right, list(right.values())[1:] + list(right.values())[:1]))  # off by one run
    assert_fails_with_sentence(failure_groups.check(lambda: shifted), "Hint:")


def test_sorting_a_run_filed_under_two_groups_fails_in_one_sentence(right):
    by_group = {g: [k for k, v in right.items() if v == g] for g in GROUPS}
    by_group["conversation"].append(by_group["single call"][0])
    assert_fails_with_sentence(failure_groups.check(lambda: by_group), "under two groups")
    assert_fails_with_sentence(failure_groups.check(lambda: list(right.values())[:5]), "one group per run")


def test_sorting_right_answers_in_other_shapes_pass(right):
    ids = [r.id for r in failed_runs()]
    shapes = {
        "groups in the order shown": [right[i] for i in ids],
        "group -> run ids": {g.upper(): {k for k, v in right.items() if v == g} for g in GROUPS},
        "(id, group) pairs": [(k.lower(), v) for k, v in right.items()],
        "run numbers as keys": {int(k[1:]): v for k, v in right.items()},
    }
    for name, answer in shapes.items():
        result = failure_groups.check(lambda a=answer: a)
        assert result.ok, f"{name}:\n{result.text}"
