"""Your turn in notebook 05 §6 (optional, beyond the pack): a schema and a validator for a final answer.

A user asks for the weather in several cities; the program reading the reply wants one JSON
object, ``{"readings": [{"city", "temperature", "unit"}, ...]}``. The student writes
``readings_schema()``, the output schema a vendor would enforce with structured outputs [51]
[52], and ``answer_problems(reply, tool_results)``, which returns what is wrong with a reply:
first its shape (through :func:`~toolkit.lessons.structured_output.check_answer` and the
student's schema), then its values against what the tools returned, which no schema can see.
The check uses cities, units and replies the notebook never shows.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import partial

from ..schema import validate_args
from . import Checker, CheckResult, not_done, probe_parts

__all__ = ["check", "EXAMPLE_RESULTS"]

TITLE = "Your turn (05 §6): a schema and a validator for the final answer"

EXAMPLE_RESULTS = [{"city": "Oslo", "temp": 9, "unit": "celsius"}, {"city": "Rome", "temp": 21, "unit": "celsius"}]


def _reading(r: dict) -> dict:
    return {"city": r["city"], "temperature": r["temp"], "unit": r["unit"]}


def _reply(results: list[dict]) -> str:
    return json.dumps({"readings": [_reading(r) for r in results]})


UNSEEN = [
    {"city": "Lima", "temp": 17.5, "unit": "celsius"},
    {"city": "Denver", "temp": 61, "unit": "fahrenheit"},
    {"city": "Nairobi", "temp": 24, "unit": "celsius"},
]

GOOD_ANSWERS = [
    {"readings": [_reading(r) for r in UNSEEN]},
    {"readings": [{"city": "Quito", "temperature": -2.5, "unit": "fahrenheit"}]},
]

BROKEN_ANSWERS: tuple[tuple[dict, str], ...] = (
    ({"readings": [{"city": "Lima", "unit": "celsius"}]}, 'temperature is missing; list it in the item\'s "required"'),
    ({"readings": [{"city": "Lima", "temperature": "17 C", "unit": "celsius"}]}, "temperature is text"),
    (
        {"readings": [{"city": "Lima", "temperature": 17, "unit": "kelvin"}]},
        'kelvin is not a unit the tool uses; an "enum"',
    ),
    (
        {"readings": [{"city": "Lima", "temperature": 17, "unit": "celsius", "note": "hi"}]},
        'an extra field; "additionalProperties": false',
    ),
    ({"readings": {"city": "Lima", "temperature": 17, "unit": "celsius"}}, "readings is not a list"),
    ({}, 'readings is missing; list it in "required"'),
    ({"readings": [], "summary": "warm"}, 'an extra top-level field; "additionalProperties": false'),
)


def _schema(c: Checker, readings_schema: Callable) -> dict:
    s = c.call(readings_schema)
    assert isinstance(s, dict) and s.get("type") == "object", (
        'readings_schema() should return a JSON Schema object: {"type": "object", ...}'
    )
    return s


def _schema_accepts(c: Checker, readings_schema: Callable) -> bool:
    s = _schema(c, readings_schema)
    for good in GOOD_ANSWERS:
        errors = validate_args(copy.deepcopy(good), s)
        assert not errors, f"your schema rejects a right answer {good}: " + "; ".join(errors)
    return True


def _schema_rejects(c: Checker, readings_schema: Callable) -> bool:
    s = _schema(c, readings_schema)
    for broken, why in BROKEN_ANSWERS:
        assert validate_args(copy.deepcopy(broken), s), f"your schema accepts {json.dumps(broken)}, but {why}"
    return True


def _converted(results: list[dict]) -> str:
    out = json.loads(_reply(results))
    out["readings"][0]["temperature"] = round(results[0]["temp"] * 9 / 5 + 32)
    return json.dumps(out)


def _second_city_wrong(results: list[dict]) -> str:
    out = json.loads(_reply(results))
    out["readings"][1]["city"] = "Bergen"
    return json.dumps(out)


def _unit_relabelled(results: list[dict]) -> str:
    out = json.loads(_reply(results))
    out["readings"][1]["unit"] = "celsius" if results[1]["unit"] == "fahrenheit" else "fahrenheit"
    return json.dumps(out)


def _reordered(results: list[dict]) -> str:
    return json.dumps({"readings": [_reading(r) for r in reversed(results)]})


# (what the reply is, how to make it from the tool results, should it be flagged)
REPLIES: list[tuple[str, Callable[[list], str], bool]] = [
    ("a faithful reply", _reply, False),
    ("a faithful reply listing the cities in another order", _reordered, False),
    ("a sentence instead of JSON", lambda rs: f"It is {rs[0]['temp']} degrees in {rs[0]['city']}.", True),
    ("the right JSON inside a Markdown fence", lambda rs: "```json\n" + _reply(rs) + "\n```", True),
    ("a temperature converted but still labelled with the old unit", _converted, True),
    ("the second city swapped for another", _second_city_wrong, True),
    ("the second reading's unit relabelled", _unit_relabelled, True),
    ("a city left out", lambda rs: _reply(rs[:-1]), True),
    (
        "a city the tools never looked up added",
        lambda rs: _reply(rs + [{"city": "Paris", "temp": 12, "unit": "celsius"}]),
        True,
    ),
]


def _judges(c: Checker, answer_problems: Callable, label: str, make: Callable, flag: bool) -> bool:
    results = copy.deepcopy(UNSEEN)
    problems = c.call(answer_problems, make(results), results)
    assert isinstance(problems, list), f"answer_problems returned {type(problems).__name__}; return a list of sentences"
    if flag:
        assert problems, f"answer_problems found nothing wrong with {label}"
        assert all(isinstance(p, str) and p.strip() for p in problems), "each problem should be a sentence (a str)"
    else:
        assert not problems, f"answer_problems rejects {label}: {problems[:2]}"
    return True


def check(readings_schema: Callable, answer_problems: Callable) -> CheckResult:
    """``readings_schema()`` and ``answer_problems(reply, tool_results)`` for a several-city answer.

    Notebook 05.
    """
    c = Checker(TITLE)
    parts = {
        "readings_schema": (readings_schema, ()),
        "answer_problems": (answer_problems, (_reply(EXAMPLE_RESULTS), EXAMPLE_RESULTS)),
    }
    if probe_parts(c, parts)[1]:
        return not_done(TITLE)
    c.run("the schema accepts right answers you have not seen", lambda: _schema_accepts(c, readings_schema))
    c.run("the schema rejects seven broken answers", lambda: _schema_rejects(c, readings_schema))
    for label, make, flag in REPLIES:
        verb = "flags" if flag else "accepts"
        c.run(
            f"answer_problems {verb} {label} (unseen cities)",
            partial(_judges, c, answer_problems, label, make, flag),
        )
    return c.done(
        next_step="Structured outputs would make the first two kinds of reply impossible; the other "
        "five stay possible, and only your value check finds them."
    )
