"""Structured outputs for the final answer (notebook 05; pack §2.3, beyond the pack).

Vendors can hold a model's final reply to a JSON Schema, as they hold tool arguments in strict
mode. This module checks a reply against such a schema with the toolkit's own validator, and
then asks the question the schema cannot answer: are the values the ones the tools returned?
``AnsweringMock`` is a mock model (no language model) with one way of answering per ``style``.
"""

from __future__ import annotations

import json
from typing import Any

from ..loop import call, run_agent
from ..schema import validate_args
from .toy_tools import make_weather_registry

__all__ = ["WEATHER_ANSWER", "check_answer", "AnsweringMock", "answer_report"]

WEATHER_ANSWER: dict = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperature": {"type": "number"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["city", "temperature", "unit"],
    "additionalProperties": False,
}


def check_answer(text: Any, schema: dict) -> list[str]:
    """Every way a final reply breaks ``schema``, as sentences; ``[]`` when it fits.

    The reply must be one JSON object (no prose, no Markdown fence), then the same checks as
    tool arguments (:func:`~toolkit.schema.validate_args`).

    Notebook 05.
    """
    if not isinstance(text, str):
        return [f"the reply is {type(text).__name__}, not text holding JSON"]
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        return [f"the reply is not JSON ({err.msg} at character {err.pos}): send only the object"]
    return validate_args(value, schema)


class AnsweringMock:
    """A mock model: looks up the weather once, then answers in one ``style``.

    ``"faithful"`` copies the tool's result into the schema's fields; ``"prose"`` writes a
    sentence; ``"converted"`` fits the schema but turns the tool's Celsius into Fahrenheit and
    keeps the unit ``"celsius"``; ``"other city"`` fits the schema with the wrong city.

    Notebook 05.
    """

    STYLES = ("faithful", "prose", "converted", "other city")

    def __init__(self, style: str = "faithful", city: str = "Oslo") -> None:
        if style not in self.STYLES:
            raise ValueError(f"style {style!r}: choose one of {', '.join(self.STYLES)}")
        self.style, self.city = style, city

    def respond(self, messages: list, tools: list) -> dict:
        results = [m for m in messages if m["role"] == "tool"]
        if not results:
            return {"tool_calls": [call("w1", "get_weather", city=self.city)]}
        seen = json.loads(results[-1]["content"])
        answer = _faithful(seen)
        if self.style == "prose":
            return {"content": f"It is {seen['temp']} degrees in {seen['city']}."}
        if self.style == "converted":
            answer["temperature"] = round(seen["temp"] * 9 / 5 + 32)
        if self.style == "other city":
            answer["city"] = "Bergen"
        return {"content": json.dumps(answer)}


def _faithful(weather: dict) -> dict:
    """A get_weather result in :data:`WEATHER_ANSWER`'s fields, values unchanged."""
    return {"city": weather["city"], "temperature": weather["temp"], "unit": weather["unit"]}


def answer_report(style: str, city: str = "Oslo") -> dict:
    """Run one ``AnsweringMock`` and judge its answer twice: against the schema, and against the tool.

    Returns ``{"answer", "schema problems", "values match the tool"}``; the last is ``None``
    when the answer is not a JSON object at all.

    Notebook 05.
    """
    result = run_agent(AnsweringMock(style, city), make_weather_registry(), f"Weather in {city}?", call_timeout=None)
    problems = check_answer(result.final, WEATHER_ANSWER)
    tool_data = result.results[-1][1].data
    try:
        answer = json.loads(result.final or "")
    except json.JSONDecodeError:
        answer = None
    match = answer == _faithful(tool_data) if isinstance(answer, dict) else None
    return {"answer": result.final, "schema problems": problems, "values match the tool": match}
