"""Exercise 2 (notebook 05, pack §2.5): a call that is valid and still wrong.

The student writes the arguments of one ``get_weather`` call for a user's request that pass
:func:`~toolkit.schema.validate_args` yet do not do what the user asked. The check validates
them against its own copy of the schema, fills in defaults the way the tool would, compares
with the intended call the way the scorer compares values (:func:`~toolkit.scoring.values_equal`),
and runs the call to show that the tool answers without complaint.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from ..lessons.toy_tools import get_weather, make_weather_registry
from ..schema import schema_from_function, validate_args
from ..scoring import values_equal
from . import Checker, CheckResult, first_answer

__all__ = ["check", "REQUEST", "INTENDED", "intended", "weather_schema", "with_defaults"]

TITLE = "Exercise 2: valid but wrong"
REQUEST = "I'm packing for Oslo. How warm is it there, in Fahrenheit?"


def intended() -> dict:
    """The call the user wanted, built afresh for each check.

    Notebook 05, through check.
    """
    return {"city": "Oslo", "unit": "fahrenheit"}


INTENDED = intended()  # for reading; the check uses its own fresh copy
HOME_COUNTRY = ("norway", "no", "nor", "norge")  # what may follow the intended city after a comma


def _same(key: str, value: object, wanted: object) -> bool:
    """As the scorer compares, and a city with its own country after a comma ("Oslo, Norway",
    "Oslo, NO") is the same city: the call still does what the user asked."""
    if key == "city" and isinstance(value, str) and "," in value:
        city, _, country = value.partition(",")
        return values_equal(city, wanted) and country.strip().strip(".").casefold() in HOME_COUNTRY
    return values_equal(value, wanted)


def weather_schema() -> dict:
    """The schema of the course's ``get_weather`` (lessons/toy_tools.py), built afresh for each
    check, so a cell that edits a schema changes no verdict.

    Notebook 05, through check.
    """
    return schema_from_function(get_weather)


def with_defaults(args: dict, input_schema: dict) -> dict:
    """``args`` plus the schema's default for every property the call left out.

    Notebook 05, through check.
    """
    out = dict(args)
    for name, spec in input_schema.get("properties", {}).items():
        if name not in out and isinstance(spec, dict) and "default" in spec:
            out[name] = spec["default"]
    return out


def check(valid_but_wrong: Callable[[], dict]) -> CheckResult:
    """``valid_but_wrong()`` returns the arguments of a schema-valid, wrong call.

    Notebook 05.
    """
    c = Checker(TITLE)
    schema = weather_schema()["inputSchema"]
    args, report = first_answer(c, valid_but_wrong, "valid_but_wrong() returns the arguments of one call")
    if report is not None:
        return report
    if not c.expect(
        isinstance(args, dict),
        "valid_but_wrong() returns the arguments as a dict",
        f'it returned {type(args).__name__}; return something like {{"city": ...}}',
    ):
        return c.done()
    errors = validate_args(copy.deepcopy(args), schema)
    c.expect(
        not errors,
        "the call passes validate_args, so a harness would run it",
        "validate_args says: " + "; ".join(errors) + ". The exercise wants a call the schema accepts",
    )
    filled, wanted = with_defaults(args, schema), with_defaults(intended(), schema)
    same = set(filled) == set(wanted) and all(_same(k, filled[k], wanted[k]) for k in wanted)
    c.expect(
        not same,
        "it does not do what the user asked (defaults filled in, values compared as the scorer does)",
        f"with defaults filled in, {filled} is the intended call {wanted} (a city named with its "
        "country is still that city); change a value the user cares about, or leave out one they asked for",
    )
    answer = ""
    if not errors and not same:
        answer = make_weather_registry().run("get_weather", args, repair=False).content
    return c.done(
        next_step=f"The tool ran your call and answered {answer!r}; nothing in the schema "
        "noticed. Now write why no schema can catch this, and what could."
    )
