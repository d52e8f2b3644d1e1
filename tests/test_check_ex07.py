"""Exercise 7's check (toolkit/checks/ex07.py, notebook 06). What every check test holds: tests/conftest.py."""

import copy

from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

import toolkit as T
from toolkit.checks import ex07
from toolkit.lessons.output_schemas import OutputSchemaServer

# ---------------------------------------------------------------------------------- exercise 7


def test_ex07_solution_passes(nb06_solution):
    assert ex07.check(nb06_solution["weather_output_schema"], nb06_solution["check_structured"]).ok


def test_ex07_starter_is_not_done(nb06_starter, capsys):
    assert_not_done(ex07.check(nb06_starter["weather_output_schema"], nb06_starter["check_structured"]), capsys)


def test_ex07_loose_schema_and_lazy_check_fail(nb06_solution):
    loose = {"type": "object", "properties": {"city": {"type": "string"}}}
    result = ex07.check(lambda: loose, lambda result, schema: [])
    assert_fails_with_sentence(result, "temp is missing", "temp sent as text", "no structuredContent at all")


def test_ex07_check_that_flags_error_results_fails(nb06_solution):
    def too_strict(result, schema):
        return T.validate_args(result.get("structuredContent"), schema or {})

    result = ex07.check(nb06_solution["weather_output_schema"], too_strict)
    assert_fails_with_sentence(result, "an isError result", "a tool with no outputSchema")


def test_ex07_server_lists_output_schema_and_never_raises(nb06_solution):
    schema = nb06_solution["weather_output_schema"]()
    from toolkit.lessons.toy_tools import make_weather_registry

    client = T.MCPClient(T.InMemoryTransport(OutputSchemaServer(make_weather_registry(), {"get_weather": schema})))
    client.initialize()
    listed = {t["name"]: t for t in client.list_tools()}
    assert listed["get_weather"]["outputSchema"] == schema and "outputSchema" not in listed["flaky_rate"]
    assert_fails_with_sentence(ex07.check(boom, lambda r, s: "not a list"), "KeyError", "list of strings")


def test_ex07_loose_schemas_fail(nb06_solution):
    """A unit that is any string, or a temperature that must be whole, is too loose or too strict."""
    good = nb06_solution["weather_output_schema"]()
    fine = nb06_solution["check_structured"]
    any_unit = copy.deepcopy(good)
    any_unit["properties"]["unit"] = {"type": "string"}
    assert_fails_with_sentence(ex07.check(lambda: any_unit, fine), "kelvin", "enum")
    whole = copy.deepcopy(good)
    whole["properties"]["temp"] = {"type": "integer"}
    assert_fails_with_sentence(ex07.check(lambda: whole, fine), "9.5", "number")


def test_ex07_client_checks_that_ignore_the_schema_or_crash_fail(nb06_solution):
    schema = nb06_solution["weather_output_schema"]

    def weather_only(result, output_schema):  # checks every tool against the weather schema
        if output_schema is None or result.get("isError"):
            return []
        return (
            T.validate_args(result.get("structuredContent"), schema())
            if "structuredContent" in result
            else ["no structuredContent"]
        )

    assert_fails_with_sentence(ex07.check(schema, weather_only), "another tool's schema")

    def needs_is_error(result, output_schema):  # isError is optional in a result
        if output_schema is None or result["isError"]:
            return []
        if "structuredContent" not in result:
            return ["no structuredContent"]
        return T.validate_args(result["structuredContent"], output_schema)

    assert_fails_with_sentence(ex07.check(schema, needs_is_error), 'without "isError"', "KeyError")


def test_ex07_other_right_answers_pass():
    def schema():  # the same requirements, written with a different key order and an extra title
        return {
            "title": "weather",
            "required": ["unit", "temp", "city"],
            "type": "object",
            "properties": {
                "unit": {"enum": ["celsius", "fahrenheit"], "type": "string"},
                "temp": {"type": "number"},
                "city": {"type": "string"},
            },
            "additionalProperties": False,
        }

    def check_structured(result, output_schema):
        if not output_schema or result.get("isError", False):
            return []
        value = result.get("structuredContent")
        if value is None:
            return ["structuredContent is missing"]
        return list(T.validate_args(value, output_schema))

    assert ex07.check(schema, check_structured).ok


def test_ex07_a_client_that_reads_the_text_block_as_json_fails(nb06_solution):
    """When structuredContent is missing, parsing the text block instead hides a server that
    broke its promise: the declared output must come as structuredContent."""
    import json

    def check_structured(result, output_schema):
        if result.get("isError") or output_schema is None:
            return []
        data = result.get("structuredContent")
        if data is None:
            try:
                data = json.loads(result["content"][0]["text"])
            except (ValueError, KeyError, IndexError, TypeError):
                return ["no structuredContent"]
        if not isinstance(data, dict):
            return ["structuredContent is not an object"]
        return T.validate_args(data, output_schema)

    result = ex07.check(nb06_solution["weather_output_schema"], check_structured)
    assert_fails_with_sentence(result, "only the data as JSON text")
