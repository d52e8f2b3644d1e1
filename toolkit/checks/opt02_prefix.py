"""Your turn in notebook 02 §4b (optional, beyond the pack): remind the model without touching the prefix.

A harness often wants to tell the model something new on each turn, here how many model turns
it has left. The hurried way rewrites a system message or an earlier message each turn; with
preserved thinking that changes the prefix every thinking block is bound to, and the request is
refused [56]. The student writes ``reminding_harness(model, registry, user)``: a loop of at most
:data:`MAX_TURNS` requests that carries the reasoning blocks back, puts the reminder
``"{n} turns left"`` in every request after the first *after* everything already sent, and
returns the final answer. The check runs it against :class:`~toolkit.lessons.reasoning_mock.ReasoningMock`
on cities the notebook never asks about, and reads what each request carried.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..lessons.reasoning_mock import ReasoningMock
from ..lessons.toy_tools import make_weather_registry
from . import Checker, CheckResult, StudentError, not_done, probe_parts

__all__ = ["check", "MAX_TURNS"]

TITLE = "Your turn (02 §4b): a reminder that keeps the prefix"
MAX_TURNS = 6  # model requests the harness may make

CASES = {  # cities asked for (each is one tool call, one thinking block), as the check's mock asks
    "one city you have not seen": ("Cairo",),
    "three cities, three thinking blocks": ("Lima", "Tokyo", "Rome"),
}


def _answer_of(c: Checker, reminding_harness: Callable, mock: ReasoningMock, label: str) -> str:
    try:
        return c.call(reminding_harness, mock, make_weather_registry(), "What is the weather?", copy_args=False)
    except StudentError as exc:
        if "RequestRefused" in str(exc):
            raise AssertionError(
                f"for {label} the mock API refused request {mock.requests}: "
                + str(exc).split("RequestRefused: ", 1)[-1]
            ) from None
        raise


def _left(n: int) -> str:
    return f"{MAX_TURNS - n + 1} turns left"


def _reminded(seen: list, label: str) -> None:
    for n, messages in enumerate(seen, 1):
        if n == 1:
            continue
        last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
        after = " ".join(str(m.get("content")) for m in messages[last + 1 :])
        assert _left(n) in after, (
            f'for {label} request {n} carried no "{_left(n)}" after the model\'s last turn; add the '
            "reminder as a new message at the end, each request"
        )


def _one(c: Checker, reminding_harness: Callable, label: str, cities: tuple) -> bool:
    mock = ReasoningMock(cities=cities)
    answer = _answer_of(c, reminding_harness, mock, label)
    assert isinstance(answer, str), f"for {label} the harness returned {type(answer).__name__}; return the final answer"
    missing = [city for city in cities if city not in answer]
    assert not missing, (
        f"for {label} the answer {answer!r:.80} does not name {', '.join(missing)}; run the loop until the "
        "model answers without a call"
    )
    assert mock.requests <= MAX_TURNS, f"for {label} the harness made {mock.requests} requests; stop at {MAX_TURNS}"
    _reminded(mock.seen, label)
    return True


def check(reminding_harness: Callable) -> CheckResult:
    """``reminding_harness(model, registry, user)`` returns the final answer.

    Notebook 02.
    """
    c = Checker(TITLE)
    probe = ReasoningMock()
    if probe_parts(c, {"reminding_harness": (reminding_harness, (probe, make_weather_registry(), "Weather?"))})[1]:
        return not_done(TITLE)
    for label, cities in CASES.items():
        c.run(
            f"{label}: answered, with a reminder in every later request",
            partial(_one, c, reminding_harness, label, cities),
        )
    return c.done(
        next_step="Now try the hurried way (rewrite a system message each turn) and read the refusal: "
        "the blocks are bound to everything before them."
    )
