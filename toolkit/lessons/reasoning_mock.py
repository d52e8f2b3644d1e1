"""Reasoning models in the loop: opaque blocks that must come back intact (notebook 02; beyond the pack).

A reasoning model's reply can carry blocks of reasoning next to its tool calls: Anthropic's
``thinking`` blocks with a ``signature``, OpenAI's reasoning items. During tool use the harness
must send them back with the tool results, complete and unmodified; Anthropic's API refuses a
request whose assistant turn lost or altered them, and refuses forced ``tool_choice`` (``any``
or ``tool``) while thinking is on [35] [37]. ``ReasoningMock`` is a mock model (no language
model anywhere) that behaves that way: its reply puts the blocks under a ``reasoning`` key, and
its next request is refused with :class:`RequestRefused` if the assistant turn before the tool
results does not hold them, byte for byte, with a valid signature.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from typing import Any

from ..loop import call
from ..registry import ToolRegistry

__all__ = ["RequestRefused", "ReasoningMock", "check_request", "dropping_harness", "keeping_harness"]

_KEY = b"course-mock-key"  # the mock's own secret; a real provider's key never leaves it


class RequestRefused(Exception):
    """What the mock API answers to a request it will not serve (a real API sends HTTP 400).

    Notebook 02.
    """


def _sign(text: str) -> str:
    return hmac.new(_KEY, text.encode(), hashlib.sha256).hexdigest()[:32]


def check_request(messages: list, tool_choice: Any = "auto") -> None:
    """The mock API's checks on a request, raising :class:`RequestRefused` with the reason.

    Forced tool choice is refused with thinking on. Every assistant turn that made tool calls
    must carry its ``reasoning`` blocks, each with the signature of its own text.

    Notebook 02.
    """
    kind = tool_choice.get("type") if isinstance(tool_choice, dict) else tool_choice
    if kind in ("any", "tool", "required"):
        raise RequestRefused(f"tool_choice {kind!r} cannot be used with thinking on; use 'auto' or 'none'")
    for i, m in enumerate(messages):
        if m.get("role") != "assistant" or not m.get("tool_calls"):
            continue
        blocks = m.get("reasoning")
        if not blocks:
            raise RequestRefused(
                f"messages[{i}]: an assistant turn with tool calls must start with its thinking blocks"
            )
        for block in blocks:
            if not isinstance(block, dict) or block.get("signature") != _sign(str(block.get("thinking"))):
                raise RequestRefused(f"messages[{i}]: a thinking block was changed; send it back exactly as received")


class ReasoningMock:
    """A mock reasoning model for the weather tools: thinks, calls ``get_weather``, then answers.

    Its first reply carries ``reasoning``: one signed thinking block. Every request, including
    the first, goes through :func:`check_request`; ``tool_choice`` is what the harness would
    send with it.

    Notebook 02.
    """

    def __init__(self, tool_choice: Any = "auto") -> None:
        self.tool_choice = tool_choice
        self.requests = 0

    def respond(self, messages: list, tools: list) -> dict:
        self.requests += 1
        check_request(messages, self.tool_choice)
        results = [m for m in messages if m.get("role") == "tool"]
        if not results:
            thought = "The user wants the weather in Oslo; get_weather takes a city."
            block = {"type": "thinking", "thinking": thought, "signature": _sign(thought)}
            return {"content": None, "tool_calls": [call("t1", "get_weather", city="Oslo")], "reasoning": [block]}
        data = json.loads(results[-1]["content"])
        return {"content": f"It is {data['temp']} degrees {data['unit']} in {data['city']}."}


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
