"""The optional your-turn check of notebook 05 §6 (toolkit/checks/opt05_final_answer.py)."""

import json

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

from toolkit.checks import opt05_final_answer
from toolkit.lessons.structured_output import check_answer


def test_solution_passes(nb05_solution):
    assert opt05_final_answer.check(nb05_solution["readings_schema"], nb05_solution["answer_problems"]).ok


def test_starter_is_not_done(nb05_starter, capsys):
    result = opt05_final_answer.check(nb05_starter["readings_schema"], nb05_starter["answer_problems"])
    assert_not_done(result, capsys)


def loose_schema():
    """The cheapest schema: no required fields, no enum, extra fields allowed."""
    return {"type": "object", "properties": {"readings": {"type": "array"}}}


@pytest.mark.parametrize(
    "schema, fragment",
    [
        (loose_schema, "but temperature is missing"),
        (lambda: {"type": "object"}, "but temperature is missing"),
        (lambda: ["readings"], "should return a JSON Schema object"),
    ],
)
def test_loose_schemas_fail(nb05_solution, schema, fragment):
    assert_fails_with_sentence(opt05_final_answer.check(schema, nb05_solution["answer_problems"]), fragment)


def shape_only(schema):
    return lambda reply, results: check_answer(reply, schema())


def first_only(reply, results):
    """Compares the first reading only."""
    try:
        first = json.loads(reply)["readings"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return ["not the shape"]
    r = results[0]
    return [] if (first["city"], first["temperature"]) == (r["city"], r["temp"]) else ["first reading wrong"]


def oslo_only(reply, results):
    """Hard-codes the notebook's example city."""
    return [] if "Oslo" in reply else ["no Oslo"]


@pytest.mark.parametrize(
    "make, fragment",
    [
        (lambda s: shape_only(s), "found nothing wrong with a temperature converted"),
        (lambda s: first_only, "found nothing wrong with the second city swapped"),
        (lambda s: oslo_only, "rejects a faithful reply"),
        (lambda s: lambda reply, results: [], "found nothing wrong with a sentence"),
        (lambda s: lambda reply, results: "fine", "return a list of sentences"),
    ],
)
def test_lazy_validators_fail(nb05_solution, make, fragment):
    schema = nb05_solution["readings_schema"]
    assert_fails_with_sentence(opt05_final_answer.check(schema, make(schema)), fragment)


def test_order_sensitive_validator_fails(nb05_solution):
    def in_order(reply, results):
        problems = check_answer(reply, nb05_solution["readings_schema"]())
        if problems:
            return problems
        said = [(r["city"], r["temperature"], r["unit"]) for r in json.loads(reply)["readings"]]
        return [] if said == [(r["city"], r["temp"], r["unit"]) for r in results] else ["differs"]

    result = opt05_final_answer.check(nb05_solution["readings_schema"], in_order)
    assert_fails_with_sentence(result, "rejects a faithful reply listing the cities in another order")


def test_never_raises(nb05_solution):
    assert_fails_with_sentence(opt05_final_answer.check(boom, nb05_solution["answer_problems"]), "KeyError")
