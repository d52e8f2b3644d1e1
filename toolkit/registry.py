"""Tools and the registry that runs them.

Pack §2.2 (a tool is a name, a description of inputs, and an implementation) and §2.7 rule 5
(errors that teach). :meth:`ToolRegistry.run` is the single door through which the harness
runs a tool: it never raises, and every failure comes back as a :class:`ToolResult` whose
text tells the model what went wrong and what to try.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .schema import clip, repair_args, schema_from_function, short_repr, validate_args

__all__ = ["ToolError", "TransientToolError", "Tool", "ToolResult", "ToolRegistry"]

_MAX_MATCHED_NAME = 200  # longer unknown names get no "Did you mean"
_FAULT = "This is a fault in the tool{}, not in your call; do not repeat it, try another way or tell the user."


class ToolError(Exception):
    """A failure the model should read and act on ("No order 'A9'. Ids look like A1.").

    Notebooks 05, 10.
    """


class TransientToolError(ToolError):
    """A failure that may go away if the same call is tried again (a rate limit, say).

    Notebook 08.
    """


@dataclass
class Tool:
    """One tool: what the model sees (name, description, schema) plus the code that runs.

    The three flags mirror MCP's annotations (pack §2.6): ``read_only`` (changes nothing),
    ``destructive`` (may destroy data) and ``open_world`` (reads or acts outside the system,
    such as the web). ``outside_text`` says whether results can carry text that someone
    outside wrote (a ticket, a review, a stored document), which can hold a planted order even
    when the tool never leaves the system (pack §2.10); ``None`` means not declared. The gate
    reads them all (:attr:`carries_outside_text`).

    Notebook 05.
    """

    name: str
    description: str
    fn: Callable
    input_schema: dict
    read_only: bool = True
    destructive: bool = False
    open_world: bool = False
    outside_text: bool | None = None

    def __post_init__(self) -> None:
        if self.open_world is True and self.outside_text is False:
            why = "an open-world tool always carries outside text, so outside_text=False cannot hold"
            raise ValueError(f"tool {self.name!r}: {why}; leave outside_text out (or set it to True)")

    @property
    def carries_outside_text(self) -> bool:
        """Whether the results may hold text written outside the system, so that the gate
        taints the run once the tool has run. It fails closed: true for an open-world tool,
        and for a read-only tool that did not declare ``outside_text=False``."""
        return self.open_world or (self.read_only if self.outside_text is None else self.outside_text)

    def schema(self) -> dict:
        return {"name": self.name, "description": self.description, "inputSchema": self.input_schema}

    def to_mcp(self) -> dict:
        hints = {"readOnlyHint": self.read_only, "destructiveHint": self.destructive, "openWorldHint": self.open_world}
        return {**self.schema(), "annotations": hints}


@dataclass
class ToolResult:
    """What came back from one call: ``ok``, the text the model will read, and details.

    ``kind`` says which way it went: ``ok``, ``unknown_tool``, ``invalid_args``, ``tool_error``,
    ``transient``, ``crash``, ``timeout`` or ``blocked``. ``data`` keeps the tool's return
    value when it was not plain text; ``notes`` lists any repairs made.

    Notebooks 02, 04, 05, 07, 08, 11, through ToolRegistry.
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
        kind = "one of " + ", ".join(map(repr, prop["enum"])) if "enum" in prop else str(prop.get("type", "any"))
        parts.append(f"{pname} ({kind}{', required' if pname in required else ''})")
    return "expected parameters: " + ", ".join(parts)


def to_text(value: Any) -> str:
    """A tool's return value as the text a model reads: strings as they are, the rest as JSON.

    It never raises. A value JSON cannot hold is shown by its ``repr``; one that cannot be
    shown at all (an integer longer than Python will print, an object whose ``repr`` fails)
    becomes a sentence that says so, so the model still learns the call worked.
    """
    try:
        return value if isinstance(value, str) else json.dumps(value, default=str)
    except Exception:
        pass
    try:
        return repr(value)
    except Exception as exc:
        return _unshowable(value, exc)


def _unshowable(value: Any, exc: BaseException) -> str:
    """A sentence for a return value that has no text form; an integer says how many digits
    it has (counted from its bits, without turning it into text)."""
    if not isinstance(value, int) or isinstance(value, bool):
        what = f"a {type(value).__name__} value that cannot be shown as text ({type(exc).__name__})"
        return f"(The tool returned {what}. The call itself worked.)"
    n, digits = abs(value), max(1, int((abs(value).bit_length() - 1) * 0.30102999566398120) + 1)  # log10(2)
    while n >= 10**digits:
        digits += 1
    return (
        f"(The tool returned an integer with {digits} digits, too long to show as text here. The call itself worked.)"
    )


def _message(exc: BaseException) -> str:
    """An exception's message, or "" when it has none or its ``__str__`` itself raises."""
    try:
        return str(exc)
    except Exception:
        return ""


class ToolRegistry:
    """The tools one agent may use, by name, in the order they were added.

    Notebooks 02, 04, 05, 07, 08, 11.
    """

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def add(self, fn: Callable, name: str | None = None, read_only: bool = True,
            destructive: bool = False, open_world: bool = False, description: str | None = None,
            outside_text: bool | None = None) -> Tool:  # fmt: skip
        """Make a :class:`Tool` from a typed, documented function and register it.

        ``outside_text=True`` marks a tool whose results may hold text written outside the
        system, so reading them taints the run; ``outside_text=False`` vouches that they
        cannot, and only then does a read-only tool leave the run clean (it fails closed).
        """
        schema = schema_from_function(fn, name)
        flags = (read_only, destructive, open_world, outside_text)
        return self.register(
            Tool(schema["name"], description or schema["description"], fn, schema["inputSchema"], *flags)
        )

    def tool(self, **options: Any) -> Callable[[Callable], Callable]:
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

    def get(self, name: object) -> Tool | None:
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

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def _unknown_tool_message(self, name: Any) -> str:
        names = self.names()
        text = f"Unknown tool {short_repr(name)}."
        # difflib is quadratic in the name's length: only look for a match a model could mean
        if isinstance(name, str) and len(name) <= _MAX_MATCHED_NAME:
            close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
            if close:
                text += f" Did you mean {close[0]!r}?"
        return text + f" Available tools: {', '.join(names) if names else '(none)'}."

    def prepare(self, name: Any, args: Any, repair: bool = True) -> tuple[Any, list[str], ToolResult | None]:
        """Everything :meth:`run` does before the tool's code runs: find the tool, repair the
        arguments (when ``repair`` and they form a dict; ``None`` means ``{}``), validate them.

        Returns ``(args, notes, None)`` when the call may run, ``args`` being exactly what
        would run, or else ``(args, notes, failed)``: ``unknown_tool``, ``invalid_args``, or
        ``crash`` for a broken definition. The harness shows the gate the call that will run
        (pack §2.2: check what you execute). Never raises.
        """
        notes: list[str] = []
        try:
            tool = self.get(name)
            if tool is None:
                return args, notes, ToolResult(False, self._unknown_tool_message(name), kind="unknown_tool")
            args = {} if args is None else args
            if repair and isinstance(args, dict):
                args, notes = repair_args(args, tool.input_schema)
            errors = validate_args(args, tool.input_schema)
            if errors:
                text = f"Invalid arguments for tool {tool.name!r}: {'; '.join(errors)}. Fix the call and try again; "
                text += _describe_params(tool.input_schema) + "."
                return args, notes, ToolResult(False, text, kind="invalid_args", notes=notes)
        except Exception as exc:  # a broken definition (say, a server's odd schema), not the call
            detail = f"{type(exc).__name__}: {clip(_message(exc) or 'no message', 200)}"
            text = f"Tool {short_repr(name)} could not be checked ({detail}). " + _FAULT.format("'s definition")
            return args, notes, ToolResult(False, text, kind="crash", notes=notes)
        return args, notes, None

    def run(self, name: str, args: Any, repair: bool = True) -> ToolResult:
        """Check and run one call. Never raises; the outcome is in the result's ``kind``.

        With ``repair=False`` the arguments run exactly as given, once they pass validation:
        that is how the harness runs a call it has already repaired and shown to the gate.
        """
        args, notes, failed = self.prepare(name, args, repair)
        if failed is not None:
            return failed
        tool = self.get(name)
        assert tool is not None  # prepare() answered an unknown name above
        try:
            value = tool.fn(**args)
        except TransientToolError as exc:
            busy = _message(exc) or f"Tool {tool.name!r} is busy; try again."
            return ToolResult(False, busy, kind="transient", notes=notes)
        except ToolError as exc:
            return ToolResult(False, _message(exc) or f"Tool {tool.name!r} failed.", kind="tool_error", notes=notes)
        except Exception as exc:  # a bug in the tool, not in the call
            detail = _message(exc)
            text = f"Tool {tool.name!r} crashed with {type(exc).__name__}{': ' + detail if detail else ''}. "
            return ToolResult(False, text + _FAULT.format(""), kind="crash", notes=notes)
        if isinstance(value, str):
            return ToolResult(True, value, notes=notes)
        return ToolResult(True, to_text(value), data=value, notes=notes)
