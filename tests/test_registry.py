"""The registry: tools, their flags, and messages that teach (pack §2.2, §2.7; API.md §1)."""

from typing import Literal

import pytest

import toolkit as T
from toolkit.registry import to_text


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
        "readOnlyHint": False,
        "destructiveHint": True,
        "openWorldHint": False,
    }
    assert set(greet.schema()) == {"name", "description", "inputSchema"}


def test_duplicate_names_are_refused():
    reg, _ = make_registry()
    with pytest.raises(ValueError):
        reg.register(reg.get("busy"))


def test_unknown_tool_suggests_a_close_name_and_lists_the_tools():
    reg, _ = make_registry()
    r = reg.run("get_wether", {"city": "Paris"})
    assert (r.ok, r.kind) == (False, "unknown_tool")
    assert r.content == (
        "Unknown tool 'get_wether'. Did you mean 'get_weather'? Available tools: get_weather, busy, broken, greet."
    )
    far = reg.run("launch_rocket", {})
    assert "Did you mean" not in far.content and "Available tools: get_weather" in far.content


def test_invalid_args_name_every_error_and_the_expected_properties():
    reg, _ = make_registry()
    r = reg.run("get_weather", {"town": 5, "unit": "kelvin"}, repair=False)
    assert r.kind == "invalid_args" and not r.ok
    for part in (
        "missing required parameter 'city'",
        "unknown parameter 'town'",
        "unit: 'kelvin' is not one of",
        "city (string, required)",
        "unit (one of 'celsius', 'fahrenheit')",
    ):
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
    assert (
        reg.run("get_weather", {"city": "Atlantis"}).content
        == "No weather for 'Atlantis'. Try a real city such as Paris."
    )
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


# ---- issue 11, point 8: run() turns every failure into a result the model reads ---------------


class Unprintable(Exception):
    """An exception whose message cannot be turned into text."""

    def __str__(self):
        raise RuntimeError("no message for you")

    __repr__ = __str__


class UnprintableToolError(T.ToolError):
    def __str__(self):
        raise RuntimeError("no message for you")


def big_registry():
    reg = T.ToolRegistry()

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    def explode(x: int) -> str:
        """Raises an exception that cannot be printed."""
        raise Unprintable()

    def refuse(x: int) -> str:
        """Raises a ToolError that cannot be printed."""
        raise UnprintableToolError()

    def gadget(x: int) -> object:
        """Returns an object that cannot be shown."""

        class Gadget:
            def __repr__(self):
                raise RuntimeError("no repr")

        return Gadget()

    for fn in (add, shout, explode, refuse, gadget):
        reg.add(fn)
    return reg


HUGE = int("9" * 4300)  # the largest int Python will still print by default; HUGE + HUGE is not


def test_to_text_turns_unprintable_values_into_a_sentence():
    text = to_text(HUGE + HUGE)
    assert isinstance(text, str) and "4301 digits" in text
    assert "cannot be shown" in to_text(big_registry().get("gadget").fn(1))
    assert to_text({"a": [1, 2]}) == '{"a": [1, 2]}' and to_text("plain") == "plain"


def test_a_sum_too_long_to_print_comes_back_as_a_result():
    r = big_registry().run("add", {"a": HUGE, "b": HUGE})
    assert (r.ok, r.kind) == (True, "ok") and r.data == HUGE + HUGE
    assert "4301 digits" in r.content and len(r.content) < 300


def test_exceptions_that_cannot_be_printed_still_give_a_message():
    reg = big_registry()
    crash = reg.run("explode", {"x": 1})
    assert crash.kind == "crash" and "Unprintable" in crash.content and "fault in the tool" in crash.content
    refused = reg.run("refuse", {"x": 1})
    assert refused.kind == "tool_error" and "'refuse' failed" in refused.content


def test_huge_or_odd_values_in_arguments_are_reported_not_raised():
    reg = big_registry()
    as_text = reg.run("shout", {"text": HUGE + HUGE})  # an int where a string goes: repr fails
    assert as_text.kind == "invalid_args" and "text: expected string, got integer" in as_text.content
    assert len(as_text.content) < 400
    digits = reg.run("add", {"a": "7" * 5000, "b": 1})  # a digit string too long to convert
    assert digits.kind == "invalid_args" and "a: expected integer, got string" in digits.content
    keys = reg.run("add", {1: 2, "a": 1, "b": 2})  # a key that is not a string
    assert keys.kind == "invalid_args" and "parameter names must be strings" in keys.content


def test_unknown_tool_names_that_are_huge_or_odd_get_a_short_answer():
    reg = big_registry()
    for name in ("x" * 1_000_000, HUGE + HUGE, ["add"], {"name": "add"}, b"add"):
        r = reg.run(name, {})
        assert r.kind == "unknown_tool" and len(r.content) < 400, (type(name), r.content[:100])
        assert "Available tools: add, shout" in r.content
    assert "Did you mean 'add'?" in reg.run("ad d", {}).content


def test_a_failure_anywhere_inside_run_becomes_a_crash_result():
    reg = big_registry()
    reg.get("shout").input_schema = ["not", "a", "schema"]  # a broken definition, say from a server
    r = reg.run("shout", {"text": "hi"})
    assert isinstance(r, T.ToolResult) and r.kind == "crash" and "shout" in r.content


# ---- issue 11, point 5: a tool may declare that its results carry outside text ----------------


def test_outside_text_is_a_tool_option_and_open_world_implies_it():
    reg = T.ToolRegistry()

    @reg.tool(outside_text=True)
    def get_review(product: str) -> str:
        """A stored customer review."""
        return "great"

    def lookup(key: str) -> str:
        """A local record."""
        return "record"

    def browse(url: str) -> str:
        """A web page."""
        return "page"

    def save(key: str) -> str:
        """Save a record."""
        return "saved"

    reg.add(lookup)
    reg.add(lookup, name="staff_lookup", outside_text=False)
    reg.add(save, read_only=False)
    reg.add(browse, open_world=True)
    assert reg.get("get_review").outside_text is True and reg.get("get_review").carries_outside_text
    # fails closed (issue 19, point 6): a read that declares nothing counts as outside text
    assert reg.get("lookup").outside_text is None and reg.get("lookup").carries_outside_text
    assert not reg.get("staff_lookup").carries_outside_text  # only a declared False vouches for it
    assert not reg.get("save").carries_outside_text  # a tool that writes reports on its own work
    assert reg.get("browse").carries_outside_text  # open world: always outside text
    with pytest.raises(ValueError, match="open-world"):
        reg.add(browse, name="browse2", open_world=True, outside_text=False)
    # MCP has no such annotation: the tool's MCP form is unchanged
    assert reg.get("get_review").to_mcp()["annotations"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "openWorldHint": False,
    }
