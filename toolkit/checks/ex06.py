"""Exercise 6 (notebook 06, pack §2.6): talk to the stdio server by hand.

The student writes six raw lines: ``initialize``, the ``notifications/initialized``
notification, ``tools/list``, then a request whose id is null, a JSON array and a line that is
not JSON. :func:`talk` sends them to a real child process (``python -m toolkit serve``) through
:class:`~toolkit.mcp.transports.StdioTransport` and prints each reply; :func:`check` does the
same in a fresh process and checks that each line is what it claims to be and draws the reply
the MCP spec [3] and JSON-RPC 2.0 [26] call for.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..mcp import INVALID_REQUEST, PARSE_ERROR, StdioTransport
from ..mcp.protocol import valid_id
from . import Checker, CheckResult, NotDone, StudentError, first_answer

__all__ = ["check", "talk", "LINE_NAMES"]

TITLE = "Exercise 6: talk to the server by hand"
LINE_NAMES = (
    "initialize",
    "the initialized notification",
    "tools/list",
    "a request with id null",
    "a JSON array",
    "a line that is not JSON",
)
NOTIFICATION_WAIT = 0.3  # seconds to wait for the reply that a notification must not get
REQUEST_WAIT = 5.0


def _as_lines(lines: Any) -> list[str]:
    """The student's lines, or a StudentError saying why they cannot be sent."""
    if not isinstance(lines, (list, tuple)) or not all(isinstance(x, str) for x in lines):
        raise StudentError(f"hand_typed_lines() should return a list of strings, got {type(lines).__name__}")
    if len(lines) != len(LINE_NAMES):
        raise StudentError(
            f"hand_typed_lines() should return {len(LINE_NAMES)} lines ({', '.join(LINE_NAMES)}), got {len(lines)}"
        )
    bad = [i + 1 for i, x in enumerate(lines) if "\n" in x.rstrip("\n") or "\r" in x]
    if bad:
        raise StudentError(f"line {bad[0]} has a newline inside it; on stdio each message is exactly one line")
    return list(lines)


def _send_all(lines: list[str]) -> list[Any]:
    replies = []
    with StdioTransport() as server:
        for i, line in enumerate(lines):
            wait = NOTIFICATION_WAIT if i == 1 else REQUEST_WAIT
            replies.append(server.send_line(line, wait=wait))
    return replies


def talk(hand_typed_lines: Callable[[], list]) -> None:
    """Send the student's lines to a fresh ``python -m toolkit serve`` and print the replies.

    Notebook 06.
    """
    c = Checker(TITLE)
    try:
        lines = _as_lines(c.call(hand_typed_lines))
    except NotDone:
        print("Nothing sent yet: hand_typed_lines() is still the starter stub.")
        return
    except StudentError as exc:
        print(f"Nothing sent: {exc}.")
        return
    for name, line, reply in zip(LINE_NAMES, lines, _send_all(lines)):
        print(f"# {name}\n-> {line}")
        print("<- " + (json.dumps(reply) if reply is not None else "(no reply)") + "\n")


def _parse(line: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(line)
    except ValueError:
        return False, None


def _is_message(msg: Any) -> bool:
    """A JSON-RPC 2.0 request or notification in form: ``jsonrpc`` "2.0" and a method name."""
    return isinstance(msg, dict) and msg.get("jsonrpc") == "2.0" and isinstance(msg.get("method"), str)


def _shape_problem(i: int, line: str, first_id: Any) -> str:
    """Why line ``i`` is not the message it should be ('' when it is)."""
    ok, msg = _parse(line)
    if i == 5:
        return "" if not ok else "this line is valid JSON; send something a JSON parser rejects, such as hello"
    if not ok:
        return "this line is not valid JSON; check the quotes and braces"
    if i == 4:
        ok = bool(isinstance(msg, list) and msg and all(_is_message(m) for m in msg))
        return (
            ""
            if ok
            else (
                "send a batch of requests: a JSON array of one or more messages, each with "
                '"jsonrpc": "2.0" and a method, such as [{"jsonrpc": "2.0", "id": 3, '
                '"method": "ping"}]'
            )
        )
    if not isinstance(msg, dict):
        return 'send one JSON object: {"jsonrpc": "2.0", ...}'
    if i == 3:
        if not _is_message(msg):
            return 'send a request with a method and "jsonrpc": "2.0", so that only its null id is wrong'
        return "" if "id" in msg and msg["id"] is None else 'give this request "id": null'
    want = {0: "initialize", 1: "notifications/initialized", 2: "tools/list"}[i]
    if msg.get("method") != want:
        return f"the method should be {want!r}"
    if msg.get("jsonrpc") != "2.0":
        return 'every message needs "jsonrpc": "2.0"'
    if i == 1:
        return "" if "id" not in msg else 'a notification has no id at all; remove the "id" key'
    if not valid_id(msg.get("id")):
        return "a request needs an id that is a string or an integer"
    if i == 0:
        params = msg.get("params")
        need = [
            k
            for k in ("protocolVersion", "capabilities", "clientInfo")
            if not isinstance(params, dict) or k not in params
        ]
        if need:
            return "initialize needs params with " + ", ".join(need)
        assert isinstance(params, dict)  # else all three would be missing
        if params.get("protocolVersion") == "2025-03-26":
            return (
                'ask for "2025-06-18", the revision this exercise follows: under 2025-03-26 a '
                "server must accept batches, so line 5 would not be an error"
            )
    if i == 2 and msg.get("id") == first_id:
        return "this id was already used by initialize; ids must not be reused in a session"
    return ""


def _reply_problem(i: int, reply: Any) -> str:
    """Why the server's reply to line ``i`` is not the expected one ('' when it is)."""

    def error_code(r):
        return r.get("error", {}).get("code") if isinstance(r, dict) else None

    if i == 0:
        ok = isinstance(reply, dict) and "protocolVersion" in reply.get("result", {})
        return "" if ok else f"the server answered {json.dumps(reply)}, not an initialize result"
    if i == 1:
        return "" if reply is None else f"a notification must get no reply, but this one got {json.dumps(reply)}"
    if i == 2:
        ok = isinstance(reply, dict) and isinstance(reply.get("result", {}).get("tools"), list)
        return "" if ok else f"the server answered {json.dumps(reply)}, not a tool list"
    want = {3: INVALID_REQUEST, 4: INVALID_REQUEST, 5: PARSE_ERROR}[i]
    if error_code(reply) != want:
        return f"expected error {want}, the server answered {json.dumps(reply)}"
    if reply.get("id") is not None:
        return "the error reply should carry id null"
    return ""


EXPECTED = (
    "a result with the server's protocolVersion",
    "no reply at all",
    "a result listing the tools",
    f"error {INVALID_REQUEST} (Invalid Request), id null",
    f"error {INVALID_REQUEST} (batches are not supported)",
    f"error {PARSE_ERROR} (Parse error), id null",
)


def check(hand_typed_lines: Callable[[], list]) -> CheckResult:
    """Send the lines to a fresh server process and check each reply.

    Notebook 06.
    """
    c = Checker(TITLE)
    lines, report = first_answer(c, hand_typed_lines, "hand_typed_lines() returns six one-line strings", read=_as_lines)
    if report is not None:
        return report
    ok0, first = _parse(lines[0])
    first_id = first.get("id") if ok0 and isinstance(first, dict) else object()
    shape = [_shape_problem(i, line, first_id) for i, line in enumerate(lines)]
    try:
        replies = _send_all(lines)
    except Exception as exc:  # the server process itself failed: say so, no traceback
        c.expect(False, "the server process answered", f"{type(exc).__name__}: {exc}")
        return c.done()
    for i, name in enumerate(LINE_NAMES):
        problem = shape[i] or _reply_problem(i, replies[i])
        c.expect(not problem, f"line {i + 1}, {name}: {EXPECTED[i]}", problem)
    return c.done(next_step="Now match each reply to the rule of the spec that asks for it.")
