"""Agent skills: instructions loaded on demand (notebook 07; pack §2.7, beyond the pack).

A skill is a folder with a ``SKILL.md`` (a name and a description, then instructions) and
optional scripts. Only the names and descriptions sit in the prompt; a skill's instructions are
read when the model decides to use it [46]. Here the skills are data (``data/skills.json``), and
``use_skill`` is an ordinary tool that returns one skill's instructions.
"""

from __future__ import annotations

import difflib

from ..data import load_json
from ..registry import ToolError, ToolRegistry
from .tool_design import token_estimate

__all__ = ["SKILLS", "skill_catalog", "skill_registry", "prompt_tokens"]

SKILLS: list[dict] = load_json("skills.json")["skills"]


def skill_catalog(skills: list[dict] | None = None) -> list[dict]:
    """What sits in the prompt up front: each skill's name and description, nothing more.

    Notebook 07.
    """
    return [{"name": s["name"], "description": s["description"]} for s in (SKILLS if skills is None else skills)]


def skill_registry(skills: list[dict] | None = None) -> ToolRegistry:
    """One tool, ``use_skill(name)``, that returns a skill's instructions and the files beside it.

    Notebook 07.
    """
    by_name = {s["name"]: s for s in (SKILLS if skills is None else skills)}
    registry = ToolRegistry()

    def use_skill(name: str) -> dict:
        """Load a skill's instructions when the task needs it.

        Args:
            name: a skill name from the catalog, such as refund-policy
        """
        if name not in by_name:
            near = difflib.get_close_matches(str(name), list(by_name), n=1)
            hint = f" Did you mean {near[0]!r}?" if near else ""
            raise ToolError(f"No skill {name!r}.{hint} Skills: {', '.join(by_name)}.")
        return {"instructions": by_name[name]["instructions"], "files": by_name[name]["scripts"]}

    registry.add(use_skill)
    return registry


def prompt_tokens(value: object) -> int:
    """Rough tokens of a value in the prompt: JSON characters / 4, the pack's rule of thumb
    (:func:`~toolkit.lessons.tool_design.token_estimate`).

    Notebook 07.
    """
    return token_estimate(value)
