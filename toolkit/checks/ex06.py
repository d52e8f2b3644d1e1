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
import time
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
SESSION_TIME = 4.5  # seconds the lines of one session may take once the server answers: talk and check share a cell
# seconds the course's server may take to start: its own start, not the student's lines, so a hub
# with every core busy waits for it rather than failing a right answer
START_TIME = 30.0
SERVER_CMD: list[str] | None = None  # the server's command (None: python -m toolkit serve)


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


class _NoReply(Exception):
    """The server sent nothing back, not even to the check's own ping, within the session's time."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line  # 1 to 6, or 0 when the server never answered at all


def _ping(tag: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": f"ex06-check-{tag}", "method": "ping"})


def _is_pong(msg: Any, tag: str) -> bool:
    return isinstance(msg, dict) and msg.get("id") == f"ex06-check-{tag}" and "method" not in msg


def _exchange(server: StdioTransport, text: str, tag: str, deadline: float) -> list[Any]:
    """Write ``text`` and then a ping of the check's own; return what came back before the
    ping's answer. No clock decides that a line got no reply: the server answers in order, so
    the pong coming first says so; :class:`_NoReply` only when time runs out before the pong."""
    inbox: list[Any] = []
    server.on_message = inbox.append
    first = server.send_line(text.rstrip("\n") + "\n" + _ping(tag), wait=0)
    if first is not None:
        inbox.append(first)
    while not any(_is_pong(m, tag) for m in inbox):
        left = deadline - time.monotonic()
        if left <= 0:
            raise _NoReply(0)
        server.pump(left)
    return [m for m in inbox if not _is_pong(m, tag)]


def _send_all(lines: list[str]) -> list[Any]:
    """Each line's reply (None: it got none), from a fresh server, within :data:`SESSION_TIME` of
    its start (which may take :data:`START_TIME`)."""
    replies: list[Any] = []
    with StdioTransport(SERVER_CMD, timeout=SESSION_TIME) as server:
        try:
            _exchange(server, "", "ready", time.monotonic() + START_TIME)
        except _NoReply:
            raise _NoReply(0) from None
        deadline = time.monotonic() + SESSION_TIME  # the server has started: every wait below is short
        for i, line in enumerate(lines):
            try:
                got = _exchange(server, line, str(i + 1), deadline)
            except _NoReply:
                raise _NoReply(i + 1) from None
            replies.append(got[0] if got else None)
    return replies


def _no_reply_sentence(stop: _NoReply) -> str:
    if stop.line == 0:
        return (
            f"the server did not start within {START_TIME:g} s (it answered not even the check's own ping); "
            "run the cell again, and if it says this again, restart the kernel"
        )
    return (
        f"line {stop.line} got no reply, and nor did the check's own ping sent after it, within "
        f"{SESSION_TIME:g} s: the server stopped answering there; the lines after it were not judged"
    )


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
    try:
        replies = _send_all(lines)
    except _NoReply as stop:
        print(f"Stopped: {_no_reply_sentence(stop)}.")
        return
    for name, line, reply in zip(LINE_NAMES, lines, replies):
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


def _batch_problem(msg: Any) -> str:
    if isinstance(msg, list) and msg and all(_is_message(m) for m in msg):
        return ""
    return (
        "send a batch of requests: a JSON array of one or more messages, each with "
        '"jsonrpc": "2.0" and a method, such as [{"jsonrpc": "2.0", "id": 3, "method": "ping"}]'
    )


def _null_id_problem(msg: dict) -> str:
    if not _is_message(msg):
        return 'send a request with a method and "jsonrpc": "2.0", so that only its null id is wrong'
    return "" if "id" in msg and msg["id"] is None else 'give this request "id": null'


def _initialize_problem(msg: dict) -> str:
    params = msg.get("params")
    need = [
        k for k in ("protocolVersion", "capabilities", "clientInfo") if not isinstance(params, dict) or k not in params
    ]
    if need:
        return "initialize needs params with " + ", ".join(need)
    if isinstance(params, dict) and params.get("protocolVersion") == "2025-03-26":
        return (
            'ask for "2025-06-18", the revision this exercise follows: under 2025-03-26 a '
            "server must accept batches, so line 5 would not be an error"
        )
    return ""


def _named_message_problem(i: int, msg: dict, first_id: Any) -> str:
    """Lines 1 to 3: initialize, the initialized notification, tools/list."""
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
        return _initialize_problem(msg)
    if msg.get("id") == first_id:
        return "this id was already used by initialize; ids must not be reused in a session"
    return ""


def _shape_problem(i: int, line: str, first_id: Any) -> str:
    """Why line ``i`` is not the message it should be ('' when it is)."""
    ok, msg = _parse(line)
    if not line.strip() and i != 5:
        return "this line is blank, and the server skips a blank line without any reply; write the whole message"
    if i == 5:
        return "" if not ok else "this line is valid JSON; send something a JSON parser rejects, such as hello"
    if not ok:
        return "this line is not valid JSON; check the quotes and braces"
    if i == 4:
        return _batch_problem(msg)
    if not isinstance(msg, dict):
        return 'send one JSON object: {"jsonrpc": "2.0", ...}'
    return _null_id_problem(msg) if i == 3 else _named_message_problem(i, msg, first_id)


def _over_the_limit(reply: Any) -> bool:
    """The server's reply to a line longer than it reads (-32600, id null, data.maxLineBytes)."""
    error = reply.get("error") if isinstance(reply, dict) else None
    data = error.get("data") if isinstance(error, dict) else None
    if not isinstance(error, dict) or not isinstance(data, dict):
        return False
    return "maxLineBytes" in data and error.get("code") == INVALID_REQUEST and reply.get("id") is None


def _reply_problem(i: int, reply: Any) -> str:
    """Why the server's reply to line ``i`` is not the expected one ('' when it is)."""

    def error_code(r):
        return r.get("error", {}).get("code") if isinstance(r, dict) else None

    if reply is None and i != 1:
        return _why_no_reply(i)
    if i == 0:
        ok = isinstance(reply, dict) and "protocolVersion" in reply.get("result", {})
        return "" if ok else f"the server answered {json.dumps(reply)}, not an initialize result"
    if i == 1:
        return "" if reply is None else f"a notification must get no reply, but this one got {json.dumps(reply)}"
    if i == 2:
        ok = isinstance(reply, dict) and isinstance(reply.get("result", {}).get("tools"), list)
        return "" if ok else f"the server answered {json.dumps(reply)}, not a tool list"
    want = {3: INVALID_REQUEST, 4: INVALID_REQUEST, 5: PARSE_ERROR}[i]
    if i == 5 and _over_the_limit(reply):
        return ""  # too long to read: the server's answer to any line over its limit, JSON or not
    if error_code(reply) != want:
        return f"expected error {want}, the server answered {json.dumps(reply)}"
    if reply.get("id") is not None:
        return "the error reply should carry id null"
    return ""


def _why_no_reply(i: int) -> str:
    """Line ``i + 1`` expected a reply and got none (the check's ping after it was answered)."""
    if i == 5:
        return "the server sent no reply to this line (it skips a blank line); send text a JSON parser rejects, such as hello"
    return (
        "the server sent no reply to this line: a blank line, or a message without an id (a notification), "
        "is never answered; write the whole request, with its id"
    )


EXPECTED = (
    "a result with the server's protocolVersion",
    "no reply at all",
    "a result listing the tools",
    f"error {INVALID_REQUEST} (Invalid Request), id null",
    f"error {INVALID_REQUEST} (batches are not supported)",
    f"error {PARSE_ERROR} (Parse error), id null (a line over the server's size limit: {INVALID_REQUEST}, unread)",
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
    except _NoReply as stop:
        c.expect(False, "the server answered each line", _no_reply_sentence(stop))
        return c.done()
    except Exception as exc:  # the server process itself failed: say so, no traceback
        c.expect(False, "the server process answered", f"{type(exc).__name__}: {exc}")
        return c.done()
    for i, name in enumerate(LINE_NAMES):
        problem = shape[i] or _reply_problem(i, replies[i])
        c.expect(not problem, f"line {i + 1}, {name}: {EXPECTED[i]}", problem)
    return c.done(next_step="Now match each reply to the rule of the spec that asks for it.")
