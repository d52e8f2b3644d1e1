"""toolkit.lessons.code_action: a model's program that calls tools, in a small sandbox (notebook 08)."""

import pytest

import toolkit as T
from toolkit.lessons.code_action import OVER_BUDGET_PROGRAM, context_cost, expense_registry, run_program

TOTALS = OVER_BUDGET_PROGRAM


def test_the_program_calls_every_tool_through_the_registry_and_only_its_result_comes_back():
    registry = expense_registry()
    run = run_program(TOTALS, registry)
    assert run["error"] is None
    team = registry.run("list_team", {}).data
    assert [c[0] for c in run["calls"]] == ["list_team"] + ["get_expenses"] * len(team)
    expected = []
    for person in team:
        total = sum(line["amount"] for line in registry.run("get_expenses", {"person": person}).data)
        if total > 1100:
            expected.append([person, total])
    assert run["result"] == expected and 0 < len(expected) < len(team)
    lines = [registry.run("get_expenses", {"person": p}).data for p in team]
    assert context_cost([run["result"]]) * 10 < context_cost(lines), "the result is a small share of the raw lines"


@pytest.mark.parametrize(
    "source, words",
    [
        ("import os\nresult = os.listdir('.')", "Import"),
        ("result = open('x').read()", "attributes"),
        ("result = __import__('os')", "no tool or function named '__import__'"),
        ("result = eval('1+1')", "'eval'"),
        ("result = get_expenses('p01')", "keyword arguments"),
        ("result = get_expenses(person='nobody')", "failed"),
        ("result = [x for x in list_team()]", "ListComp"),
        ("while True:\n    x = 1", "While"),
        ("result = y", "'y' is not defined"),
        ("result = (", "not valid Python"),
        ("result = 1 / 0", "ZeroDivisionError"),
    ],
)
def test_what_the_sandbox_refuses_ends_as_a_sentence_not_an_exception(source, words):
    run = run_program(source, expense_registry())
    assert run["error"] and words in run["error"], run["error"]
    assert run["result"] is None


def test_the_gate_still_applies_inside_a_program():
    gate = T.PermissionGate()
    run = run_program("result = reimburse(person='p01', amount=5000)", expense_registry(), gate=gate)
    assert "gate blocked reimburse" in run["error"] and run["calls"] == [
        ("reimburse", {"person": "p01", "amount": 5000}, "blocked")
    ]
    assert gate.log[-1][0] == "deny"
    allowed = run_program(
        "result = reimburse(person='p01', amount=5)", expense_registry(), gate=T.PermissionGate(confirm=lambda c: True)
    )
    assert allowed["error"] is None and allowed["result"] == "paid 5 to p01"


def test_a_runaway_loop_stops_at_the_step_budget():
    source = "x = 0\nfor i in list_team():\n    for j in list_team():\n        for k in list_team():\n            x = x + 1\nresult = x"
    assert "step budget" in run_program(source, expense_registry(), max_steps=2000)["error"]
    assert run_program(source, expense_registry(n_people=3), max_steps=2000)["result"] == 27


class NoBigRefunds(T.PermissionGate):
    """Refuses a reimbursement over 100, judged on the arguments it is shown."""

    def decide(self, call, tool):
        amount = call["arguments"].get("amount")
        if isinstance(amount, int) and amount > 100:
            return False, "over 100"
        return super().decide(call, tool)


def test_the_gate_judges_the_arguments_that_run_not_the_ones_written():
    """The registry repairs '5000' into 5000; the gate must see 5000, as in run_agent."""
    gate = NoBigRefunds(pre_approved={"reimburse"})
    run = run_program("result = reimburse(person='p01', amount='5000')", expense_registry(), gate=gate)
    assert "the gate blocked reimburse: over 100" in run["error"], run


def test_what_a_program_read_taints_its_later_calls_as_in_the_harness():
    """A pre-approved refund runs on its own, but not after the program read tool output."""
    clean = run_program(
        "result = reimburse(person='p01', amount=5)",
        expense_registry(),
        gate=T.PermissionGate(pre_approved={"reimburse"}),
    )
    assert clean["error"] is None
    gate = T.PermissionGate(pre_approved={"reimburse"})
    source = "lines = get_expenses(person='p01')\nresult = reimburse(person='p01', amount=5)"
    run = run_program(source, expense_registry(), gate=gate)
    assert "the gate blocked reimburse" in run["error"] and "outside content" in run["error"], run
    assert gate.tainted
