"""Your turn in notebook 09 §9 (optional, beyond the pack): fool exactly one of BFCL V3's two checks.

BFCL's multi-turn checker asks two things after every turn: is the world's state the answer
key's, and did the model's calls return everything the answer key's calls returned [31]. The
student writes ``fool_one_check(gold_turns)``: from any answer key (a list of turns, each a list
of call strings) it builds a trajectory that passes one of the two checks and fails the other.
The check runs it on the notebook's case and on answer keys the student has not seen, scoring
both questions in every turn with :func:`~toolkit.lessons.multi_turn.run_turns`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import partial

from ..lessons.multi_turn import MULTI_TURN_CASE, run_turns
from ..scoring import parse_calls
from . import Checker, CheckResult, not_done, probe_parts

__all__ = ["check", "UNSEEN_KEYS"]

TITLE = "Your turn (09 §9): pass one check, fail the other"

# Answer keys on the same file system (draft.txt, notes.txt) that the notebook never shows.
UNSEEN_KEYS: dict[str, list[list[str]]] = {
    "read the notes, then message Bo": [
        ["cat(file_name='notes.txt')"],
        ["send_message(receiver='Bo', message='call the printer shop')"],
    ],
    "copy, read the copy, rename the original": [
        ["cp(source='notes.txt', destination='todo.txt')", "cat(file_name='todo.txt')"],
        ["mv(source='draft.txt', destination='budget.txt')"],
        ["ls()"],
    ],
}


def _parsed(turns: object) -> list | None:
    """The trajectory's calls, turn by turn, or None when it is not a list of lists of call strings."""
    if not isinstance(turns, list) or not all(isinstance(t, list) for t in turns):
        return None
    try:
        return [[c for text in turn for c in parse_calls(text)] for turn in turns]
    except Exception:
        return None


def _checks(turns: list, gold: list) -> tuple[bool, bool]:
    """(the state is the answer key's after every turn, every answer-key response is among the
    model's in every turn). V3 stops at the first failure; judging every turn on both questions
    keeps a trajectory that is simply wrong from passing as one that fools a single check."""
    model_states, model_out = run_turns(turns)
    gold_states, gold_out = run_turns(copy.deepcopy(gold))
    state = model_states == gold_states
    response = all(r in mine for got, mine in zip(gold_out, model_out) for r in got)
    return state, response


def _one_key(c: Checker, fool_one_check: Callable, label: str, gold: list[list[str]]) -> bool:
    turns = c.call(fool_one_check, gold)
    parsed = _parsed(turns)
    assert parsed is not None, (
        f"for {label!r} it returned {turns!r:.80}; return a list of turns, each a list of call "
        "strings such as \"cat(file_name='notes.txt')\""
    )
    assert parsed != _parsed(gold), (
        f"for {label!r} it returned the answer key itself, which passes both checks; change something"
    )
    assert len(turns) == len(gold), (
        f"for {label!r} the answer key has {len(gold)} turns and your trajectory {len(turns)}; "
        "give one list of calls per turn"
    )
    state, response = _checks(turns, gold)
    assert state != response, (
        f"for {label!r} your trajectory "
        + ("passes both checks" if state else "fails both checks")
        + " in some turn; it should keep one of them right in every turn and break the other"
    )
    return True
    return True


def _does_not_edit(c: Checker, fool_one_check: Callable) -> bool:
    gold = copy.deepcopy(MULTI_TURN_CASE["ground_truth"])
    before = copy.deepcopy(gold)
    c.call(fool_one_check, gold, copy_args=False)
    assert gold == before, "fool_one_check changed the answer key it was given; build a new list instead"
    return True


def check(fool_one_check: Callable) -> CheckResult:
    """``fool_one_check(gold_turns)`` returns a trajectory that passes exactly one of V3's checks.

    Notebook 09.
    """
    c = Checker(TITLE)
    if probe_parts(c, {"fool_one_check": (fool_one_check, (MULTI_TURN_CASE["ground_truth"],))})[1]:
        return not_done(TITLE)
    keys = {"the notebook's case": MULTI_TURN_CASE["ground_truth"], **UNSEEN_KEYS}
    for label, gold in keys.items():
        if label != "the notebook's case":
            label = f"an answer key you have not seen ({label})"
        c.run(f"{label}: exactly one check passes", partial(_one_key, c, fool_one_check, label, gold))
    c.run("the answer key you are given is left as it was", lambda: _does_not_edit(c, fool_one_check))
    return c.done(
        next_step="Which did you fool? Dropping a read keeps the state and loses a response; an extra "
        "write keeps every response and changes the state. V3 needs both checks for that reason."
    )
