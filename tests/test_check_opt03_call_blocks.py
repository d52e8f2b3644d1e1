"""The optional your-turn check of notebook 03 §8 (toolkit/checks/opt03_call_blocks.py), and the
lesson module it belongs to (toolkit/lessons/open_models.py)."""

import json
import re

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom, cell_namespace, run_check_cell

from toolkit.checks import opt03_call_blocks
from toolkit.lessons.open_models import call_grammar, chat_tools, grammar_admits, render_prompt
from toolkit.lessons.toy_tools import make_weather_registry


@pytest.fixture(scope="module")
def nb03():
    return cell_namespace("03_learning_to_call_tools", "solution"), cell_namespace(
        "03_learning_to_call_tools", "starter"
    )


def test_solution_passes(nb03):
    result = opt03_call_blocks.check(nb03[0]["read_tool_calls"])
    assert result.ok and result.total == len(opt03_call_blocks.CASES) + 1


def test_the_notebook_check_cell_passes_the_solution(nb03):
    assert run_check_cell("03_learning_to_call_tools", "opt03_call_blocks", nb03[0]).ok


def test_starter_is_not_done(nb03, capsys):
    assert_not_done(opt03_call_blocks.check(nb03[1]["read_tool_calls"]), capsys)


FENCE = re.compile(r"```json\n(.*?)\n```", re.DOTALL)


def first_only(reply, known):
    """Reads the first block and stops."""
    found = FENCE.search(reply)
    calls = [json.loads(found.group(1))] if found else []
    return {"calls": calls, "content": FENCE.sub("", reply).strip(), "errors": []}


def silent(reply, known):
    """Skips a block it cannot read without a word (and drops its text)."""
    calls = []
    for body in FENCE.findall(reply):
        try:
            call = json.loads(body)
        except ValueError:
            continue
        if isinstance(call, dict) and call.get("name") in known and isinstance(call.get("arguments"), dict):
            calls.append({"name": call["name"], "arguments": call["arguments"]})
    return {"calls": calls, "content": FENCE.sub("", reply).strip(), "errors": []}


def greedy(reply, known):
    """One greedy match from the first fence to the last: two calls become one broken block."""
    found = re.search(r"```json\n(.*)\n```", reply, re.DOTALL)
    if not found:
        return {"calls": [], "content": reply.strip(), "errors": []}
    try:
        call = json.loads(found.group(1))
    except ValueError:
        return {"calls": [], "content": reply.strip(), "errors": ["not JSON"]}
    return {"calls": [call], "content": reply.replace(found.group(0), "").strip(), "errors": []}


def any_fence(reply, known):
    """Treats every fenced block as a call, a ```python one included."""
    errors, calls = [], []
    for body in re.findall(r"```\w*\n(.*?)\n```", reply, re.DOTALL):
        try:
            calls.append(json.loads(body))
        except ValueError:
            errors.append("not a call")
    return {
        "calls": calls,
        "content": re.sub(r"```\w*\n.*?\n```", "", reply, flags=re.DOTALL).strip(),
        "errors": errors,
    }


def brace_regex(reply, known):
    """Finds the arguments with a non-greedy regex, which stops at the first closing brace."""
    calls = []
    for name, args in re.findall(r'"name": "(\w+)", "arguments": (\{.*?\})', reply):
        try:
            calls.append({"name": name, "arguments": json.loads(args)})
        except ValueError:
            pass
    return {"calls": calls, "content": FENCE.sub("", reply).strip(), "errors": []}


def hard_coded(reply, known):
    """The notebook's example, whatever the reply."""
    return {"calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}], "content": "", "errors": []}


def altered(solution, **changes):
    def run(reply, known):
        out = solution(reply, known)
        for key, fn in changes.items():
            out[key] = fn(out[key], known)
        return out

    return run


@pytest.mark.parametrize(
    "make, fragment",
    [
        (lambda s: hard_coded, "it read 1 call(s) ['get_weather'], the reply holds 1 ['convert_currency']"),
        (lambda s: first_only, "two calls in one reply: it read 1 call(s)"),
        (lambda s: silent, "broken JSON (a trailing comma): the content lost 'buy milk'"),
        (lambda s: greedy, "two calls in one reply: it read 0 call(s)"),
        (lambda s: any_fence, "not a call: the content lost 'print(convert(120,'"),
        (lambda s: brace_regex, "braces inside a string argument: it read 0 call(s)"),
        # a solution that keeps every call it can parse, known tool or not
        (
            lambda s: lambda r, k: s(r, k + ["delete_account"]),
            "does not have: it read 1 call(s) ['delete_account']",
        ),
        (lambda s: altered(s, content=lambda c, k: ""), "words before and after a call: the content lost"),
        (lambda s: altered(s, errors=lambda e, k: []), "(a trailing comma): it reported 0 problem(s), not 1"),
        (lambda s: altered(s, calls=lambda c, k: [{**x, "arguments": {}} for x in c]), "compare the arguments too"),
        (lambda s: lambda r, k: [s(r, k)], "read_tool_calls returned list"),
    ],
)
def test_cheap_parsers_fail_with_a_sentence(nb03, make, fragment):
    result = opt03_call_blocks.check(make(nb03[0]["read_tool_calls"]))
    assert_fails_with_sentence(result, fragment)


def test_a_parser_that_edits_its_tool_list_fails(nb03):
    solution = nb03[0]["read_tool_calls"]

    def tidy(reply, known):
        out = solution(reply, known)
        known.clear()  # "done with it"
        return out

    assert_fails_with_sentence(opt03_call_blocks.check(tidy), "changed the list of tools it was given")


def test_never_raises_and_a_loop_that_never_ends_is_named(nb03):
    assert_fails_with_sentence(opt03_call_blocks.check(boom), "KeyError")

    def forever(reply, known):
        while True:
            pass

    assert_fails_with_sentence(opt03_call_blocks.check(forever), "forever` did not return within")


# ---- the lesson module -------------------------------------------------------------------------

WEATHER = chat_tools(make_weather_registry().list_schemas()[:1])


def test_the_prompt_is_the_course_templates_with_the_call_and_result_in_the_model_format():
    messages = [
        {"role": "user", "content": "Weather in Lima?"},
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Lima"}}}]},
        {"role": "tool", "content": "<b>18</b> & sunny"},
    ]  # fmt: skip
    prompt = render_prompt(messages, WEATHER)
    assert prompt.startswith("<|im_start|>system\n") and prompt.endswith("<|im_start|>assistant\n")
    assert '"name": "get_weather"' in prompt.split("XML tags:\n<tools>")[1].split("</tools>")[0]
    assert '```json\n{"name": "get_weather", "arguments": {"city": "Lima"}}\n```<|im_end|>' in prompt
    assert "<tool_response>\n<b>18</b> & sunny\n</tool_response>" in prompt  # no HTML escaping
    assert "These are the results of your calls." in prompt
    assert "<tool_call>" not in prompt  # the course's change to Qwen's template
    plain = render_prompt([{"role": "user", "content": "hi"}], add_generation_prompt=False)
    assert "# Tools" not in plain and plain.endswith("hi<|im_end|>\n")


def test_the_grammar_admits_exactly_the_calls_the_schema_allows():
    grammar = call_grammar(WEATHER)
    assert grammar.startswith('root ::= "```json\\n" (get-weather-call) "\\n```"')
    assert '("\\"celsius\\"" | "\\"fahrenheit\\"")' in grammar
    good = '```json\n{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "fahrenheit"}}\n```'
    assert grammar_admits(WEATHER, good)
    assert grammar_admits(WEATHER, good.replace(', "unit": "fahrenheit"', ""))  # unit is optional
    assert grammar_admits(WEATHER, good.replace(" ", ""))
    for bad in [
        good.replace("fahrenheit", "kelvin"),
        good.replace('"city": "Oslo", ', ""),
        good.replace('"Oslo"', "7"),
        good.replace('"Oslo"', '"Oslo", "days": 3'),
        good.replace("get_weather", "get_wether"),
        "Sure. " + good,
        good.replace('"unit": "fahrenheit", ', "").replace('"city": "Oslo"', '"unit": "celsius", "city": "Oslo"'),
    ]:
        assert not grammar_admits(WEATHER, bad), bad


def test_the_grammar_covers_nested_objects_arrays_numbers_and_several_tools():
    tools = [
        {"name": "book", "inputSchema": {"type": "object", "required": ["party", "tags"], "properties": {
            "party": {"type": "object", "required": ["adults"], "properties": {"adults": {"type": "integer"}}},
            "tags": {"type": "array", "items": {"type": "string"}}, "budget": {"type": "number"}}}},
        {"name": "ping", "inputSchema": {"type": "object", "properties": {}}},
    ]  # fmt: skip
    wrap = "```json\n{}\n```".format
    assert grammar_admits(
        tools, wrap('{"name": "book", "arguments": {"party": {"adults": 2}, "tags": ["a", "b"], "budget": 9.5}}')
    )
    assert grammar_admits(tools, wrap('{"name": "ping", "arguments": {}}'))
    assert not grammar_admits(tools, wrap('{"name": "book", "arguments": {"party": {"adults": 2.5}, "tags": []}}'))
    assert "book-call | ping-call" in call_grammar(tools)
    with pytest.raises(ValueError, match="at least one required property"):
        call_grammar([{"name": "x", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}])
    with pytest.raises(ValueError, match="no rule for"):
        call_grammar(
            [{"name": "x", "inputSchema": {"type": "object", "required": ["a"], "properties": {"a": {"$ref": "#/x"}}}}]
        )
