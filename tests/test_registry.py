"""The registry: tools, their flags, and messages that teach (pack §2.2, §2.7; API.md §1)."""

from typing import Literal

import pytest

import toolkit as T


def make_registry():
    reg = T.ToolRegistry()

    @reg.tool()
    def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict:
        """Get the current weather for a city.

        Args:
            city: city name
            unit: temperature unit
        """
        if city == "Atlantis":
            raise T.ToolError("No weather for 'Atlantis'. Try a real city such as Paris.")
        return {"city": city, "temp": 21, "unit": unit}

    def busy(x: int) -> str:
        """Busy."""
        raise T.TransientToolError("Rate limited (429); try again.")

    def broken(x: int) -> str:
        """Broken."""
        return {}["missing"]

    def hello(name: str) -> str:
        """Say hello."""
        return f"hello {name}"

    reg.add(busy)
    reg.add(broken, read_only=False, destructive=True)
    reg.add(hello, name="greet", description="Greet someone by name.", open_world=True)
    return reg, get_weather


def test_decorator_returns_the_function_unchanged_and_registers_it():
    reg, fn = make_registry()
    assert fn("Paris") == {"city": "Paris", "temp": 21, "unit": "celsius"}
    assert reg.names() == ["get_weather", "busy", "broken", "greet"]
    assert reg.get("nope") is None
    assert [s["name"] for s in reg.list_schemas()] == reg.names()


def test_add_options_reach_the_tool_and_its_mcp_annotations():
    reg, _ = make_registry()
    greet = reg.get("greet")
    assert greet.description == "Greet someone by name."
    assert greet.schema()["description"] == "Greet someone by name."
    assert greet.to_mcp()["annotations"] == {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": True}
    assert reg.get("broken").to_mcp()["annotations"] == {
        "readOnlyHint": False, "destructiveHint": True, "openWorldHint": False}
    assert set(greet.schema()) == {"name", "description", "inputSchema"}


def test_duplicate_names_are_refused():
    reg, _ = make_registry()
    with pytest.raises(ValueError):
        reg.register(reg.get("busy"))


def test_unknown_tool_suggests_a_close_name_and_lists_the_tools():
    reg, _ = make_registry()
    r = reg.run("get_wether", {"city": "Paris"})
    assert (r.ok, r.kind) == (False, "unknown_tool")
    assert r.content == ("Unknown tool 'get_wether'. Did you mean 'get_weather'? "
                         "Available tools: get_weather, busy, broken, greet.")
    far = reg.run("launch_rocket", {})
    assert "Did you mean" not in far.content and "Available tools: get_weather" in far.content


def test_invalid_args_name_every_error_and_the_expected_properties():
    reg, _ = make_registry()
    r = reg.run("get_weather", {"town": 5, "unit": "kelvin"}, repair=False)
    assert r.kind == "invalid_args" and not r.ok
    for part in ("missing required parameter 'city'", "unknown parameter 'town'",
                 "unit: 'kelvin' is not one of", "city (string, required)", "unit (one of 'celsius', 'fahrenheit')"):
        assert part in r.content


def test_repair_runs_first_and_its_notes_are_kept():
    reg, _ = make_registry()
    r = reg.run("get_weather", {"citty": "Rome", "unit": "Fahrenheit"})
    assert r.ok and r.data == {"city": "Rome", "temp": 21, "unit": "fahrenheit"}
    assert r.notes == ["renamed parameter 'citty' to 'city'", "unit: fixed case of 'Fahrenheit' to 'fahrenheit'"]
    assert reg.run("get_weather", {"citty": "Rome"}, repair=False).kind == "invalid_args"


def test_result_kinds_for_failures_and_success():
    reg, _ = make_registry()
    assert reg.run("get_weather", {"city": "Atlantis"}).kind == "tool_error"
    assert reg.run("get_weather", {"city": "Atlantis"}).content == "No weather for 'Atlantis'. Try a real city such as Paris."
    busy = reg.run("busy", {"x": 1})
    assert (busy.kind, busy.content) == ("transient", "Rate limited (429); try again.")
    crash = reg.run("broken", {"x": 1})
    assert crash.kind == "crash" and "KeyError" in crash.content
    text = reg.run("greet", {"name": "Ada"})
    assert (text.ok, text.kind, text.content, text.data) == (True, "ok", "hello Ada", None)
    obj = reg.run("get_weather", {"city": "Paris"})
    assert obj.content == '{"city": "Paris", "temp": 21, "unit": "celsius"}' and obj.data["temp"] == 21


def test_none_arguments_mean_empty_and_non_dict_arguments_are_reported():
    reg = T.ToolRegistry()

    def now() -> str:
        """The time."""
        return "noon"

    reg.add(now)
    assert reg.run("now", None).content == "noon"
    bad = reg.run("now", "tomorrow")
    assert bad.kind == "invalid_args" and "arguments must be an object, got string" in bad.content


def test_run_never_raises_even_for_odd_input():
    reg, _ = make_registry()
    for name, args in [(None, None), (5, {}), ("get_weather", [1, 2]), ("get_weather", {"city": object()})]:
        r = reg.run(name, args)
        assert isinstance(r, T.ToolResult) and not r.ok
