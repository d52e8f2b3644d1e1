"""Your turn in notebook 03 §8 (optional, beyond the pack): read the call blocks back out of a reply.

The course's local model is asked (by its chat template, ``data/local_model/qwen2.5-coder-tools.jinja``)
to write each call as a ```` ```json ```` block holding one ``{"name": ..., "arguments": {...}}``
object. The student writes ``read_tool_calls(reply, known)``, the parser a server runs on the
model's text: it returns ``{"calls": [...], "content": str, "errors": [...]}``, the calls in
order, the text around them for the user, and one sentence for each block it could not read,
whose text stays in the content so nothing is lost. The check uses tools and replies the
notebook never shows.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable

from . import Checker, CheckResult, not_done, probe_parts

__all__ = ["check", "EXAMPLE_REPLY", "EXAMPLE_TOOLS"]

TITLE = "Your turn (03 §8): read the call blocks back"

EXAMPLE_TOOLS = ["get_weather"]
EXAMPLE_REPLY = 'I will look that up.\n```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```'

KNOWN = ["convert_currency", "book_table", "add_note"]  # the tools of the check's own agent


def _block(obj: object, raw: str | None = None) -> str:
    return "```json\n" + (raw if raw is not None else json.dumps(obj)) + "\n```"


def _call(name: str, **arguments: object) -> dict:
    return {"name": name, "arguments": arguments}


CONVERT = _call("convert_currency", amount=120, source="EUR", target="JPY")
TABLE = _call("book_table", restaurant="Nara", party={"adults": 2, "children": 1}, time="19:30")
NOTE = _call("add_note", text="use {x} here, and a } too")
BROKEN = '{"name": "add_note", "arguments": {"text": "buy milk",}}'
PYTHON = "Here is the idea in code:\n```python\nprint(convert(120, 'EUR', 'JPY'))\n```"

# (what the reply is, the reply, the calls it holds, words the content must keep, blocks to report)
CASES: list[tuple[str, str, list[dict], list[str], int]] = [
    ("one call to a tool you have not seen", _block(CONVERT), [CONVERT], [], 0),
    ("two calls in one reply", _block(TABLE) + "\n" + _block(CONVERT), [TABLE, CONVERT], [], 0),
    (
        "words before and after a call",
        "Let me convert that.\n" + _block(CONVERT) + "\nOne moment.",
        [CONVERT],
        ["Let me convert that.", "One moment."],
        0,
    ),
    ("a plain answer with no call", "120 euros is about 19,000 yen.", [], ["120 euros is about 19,000 yen."], 0),
    ("a ```python block, which is code for the user, not a call", PYTHON, [], ["print(convert(120,"], 0),
    ("braces inside a string argument", _block(NOTE), [NOTE], [], 0),
    ("a block of broken JSON (a trailing comma)", _block(None, BROKEN), [], ["buy milk"], 1),
    (
        "a call to a tool the agent does not have",
        _block(_call("delete_account", user="ana")),
        [],
        ["delete_account"],
        1,
    ),
    (
        "a block whose arguments are not an object",
        _block({"name": "add_note", "arguments": "buy milk"}),
        [],
        ["buy milk"],
        1,
    ),
    (
        "a broken block, then a good call",
        _block(None, BROKEN) + "\n" + _block(TABLE),
        [TABLE],
        ["buy milk"],
        1,
    ),
]


def _words(text: str) -> str:
    return " ".join(text.split())


def _result(c: Checker, read_tool_calls: Callable, label: str, reply: str) -> dict:
    out = c.call(read_tool_calls, reply, list(KNOWN))
    assert isinstance(out, dict) and {"calls", "content", "errors"} <= set(out), (
        f'read_tool_calls returned {type(out).__name__}; return a dict with "calls", "content" and "errors"'
    )
    assert isinstance(out["calls"], list) and isinstance(out["errors"], list) and isinstance(out["content"], str), (
        '"calls" and "errors" should be lists and "content" a str'
    )
    return out


def _calls_of(out: dict) -> list:
    calls = []
    for call in out["calls"]:
        assert isinstance(call, dict), f'each call should be a dict with "name" and "arguments", not {call!r:.60}'
        calls.append({"name": call.get("name"), "arguments": call.get("arguments")})
    return calls


def _one(c: Checker, read_tool_calls: Callable, label: str, reply: str, calls: list, keep: list, bad: int) -> bool:
    out = _result(c, read_tool_calls, label, reply)
    got = _calls_of(out)
    if got != calls:
        names = [g["name"] for g in got]
        raise AssertionError(
            f"it read {len(got)} call(s) {names}, the reply holds {len(calls)}"
            + (f" {[k['name'] for k in calls]}" if calls else "")
            + ("; compare the arguments too" if names == [k["name"] for k in calls] else "")
        )
    missing = [w for w in keep if _words(w) not in _words(out["content"])]
    assert not missing, (
        f"the content lost {missing[0]!r}: keep the text around the calls, and a block you "
        "could not read, so nothing the model wrote is lost"
    )
    if bad:
        assert len(out["errors"]) == bad and all(isinstance(e, str) and e.strip() for e in out["errors"]), (
            f"it reported {len(out['errors'])} problem(s), not {bad}: say in one sentence why a "
            "block is not a call, do not skip it silently"
        )
    else:
        assert not out["errors"], f"it reported a problem that is not there: {out['errors'][0]!r:.80}"
    return True


def _leaves_known(c: Checker, read_tool_calls: Callable) -> bool:
    known = list(KNOWN)
    c.call(read_tool_calls, _block(CONVERT) + "\n" + _block(_call("delete_account")), known, copy_args=False)
    assert known == KNOWN, (
        f"read_tool_calls changed the list of tools it was given (now {known}); read it, do not edit it"
    )
    return True


def check(read_tool_calls: Callable) -> CheckResult:
    """``read_tool_calls(reply, known)`` returns ``{"calls", "content", "errors"}`` for a reply.

    Notebook 03.
    """
    c = Checker(TITLE)
    if probe_parts(c, {"read_tool_calls": (read_tool_calls, (EXAMPLE_REPLY, list(EXAMPLE_TOOLS)))})[1]:
        return not_done(TITLE)
    for label, reply, calls, keep, bad in CASES:
        c.run(label, functools.partial(_one, c, read_tool_calls, label, reply, calls, keep, bad))
    c.run("the list of tools is left as it was", lambda: _leaves_known(c, read_tool_calls))
    return c.done(
        next_step="This is the job llama.cpp's parser does on every reply of the local model; a "
        "grammar (the next part) makes the broken blocks impossible to write in the first place."
    )
