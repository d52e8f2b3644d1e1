"""The "lethal trifecta", read off a registry (notebook 11; pack §2.10, beyond the pack).

Simon Willison's name for the three capabilities that, together, let injected text steal data:
access to private data, exposure to untrusted content, and a way to send data out [41]. The
toolkit's tool flags give the last two: a tool that reaches the open world, or whose results
carry outside text, lets untrusted text in; an open-world tool, or one that changes state
outside the system, is a way out (a read-only fetch carries data in its address). Which tools
hold private data only you can say, so it is an argument.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..registry import ToolRegistry

__all__ = ["trifecta_legs"]


def trifecta_legs(registry: ToolRegistry, private: Iterable[str]) -> dict[str, list[str]]:
    """``{"private data": [...], "untrusted content": [...], "a way out": [...]}``: the tools giving each leg.

    All three lists non-empty means the registry has the whole trifecta: a planted instruction
    can make the model read the private data and send it out. ``private`` names the tools that
    return private data; a name the registry lacks is an error, not a silent gap.

    Notebook 11.
    """
    private = list(private)
    unknown = [name for name in private if name not in registry]
    if unknown:
        raise ValueError(f"no tool named {', '.join(map(repr, unknown))}; the registry has {registry.names()}")
    tools = list(registry)
    return {
        "private data": [t.name for t in tools if t.name in private],
        "untrusted content": [t.name for t in tools if t.carries_outside_text],
        "a way out": [t.name for t in tools if t.open_world or not t.read_only],
    }
