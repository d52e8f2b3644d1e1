"""Your turn in notebook 08 §8 (optional, beyond the pack): a program for a new question, and the gate.

The question: "Who spent the least this quarter? Pay them a bonus of 50." The student writes
``least_spender_program()``, which returns the source of a program for
:func:`~toolkit.lessons.code_action.run_program`: it sets ``result`` to ``[person, total]`` for
the person with the smallest total, then asks ``reimburse`` for the bonus. Under a
:class:`~toolkit.gate.PermissionGate` the reading part answers and the gate stops the payment,
the one step that changes state [38] [53]. The check runs the program on expense registries of
other sizes than the notebook's, so a program must compute its answer, not carry it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..gate import PermissionGate
from ..lessons.code_action import expense_registry, run_program
from . import Checker, CheckResult, not_done, probe_parts

__all__ = ["check", "least_spenders"]

TITLE = "Your turn (08 §8): a program for a new question, and the gate"

TEAMS = {  # (people, expense lines each): registries the notebook never builds
    "a team of 7 with 4 lines each": (7, 4),
    "a team of 20 with 9 lines each": (20, 9),
    "the notebook's team of 12": (12, 15),
}


def least_spenders(n_people: int, items_each: int) -> tuple[list[str], float]:
    """The check's own answer, read from the tools directly: (everyone tied for the least, that total).

    Notebook 08, through check.
    """
    registry = expense_registry(n_people, items_each)
    totals = {
        p: sum(line["amount"] for line in registry.run("get_expenses", {"person": p}).data)
        for p in registry.run("list_team", {}).data
    }
    low = min(totals.values())
    return [p for p, t in totals.items() if t == low], low


def _source(c: Checker, least_spender_program: Callable) -> str:
    source = c.call(least_spender_program)
    assert isinstance(source, str) and source.strip(), (
        f"least_spender_program() returned {type(source).__name__}; return the program's source as a string"
    )
    return source


def _one(c: Checker, least_spender_program: Callable, label: str, n_people: int, items_each: int) -> bool:
    source = _source(c, least_spender_program)
    run = run_program(source, expense_registry(n_people, items_each), gate=PermissionGate())
    people, low = least_spenders(n_people, items_each)
    blocked = [args for name, args, outcome in run["calls"] if name == "reimburse" and outcome == "blocked"]
    assert blocked, (
        f"for {label} the program never asked to reimburse anyone"
        + (f" (it stopped: {run['error']})" if run["error"] else "")
        + "; the question asks for the bonus, so write that call and let the gate stop it"
    )
    result = run["result"]
    assert result is not None, (
        "result was never set: compute and set result before the payment, so the reading part "
        "still answers when the gate stops the step that changes state"
    )
    assert isinstance(result, list) and len(result) == 2, (
        f"for {label} result is {result!r:.60}; set it to [person, total]"
    )
    assert result[0] in people and result[1] == low, (
        f"for {label} result is {result!r}, but the least spender is {people[0]} with {low}"
        + (f" (tied with {', '.join(people[1:])})" if len(people) > 1 else "")
    )
    asked = blocked[0]
    assert asked.get("person") == result[0] and asked.get("amount") == 50, (
        f"for {label} the program asked to pay {asked}; the bonus is 50, to the person in result"
    )
    return True


def _no_payment_without_gate_stop(c: Checker, least_spender_program: Callable) -> bool:
    """A gate that confirms lets the payment through: the program itself does not work around the gate."""
    source = _source(c, least_spender_program)
    run = run_program(source, expense_registry(5, 3), gate=PermissionGate(confirm=lambda call: True))
    paid = [name for name, _, outcome in run["calls"] if name == "reimburse" and outcome == "ok"]
    assert len(paid) == 1, (
        f"with a person confirming, the program paid {len(paid)} times; it should ask for exactly one payment"
    )
    return True


def check(least_spender_program: Callable) -> CheckResult:
    """``least_spender_program()`` returns the source of a program for ``run_program``.

    Notebook 08.
    """
    c = Checker(TITLE)
    if probe_parts(c, {"least_spender_program": (least_spender_program, ())})[1]:
        return not_done(TITLE)
    for label, (n, items) in TEAMS.items():
        c.run(
            f"{label}: the right answer, and the payment stopped by the gate",
            partial(_one, c, least_spender_program, label, n, items),
        )
    c.run(
        "with a person confirming, exactly one payment goes through",
        lambda: _no_payment_without_gate_stop(c, least_spender_program),
    )
    return c.done(
        next_step="Count what entered the conversation: one result instead of every expense line, "
        "and one payment that waited for a person."
    )
