"""toolkit.lessons.structured_output: a schema for the final answer, and what it cannot see (notebook 05)."""

import json

import pytest

from toolkit.lessons.structured_output import WEATHER_ANSWER, AnsweringMock, answer_report, check_answer


@pytest.mark.parametrize(
    "reply, expect",
    [
        ('{"city": "Oslo", "temperature": 9, "unit": "celsius"}', []),
        ("It is 9 degrees in Oslo.", ["not JSON"]),
        ('```json\n{"city": "Oslo", "temperature": 9, "unit": "celsius"}\n```', ["not JSON"]),
        ('{"city": "Oslo", "temperature": "9", "unit": "celsius"}', ["temperature"]),
        ('{"city": "Oslo", "temperature": 9}', ["unit"]),
        ('{"city": "Oslo", "temperature": 9, "unit": "kelvin"}', ["kelvin"]),
        ('{"city": "Oslo", "temperature": 9, "unit": "celsius", "note": "x"}', ["note"]),
        (None, ["NoneType"]),
    ],
)
def test_a_reply_fits_the_schema_only_as_one_json_object_of_the_right_shape(reply, expect):
    problems = check_answer(reply, WEATHER_ANSWER)
    assert bool(problems) == bool(expect), problems
    for word in expect:
        assert any(word in p for p in problems), (word, problems)


def test_valid_json_of_the_right_shape_can_still_carry_the_wrong_values():
    faithful, converted, other = (answer_report(s) for s in ("faithful", "converted", "other city"))
    assert faithful["schema problems"] == [] and faithful["values match the tool"] is True
    for report in (converted, other):
        assert report["schema problems"] == [], "the schema accepts it"
        assert report["values match the tool"] is False, "but it does not say what the tool said"
    assert json.loads(converted["answer"])["temperature"] != json.loads(faithful["answer"])["temperature"]


def test_prose_fails_the_schema_and_has_no_values_to_compare():
    report = answer_report("prose")
    assert report["schema problems"] and report["values match the tool"] is None


def test_an_unknown_style_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="faithful"):
        AnsweringMock("sloppy")
