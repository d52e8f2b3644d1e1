"""toolkit.failures: the nine failed runs of notebook 12 (pack §2.11, Figure 8).

Each run must really fail in the way its data entry says, every time, so the activity never
asks students to sort a run that went right.
"""

import toolkit as T
from toolkit.data import load_json
from toolkit.failures import GROUPS, failed_runs, group_guide, normalise_group


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
    assert labels == {"F2": "hallucinated_function", "F4": "should_abstain",
                      "F6": "wrong_arguments", "F9": "should_abstain"}
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
