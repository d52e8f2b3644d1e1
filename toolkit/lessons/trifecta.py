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

__all__ = ["mail_agent", "trifecta_legs"]


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


def mail_agent() -> ToolRegistry:
    """An email assistant with five tools: the agent of notebook 11's your turn (§8), built afresh each call.

    Notebook 11.
    """
    registry = ToolRegistry()

    def read_inbox(folder: str) -> list:
        """Read the messages in one of your mail folders (written by anyone who mailed you)."""
        return []

    def search_contacts(name: str) -> list:
        """Find people in your address book, with their phone numbers."""
        return []

    def draft_reply(text: str) -> str:
        """Turn notes into a polite reply; returns the draft, sends nothing."""
        return text

    def get_weather(city: str) -> str:
        """Today's weather for a city, from a public weather service."""
        return "sunny"

    def send_email(to: str, body: str) -> str:
        """Send an email to any address."""
        return "sent"

    registry.add(read_inbox, read_only=True, outside_text=True)
    registry.add(search_contacts, read_only=True, outside_text=False)
    registry.add(draft_reply, read_only=True, outside_text=False)
    registry.add(get_weather, read_only=True, open_world=True)
    registry.add(send_email, read_only=False, open_world=True)
    return registry
