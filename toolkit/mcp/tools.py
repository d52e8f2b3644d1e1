"""Tools written for MCP itself, beside the registry's plain-function tools (pack §2.6).

A registry tool (``toolkit.registry``) returns one value that becomes one text block. A
:class:`ServerTool` gets the request's :class:`~toolkit.mcp.context.RequestContext` too, so it
can report progress, log, ask the user (elicitation) or the client's model (sampling), and it
returns any content blocks, or a ``structuredContent`` object that its ``outputSchema``
describes (2025-06-18 server/tools: the server MUST send structured results that conform;
the text block repeats them for older clients). An exception inside, a request the client
refused included, becomes a result with ``isError: true`` whose text is the exception's
message, which the model can read.

The ``outputSchema`` check speaks JSON Schema 2020-12, the default dialect (2026-07-28
basic/index.mdx:291-292), for the keywords a result can break: ``type``, ``enum``, ``const``,
the number bounds, ``minLength``/``maxLength``, the object and array keywords (``prefixItems``
included), ``anyOf``/``oneOf``/``allOf``/``not`` and ``$ref`` to the schema's own ``$defs``.
A schema with any other keyword that constrains (``pattern``, ``if``, ``uniqueItems`` ...), a
``$ref`` elsewhere, or another dialect is refused when the tool is built, with the keyword named:
a check that skipped it would let a result that breaks it through.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..schema import short_repr
from .content import check_block
from .context import InputRequired
from .protocol import INTERNAL_ERROR, MISSING_REQUIRED_CLIENT_CAPABILITY, MCPError

__all__ = ["ServerTool", "output_problems", "ENFORCED"]

EMPTY_SCHEMA = {"type": "object", "properties": {}}


@dataclass
class ServerTool:
    """A tool whose ``handler(arguments, context)`` returns a str, a list of content blocks,
    a dict with ``content`` (a whole result), or, with ``output_schema``, the structured value.

    Shown in section 5, "Every content type, progress and logs".
    Notebook 06.
    """

    name: str
    handler: Callable[[dict, Any], Any]
    description: str | None = None
    input_schema: dict = field(default_factory=lambda: dict(EMPTY_SCHEMA))
    output_schema: dict | None = None
    annotations: dict | None = None
    title: str | None = None

    def __post_init__(self) -> None:
        if self.output_schema is not None:
            unchecked = sorted(set(_unchecked(self.output_schema, "outputSchema", self.output_schema)))
            if unchecked:
                raise ValueError(
                    f"ServerTool {self.name!r}: the result check cannot enforce {', '.join(unchecked)}. "
                    f"It enforces {', '.join(ENFORCED)}, with $ref only to '#' or '#/$defs/<name>' "
                    "and the 2020-12 dialect; drop the keyword, or check that rule in the handler."
                )

    def to_mcp(self) -> dict:
        out: dict = {"name": self.name, "inputSchema": self.input_schema}
        optional: list[tuple[str, Any]] = [("title", self.title), ("description", self.description)]
        optional += [("outputSchema", self.output_schema), ("annotations", self.annotations)]
        out.update({k: v for k, v in optional if v is not None})
        return out

    def call(self, arguments: dict, context: Any) -> dict:
        try:
            value = self.handler(arguments, context)
        except InputRequired:
            raise  # 2026-07-28: the request ends asking the client for input (modern.py)
        except Exception as exc:  # the client refusing an elicitation included: the model reads why
            if isinstance(exc, MCPError) and exc.code == MISSING_REQUIRED_CLIENT_CAPABILITY:
                raise  # 2026-07-28: the whole request fails with -32021 (basic/index.mdx:387-392)
            return {"content": [{"type": "text", "text": str(exc) or type(exc).__name__}], "isError": True}
        return tool_result(value, self.output_schema)


def tool_result(value: Any, output_schema: dict | None = None) -> dict:
    """A ``tools/call`` result from what a handler returned (see :class:`ServerTool`)."""
    if isinstance(value, dict) and "content" in value:
        result = dict(value)
    elif output_schema is not None:
        errors = output_problems(value, output_schema) if isinstance(value, dict) else ["not an object"]
        if errors:
            raise MCPError(INTERNAL_ERROR, "Internal error: the result breaks the outputSchema: " + "; ".join(errors))
        result = {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value}
    elif isinstance(value, list):
        result = {"content": value}
    else:
        result = {"content": [{"type": "text", "text": str(value)}]}
    result["content"] = [check_block(block) for block in result["content"]]
    result.setdefault("isError", False)
    return result


# ---- the outputSchema check: JSON Schema 2020-12, the keywords a result can break -------------

DIALECT = "https://json-schema.org/draft/2020-12/schema"
ENFORCED = (
    "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "properties", "required", "additionalProperties",
    "items", "prefixItems", "minItems", "maxItems", "anyOf", "oneOf", "allOf", "not", "$ref", "$defs",
)  # fmt: skip
DESCRIBING = (
    "$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated",
    "readOnly", "writeOnly", "format",  # format only annotates, by default, in 2020-12
)  # fmt: skip
MAX_DEPTH = 64  # nested schemas followed for one value: a bound on $ref loops (basic/index.mdx:305-310)
_TYPES: dict[str, Callable[[Any], bool]] = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}
_BOUNDS: tuple[tuple[str, Callable[[Any, Any], bool]], ...] = (  # (keyword, broken when op(value, bound))
    ("minimum", operator.lt),
    ("maximum", operator.gt),
    ("exclusiveMinimum", operator.le),
    ("exclusiveMaximum", operator.ge),
)


def _unchecked(schema: Any, where: str, root: Any) -> Iterator[str]:
    """Each place in ``schema`` the check could not honour (see :meth:`ServerTool.__post_init__`)."""
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        yield f"{where} (not a schema)"
        return
    for key, value in schema.items():
        if key not in ENFORCED and key not in DESCRIBING:
            yield f"{where}.{key}"
        elif (key == "$ref" and _target(root, value) is None) or (key == "$schema" and value != DIALECT):
            yield f"{where}.{key} {value!r}"
        elif key in ("properties", "$defs") and isinstance(value, dict):
            for name, sub in value.items():
                yield from _unchecked(sub, f"{where}.{key}.{name}", root)
        elif key in ("items", "additionalProperties", "not"):
            yield from _unchecked(value, f"{where}.{key}", root)
        elif key in ("prefixItems", "anyOf", "oneOf", "allOf"):
            for i, sub in enumerate(value if isinstance(value, list) else [None]):
                yield from _unchecked(sub, f"{where}.{key}[{i}]", root)


def _target(root: Any, ref: Any) -> Any:
    """What a local ``$ref`` points at (``#`` or ``#/$defs/<name>``); None for anything else,
    which is never fetched (2026-07-28 basic/index.mdx:298-303)."""
    if ref == "#":
        return root
    name = ref[len("#/$defs/") :] if isinstance(ref, str) and ref.startswith("#/$defs/") else None
    defs = root.get("$defs") if isinstance(root, dict) else None
    return defs.get(name) if isinstance(defs, dict) and name else None


def output_problems(value: Any, schema: Any) -> list[str]:
    """Every way ``value`` breaks ``schema`` (the keywords of :data:`ENFORCED`), as sentences
    that start with the path (``structuredContent.v``); an empty list means it conforms.

    Used by: toolkit/mcp/tools.py (ServerTool results).
    """
    errors: list[str] = []
    _conform(value, schema, schema, "structuredContent", errors, 0)
    return errors


def _conform(value: Any, schema: Any, root: Any, path: str, errors: list[str], depth: int) -> None:
    if schema is False:
        errors.append(f"{path}: no value is allowed here")
    if not isinstance(schema, dict):
        return
    if depth > MAX_DEPTH:
        errors.append(f"{path}: the schema nests more than {MAX_DEPTH} levels deep")
        return
    if "$ref" in schema:
        _conform(value, _target(root, schema["$ref"]), root, path, errors, depth + 1)
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if isinstance(kinds, list) and not any(_TYPES.get(k, lambda v: True)(value) for k in kinds):
        errors.append(f"{path}: expected {' or '.join(map(str, kinds))}, got {short_repr(value, 40)}")
        return
    _scalar(value, schema, path, errors)
    _members(value, schema, root, path, errors, depth)
    _combined(value, schema, root, path, errors, depth)


def _scalar(value: Any, schema: dict, path: str, errors: list[str]) -> None:
    """``const``, ``enum``, the number bounds and the string lengths."""
    if "const" in schema and not _same(value, schema["const"]):
        errors.append(f"{path}: must be {schema['const']!r}, got {short_repr(value, 40)}")
    if isinstance(schema.get("enum"), list) and not any(_same(value, e) for e in schema["enum"]):
        errors.append(f"{path}: {short_repr(value, 40)} is not one of {schema['enum']!r}")
    if _TYPES["number"](value):
        for key, broken in _BOUNDS:
            if _TYPES["number"](schema.get(key)) and broken(value, schema[key]):
                errors.append(f"{path}: {value} breaks the {key} {schema[key]}")
    if isinstance(value, str):
        if isinstance(schema.get("minLength"), int) and len(value) < schema["minLength"]:
            errors.append(f"{path}: shorter than {schema['minLength']} characters")
        if isinstance(schema.get("maxLength"), int) and len(value) > schema["maxLength"]:
            errors.append(f"{path}: longer than {schema['maxLength']} characters")


def _members(value: Any, schema: dict, root: Any, path: str, errors: list[str], depth: int) -> None:
    """What arrays and objects hold: item counts, ``prefixItems`` then ``items``; ``required``,
    ``properties`` and ``additionalProperties``."""
    if isinstance(value, list):
        if isinstance(schema.get("minItems"), int) and len(value) < schema["minItems"]:
            errors.append(f"{path}: fewer than {schema['minItems']} items")
        if isinstance(schema.get("maxItems"), int) and len(value) > schema["maxItems"]:
            errors.append(f"{path}: more than {schema['maxItems']} items")
        first: list = schema["prefixItems"] if isinstance(schema.get("prefixItems"), list) else []
        for i, item in enumerate(value):
            sub = first[i] if i < len(first) else schema.get("items", True)
            _conform(item, sub, root, f"{path}[{i}]", errors, depth + 1)
    if isinstance(value, dict):
        props: dict = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
        errors += [f"{path}: missing {k!r}" for k in schema.get("required") or [] if k not in value]
        for key, item in value.items():
            sub = props[key] if key in props else schema.get("additionalProperties", True)
            if sub is False:
                errors.append(f"{path}: {key!r} is not allowed (additionalProperties is false)")
            else:
                _conform(item, sub, root, f"{path}.{key}", errors, depth + 1)


def _combined(value: Any, schema: dict, root: Any, path: str, errors: list[str], depth: int) -> None:
    """``allOf`` (every one), ``anyOf`` (at least one), ``oneOf`` (exactly one), ``not`` (none)."""

    def fits(sub: Any) -> bool:
        found: list[str] = []
        _conform(value, sub, root, path, found, depth + 1)
        return not found

    for sub in schema.get("allOf") or []:
        _conform(value, sub, root, path, errors, depth + 1)
    if schema.get("anyOf") and not any(fits(sub) for sub in schema["anyOf"]):
        errors.append(f"{path}: fits none of the anyOf schemas")
    matched = sum(fits(sub) for sub in schema.get("oneOf") or [])
    if schema.get("oneOf") and matched != 1:
        errors.append(f"{path}: fits {matched} of the oneOf schemas, not exactly one")
    if "not" in schema and fits(schema["not"]):
        errors.append(f"{path}: fits the schema under 'not'")


def _same(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: true is not 1, and containers compare member by member."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b
