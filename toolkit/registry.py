"""Tools and the registry that runs them.

Pack §2.2 (a tool is a name, a description of inputs, and an implementation) and §2.7 rule 5
(errors that teach). :meth:`ToolRegistry.run` is the single door through which the harness
runs a tool: it never raises, and every failure comes back as a :class:`ToolResult` whose
text tells the model what went wrong and what to try.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any, Callable

from .schema import repair_args, schema_from_function, validate_args

__all__ = ["ToolError", "TransientToolError", "Tool", "ToolResult", "ToolRegistry", "RESULT_KINDS"]

RESULT_KINDS = ("ok", "unknown_tool", "invalid_args", "tool_error", "transient", "crash",
                "timeout", "blocked")


class ToolError(Exception):
    """A failure the model should read and act on ("No order 'A9'. Ids look like A1.")."""


class TransientToolError(ToolError):
    """A failure that may go away if the same call is tried again (a rate limit, say)."""


@dataclass
class Tool:
    """One tool: what the model sees (name, description, schema) plus the code that runs.

    The three flags mirror MCP's annotations (pack §2.6): ``read_only`` (does not change
    anything), ``destructive`` (may destroy data) and ``open_world`` (reads or acts outside
    the system, such as the web). The permission gate uses them (pack §2.10).
    """

    name: str
    description: str
    fn: Callable
    input_schema: dict
    read_only: bool = True
    destructive: bool = False
    open_world: bool = False

    def schema(self) -> dict:
        return {"name": self.name, "description": self.description, "inputSchema": self.input_schema}

    def to_mcp(self) -> dict:
        out = self.schema()
        out["annotations"] = {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "openWorldHint": self.open_world,
        }
        return out


@dataclass
class ToolResult:
    """What came back from one call: ``ok``, the text the model will read, and details.

    ``kind`` says which way it went (one of :data:`RESULT_KINDS`); ``data`` keeps the
    tool's return value when it was not plain text; ``notes`` lists any repairs made.
    """

    ok: bool
    content: str
    data: Any = None
    kind: str = "ok"
    notes: list = field(default_factory=list)


def _describe_params(schema: dict) -> str:
    props = (schema or {}).get("properties") or {}
    required = set((schema or {}).get("required") or [])
    if not props:
        return "this tool takes no parameters"
    parts = []
    for pname, prop in props.items():
        prop = prop if isinstance(prop, dict) else {}
        if "enum" in prop:
            kind = "one of " + ", ".join(repr(v) for v in prop["enum"])
        else:
            kind = str(prop.get("type", "any"))
        parts.append(f"{pname} ({kind}{', required' if pname in required else ''})")
    return "expected parameters: " + ", ".join(parts)


def to_text(value: Any) -> str:
    """A tool's return value as the text a model reads: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


class ToolRegistry:
    """The tools one agent may use, by name, in the order they were added."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def add(self, fn: Callable, name: str | None = None, read_only: bool = True,
            destructive: bool = False, open_world: bool = False,
            description: str | None = None) -> Tool:
        """Make a :class:`Tool` from a typed, documented function and register it."""
        schema = schema_from_function(fn, name)
        tool = Tool(schema["name"], description or schema["description"], fn,
                    schema["inputSchema"], read_only, destructive, open_world)
        self.register(tool)
        return tool

    def tool(self, **options) -> Callable[[Callable], Callable]:
        """Decorator form of :meth:`add`; the function itself is returned unchanged."""
        def decorate(fn: Callable) -> Callable:
            self.add(fn, **options)
            return fn
        return decorate

    def register(self, tool: Tool) -> Tool:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered; pick another name")
        self._tools[tool.name] = tool
        return tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name) if isinstance(name, str) else None

    def names(self) -> list[str]:
        return list(self._tools)

    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def list_schemas(self) -> list[dict]:
        return [t.schema() for t in self._tools.values()]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self):
        return iter(self._tools.values())

    def unknown_tool_message(self, name: Any) -> str:
        names = self.names()
        text = f"Unknown tool {name!r}."
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.75) if isinstance(name, str) else []
        if close:
            text += f" Did you mean {close[0]!r}?"
        return text + f" Available tools: {', '.join(names) if names else '(none)'}."

    def run(self, name: str, args: Any, repair: bool = True) -> ToolResult:
        """Check and run one call. Never raises; see :data:`RESULT_KINDS` for the outcomes."""
        tool = self.get(name)
        if tool is None:
            return ToolResult(False, self.unknown_tool_message(name), kind="unknown_tool")
        if args is None:
            args = {}
        notes: list[str] = []
        if repair and isinstance(args, dict):
            args, notes = repair_args(args, tool.input_schema)
        errors = validate_args(args, tool.input_schema)
        if errors:
            text = (f"Invalid arguments for tool {tool.name!r}: " + "; ".join(errors)
                    + f". Fix the call and try again; {_describe_params(tool.input_schema)}.")
            return ToolResult(False, text, kind="invalid_args", notes=notes)
        try:
            value = tool.fn(**args)
        except TransientToolError as exc:
            return ToolResult(False, str(exc) or f"Tool {tool.name!r} is busy; try again.",
                              kind="transient", notes=notes)
        except ToolError as exc:
            return ToolResult(False, str(exc) or f"Tool {tool.name!r} failed.", kind="tool_error", notes=notes)
        except Exception as exc:  # a bug in the tool, not in the call
            return ToolResult(
                False,
                f"Tool {tool.name!r} crashed with {type(exc).__name__}: {exc}. This is a fault in "
                "the tool, not in your call; do not repeat it, try another way or tell the user.",
                kind="crash", notes=notes)
        if isinstance(value, str):
            return ToolResult(True, value, data=None, notes=notes)
        return ToolResult(True, to_text(value), data=value, notes=notes)
