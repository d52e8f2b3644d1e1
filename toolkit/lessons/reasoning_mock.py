"""Reasoning models in the loop: opaque blocks that must come back intact (notebook 02; beyond the pack).

A reasoning model's reply can carry blocks of reasoning next to its tool calls: Anthropic's
``thinking`` blocks with a ``signature``, OpenAI's reasoning items. During tool use the harness
must send them back with the tool results, complete and unmodified [35] [37]. Since Claude
Fable 5.1 ("preserved thinking") each block is also bound to its prefix, the tools and every
message before it: a harness that edits history or changes the tool list is refused [56].
Forced ``tool_choice`` (``any`` or ``tool``) is refused with manual thinking; under adaptive
thinking it depends on the model: some accept it and skip thinking for that call, the newest
refuse it [57].

``ReasoningMock`` is a mock model (no language model anywhere) that behaves that way: its reply
puts the blocks under a ``reasoning`` key, signed over the block's text and its prefix, and a
request is refused with :class:`RequestRefused` when an assistant turn with tool calls does not
hold its blocks, byte for byte, on the prefix they were made on. The mock is stricter than the
API in one way: Anthropic allows leaving out the blocks of *earlier* tool-use cycles, though
with preserved thinking a block left out between others also fails the prefix check [56].
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from typing import Any

from ..loop import call
from ..registry import ToolRegistry

__all__ = [
    "RequestRefused",
    "ReasoningMock",
    "check_request",
    "check_tool_choice",
    "dropping_harness",
    "keeping_harness",
]

_KEY = b"course-mock-key"  # the mock's own secret; a real provider's key never leaves it


class RequestRefused(Exception):
    """What the mock API answers to a request it will not serve (a real API sends HTTP 400).

    Notebook 02.
    """


THINKING_MODES = ("adaptive", "manual")  # {"type": "adaptive"} and {"type": "enabled", "budget_tokens": N}
FORCED = ("any", "tool")  # Anthropic's tool_choice types that force a call


def _sign(text: str, prefix: Any = None) -> str:
    body = text if prefix is None else text + "\n" + json.dumps(prefix, sort_keys=True, default=str)
    return hmac.new(_KEY, body.encode(), hashlib.sha256).hexdigest()[:32]


def _prefix(tools: Any, messages: list) -> list:
    """What a block is bound to: the tool list and every message before its assistant turn."""
    return [tools or [], messages]


def check_tool_choice(tool_choice: Any = "auto", thinking: str = "adaptive", accepts_forced: bool = False) -> bool:
    """Whether the mock API serves ``tool_choice`` with thinking on; raises :class:`RequestRefused` if not.

    Returns True when a forced choice is accepted (the reply then skips thinking). With manual
    thinking a forced choice is always refused; with adaptive thinking only models with
    ``accepts_forced`` take it [57].

    Notebook 02.
    """
    if thinking not in THINKING_MODES:
        raise ValueError(f"thinking {thinking!r}: choose one of {', '.join(THINKING_MODES)}")
    kind = tool_choice.get("type") if isinstance(tool_choice, dict) else tool_choice
    if kind in ("auto", "none"):
        return False
    if kind not in FORCED:
        raise RequestRefused(f"tool_choice {kind!r} is not one of 'auto', 'any', 'tool', 'none'")
    if thinking == "manual":
        raise RequestRefused(f"tool_choice {kind!r} cannot be used with manual thinking; use 'auto' or 'none'")
    if not accepts_forced:
        raise RequestRefused(f"this model does not accept tool_choice {kind!r} with thinking on; use 'auto' or 'none'")
    return True


def check_request(
    messages: list, tool_choice: Any = "auto", tools: Any = None, unthought: Any = (), **mode: Any
) -> None:
    """The mock API's checks on a request, raising :class:`RequestRefused` with the reason.

    ``tool_choice`` goes through :func:`check_tool_choice` (``mode``: its ``thinking`` and
    ``accepts_forced``). Every assistant turn that made tool calls must carry its ``reasoning``
    blocks, each signed over its own text and its prefix: ``tools`` and the messages before it.
    Turns whose calls' ids are in ``unthought`` (made under a forced choice, thinking skipped)
    have no blocks to carry.

    Notebook 02.
    """
    check_tool_choice(tool_choice, **mode)
    for i, m in enumerate(messages):
        if m.get("role") != "assistant" or not m.get("tool_calls"):
            continue
        if all(c.get("id") in unthought for c in m["tool_calls"]):
            continue
        blocks = m.get("reasoning")
        if not blocks:
            raise RequestRefused(
                f"messages[{i}]: an assistant turn with tool calls must start with its thinking blocks"
            )
        for block in blocks:
            if not isinstance(block, dict) or block.get("signature") != _sign(
                str(block.get("thinking")), _prefix(tools, messages[:i])
            ):
                raise RequestRefused(_why_refused(i, block))


def _why_refused(i: int, block: Any) -> str:
    if isinstance(block, dict) and "signature" in block:
        return (
            f"messages[{i}]: a thinking block does not match its prefix or its text: send the block back "
            "exactly as received, and change nothing before it (the tools, the system message, earlier messages)"
        )
    return f"messages[{i}]: a thinking block was changed; send it back exactly as received"


class ReasoningMock:
    """A mock reasoning model for the weather tools: thinks, calls ``get_weather`` once per city, then answers.

    Each reply with a call carries ``reasoning``: one thinking block, signed over its text and
    its prefix (the ``tools`` and messages of that request). Every request, including the first,
    goes through :func:`check_request`; ``tool_choice`` is what the harness would send with it,
    ``thinking`` the mode (``"adaptive"`` or ``"manual"``) and ``accepts_forced`` whether this
    model takes a forced choice under adaptive thinking (then it skips thinking and calls at
    once). ``requests`` counts the requests, ``seen`` keeps a copy of each one's messages.

    Notebook 02.
    """

    def __init__(
        self,
        tool_choice: Any = "auto",
        thinking: str = "adaptive",
        accepts_forced: bool = False,
        cities: tuple = ("Oslo",),
    ) -> None:
        self.tool_choice, self.thinking, self.accepts_forced = tool_choice, thinking, accepts_forced
        self.cities = tuple(cities)
        self.requests = 0
        self.seen: list[list] = []
        self.unthought: set[str] = set()  # ids of calls made without thinking (forced choice)

    def respond(self, messages: list, tools: list) -> dict:
        self.requests += 1
        self.seen.append(json.loads(json.dumps(messages, default=str)))
        mode: dict[str, Any] = {"thinking": self.thinking, "accepts_forced": self.accepts_forced}
        forced = check_tool_choice(self.tool_choice, **mode)
        check_request(messages, "auto", tools, self.unthought, **mode)
        results = [json.loads(m["content"]) for m in messages if m.get("role") == "tool"]
        if len(results) < len(self.cities):
            city = self.cities[len(results)]
            calls = [call(f"t{len(results) + 1}", "get_weather", city=city)]
            if forced:  # thinking skipped: the reply starts with the call
                self.unthought.add(calls[0]["id"])
                return {"content": None, "tool_calls": calls}
            thought = f"The user wants the weather in {city}; get_weather takes a city."
            block = {"type": "thinking", "thinking": thought, "signature": _sign(thought, _prefix(tools, messages))}
            return {"content": None, "tool_calls": calls, "reasoning": [block]}
        said = [f"It is {r['temp']} degrees {r['unit']} in {r['city']}." for r in results if "temp" in r]
        return {"content": " ".join(said) or "I could not get the weather."}


def _harness(keep: bool) -> Callable[[Any, ToolRegistry, str], str]:
    def run(model: Any, registry: ToolRegistry, user: str) -> str:
        messages: list[dict] = [{"role": "user", "content": user}]
        for _ in range(4):
            reply = model.respond(messages, registry.list_schemas())
            if not reply.get("tool_calls"):
                return reply["content"]
            turn = {"role": "assistant", "content": reply.get("content"), "tool_calls": reply["tool_calls"]}
            if keep and "reasoning" in reply:
                turn["reasoning"] = reply["reasoning"]
            messages.append(turn)
            for c in reply["tool_calls"]:
                result = registry.run(c["name"], c["arguments"])
                messages.append({"role": "tool", "tool_call_id": c["id"], "content": result.content})
        return "(step limit)"

    return run


dropping_harness = _harness(keep=False)
dropping_harness.__name__ = "dropping_harness"
dropping_harness.__doc__ = """A five-line loop that rebuilds the assistant turn from content and tool calls only.

It loses the reply's ``reasoning`` blocks, as many hand-written harnesses do.

Notebook 02.
"""
keeping_harness = _harness(keep=True)
keeping_harness.__name__ = "keeping_harness"
keeping_harness.__doc__ = """The same loop, copying the reply's ``reasoning`` blocks into the assistant turn unchanged.

Notebook 02.
"""
