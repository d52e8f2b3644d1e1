"""Schemas from type hints, validation, and repair (pack §2.5, §2.8; API.md §1)."""

from typing import Dict, List, Literal, Optional

import pytest

import toolkit as T


def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict:
    """Get the current weather for a city.

    Args:
        city: city name, such as Paris
        unit: temperature unit
    """
    return {}


def test_schema_matches_the_pack_example():
    s = T.schema_from_function(get_weather)
    assert s == {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "city name, such as Paris"},
                "unit": {
                    "type": "string",
                    "enum": ["celsius", "fahrenheit"],
                    "description": "temperature unit",
                    "default": "celsius",
                },
            },
            "required": ["city"],
            "additionalProperties": False,
        },
    }


def test_type_mapping_covers_every_supported_hint():
    def f(
        i: int,
        x: float,
        s: str,
        flag: bool,
        xs: List[int],
        ys: list[str],
        zs: list,
        d: dict,
        dd: Dict[str, int],
        lit: Literal[1, 2],
        maybe: Optional[str] = None,
    ):
        """F."""

    props = T.schema_from_function(f)["inputSchema"]["properties"]
    assert props["i"] == {"type": "integer"}
    assert props["x"] == {"type": "number"}
    assert props["s"] == {"type": "string"}
    assert props["flag"] == {"type": "boolean"}
    assert props["xs"] == {"type": "array", "items": {"type": "integer"}}
    assert props["ys"] == {"type": "array", "items": {"type": "string"}}
    assert props["zs"] == {"type": "array"}
    assert props["d"] == {"type": "object"}
    assert props["dd"] == {"type": "object"}
    assert props["lit"] == {"type": "integer", "enum": [1, 2]}
    assert props["maybe"] == {"type": "string"}  # Optional[X] is X; a None default is not copied


def test_optional_without_default_is_not_required_and_defaults_are_copied():
    def f(a: Optional[int], b: int = 3, c: float = 0.5, d: bool = True, e: str = "x", g: list = None):
        """F."""

    s = T.schema_from_function(f)["inputSchema"]
    assert s["required"] == []
    assert [s["properties"][k].get("default") for k in "bcdeg"] == [3, 0.5, True, "x", None]


def test_var_args_are_skipped_and_name_override():
    def f(a: int, *args, **kwargs):
        """F."""

    s = T.schema_from_function(f, name="renamed")
    assert s["name"] == "renamed"
    assert list(s["inputSchema"]["properties"]) == ["a"]


def test_missing_hint_and_unsupported_type_raise_type_error_naming_them():
    def no_hint(city, n: int):
        """F."""

    with pytest.raises(TypeError) as e:
        T.schema_from_function(no_hint)
    assert "no_hint" in str(e.value) and "city" in str(e.value)

    def odd(when: set):
        """F."""

    with pytest.raises(TypeError) as e:
        T.schema_from_function(odd)
    assert "set" in str(e.value)


def test_description_falls_back_to_the_function_name():
    def bare(x: int):
        pass

    assert T.schema_from_function(bare)["description"] == "bare"


def test_parse_docstring_joins_lines_and_reads_args_with_types_and_continuations():
    doc = """Find flights between two airports,
    sorted by price.

    Args:
        origin (str): where the trip starts,
            as an IATA code
        dest: where it ends
    Returns:
        a list of flights
    """
    desc, params = T.parse_docstring(doc)
    assert desc == "Find flights between two airports, sorted by price."
    assert params == {"origin": "where the trip starts, as an IATA code", "dest": "where it ends"}
    assert T.parse_docstring("") == ("", {})
    assert T.parse_docstring(None) == ("", {})
    assert T.parse_docstring("Do it.\n\nParameters:\n    x: the x")[1] == {"x": "the x"}
    assert T.parse_docstring("Do it.\n\nArguments:\n    y: the y")[1] == {"y": "the y"}


SCHEMA = T.schema_from_function(get_weather)["inputSchema"]


@pytest.mark.parametrize(
    "args, errors",
    [
        ({"city": "Paris"}, []),
        ({"city": "Paris", "unit": "Celsius"}, ["unit: 'Celsius' is not one of ['celsius', 'fahrenheit']"]),
        ({"town": "Paris"}, ["missing required parameter 'city'", "unknown parameter 'town'"]),
        ({"city": 5}, ["city: expected string, got integer (5)"]),
        ("Paris", ["arguments must be an object, got string"]),
        (None, ["arguments must be an object, got null"]),
        ([1], ["arguments must be an object, got array"]),
    ],
)
def test_validate_args(args, errors):
    assert T.validate_args(args, SCHEMA) == errors


def test_bool_is_not_a_number_but_int_is():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "x": {"type": "number"}}}
    assert T.validate_args({"n": True}, schema) == ["n: expected integer, got boolean (True)"]
    assert T.validate_args({"x": False}, schema) == ["x: expected number, got boolean (False)"]
    assert T.validate_args({"x": 3}, schema) == []
    assert T.validate_args({"n": 3.0}, schema) == ["n: expected integer, got number (3.0)"]


def test_array_items_are_checked_one_by_one_and_nested_objects_by_path():
    schema = {
        "type": "object",
        "properties": {
            "xs": {"type": "array", "items": {"type": "integer"}},
            "addr": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    }
    assert T.validate_args({"xs": [1, "2", 3, None]}, schema) == [
        "xs[1]: expected integer, got string ('2')",
        "xs[3]: expected integer, got null (None)",
    ]
    assert T.validate_args({"addr": {}}, schema) == ["missing required parameter 'addr.city'"]
    assert T.validate_args({"addr": {"city": 1}}, schema) == ["addr.city: expected string, got integer (1)"]


def test_repair_fixes_the_pack_examples():
    assert T.repair_args({"city": "Paris", "unit": "Celsius"}, SCHEMA) == (
        {"city": "Paris", "unit": "celsius"},
        ["unit: fixed case of 'Celsius' to 'celsius'"],
    )
    assert T.repair_args({"town": "Paris"}, SCHEMA) == ({}, ["dropped unknown parameter 'town'"])
    assert T.repair_args({"city": 5}, SCHEMA) == ({"city": "5"}, ["city: converted 5 to string"])


def test_repair_renames_close_or_case_insensitive_keys_only_to_free_properties():
    assert T.repair_args({"citty": "Paris"}, SCHEMA) == ({"city": "Paris"}, ["renamed parameter 'citty' to 'city'"])
    assert T.repair_args({"CITY": "Paris"}, SCHEMA)[0] == {"city": "Paris"}
    # 'city' is already given, so 'citty' cannot take it: dropped instead
    out, notes = T.repair_args({"city": "Rome", "citty": "Paris"}, SCHEMA)
    assert out == {"city": "Rome"} and notes == ["dropped unknown parameter 'citty'"]


def test_repair_conversions_and_their_limits():
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "n": {"type": "integer"},
            "x": {"type": "number"},
            "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
    }
    out, notes = T.repair_args({"n": "2", "x": "2.5", "flag": "TRUE", "tags": "red"}, schema)
    assert out == {"n": 2, "x": 2.5, "flag": True, "tags": ["red"]}
    assert notes == [
        "n: converted '2' to integer",
        "x: converted '2.5' to number",
        "flag: converted 'TRUE' to boolean",
        "tags: wrapped 'red' in a list",
    ]
    assert T.repair_args({"n": 4.0}, schema) == ({"n": 4}, ["n: converted 4.0 to integer"])
    # never from words, never a non-integral float, never "maybe" to a bool
    for bad in ({"n": "two"}, {"n": 2.5}, {"flag": "maybe"}, {"x": "nan"}):
        assert T.repair_args(bad, schema) == (bad, [])
    # values that already fit get no note
    assert T.repair_args({"n": 1, "x": 1, "flag": False}, schema) == ({"n": 1, "x": 1, "flag": False}, [])


def test_repair_never_invents_a_missing_value_and_does_not_modify_its_input():
    args = {"unit": "FAHRENHEIT"}
    out, notes = T.repair_args(args, SCHEMA)
    assert "city" not in out
    assert args == {"unit": "FAHRENHEIT"}
    assert T.validate_args(out, SCHEMA) == ["missing required parameter 'city'"]
