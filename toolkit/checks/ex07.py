"""Exercise 7 (notebook 06, pack §2.6): output schemas and a client that checks them.

A tool may declare an ``outputSchema``; its results then carry ``structuredContent``, a JSON
object that should match it, and the spec says clients should check that it does [3]. The
toolkit's server does not publish output schemas, so :class:`toolkit.lessons.output_schemas.OutputSchemaServer` adds them to
``tools/list`` without touching the core. The student writes the schema for the weather tool
and ``check_structured(result, output_schema)``, a client-side check that uses
:func:`~toolkit.schema.validate_args` as its JSON Schema checker.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable

from ..lessons.output_schemas import weather_results
from ..schema import validate_args
from . import Checker, CheckResult, not_done, probe_parts

__all__ = ["check"]

TITLE = "Exercise 7: output schemas"


def reference_schema() -> dict:
    """The check's own schema for get_weather's structured result (used on the unseen results),
    built afresh for each check so no cell can change it."""
    return {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "temp": {"type": "number"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city", "temp", "unit"],
    }


def _result(structured=None, is_error=False, text=None) -> dict:
    out = {
        "content": [{"type": "text", "text": text if text is not None else json.dumps(structured)}],
        "isError": is_error,
    }
    if structured is not None:
        out["structuredContent"] = structured
    return out


def stock_schema() -> dict:
    """An unseen tool's output schema: a client check must use the schema it is given."""
    return {
        "type": "object",
        "properties": {"ticker": {"type": "string"}, "price": {"type": "number"}},
        "required": ["ticker", "price"],
    }


def _without_is_error(result: dict) -> dict:
    """The same result without its optional ``isError`` key (the spec lets a server leave it out)."""
    return {k: v for k, v in copy.deepcopy(result).items() if k != "isError"}


def _schema(c: Checker, weather_output_schema: Callable) -> dict:
    s = c.call(weather_output_schema)
    if not isinstance(s, dict) or s.get("type") != "object":
        raise AssertionError('the output schema should be a JSON Schema object: {"type": "object", ...}')
    return s


def _accepts_real(c: Checker, weather_output_schema: Callable, good: list) -> bool:
    s = _schema(c, weather_output_schema)
    for r in good:
        errors = validate_args(copy.deepcopy(r["structuredContent"]), s)
        assert not errors, f"your schema rejects a real result {r['structuredContent']}: " + "; ".join(errors)
    fraction = {"city": "Oslo", "temp": 9.5, "unit": "celsius"}
    assert not validate_args(copy.deepcopy(fraction), s), (
        f'your schema rejects {fraction}, but a temperature of 9.5 is fine; give temp the type "number"'
    )
    return True


BROKEN = (
    ({"city": "Oslo", "unit": "celsius"}, 'temp is missing; list the fields in "required"'),
    ({"city": "Oslo", "temp": "9 C", "unit": "celsius"}, 'temp is a string; give temp a numeric "type"'),
    ({"temp": 9, "unit": "celsius"}, 'city is missing; list it in "required"'),
    ({"city": "Oslo", "temp": 9, "unit": "kelvin"}, 'kelvin is not one of the two units; give unit an "enum"'),
)


def _rejects_broken(c: Checker, weather_output_schema: Callable) -> bool:
    s = _schema(c, weather_output_schema)
    for broken, why in BROKEN:
        assert validate_args(copy.deepcopy(broken), s), f"your schema accepts {broken}, but {why}"
    return True


def _client_cases(reference: dict, stock: dict, good: list) -> list:
    """(label, result, the tool's outputSchema, should it be flagged)."""
    return [
        ("a result that matches", _result(good[0]["structuredContent"]), reference, False),
        ("temp sent as text", _result({"city": "Lima", "temp": "17 C", "unit": "celsius"}), reference, True),
        ("a field missing", _result({"city": "Lima", "unit": "celsius"}), reference, True),
        ("no structuredContent at all", _result(text="17 degrees in Lima"), reference, True),
        (
            "no structuredContent, only the data as JSON text (a client may not parse text for it)",
            _result(text=json.dumps(good[0]["structuredContent"])),
            reference,
            True,
        ),
        ("structuredContent that is a list", {**_result(text="[17]"), "structuredContent": [17]}, reference, True),
        (
            "an isError result (nothing structured to check)",
            _result(is_error=True, text="No weather for 'Atlantis'."),
            reference,
            False,
        ),
        ("a tool with no outputSchema", _result(text="plain text"), None, False),
        ("a result that matches another tool's schema", _result({"ticker": "ACME", "price": 12.5}), stock, False),
        ("a result that breaks another tool's schema", _result({"ticker": "ACME", "price": "n/a"}), stock, True),
        ('a matching result without "isError" (the key is optional)', _without_is_error(good[1]), reference, False),
        ('a broken result without "isError"', _without_is_error(_result({"city": "Lima"})), reference, True),
    ]


def _client_check(c: Checker, check_structured: Callable, case: tuple) -> bool:
    label, result, out_schema, should_flag = case
    problems = c.call(check_structured, copy.deepcopy(result), copy.deepcopy(out_schema))
    if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
        raise AssertionError(f"check_structured should return a list of strings, got {problems!r}")
    if should_flag:
        assert problems, f"it returned [] for {label}; that result breaks the declared schema"
    else:
        assert not problems, f"it flagged {label}: {problems}; this result is fine"
    return True


def check(weather_output_schema: Callable[[], dict], check_structured: Callable[[dict, dict], list]) -> CheckResult:
    """Check the student's schema on real and broken results, and their client-side check on
    unseen results, one of them for another tool with its own schema.

    Notebook 06.
    """
    c = Checker(TITLE)
    reference = reference_schema()
    good = weather_results()
    parts: dict[str, tuple[Callable, tuple]] = {
        "weather_output_schema": (weather_output_schema, ()),
        "check_structured": (check_structured, (copy.deepcopy(good[0]), reference)),
    }
    if probe_parts(c, parts)[1]:
        return not_done(TITLE)
    c.run(
        "your outputSchema accepts the weather tool's real results",
        lambda: _accepts_real(c, weather_output_schema, good),
    )
    c.run(
        "your outputSchema rejects results with a field missing or mistyped",
        lambda: _rejects_broken(c, weather_output_schema),
    )
    for case in _client_cases(reference, stock_schema(), good):
        verb = "flags" if case[3] else "accepts"
        c.run(f"check_structured {verb} {case[0]}", functools.partial(_client_check, c, check_structured, case))
    return c.done(next_step="Now say what the client should do when the check fails.")
