"""Small tools for the demo and the stdio server (pack §4, "Run the demo").

``make_weather_registry`` gives the loop demo's three tools: a weather look-up, a rate
service that fails once with a transient error, and a look-up too slow for its time limit.
``make_server_registry`` gives the two tools ``python -m toolkit serve`` offers.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from ..data import load_json
from ..registry import ToolError, ToolRegistry, TransientToolError

__all__ = ["make_weather_registry", "make_server_registry", "sample_args"]


def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict:
    """Get the current weather for a city.

    Args:
        city: city name, such as Paris
        unit: temperature unit
    """
    temps = load_json("weather.json")["celsius"]
    match = next((c for c in temps if c.lower() == city.strip().lower()), None)
    if match is None:
        raise ToolError(f"No weather for {city!r}. Cities with data: {', '.join(temps)}.")
    celsius = temps[match]
    temp = celsius if unit == "celsius" else round(celsius * 9 / 5 + 32)
    return {"city": match, "temp": temp, "unit": unit}


def make_weather_registry(slow_seconds: float = 0.5) -> ToolRegistry:
    """The weather tools of the loop lessons: ``get_weather``, a ``flaky_rate`` that is busy on its first call and a ``slow_lookup`` that takes ``slow_seconds``.

    Notebooks 02, 06.
    """
    registry = ToolRegistry()
    flaky_calls = {"n": 0}

    def flaky_rate(currency: str) -> str:
        """Exchange rate of a currency against the US dollar. Busy on its first call.

        Args:
            currency: a three-letter code, such as EUR
        """
        flaky_calls["n"] += 1
        if flaky_calls["n"] == 1:
            raise TransientToolError("Rate service busy (HTTP 429). Try again shortly.")
        return f"{currency.upper()}=1.08"

    def slow_lookup(key: str) -> str:
        """Look up a key in a slow archive.

        Args:
            key: what to look up
        """
        time.sleep(slow_seconds)
        return f"archive entry for {key}"

    registry.add(get_weather)
    registry.add(flaky_rate)
    registry.add(slow_lookup)
    return registry


def make_server_registry() -> ToolRegistry:
    """The two toy tools an MCP server offers in the lessons: ``echo`` and ``add``.

    Notebook 06.
    """
    registry = ToolRegistry()

    def echo(text: str) -> str:
        """Return the text unchanged.

        Args:
            text: any text
        """
        return text

    def add(a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: the first number
            b: the second number
        """
        return a + b

    registry.add(echo)
    registry.add(add)
    return registry


_SAMPLE_KEYS = ("string", "integer", "number", "boolean", "array", "object")


def sample_args(tool) -> dict:
    """A value of the right type for each required parameter of ``tool``.

    Notebook 08.
    """
    schema = tool.input_schema or {}
    props = schema.get("properties") or {}
    # fresh for each call: a tool may change its arguments
    sample: dict[Any, object] = dict(zip(_SAMPLE_KEYS, ("ACME", 1, 1.0, True, [], {})))
    return {p: sample.get((props.get(p) or {}).get("type"), "x") for p in schema.get("required") or []}
