"""The exercise checks of notebooks 04–06 (exercises 1, 2, 6, 7, 8).

For each check: the notebook's own solution passes; the notebook's own starter stub gives
"not done yet"; wrong answers fail with a sentence that says what to change; and nothing a
student writes makes a check raise. Starter and solution code are read from the notebooks'
jupytext sources, so the tests follow the cells students actually get.
"""

import copy

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom, cell_namespace

import toolkit as T
from toolkit.checks import ex01, ex02, ex06, ex07, ex08
from toolkit.lessons.output_schemas import OutputSchemaServer


@pytest.fixture(scope="module")
def nb05_solution():
    return cell_namespace("05_schemas_and_function_calling", "solution")


@pytest.fixture(scope="module")
def nb05_starter():
    return cell_namespace("05_schemas_and_function_calling", "starter")


@pytest.fixture(scope="module")
def nb06_solution():
    return cell_namespace("06_model_context_protocol", "solution")


@pytest.fixture(scope="module")
def nb06_starter():
    return cell_namespace("06_model_context_protocol", "starter")


@pytest.fixture(scope="module")
def nb04_solution():
    return cell_namespace("04_thousands_of_tools", "solution")


@pytest.fixture(scope="module")
def nb04_starter():
    return cell_namespace("04_thousands_of_tools", "starter")


# ---------------------------------------------------------------------------------- exercise 1

def test_ex01_solution_passes(nb05_solution):
    assert ex01.check(nb05_solution["to_openai"], nb05_solution["to_anthropic"]).ok


def test_ex01_starter_is_not_done(nb05_starter, capsys):
    assert_not_done(ex01.check(nb05_starter["to_openai"], nb05_starter["to_anthropic"]), capsys)


def test_ex01_half_done_is_not_reported_as_passed(nb05_solution, nb05_starter):
    result = ex01.check(nb05_solution["to_openai"], nb05_starter["to_anthropic"])
    assert_fails_with_sentence(result, "to_anthropic is written")


def test_ex01_wrong_shapes_fail(nb05_solution):
    to_openai, to_anthropic = nb05_solution["to_openai"], nb05_solution["to_anthropic"]

    def keeps_mcp_keys(tool):
        out = copy.deepcopy(tool)
        out["input_schema"] = out.pop("inputSchema")
        return out

    assert_fails_with_sentence(ex01.check(to_openai, keeps_mcp_keys), "annotations")

    def no_wrapper(tool, strict=False):
        return {"name": tool["name"], "description": tool["description"], "parameters": tool["inputSchema"]}

    assert_fails_with_sentence(ex01.check(no_wrapper, to_anthropic), '"type": "function"')

    def always_strict(tool, strict=False):
        return to_openai(tool, strict=True)

    assert_fails_with_sentence(ex01.check(always_strict, to_anthropic), "strict mode is opt-in")

    def mutates(tool):
        tool["input_schema"] = tool.pop("inputSchema")
        tool.pop("annotations", None)
        tool.pop("title", None)
        return tool

    assert_fails_with_sentence(ex01.check(to_openai, mutates), "changed the tool it was given")


def test_ex01_strict_path_is_checked_like_the_plain_one(nb05_solution):
    """Issue 10: the strict=True path must keep the input untouched and the tool whole."""
    to_openai, to_anthropic = nb05_solution["to_openai"], nb05_solution["to_anthropic"]

    def strict_edits_input(tool, strict=False):
        if strict:
            tool["inputSchema"]["additionalProperties"] = False
            tool.pop("annotations", None)
        return to_openai(tool, strict=strict)

    assert_fails_with_sentence(ex01.check(strict_edits_input, to_anthropic), "changed the tool it was given")

    def strict_drops_parameters(tool, strict=False):
        if strict:
            return {"type": "function", "function": {"name": tool["name"], "description": tool["description"],
                                                     "strict": True}}
        return to_openai(tool)

    assert_fails_with_sentence(ex01.check(strict_drops_parameters, to_anthropic), "strict=True", "parameters")


def test_ex01_a_looser_schema_fails(nb05_solution):
    """A converter that loosens the schema (integer to number, enum dropped) changes what the model may send."""
    import json
    to_openai = nb05_solution["to_openai"]

    def loosened(tool):
        text = json.dumps(tool["inputSchema"]).replace('"integer"', '"number"')
        schema = json.loads(text)
        for spec in schema.get("properties", {}).values():
            spec.pop("enum", None)
        return {"name": tool["name"], "description": tool["description"], "input_schema": schema}

    assert_fails_with_sentence(ex01.check(to_openai, loosened), '"input_schema" should be the inputSchema unchanged')


def test_ex01_other_right_answers_pass(nb05_solution):
    """Right answers written differently: the Responses API's flat shape, a key filter,
    strict written as false, Anthropic's optional "type": "custom"."""
    import json

    def flat_openai(tool, strict=False):
        return {"type": "function", "name": tool["name"], "description": tool["description"],
                "parameters": json.loads(json.dumps(tool["inputSchema"])), "strict": bool(strict)}

    def filtered_anthropic(tool):
        renamed = {"inputSchema": "input_schema"}
        return {"type": "custom", **{renamed.get(k, k): copy.deepcopy(v) for k, v in tool.items()
                                     if k in ("name", "description", "inputSchema")}}

    assert ex01.check(flat_openai, filtered_anthropic).ok
    assert ex01.check(nb05_solution["to_openai"], filtered_anthropic).ok


def test_ex01_unseen_tools_are_not_called_hidden():
    assert "unseen_tools" in ex01.__all__ and not hasattr(ex01, "hidden_tools")
    assert [t["name"] for t in ex01.unseen_tools()][:2] == ["find_trains", "set_thermostat"]


def test_ex01_never_raises():
    result = ex01.check(boom, lambda tool: None)
    assert_fails_with_sentence(result, "KeyError", "not a dict")
    assert_fails_with_sentence(ex01.check("not a function", boom), "expected a function")


# ---------------------------------------------------------------------------------- exercise 2

def test_ex02_solution_passes(nb05_solution):
    assert ex02.check(nb05_solution["valid_but_wrong"]).ok


def test_ex02_starter_is_not_done(nb05_starter, capsys):
    assert_not_done(ex02.check(nb05_starter["valid_but_wrong"]), capsys)


@pytest.mark.parametrize("args, fragment", [
    ({"city": "Oslo", "unit": "fahrenheit"}, "is the intended call"),
    ({"city": "oslo", "unit": "fahrenheit"}, "is the intended call"),  # same city, other case
    ({"city": "Oslo", "unit": "kelvin"}, "validate_args says"),
    ({"town": "Oslo"}, "missing required parameter 'city'"),
    (["Oslo"], "returned list"),
    ({"city": "Oslo", "unit": "Fahrenheit"}, "validate_args says"),  # the enum is exact
])
def test_ex02_wrong_answers_fail(args, fragment):
    assert_fails_with_sentence(ex02.check(lambda: copy.deepcopy(args)), fragment)


def test_ex02_other_valid_wrong_calls_pass():
    assert ex02.check(lambda: {"city": "Rome", "unit": "fahrenheit"}).ok
    assert ex02.check(lambda: {"city": "Oslo", "unit": "celsius"}).ok
    assert ex02.check(lambda: {"city": "Bergen"}).ok  # right unit by default, wrong city
    assert ex02.check(lambda: {"city": "OSLO"}).ok  # any case; the default unit is the mistake


def test_ex02_never_raises():
    assert_fails_with_sentence(ex02.check(boom), "KeyError")


# ---------------------------------------------------------------------------------- exercise 6

def test_ex06_solution_passes(nb06_solution, capsys):
    assert ex06.check(nb06_solution["hand_typed_lines"]).ok
    ex06.talk(nb06_solution["hand_typed_lines"])
    shown = capsys.readouterr().out
    assert "-32700" in shown and "(no reply)" in shown


def test_ex06_starter_is_not_done(nb06_starter, capsys):
    assert_not_done(ex06.check(nb06_starter["hand_typed_lines"]), capsys)
    ex06.talk(nb06_starter["hand_typed_lines"])
    assert "still the starter stub" in capsys.readouterr().out


def test_ex06_wrong_lines_fail(nb06_solution):
    good = nb06_solution["hand_typed_lines"]()
    wrong = list(good)
    wrong[1] = '{"jsonrpc": "2.0", "id": 9, "method": "notifications/initialized"}'
    wrong[2] = good[2].replace('"id": 2', '"id": 1')
    wrong[5] = '{"valid": "json"}'
    result = ex06.check(lambda: wrong)
    assert_fails_with_sentence(result, "remove the \"id\" key", "ids must not be reused", "valid JSON")
    assert result.passed == 3  # lines 1, 4 and 5 are still right


def test_ex06_bad_initialize_is_explained(nb06_solution):
    lines = nb06_solution["hand_typed_lines"]()
    lines[0] = '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}'
    assert_fails_with_sentence(ex06.check(lambda: lines), "initialize needs params with protocolVersion")


@pytest.mark.parametrize("index, line, fragment", [
    (3, '{"id": null}', "a request with a method"),
    (3, '{"id": null, "method": "ping"}', "a request with a method"),
    (4, "[]", "a batch of requests"),
    (4, "[1, 2]", "a batch of requests"),
])
def test_ex06_lines_that_are_not_what_they_claim_fail(nb06_solution, index, line, fragment):
    """The server rejects these too, but not for the rule the line is meant to show."""
    lines = nb06_solution["hand_typed_lines"]()
    lines[index] = line
    assert_fails_with_sentence(ex06.check(lambda: lines), fragment)


def test_ex06_other_right_answers_pass(nb06_solution):
    lines = nb06_solution["hand_typed_lines"]()
    lines[0] = lines[0].replace('"id": 1', '"id": "init"').replace('"capabilities": {}', '"capabilities": {"roots": {}}')
    lines[1] = '  {"method": "notifications/initialized", "jsonrpc": "2.0", "params": {}}  '
    lines[2] = '{"jsonrpc":"2.0","id":"list-1","method":"tools/list","params":{}}'
    lines[3] = '{"jsonrpc":"2.0","method":"tools/list","id":null}'
    lines[4] = '[{"jsonrpc": "2.0", "id": 7, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/initialized"}]'
    lines[5] = '{"jsonrpc": "2.0", "method"'
    assert ex06.check(lambda: lines).ok


def test_ex06_wrong_count_and_never_raises():
    assert_fails_with_sentence(ex06.check(lambda: ["{}"]), "should return 6 lines")
    assert_fails_with_sentence(ex06.check(lambda: ["a\nb"] * 6), "newline inside it")
    assert_fails_with_sentence(ex06.check(boom), "KeyError")


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
        return T.validate_args(result.get("structuredContent"), schema()) if "structuredContent" in result \
            else ["no structuredContent"]

    assert_fails_with_sentence(ex07.check(schema, weather_only), "another tool's schema")

    def needs_is_error(result, output_schema):  # isError is optional in a result
        if output_schema is None or result["isError"]:
            return []
        if "structuredContent" not in result:
            return ["no structuredContent"]
        return T.validate_args(result["structuredContent"], output_schema)

    assert_fails_with_sentence(ex07.check(schema, needs_is_error), "without \"isError\"", "KeyError")


def test_ex07_other_right_answers_pass():
    def schema():  # the same requirements, written with a different key order and an extra title
        return {"title": "weather", "required": ["unit", "temp", "city"], "type": "object",
                "properties": {"unit": {"enum": ["celsius", "fahrenheit"], "type": "string"},
                               "temp": {"type": "number"}, "city": {"type": "string"}},
                "additionalProperties": False}

    def check_structured(result, output_schema):
        if not output_schema or result.get("isError", False):
            return []
        value = result.get("structuredContent")
        if value is None:
            return ["structuredContent is missing"]
        return list(T.validate_args(value, output_schema))

    assert ex07.check(schema, check_structured).ok


# ---------------------------------------------------------------------------------- exercise 8

def test_ex08_solution_passes(nb04_solution, capsys):
    result = ex08.check(nb04_solution["my_queries"], nb04_solution["better_descriptions"],
                        nb04_solution["synonym_table"])
    assert result.ok
    assert "unseen queries" in capsys.readouterr().out


def test_ex08_starter_is_not_done(nb04_starter, capsys):
    s = nb04_starter
    assert_not_done(ex08.check(s["my_queries"], s["better_descriptions"], s["synonym_table"]), capsys)


def fixes(ns):
    return ns["better_descriptions"], ns["synonym_table"]


def test_ex08_bad_queries_fail(nb04_solution):
    good = nb04_solution["my_queries"]()
    cases = [
        (good[:7], "write exactly 8 queries"),
        (good[:7] + [("Where can I fly tonight?", "flights_book")], "no tool 'flights_book'"),
        (good[:7] + [good[0]], "two of your queries are the same"),
        (good[:7] + [T.CATALOG_QUERIES[0]], "one of the pack's own queries"),
        (good[:7] + [("Find weather forecast for Oslo", "weather_search")], "come from weather_search's own text"),
    ]
    for pairs, fragment in cases:
        assert_fails_with_sentence(ex08.check(lambda p=pairs: p, *fixes(nb04_solution)), fragment)


def test_ex08_queries_that_already_hit_fail(nb04_solution):
    easy = [("weather search for Paris tomorrow evening please", "weather_search"),
            ("flights summarize my trips last year overall", "flights_summarize"),
            ("hotels delete booking 55 at once now", "hotels_delete"),
            ("calendar get entry 12 right away today", "calendar_get"),
            ("email update draft 9 subject line tonight", "email_update"),
            ("music create playlist called sunday morning mood", "music_create"),
            ("stocks search ticker NVDA closing values daily", "stocks_search"),
            ("recipes summarize pancake variants I saved earlier", "recipes_summarize")]
    assert_fails_with_sentence(ex08.check(lambda: easy, *fixes(nb04_solution)), "nothing to fix")


def test_ex08_bad_fixes_fail(nb04_solution):
    queries, descriptions, synonyms = (nb04_solution[k] for k in ("my_queries", "better_descriptions", "synonym_table"))
    pasted = {"weather_search": "Any chance of rain in Bergen tomorrow?"}
    assert_fails_with_sentence(ex08.check(queries, lambda: pasted, synonyms), "word for word")
    # replacing the old wording loses the pack's queries ("Find cooking recipes that match ...")
    replaced = {"recipes_search": "Meal ideas for a dish, a diet or a dinner.",
                "flights_create": "Book a seat on a plane."}
    assert_fails_with_sentence(ex08.check(queries, lambda: replaced, synonyms), "on the pack's eight queries")
    assert_fails_with_sentence(ex08.check(queries, descriptions, lambda: {"zebra": "giraffe"}),
                               "recall on your queries went from")
    assert_fails_with_sentence(ex08.check(queries, lambda: {"nope_tool": "x"}, synonyms), "no tool 'nope_tool'")


def test_ex08_fixes_fitted_to_the_test_queries_fail(nb04_solution):
    """Issue 10: a synonym table keyed on the whole queries and descriptions stuffed with the
    queries' words raise recall on those eight queries only; the check names the overfitting."""
    queries, descriptions, synonyms = (nb04_solution[k] for k in ("my_queries", "better_descriptions", "synonym_table"))
    tools = {t.name: t for t in T.make_catalog()}
    keyed = {q: f"{tools[g].name} {tools[g].description}" for q, g in queries()}
    assert_fails_with_sentence(ex08.check(queries, descriptions, lambda: keyed), "synonym phrase", "one to three words")
    stuffed = {g: f"{tools[g].description} {' '.join(reversed(T.tokenize(q)))}" for q, g in queries()}
    assert_fails_with_sentence(ex08.check(queries, lambda: stuffed, synonyms), "every word of your query")


def test_ex08_queries_copied_from_the_notebook_or_the_unseen_set_fail(nb04_solution):
    good = nb04_solution["my_queries"]()
    printed = ("Look up airline flights from SFO to LAX", "flights_search")  # the notebook's example, one word changed
    assert_fails_with_sentence(ex08.check(lambda: good[:7] + [printed], *fixes(nb04_solution)),
                               "close to an example the notebook shows")
    unseen = [list(p) for p in ex08._unseen_queries()[:8]]
    assert_fails_with_sentence(ex08.check(lambda: unseen, *fixes(nb04_solution)), "unseen")
    assert "HELD_OUT" not in ex08.__all__ and not hasattr(ex08, "HELD_OUT")


def test_ex08_other_right_answers_pass(nb04_solution):
    """Right answers written differently from the solution: other queries and tools, repairs in
    other words, phrases in any case; and the solution's own pairs as lists, in another order."""
    queries = [("Will I need an umbrella in Lisbon on Sunday?", "weather_search"),
               ("Cancel my stay at the beach resort", "hotels_delete"),
               ("Play something upbeat by Daft Punk", "music_search"),
               ("What could I cook for a gluten free lunch?", "recipes_search"),
               ("Remove the dentist slot from my diary", "calendar_delete"),
               ("Get rid of that spam message from the bank", "email_delete"),
               ("How did Apple shares do overall this quarter?", "stocks_summarize"),
               ("Grab me a seat on a plane to Madrid", "flights_create")]
    added = {"weather_search": "Rain, umbrella, sun or snow today or on a given day.",
             "hotels_delete": "Cancel a stay or a reservation.", "music_search": "Play songs by a band or an artist.",
             "recipes_search": "What to cook for lunch or dinner.",
             "calendar_delete": "Remove an appointment or slot from the diary.",
             "email_delete": "Get rid of spam or a message.", "stocks_summarize": "How shares did over a quarter or year.",
             "flights_create": "Get a seat on a plane."}
    old = {t.name: t.description for t in T.make_catalog()}
    descriptions = {name: f"{old[name]} {extra}" for name, extra in added.items()}
    synonyms = {"Umbrella": "weather forecast", "cancel my stay": "hotel delete", "Play": "music tracks",
                "cook": "cooking recipes", "diary": "calendar", "spam": "email messages",
                "shares": "stock prices summary", "plane": "airline flights"}
    assert ex08.check(lambda: queries, lambda: descriptions, lambda: synonyms).ok
    as_lists = [list(p) for p in reversed(nb04_solution["my_queries"]())]
    assert ex08.check(lambda: as_lists, *fixes(nb04_solution)).ok
    # a request of the student's own that happens to resemble an unseen one is not a copy
    cousin = nb04_solution["my_queries"]()[:7] + [("Book me a seat on the morning plane to Paris", "flights_create")]
    assert ex08.check(lambda: cousin, *fixes(nb04_solution)).ok


def test_ex08_never_raises(nb04_solution):
    result = ex08.check(boom, lambda: None, lambda: {1: 2})
    assert_fails_with_sentence(result, "KeyError")
    assert result.status == "checked"


def test_ex08_recall_row_matches_the_pack():
    assert ex08.recall_row(T.CATALOG_QUERIES) == (0.75, 0.75, 1.0)
    assert ex08.recall_row([("Look up airline flights", "flights_search")], synonyms={"look up": "find"})[0] == 1.0


def test_ex08_synonym_phrases_count_in_any_case(nb04_solution):
    """The exercise promises "any case": a table keyed in capitals works like the solution's."""
    queries, descriptions, synonyms = (nb04_solution[k] for k in ("my_queries", "better_descriptions", "synonym_table"))
    shouting = {phrase.upper(): words.upper() for phrase, words in synonyms().items()}
    assert ex08.check(queries, descriptions, lambda: shouting).ok
    assert ex08.recall_row([("Look up airline flights", "flights_search")], synonyms={"Look Up": "FIND"})[0] == 1.0
