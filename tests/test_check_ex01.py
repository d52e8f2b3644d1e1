"""Exercise 1's check (toolkit/checks/ex01.py, notebook 05). What every check test holds: tests/conftest.py."""

import copy

from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

from toolkit.checks import ex01

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
            return {
                "type": "function",
                "function": {"name": tool["name"], "description": tool["description"], "strict": True},
            }
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
        return {
            "type": "function",
            "name": tool["name"],
            "description": tool["description"],
            "parameters": json.loads(json.dumps(tool["inputSchema"])),
            "strict": bool(strict),
        }

    def filtered_anthropic(tool):
        renamed = {"inputSchema": "input_schema"}
        return {
            "type": "custom",
            **{
                renamed.get(k, k): copy.deepcopy(v)
                for k, v in tool.items()
                if k in ("name", "description", "inputSchema")
            },
        }

    assert ex01.check(flat_openai, filtered_anthropic).ok
    assert ex01.check(nb05_solution["to_openai"], filtered_anthropic).ok


def test_ex01_unseen_tools_are_not_called_hidden():
    assert "unseen_tools" in ex01.__all__ and not hasattr(ex01, "hidden_tools")
    assert [t["name"] for t in ex01.unseen_tools()][:2] == ["find_trains", "set_thermostat"]


def test_ex01_never_raises():
    result = ex01.check(boom, lambda tool: None)
    assert_fails_with_sentence(result, "KeyError", "not a dict")
    assert_fails_with_sentence(ex01.check("not a function", boom), "expected a function")


def test_ex01_keys_openai_does_not_have_fail_inside_the_function_too(nb05_solution):
    def to_openai(tool, strict=False):
        fn = {
            "name": tool["name"],
            "description": tool["description"],
            "parameters": copy.deepcopy(tool["inputSchema"]),
            "input_schema": copy.deepcopy(tool["inputSchema"]),  # for Anthropic too, "just in case"
            "hints": tool.get("annotations", {}),
        }
        if strict:
            fn["strict"] = True
        return {"type": "function", "function": fn}

    result = ex01.check(to_openai, nb05_solution["to_anthropic"])
    assert_fails_with_sentence(result, "'input_schema', 'hints'", "which OpenAI's function definition does not have")
