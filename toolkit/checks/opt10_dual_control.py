"""Your turn in notebook 10 §6 (optional, beyond the pack): an agent that gets the user to fix the phone.

In dual control the agent and the user act on one shared world, and only the world's final
state counts [6]. The student writes ``guide(status, user_said)``: from what the agent sees of
the line (``line_status``) and the user's last reply, the next message to the user. The check
runs it, four turns at most, against the course's literal-minded user
(:class:`~toolkit.lessons.dual_control.LiteralUser`) on phones in states the notebook never
shows. The phone's switches toggle, so a request for a switch already in the right place
breaks it again: the agent must read the state, not recite a script.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..lessons.dual_control import LiteralUser, Phone, agent_tools, user_tools
from . import Checker, CheckResult, not_done, probe_parts

__all__ = ["check", "PHONES", "TURNS"]

TITLE = "Your turn (10 §6): get the user to fix the phone"
TURNS = 4  # messages the agent may send

# (airplane mode, mobile data) at the start, and how many switches the user must flip
PHONES = {
    "airplane mode on, data off (the notebook's phone)": ((True, False), 2),
    "airplane mode off, data off": ((False, False), 1),
    "airplane mode on, data on": ((True, True), 1),
    "already connected": ((False, True), 0),
}


def _phone(airplane: bool, data: bool) -> Phone:
    phone = Phone()
    phone.airplane_mode, phone.mobile_data = airplane, data
    return phone


def _one(c: Checker, guide: Callable, label: str, start: tuple, flips: int) -> bool:
    phone = _phone(*start)
    line, user = agent_tools(phone), LiteralUser(user_tools(phone))
    heard, said = "", []
    for _ in range(TURNS):
        message = c.call(guide, line.run("line_status", {}).data, heard)
        assert isinstance(message, str), f"guide returned {type(message).__name__}; return the message to the user"
        said.append(message)
        heard = user.hear(message)
    assert phone.connected(), (
        f"for a phone with {label} the line is still down after {TURNS} messages; the user flipped "
        f"{user.log or 'nothing'}. Ask only for what line_status shows is wrong"
    )
    assert len(user.log) == flips, (
        f"for a phone with {label} the user flipped {len(user.log)} switches ({', '.join(user.log)}) where "
        f"{flips} would do: each request flips a switch, so ask once, and only while line_status says so"
    )
    return True


def check(guide: Callable) -> CheckResult:
    """``guide(status, user_said)`` returns the agent's next message to the user.

    Notebook 10.
    """
    c = Checker(TITLE)
    if probe_parts(c, {"guide": (guide, ({"registered": False, "data session": False}, ""))})[1]:
        return not_done(TITLE)
    for label, (start, flips) in PHONES.items():
        c.run(f"{label}: connected, no switch flipped twice", partial(_one, c, guide, label, start, flips))
    return c.done(
        next_step="The scripted agent of the notebook reads nothing; yours reads the world each turn. "
        "Which of τ²-bench's scores would tell them apart?"
    )
