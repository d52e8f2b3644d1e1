"""Prompts: message templates a server offers for the user to pick (pack §2.6).

Prompts are "user-controlled" (2025-06-18 server/prompts): the host shows them, say as slash
commands, and the user chooses. ``prompts/list`` gives each name with its ``arguments``;
``prompts/get`` fills them in and returns ``messages`` whose content is any content block
(text, image, audio, an embedded resource). A missing required argument is -32602.
``completion/complete`` suggests values for an argument as the user types.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .protocol import INVALID_PARAMS, MCPError

__all__ = ["PromptArgument", "Prompt", "Prompts"]


@dataclass
class PromptArgument:
    """One argument of a prompt; ``choices`` feed ``completion/complete``.

    Shown in section 5, "A prompt the user picks".
    Notebook 06, through mcp.course.course_server.
    """

    name: str
    description: str = ""
    required: bool = False
    choices: tuple[str, ...] = ()

    def listing(self) -> dict:
        return {"name": self.name, "description": self.description, "required": self.required}


@dataclass
class Prompt:
    """A named prompt. ``render(arguments, context)`` returns its messages: a list of
    ``{"role": "user" | "assistant", "content": block}``.

    Shown in section 5, "A prompt the user picks".
    Notebook 06, through mcp.course.course_server.
    """

    name: str
    render: Callable[[dict, Any], list]
    description: str | None = None
    title: str | None = None
    arguments: list[PromptArgument] = field(default_factory=list)

    def listing(self) -> dict:
        out: dict = {"name": self.name, "arguments": [a.listing() for a in self.arguments]}
        out.update({k: v for k, v in (("title", self.title), ("description", self.description)) if v})
        return out


class Prompts:
    """The prompts of one server, by name.

    Shown in section 5, "A prompt the user picks".
    Notebook 06, through mcp.course.course_server.
    """

    def __init__(self, prompts: tuple = ()) -> None:
        self.by_name = {p.name: p for p in prompts}

    def listing(self) -> list[dict]:
        return [p.listing() for p in self.by_name.values()]

    def get(self, name: object, arguments: object, context: Any) -> dict:
        prompt = self.by_name.get(name) if isinstance(name, str) else None
        if prompt is None:
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {name!r}", {"available": list(self.by_name)})
        args = arguments if isinstance(arguments, dict) else {}
        missing = [a.name for a in prompt.arguments if a.required and not isinstance(args.get(a.name), str)]
        if missing:
            raise MCPError(INVALID_PARAMS, f"Invalid params: prompt {name!r} needs " + ", ".join(missing))
        out: dict = {"messages": prompt.render(args, context)}
        if prompt.description:
            out["description"] = prompt.description
        return out

    def choices(self, name: str, argument: str) -> tuple[str, ...]:
        prompt = self.by_name.get(name)
        for arg in prompt.arguments if prompt else ():
            if arg.name == argument:
                return arg.choices
        return ()
