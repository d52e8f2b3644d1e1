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

from .gate import carries_outside_text
from .schema import clip, repair_args, schema_from_function, short_repr, validate_args

__all__ = ["ToolError", "TransientToolError", "Tool", "ToolResult", "ToolRegistry", "RESULT_KINDS"]

_MAX_MATCHED_NAME = 200  # longer unknown names get no "Did you mean"

RESULT_KINDS = ("ok", "unknown_tool", "invalid_args", "tool_error", "transient", "crash", "timeout", "blocked")


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

    The three flags mirror MCP's annotations (pack §2.6): ``read_only`` (does not change
    anything), ``destructive`` (may destroy data) and ``open_world`` (reads or acts outside
    the system, such as the web). The permission gate uses them (pack §2.10).

    ``outside_text`` says whether the tool's results can carry text that someone outside
    wrote: a support ticket, a product review, a document in an internal store. Such text
    can hold a planted instruction even when the tool never leaves the system (a stored
    injection, pack §2.10). ``None`` means "not declared"; an open-world tool always
    carries outside text (see :attr:`carries_outside_text`), so ``open_world=True`` with
    ``outside_text=False`` is refused.

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
            raise ValueError(
                f"tool {self.name!r}: an open-world tool always carries outside text, so "
                "outside_text=False cannot hold; leave outside_text out (or set it to True)"
            )

    @property
    def carries_outside_text(self) -> bool:
        """True when the tool's results may hold text written outside the system: it is
        open world, or it declared ``outside_text=True``. The gate taints the run after
        such a tool has run (the rule is :func:`toolkit.gate.carries_outside_text`)."""
        return carries_outside_text(self)

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
        if "enum" in prop:
            kind = "one of " + ", ".join(repr(v) for v in prop["enum"])
        else:
            kind = str(prop.get("type", "any"))
        parts.append(f"{pname} ({kind}{', required' if pname in required else ''})")
    return "expected parameters: " + ", ".join(parts)


def to_text(value: Any) -> str:
    """A tool's return value as the text a model reads: strings as they are, the rest as JSON.

    It never raises. A value JSON cannot hold is shown by its ``repr``; a value that cannot
    be shown at all (an integer longer than Python will print, an object whose ``repr``
    fails) becomes a sentence that says so, so the model still learns the call worked.
    """
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, default=str)
    except Exception:
        pass
    try:
        return repr(value)
    except Exception as exc:
        return _unshowable(value, exc)


def _unshowable(value: Any, exc: BaseException) -> str:
    """A sentence for a return value that has no text form."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (
            f"(The tool returned an integer with {_digit_count(value)} digits, too long to "
            "show as text here. The call itself worked.)"
        )
    return (
        f"(The tool returned a {type(value).__name__} value that cannot be shown as text "
        f"({type(exc).__name__}). The call itself worked.)"
    )


def _digit_count(n: int) -> int:
    """How many decimal digits ``n`` has, without turning it into text."""
    n = abs(n)
    digits = max(1, int((n.bit_length() - 1) * 0.30102999566398120) + 1)  # log10(2) per bit
    while n >= 10**digits:
        digits += 1
    return digits


def _message(exc: BaseException) -> str:
    """An exception's message, or "" when it has none or cannot produce one (its ``__str__``
    may itself raise)."""
    try:
        return str(exc)
    except Exception:
        return ""


def _short_message(exc: BaseException, limit: int = 200) -> str:
    return clip(_message(exc) or "no message", limit)


class ToolRegistry:
    """The tools one agent may use, by name, in the order they were added.

    Notebooks 02, 04, 05, 07, 08, 11.
    """

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def add(
        self,
        fn: Callable,
        name: str | None = None,
        read_only: bool = True,
        destructive: bool = False,
        open_world: bool = False,
        description: str | None = None,
        outside_text: bool | None = None,
    ) -> Tool:
        """Make a :class:`Tool` from a typed, documented function and register it.

        ``outside_text=True`` marks a tool whose results may hold text written outside the
        system (tickets, reviews, stored documents), so reading them taints the run.
        """
        schema = schema_from_function(fn, name)
        tool = Tool(
            schema["name"],
            description or schema["description"],
            fn,
            schema["inputSchema"],
            read_only,
            destructive,
            open_world,
            outside_text,
        )
        self.register(tool)
        return tool

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

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def unknown_tool_message(self, name: Any) -> str:
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
        would run; or ``(args, notes, result)`` with a failed :class:`ToolResult`
        (``unknown_tool`` or ``invalid_args``, or ``crash`` if the tool's definition is
        broken) to answer instead. The harness uses it to show the permission gate the call
        that will really run (pack §2.2: check what you execute). Never raises.
        """
        notes: list[str] = []
        try:
            tool = self.get(name)
            if tool is None:
                return args, notes, ToolResult(False, self.unknown_tool_message(name), kind="unknown_tool")
            if args is None:
                args = {}
            if repair and isinstance(args, dict):
                args, notes = repair_args(args, tool.input_schema)
            errors = validate_args(args, tool.input_schema)
            if errors:
                text = (
                    f"Invalid arguments for tool {tool.name!r}: "
                    + "; ".join(errors)
                    + f". Fix the call and try again; {_describe_params(tool.input_schema)}."
                )
                return args, notes, ToolResult(False, text, kind="invalid_args", notes=notes)
        except Exception as exc:  # a broken definition (say, a server's odd schema), not the call
            return (
                args,
                notes,
                ToolResult(
                    False,
                    f"Tool {short_repr(name)} could not be checked ({type(exc).__name__}: "
                    f"{_short_message(exc)}). This is a fault in the tool's definition, not in your "
                    "call; do not repeat it, try another way or tell the user.",
                    kind="crash",
                    notes=notes,
                ),
            )
        return args, notes, None

    def run(self, name: str, args: Any, repair: bool = True) -> ToolResult:
        """Check and run one call. Never raises; see :data:`RESULT_KINDS` for the outcomes.

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
            return ToolResult(
                False, _message(exc) or f"Tool {tool.name!r} is busy; try again.", kind="transient", notes=notes
            )
        except ToolError as exc:
            return ToolResult(False, _message(exc) or f"Tool {tool.name!r} failed.", kind="tool_error", notes=notes)
        except Exception as exc:  # a bug in the tool, not in the call
            detail = _message(exc)
            return ToolResult(
                False,
                f"Tool {tool.name!r} crashed with {type(exc).__name__}{': ' + detail if detail else ''}. "
                "This is a fault in the tool, not in your call; do not repeat it, try another way or "
                "tell the user.",
                kind="crash",
                notes=notes,
            )
        if isinstance(value, str):
            return ToolResult(True, value, data=None, notes=notes)
        return ToolResult(True, to_text(value), data=value, notes=notes)
