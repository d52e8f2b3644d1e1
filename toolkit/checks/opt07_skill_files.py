"""Your turn in notebook 07 §7 (optional, beyond the pack): write a skill file by the open format.

Agent Skills are an open format (agentskills.io) [46] [58] [61]: a folder holding a ``SKILL.md``
whose YAML front matter gives a ``name`` (at most 64 characters, lowercase letters, digits and
hyphens, not starting or ending with a hyphen, no ``--``, the same as the folder's name) and a
``description`` (at most 1,024 characters, what the skill does and when to use it), followed by
the instructions. Only the front matter is read up front. The student writes ``skill_md()``, the
file for a new procedure, filing the month's expense report with the agent's tools
``list_expenses`` and ``submit_report``, in the folder ``expense-report/``. The check parses it as
a host would, holds it to the format's rules and loads it through
:func:`~toolkit.lessons.skills.skill_registry`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import yaml  # type: ignore[import-untyped]  # no stubs in the lock; only safe_load is used

from ..lessons.skills import prompt_tokens, skill_registry
from . import Checker, CheckResult, not_done, probe_parts

__all__ = ["check", "FOLDER", "TOOLS", "parse_skill"]

TITLE = "Your turn (07 §7): a skill file by the open format"
FOLDER = "expense-report"
TOOLS = ("list_expenses", "submit_report")
UP_FRONT_TOKENS = 80  # what the name and description may cost in every prompt (characters / 4)
NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def parse_skill(text: str) -> tuple[dict, str]:
    """``(front matter, body)`` of a ``SKILL.md``; ValueError with a sentence when it has no front matter.

    Notebook 07, through check.
    """
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        raise ValueError("the file must start with a line '---', then the front matter, then '---'")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise ValueError("the front matter is never closed: add a line '---' after it") from None
    try:
        meta = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as err:
        raise ValueError(f"the front matter is not valid YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(meta, dict):
        raise ValueError("the front matter should be 'key: value' lines (name, description)")
    return meta, "\n".join(lines[end + 1 :]).strip()


def _parsed(c: Checker, skill_md: Callable) -> tuple[dict, str]:
    text = c.call(skill_md)
    assert isinstance(text, str), f"skill_md() returned {type(text).__name__}; return the file's text"
    try:
        return parse_skill(text)
    except ValueError as err:
        raise AssertionError(str(err)) from None


def _name(c: Checker, skill_md: Callable) -> bool:
    meta, _ = _parsed(c, skill_md)
    name = meta.get("name")
    assert isinstance(name, str) and name, "the front matter needs a name: line"
    assert len(name) <= 64, f"the name has {len(name)} characters; the format allows 64"
    assert NAME.fullmatch(name), (
        f"the name {name!r} breaks the format: lowercase letters, digits and single hyphens only, "
        "not at the start or the end"
    )
    assert name == FOLDER, f"the name {name!r} must be the folder's name, {FOLDER!r}"
    return True


def _description(c: Checker, skill_md: Callable) -> bool:
    meta, body = _parsed(c, skill_md)
    text = meta.get("description")
    assert isinstance(text, str) and len(text.split()) >= 5, (
        "the front matter needs a description: of at least a few words saying what the skill does and when"
    )
    assert len(text) <= 1024, f"the description has {len(text)} characters; the format allows 1,024"
    cost = prompt_tokens({"name": meta.get("name"), "description": text})
    assert cost <= UP_FRONT_TOKENS, (
        f"the name and description cost about {cost} tokens in every prompt; keep them under "
        f"{UP_FRONT_TOKENS} and move the detail into the instructions, which load only when used"
    )
    return True


def _body(c: Checker, skill_md: Callable) -> bool:
    meta, body = _parsed(c, skill_md)
    assert body, "the file has no instructions after the front matter"
    missing = [t for t in TOOLS if t not in body]
    assert not missing, f"the instructions never name {missing[0]}; say which tool does each step"
    assert len(body) > len(str(meta.get("description", ""))), (
        "the instructions are shorter than the description: the detail belongs in the body"
    )
    return True


def _loads(c: Checker, skill_md: Callable) -> bool:
    meta, body = _parsed(c, skill_md)
    skill: dict[str, object] = {
        "name": meta.get("name"),
        "description": meta.get("description"),
        "instructions": body,
        "scripts": [],
    }
    loaded = skill_registry([skill]).run("use_skill", {"name": FOLDER})
    assert loaded.ok, f"use_skill could not load it: {loaded.content}"
    assert loaded.data["instructions"] == body, "use_skill returned other instructions than the file's body"
    return True


def check(skill_md: Callable) -> CheckResult:
    """``skill_md()`` returns the text of ``expense-report/SKILL.md``.

    Notebook 07.
    """
    c = Checker(TITLE)
    if probe_parts(c, {"skill_md": (skill_md, ())})[1]:
        return not_done(TITLE)
    c.run("the name follows the format and matches the folder", lambda: _name(c, skill_md))
    c.run("the description is short, says what and when, and is cheap up front", lambda: _description(c, skill_md))
    c.run("the instructions carry the detail and name the tools", lambda: _body(c, skill_md))
    c.run("use_skill loads it by its name", lambda: _loads(c, skill_md))
    return c.done(
        next_step="Now read it as a stranger's file: what in it would you check before letting an agent follow it?"
    )
