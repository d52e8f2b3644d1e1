"""Tool definitions from Python functions: JSON Schema, checking, and careful repair.

Pack §2.5 ("JSON Schema: the language of arguments") and §2.8 ("Bad arguments"). A function's
hints and docstring become an MCP-shaped tool definition; :func:`validate_args` lists every way
a call breaks it; :func:`repair_args` fixes only slips whose intent is plain, says what it
changed, and never makes up a value the caller did not send.
"""

from __future__ import annotations

import difflib
import inspect
import math
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

__all__ = ["schema_from_function", "parse_docstring", "validate_args", "repair_args"]

_PARAM_HEADERS = {"args", "arguments", "parameters", "params"}
_SECTION_HEADERS = _PARAM_HEADERS | {"returns", "return", "raises", "yields", "examples", "example"}
_PARAM_LINE = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")

_SCALARS = {int: "integer", float: "number", str: "string", bool: "boolean"}
_PYTHON_TYPES: dict = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list}
_PYTHON_TYPES |= {"object": dict, "null": type(None)}
_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), ((list, tuple), "array"))


def _json_type(value: Any) -> str:
    """The JSON name of a Python value's type, as error messages show it."""
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "object"
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), type(value).__name__)


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its summary and per-parameter texts.

    The summary is the text before the first section header (``Args:``, ``Returns:`` …), its
    lines joined by single spaces. Each ``name: text`` or ``name (type): text`` line under
    ``Args:`` (or ``Arguments:``, ``Parameters:``) starts a parameter's text; deeper lines go on.

    Notebook 05, through schema_from_function.
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    section = None  # None (summary), "params", or "other"
    param_indent = current = None
    for raw in lines:
        stripped = raw.strip()
        indent = len(raw) - len(raw.lstrip())
        header = stripped[:-1].lower() if stripped.endswith(":") else None
        if not stripped:
            continue
        if header in _SECTION_HEADERS and (section is None or indent == 0):
            section = "params" if header in _PARAM_HEADERS else "other"
            param_indent, current = None, None
        elif section is None:
            summary.append(stripped)
        elif section == "params":
            match = _PARAM_LINE.match(stripped)
            if match and (param_indent is None or indent <= param_indent):
                param_indent = indent
                current = match.group(1).lstrip("*")
                params[current] = match.group(2).strip()
            elif current is not None:
                params[current] = (params[current] + " " + stripped).strip()
    return " ".join(summary), params


def _unwrap_optional(hint: Any) -> tuple[Any, bool]:
    """``Optional[X]`` (or ``X | None``) gives ``(X, True)``; anything else ``(hint, False)``."""
    origin = typing.get_origin(hint)
    if origin is Union or (hasattr(types, "UnionType") and origin is types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(hint)) == 2:
            return args[0], True
    return hint, False


def _schema_for_hint(hint: Any, where: str) -> dict:
    hint, _ = _unwrap_optional(hint)
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    origin = typing.get_origin(hint)
    # typing.List / typing.Dict: the bare old spellings, still accepted (pyupgrade would drop them)
    if hint is list or origin is list or hint is typing.List:  # noqa: UP006
        args = typing.get_args(hint)
        return {"type": "array", "items": _schema_for_hint(args[0], where)} if args else {"type": "array"}
    if hint is dict or origin is dict or hint is typing.Dict:  # noqa: UP006
        return {"type": "object"}
    if origin is Literal:
        values = list(typing.get_args(hint))
        first = values[0]
        kind = "boolean" if isinstance(first, bool) else _SCALARS.get(type(first))
        if kind is None:
            raise TypeError(f"{where}: Literal values must be str, int, float or bool, got {first!r}")
        return {"type": kind, "enum": values}
    use = "int, float, str, bool, list[...], dict, Literal[...] or Optional[...]"
    raise TypeError(f"{where}: the type hint {hint!r} has no JSON Schema mapping here; use {use}")


def schema_from_function(fn: Callable, name: str | None = None) -> dict:
    """Build ``{"name", "description", "inputSchema"}`` for ``fn`` from its hints and docstring.

    Pack §2.5: the schema is what the model reads, so the docstring's words become the tool's
    and each parameter's description. ``*args`` and ``**kwargs`` are left out; a parameter with
    no default (and not ``Optional``) is required; a simple default is copied into the schema.

    Notebook 05.
    """
    fn_name = getattr(fn, "__name__", repr(fn))
    try:
        hints = typing.get_type_hints(fn)
    except Exception as exc:  # an unresolvable forward reference, say
        raise TypeError(f"could not read the type hints of {fn_name!r}: {exc}") from None
    description, param_docs = parse_docstring(inspect.getdoc(fn))
    properties: dict[str, dict] = {}
    required: list[str] = []
    for pname, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if pname not in hints:
            unknown = f"parameter {pname!r} has no type hint, so its JSON type is unknown"
            raise TypeError(f"function {fn_name!r}: {unknown}; add one such as `city: str`")
        hint = hints[pname]
        prop = _schema_for_hint(hint, f"function {fn_name!r}, parameter {pname!r}")
        if param_docs.get(pname):
            prop["description"] = param_docs[pname]
        default = param.default
        if default is not param.empty:
            if isinstance(default, (bool, int, float, str)):
                prop["default"] = default
        elif not _unwrap_optional(hint)[1]:
            required.append(pname)
        properties[pname] = prop
    input_schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return {"name": name or fn_name, "description": description or fn_name, "inputSchema": input_schema}


def _fits_type(value: Any, kind: str) -> bool:
    """Whether ``value`` has the JSON type ``kind``; a type name we do not know blocks nothing."""
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False  # in JSON, true is not 1
    return kind not in _PYTHON_TYPES or isinstance(value, _PYTHON_TYPES[kind])


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending in "..." when it was cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters; never raises (an integer too long to
    print, a deeply nested list or an object whose ``repr`` fails get a stand-in)."""
    try:
        text = repr(value)
    except RecursionError:
        text = f"<deeply nested {_json_type(value)}>"
    except Exception:
        text = f"<{_json_type(value)} too large or odd to show>"
    return clip(text, limit)


def _check_value(value: Any, schema: object, path: str, errors: list[str]) -> None:
    if not isinstance(schema, dict):  # a schema from outside may hold `true` or junk here
        return
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_fits_type(value, k) for k in kinds):
            expected = " or ".join(str(k) for k in kinds)
            errors.append(f"{path}: expected {expected}, got {_json_type(value)} ({short_repr(value)})")
            return
    if "enum" in schema and not any(_same_json(value, e) for e in schema["enum"]):
        errors.append(f"{path}: {short_repr(value)} is not one of {schema['enum']!r}")
        return
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            _check_value(item, schema["items"], f"{path}[{i}]", errors)
    if isinstance(value, dict) and ("properties" in schema or "required" in schema):
        _check_object(value, schema, path + ".", errors)


def _same_json(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: True is not 1."""
    return a == b and isinstance(a, bool) == isinstance(b, bool)


def _check_object(args: dict, schema: dict, prefix: str, errors: list[str]) -> None:
    props = schema.get("properties") or {}
    for req in schema.get("required") or []:
        if req not in args:
            errors.append(f"missing required parameter '{prefix}{req}'")
    closed = schema.get("additionalProperties", True) is False
    for key, value in args.items():
        if not isinstance(key, str):
            errors.append(f"parameter names must be strings, got {_json_type(key)} {short_repr(key)}")
        elif key in props:
            _check_value(value, props[key], f"{prefix}{key}", errors)
        elif closed:
            errors.append(f"unknown parameter '{prefix}{key}'")


def validate_args(args: Any, input_schema: dict) -> list[str]:
    """Every way ``args`` breaks ``input_schema``, as sentences; an empty list means valid.

    Pack §2.2, the harness's first job. Checked: the arguments form an object, required keys
    are there, no unknown keys when ``additionalProperties`` is false, JSON types (a bool is
    never a number), ``enum``, each array item (``xs[1]``), nested objects (``address.city``).

    Notebooks 05, 06.
    """
    if not isinstance(args, dict):
        return [f"arguments must be an object, got {_json_type(args)}"]
    errors: list[str] = []
    _check_object(args, input_schema or {}, "", errors)
    return errors


_INT_TEXT = re.compile(r"^\s*[+-]?\d+\s*$")
_NUMBER_TEXT = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")
_NO_FIX = object()  # what _converted returns when the intent is unclear


def _fix_value(value: Any, schema: object) -> tuple[Any, str | None]:
    """One safe fix for one value, or ``(value, None)`` when there is none to make."""
    if not isinstance(schema, dict):
        return value, None
    kind, enum, note = schema.get("type"), schema.get("enum"), None
    if isinstance(kind, str) and not _fits_type(value, kind):
        try:
            fixed = _converted(value, kind)
        except (ValueError, OverflowError):  # digits past Python's int/str limit: leave it to validation
            fixed = _NO_FIX
        if fixed is _NO_FIX:
            return value, None
        note = ("wrapped {} in a list" if kind == "array" else f"converted {{}} to {kind}").format(short_repr(value))
        value = fixed
    if enum and isinstance(value, str) and value not in enum:
        matches = [e for e in enum if isinstance(e, str) and e.lower() == value.lower()]
        if len(matches) == 1:
            note = f"fixed case of {value!r} to {matches[0]!r}" if note is None else note
            value = matches[0]
    if kind == "array" and isinstance(value, list) and isinstance(schema.get("items"), dict):
        fixes = [_fix_value(item, schema["items"]) for item in value]
        item_notes = [f"[{i}] {item_note}" for i, (_, item_note) in enumerate(fixes) if item_note]
        if item_notes:
            value = [fixed for fixed, _ in fixes]
            note = "; ".join(([note] if note else []) + item_notes)
    return value, note


def _converted(value: Any, kind: str) -> Any:
    """``value`` converted to the JSON type ``kind``, or ``_NO_FIX`` when the intent is unclear."""
    if kind == "integer":
        if isinstance(value, float) and not isinstance(value, bool) and value.is_integer():
            return int(value)
        if isinstance(value, str) and _INT_TEXT.match(value):
            return int(value)
    elif kind == "number":
        if isinstance(value, str) and _NUMBER_TEXT.match(value):
            number = int(value) if _INT_TEXT.match(value) else float(value)
            if math.isfinite(number):
                return number
    elif kind == "boolean":
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
    elif kind == "string":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
    elif kind == "array":
        if not isinstance(value, (list, dict)) and value is not None:
            return [value]
    return _NO_FIX


_MAX_MATCHED_KEY = 200  # difflib is quadratic in length; longer keys are only matched by case


def _matching_parameter(key: str, free: list) -> str | None:
    """The free parameter ``key`` was surely meant to be: same letters ignoring case, or a
    close spelling (difflib ratio at least 0.75). None when there is no such parameter."""
    same_case = [p for p in free if isinstance(p, str) and p.lower() == key.lower()]
    if same_case:
        return same_case[0]
    if len(key) > _MAX_MATCHED_KEY:
        return None
    close = difflib.get_close_matches(key, [p for p in free if isinstance(p, str)], n=1, cutoff=0.75)
    return close[0] if close else None


def repair_args(args: Any, input_schema: dict) -> tuple[Any, list[str]]:
    """Fix small, unambiguous slips in ``args`` and describe each fix.

    Pack §2.8 ("Bad arguments"). Unknown keys are renamed to a free parameter that matches
    ignoring case or by close spelling (difflib ratio at least 0.75), or else dropped. Values
    get one of a few conversions: an enum's letter case; a whole float or a string of digits
    to an integer (never a word such as "two"); a numeric string to a number; "true"/"false"
    to a boolean; a number to a string; one value wrapped in a list. A value that fits is left
    alone, and a missing parameter is never filled in: inventing an order id or an amount is
    how a harmless slip becomes a harmful action. Returns ``(new_args, notes)``, a new dict.

    Notebook 05.
    """
    if not isinstance(args, dict) or not isinstance(input_schema, dict):
        return args, []
    props = input_schema.get("properties") or {}
    closed = input_schema.get("additionalProperties", True) is False
    notes: list[str] = []
    out: dict = {}
    taken = {k for k in args if k in props}
    for key, value in args.items():
        target = key
        if isinstance(key, str) and key not in props and closed:
            target = _matching_parameter(key, [p for p in props if p not in taken])
            if target is None:
                notes.append(f"dropped unknown parameter {short_repr(key)}")
                continue
            taken.add(target)
            notes.append(f"renamed parameter {short_repr(key)} to {target!r}")
        if target in props:
            value, note = _fix_value(value, props[target])
            if note:
                notes.append(f"{target}: {note}")
        out[target] = value
    return out, notes
