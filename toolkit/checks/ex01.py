"""Exercise 1 (notebook 05, pack §2.5): one tool, three shapes.

The student writes two converters from the toolkit's MCP-shaped definition
(``name``, ``description``, ``inputSchema``, maybe ``annotations``) to the two vendor shapes
the pack compares: OpenAI's function tool with ``parameters`` and an optional ``strict``
flag [23], and Anthropic's tool with ``input_schema`` [22]. OpenAI's Chat Completions API
nests the function under ``"function"``; its Responses API puts the same keys at the top
level. Both nestings are accepted here, since the vendors' shapes keep moving.

The check runs both converters on tools the student has not seen and says, per rule, which
passed and what to change.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Literal

from ..schema import schema_from_function
from . import Checker, CheckResult, not_done, probe_parts

__all__ = ["check", "unseen_tools"]

TITLE = "Exercise 1: MCP shape to OpenAI and Anthropic shapes"
MCP_ONLY = ("inputSchema", "annotations", "title", "outputSchema")
OPENAI_KEYS = ("name", "description", "parameters", "strict")  # what OpenAI's function definition holds
ANTHROPIC_KEYS = frozenset({"name", "description", "input_schema", "type"})  # "type": "custom" is optional [22]


def unseen_tools() -> list[dict]:
    """The tools the check converts: MCP-shaped definitions the notebook does not show.

    Notebook 05, through check.
    """

    def find_trains(
        origin: str,
        destination: str,
        date: str,
        max_changes: int = 2,
        classes: list[Literal["first", "second"]] | None = None,
    ) -> list:
        """Find train connections between two stations on one day.

        Args:
            origin: departure station, such as Lyon
            destination: arrival station
            date: travel day as YYYY-MM-DD
            max_changes: most changes of train the traveller accepts
            classes: seat classes to include
        """
        return []

    def set_thermostat(room: Literal["kitchen", "hall", "study"], celsius: float, hold: bool = False) -> str:
        """Set the target temperature of one room.

        Args:
            room: which room
            celsius: target temperature in degrees Celsius
            hold: keep this target until changed by hand
        """
        return "ok"

    def list_alarms() -> list:
        """List every alarm that is set."""
        return []

    tools = [schema_from_function(f) for f in (find_trains, set_thermostat, list_alarms)]
    tools[1]["annotations"] = {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False}
    tools[1]["title"] = "Thermostat"
    tools.append(
        {
            "name": "tag_photos",
            "description": "Attach tags to photos.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "photo_ids": {"type": "array", "items": {"type": "integer"}},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["photo_ids", "tags"],
                "additionalProperties": False,
            },
            "annotations": {"readOnlyHint": False},
        }
    )
    return tools


def _openai_function(out) -> dict:
    """The object that holds name/description/parameters, in either OpenAI nesting."""
    assert isinstance(out, dict), f"to_openai returned {type(out).__name__}, not a dict"
    assert out.get("type") == "function", (
        f'the tool needs "type": "function" at its top level; yours has {out.get("type")!r}'
    )
    inner = out.get("function", out)
    assert isinstance(inner, dict), '"function" should hold an object with name, description and parameters'
    return inner


def _same_name_and_description(fn: dict, tool: dict, how: str) -> None:
    for key in ("name", "description"):
        assert fn.get(key) == tool[key], (
            f"{how}for tool {tool['name']!r}, {key!r} should be {tool[key]!r}, got {fn.get(key)!r}"
        )


def _openai_shape(c: Checker, to_openai: Callable, tools: list) -> bool:
    for tool in tools:
        fn = _openai_function(c.call(to_openai, copy.deepcopy(tool)))
        _same_name_and_description(fn, tool, "")
        assert "parameters" in fn, (
            f'for tool {tool["name"]!r} there is no "parameters": OpenAI calls the input schema that'
        )
        assert fn["parameters"] == tool["inputSchema"], (
            f'for tool {tool["name"]!r}, "parameters" should be the inputSchema unchanged'
        )
    return True


def _openai_strict(c: Checker, to_openai: Callable, tools: list) -> bool:
    for tool in tools:
        on = _openai_function(c.call(to_openai, copy.deepcopy(tool), strict=True))
        assert on.get("strict") is True, (
            f'to_openai(tool, strict=True) should set "strict": true next to "parameters" '
            f"(tool {tool['name']!r} got {on.get('strict')!r})"
        )
        _same_name_and_description(on, tool, "with strict=True, ")
        params = on.get("parameters")
        assert isinstance(params, dict) and set(params.get("properties", {})) == set(
            tool["inputSchema"].get("properties", {})
        ), (
            f'with strict=True, tool {tool["name"]!r} needs its "parameters" too, with the same '
            "properties as the inputSchema; strict mode adds a flag, it does not drop the schema"
        )
        off = _openai_function(c.call(to_openai, copy.deepcopy(tool)))
        assert off.get("strict", False) is False, (
            'without strict=True, leave "strict" out (or false): strict mode is opt-in'
        )
    return True


def _openai_clean(c: Checker, to_openai: Callable, tools: list) -> bool:
    for tool in tools:
        out = c.call(to_openai, copy.deepcopy(tool))
        fn = _openai_function(out)
        extra = [k for k in MCP_ONLY if k in fn or k in out]
        assert not extra, (
            f"for tool {tool['name']!r} the result still has {', '.join(extra)}; "
            "these are MCP fields with no place in the OpenAI definition"
        )
        outer = ("type", "function") if fn is not out else ("type", *OPENAI_KEYS)
        other = [k for k in out if k not in outer] + [k for k in fn if k not in OPENAI_KEYS and fn is not out]
        assert not other, (
            f"for tool {tool['name']!r} the result also has {', '.join(map(repr, other))}, which OpenAI's "
            "function definition does not have; keep name, description, parameters and strict (with type, "
            "and function around them in the nested shape)"
        )
    return True


def _anthropic_shape(c: Checker, to_anthropic: Callable, tools: list) -> bool:
    for tool in tools:
        out = c.call(to_anthropic, copy.deepcopy(tool))
        assert isinstance(out, dict), f"to_anthropic returned {type(out).__name__}, not a dict"
        assert "input_schema" in out, (
            f'for tool {tool["name"]!r} there is no "input_schema" (snake case, at the top level)'
        )
        assert out["input_schema"] == tool["inputSchema"], (
            f'for tool {tool["name"]!r}, "input_schema" should be the inputSchema unchanged'
        )
        _same_name_and_description(out, tool, "")
    return True


def _anthropic_clean(c: Checker, to_anthropic: Callable, tools: list) -> bool:
    for tool in tools:
        out = c.call(to_anthropic, copy.deepcopy(tool))
        assert isinstance(out, dict), f"to_anthropic returned {type(out).__name__}, not a dict"
        extra = sorted(set(out) - ANTHROPIC_KEYS)
        assert not extra, (
            f"for tool {tool['name']!r} the result also has {', '.join(extra)}; "
            "keep only name, description and input_schema"
        )
        assert out.get("type", "custom") == "custom", (
            f'for tool {tool["name"]!r} "type" is {out["type"]!r}; leave it out (or write "custom")'
        )
    return True


def _input_untouched(c: Checker, to_openai: Callable, to_anthropic: Callable, tools: list) -> bool:
    calls: tuple[tuple[str, Callable, dict], ...] = (
        ("to_openai", to_openai, {}),
        ("to_openai(..., strict=True)", to_openai, {"strict": True}),
        ("to_anthropic", to_anthropic, {}),
    )
    for label, fn, kwargs in calls:
        for tool in tools:
            given = copy.deepcopy(tool)
            c.call(fn, given, copy_args=False, **kwargs)  # this item looks at what the call did to it
            assert given == tool, (
                f"{label} changed the tool it was given ({tool['name']!r}); "
                "build a new dict instead of editing the one you were given"
            )
    return True


def check(to_openai: Callable, to_anthropic: Callable) -> CheckResult:
    """Run both converters on unseen tools; print what passed and what to try next.

    Notebook 05.
    """
    c = Checker(TITLE)
    tools = unseen_tools()
    sample = copy.deepcopy(tools[0])
    _, all_stubs = probe_parts(
        c, {"to_openai": (to_openai, (sample,)), "to_anthropic": (to_anthropic, (copy.deepcopy(sample),))}
    )
    if all_stubs:
        return not_done(TITLE)
    n, oa, an = len(tools), to_openai, to_anthropic
    c.run(
        f"to_openai gives a function tool with name, description and parameters ({n} unseen tools)",
        lambda: _openai_shape(c, oa, tools),
    )
    c.run(
        'to_openai sets "strict": true only when asked, and keeps the rest of the tool',
        lambda: _openai_strict(c, oa, tools),
    )
    c.run("to_openai leaves out MCP-only keys (inputSchema, annotations, title)", lambda: _openai_clean(c, oa, tools))
    c.run(
        f"to_anthropic gives name, description and input_schema ({n} unseen tools)",
        lambda: _anthropic_shape(c, an, tools),
    )
    c.run("to_anthropic leaves out MCP-only keys", lambda: _anthropic_clean(c, an, tools))
    c.run("neither converter changes the tool it was given (strict or not)", lambda: _input_untouched(c, oa, an, tools))
    return c.done(next_step="Now answer the question below: what changed besides a key name?")
