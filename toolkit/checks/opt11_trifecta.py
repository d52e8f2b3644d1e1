"""Your turn in notebook 11 §8 (optional, beyond the pack): the trifecta of a new agent, and a leg broken.

The lethal trifecta is private data, untrusted content and a way out, together [41]. The
student does two things for agents the notebook has not shown. ``private_tools(registry)``
names the tools that return private data, the one leg no flag can tell, so that
:func:`~toolkit.lessons.trifecta.trifecta_legs` places all three. ``break_a_leg(registry,
private)`` returns a new registry without the trifecta, removing as few tools as possible and
relabelling none (a flag changed to make a leg vanish hides the risk, it does not remove it).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..lessons.trifecta import mail_agent, trifecta_legs
from ..registry import ToolRegistry
from . import Checker, CheckResult, not_done, probe_parts

__all__ = ["check", "AGENTS"]

TITLE = "Your turn (11 §8): place the three legs of a new agent, then break one"


def _files_agent() -> ToolRegistry:
    """A research assistant: a second agent for ``break_a_leg``, never shown in the notebook."""
    registry = ToolRegistry()

    def open_notes(title: str) -> str:
        """Open one of the user's private research notes."""
        return ""

    def list_notes() -> list:
        """The titles of the user's private research notes."""
        return []

    def search_web(query: str) -> list:
        """Search the web; results are pages written by anyone."""
        return []

    def save_note(title: str, text: str) -> str:
        """Save a note in the user's private notebook."""
        return "saved"

    registry.add(open_notes, read_only=True, outside_text=False)
    registry.add(list_notes, read_only=True, outside_text=False)
    registry.add(search_web, read_only=True, open_world=True)
    registry.add(save_note, read_only=False, outside_text=False)
    return registry


# name -> (registry factory, the private tools)
AGENTS: dict[str, tuple[Callable[[], ToolRegistry], list[str]]] = {
    "the email assistant": (mail_agent, ["read_inbox", "search_contacts"]),
    "a research assistant you have not seen": (_files_agent, ["open_notes", "list_notes", "save_note"]),
}

WHY_PRIVATE = {
    "read_inbox": "read_inbox returns your own mail: private, even though strangers wrote some of it",
    "search_contacts": "search_contacts returns people's phone numbers: private",
}


def _placed(c: Checker, private_tools: Callable) -> bool:
    registry, private = mail_agent(), AGENTS["the email assistant"][1]
    named = c.call(private_tools, registry, copy_args=False)
    assert isinstance(named, (list, tuple, set)), (
        f"private_tools returned {type(named).__name__}; return a list of names"
    )
    missing = [n for n in private if n not in named]
    assert not missing, WHY_PRIVATE[missing[0]]
    extra = [n for n in named if n not in private]
    assert not extra, f"{extra[0]} returns nothing private (read its description); leave it out"
    legs = trifecta_legs(registry, list(named))
    assert all(legs.values()), "with these private tools the agent should have all three legs"
    return True


def _flags(tool) -> tuple:
    return (tool.read_only, tool.destructive, tool.open_world, tool.carries_outside_text)


def _broken(c: Checker, break_a_leg: Callable, label: str) -> bool:
    make, private = AGENTS[label]
    original = make()
    before = {t.name: _flags(t) for t in original}
    out = c.call(break_a_leg, original, list(private), copy_args=False)
    assert {t.name: _flags(t) for t in original} == before and len(list(original)) == len(before), (
        f"for {label} break_a_leg changed the registry it was given; build a new ToolRegistry instead"
    )
    assert isinstance(out, ToolRegistry), (
        f"for {label} break_a_leg returned {type(out).__name__}; return a ToolRegistry"
    )
    kept = {t.name: t for t in out}
    unknown = [n for n in kept if n not in before]
    assert not unknown, f"for {label} the new registry has {unknown[0]}, which the agent never had"
    relabelled = [n for n, t in kept.items() if _flags(t) != before[n]]
    assert not relabelled, (
        f"for {label} {relabelled[0]} keeps its code but lost or changed a flag; removing a label hides "
        "the leg, it does not remove it: drop the tool instead"
    )
    legs = trifecta_legs(out, [n for n in private if n in kept])
    assert not all(legs.values()), f"for {label} all three legs are still there: {legs}"
    fewest = min(len(v) for v in trifecta_legs(make(), private).values())
    removed = len(before) - len(kept)
    assert removed <= fewest, (
        f"for {label} you removed {removed} tools; the smallest leg has {fewest}, so removing it is enough"
    )
    return True


def check(private_tools: Callable, break_a_leg: Callable) -> CheckResult:
    """``private_tools(registry)`` names the private tools; ``break_a_leg(registry, private)`` returns a safer registry.

    Notebook 11.
    """
    c = Checker(TITLE)
    label = "the email assistant"
    parts = {
        "private_tools": (private_tools, (mail_agent(),)),
        "break_a_leg": (break_a_leg, (mail_agent(), AGENTS[label][1])),
    }
    if probe_parts(c, parts)[1]:
        return not_done(TITLE)
    c.run("the email assistant's private tools, so all three legs are placed", lambda: _placed(c, private_tools))
    for name in AGENTS:
        c.run(f"{name}: one leg broken, fewest tools removed, none relabelled", partial(_broken, c, break_a_leg, name))
    return c.done(
        next_step="Which leg did you break, and what can the agent no longer do? That price is the "
        "design patterns' trade: a narrower agent that injection cannot turn into a leak."
    )
