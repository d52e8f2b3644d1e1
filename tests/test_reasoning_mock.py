"""toolkit.lessons.reasoning_mock and data/wire_formats.json: reasoning blocks in the loop (notebook 02)."""

import copy
import json
import urllib.error
import urllib.request

import pytest

import toolkit as T
import toolkit.loop
from toolkit.data import load_json
from toolkit.lessons.reasoning_mock import (
    ReasoningMock,
    RequestRefused,
    check_request,
    dropping_harness,
    keeping_harness,
)
from toolkit.lessons.toy_tools import make_weather_registry

QUESTION = "What is the weather in Oslo?"


def first_turn():
    mock = ReasoningMock()
    reply = mock.respond([{"role": "user", "content": QUESTION}], [])
    turn = {"role": "assistant", "content": None, "tool_calls": reply["tool_calls"], "reasoning": reply["reasoning"]}
    return [{"role": "user", "content": QUESTION}, turn, {"role": "tool", "tool_call_id": "t1", "content": "{}"}]


def test_a_harness_that_drops_the_blocks_is_refused_and_one_that_keeps_them_is_answered():
    with pytest.raises(RequestRefused, match="must start with its thinking blocks"):
        dropping_harness(ReasoningMock(), make_weather_registry(), QUESTION)
    assert keeping_harness(ReasoningMock(), make_weather_registry(), QUESTION) == "It is 9 degrees celsius in Oslo."


def test_an_altered_or_reordered_block_is_refused_and_the_original_passes():
    messages = first_turn()
    check_request(messages)
    changed = copy.deepcopy(messages)
    changed[1]["reasoning"][0]["thinking"] += " (edited)"
    with pytest.raises(RequestRefused, match="does not match"):
        check_request(changed)
    stripped = copy.deepcopy(messages)
    del stripped[1]["reasoning"][0]["signature"]
    with pytest.raises(RequestRefused, match="was changed"):
        check_request(stripped)


FORCED = ["any", {"type": "any"}, {"type": "tool", "name": "get_weather"}]


@pytest.mark.parametrize("choice", FORCED)
def test_forced_tool_choice_is_refused_with_manual_thinking_and_by_the_newest_models(choice):
    with pytest.raises(RequestRefused, match="manual thinking"):
        check_request([{"role": "user", "content": QUESTION}], choice, thinking="manual", accepts_forced=True)
    with pytest.raises(RequestRefused, match="this model does not accept"):
        check_request([{"role": "user", "content": QUESTION}], choice)
    check_request([{"role": "user", "content": QUESTION}], {"type": "auto"}, thinking="manual")


@pytest.mark.parametrize("choice", FORCED)
def test_a_model_that_takes_a_forced_choice_under_adaptive_thinking_calls_without_thinking(choice):
    mock = ReasoningMock(tool_choice=choice, accepts_forced=True)
    reply = mock.respond([{"role": "user", "content": QUESTION}], [])
    assert reply["tool_calls"] and "reasoning" not in reply
    assert T.run_agent(mock, make_weather_registry(), QUESTION).final == "It is 9 degrees celsius in Oslo."


def test_required_is_openais_keyword_not_anthropics():
    with pytest.raises(RequestRefused, match="not one of"):
        check_request([{"role": "user", "content": QUESTION}], "required")


def test_a_block_is_bound_to_its_prefix():
    messages = first_turn()
    edited = copy.deepcopy(messages)
    edited[0]["content"] += " Reminder: be brief."
    with pytest.raises(RequestRefused, match="does not match its prefix"):
        check_request(edited)
    with pytest.raises(RequestRefused, match="does not match its prefix"):
        check_request(messages, tools=[{"name": "tool_search"}])  # the tool list changed
    system = [{"role": "system", "content": "Be brief."}, *copy.deepcopy(messages)]
    with pytest.raises(RequestRefused, match="does not match its prefix"):
        check_request(system)
    appended = [*copy.deepcopy(messages), {"role": "user", "content": "Reminder: be brief."}]
    check_request(appended)  # adding after the block is fine


def test_several_cities_each_think_on_their_own_prefix():
    mock = ReasoningMock(cities=("Lima", "Cairo"))
    assert keeping_harness(mock, make_weather_registry(), QUESTION) == (
        "It is 17 degrees celsius in Lima. It is 30 degrees celsius in Cairo."
    )
    assert (
        T.run_agent(ReasoningMock(cities=("Tokyo", "Rome")), make_weather_registry(), QUESTION).final.count("It is")
        == 2
    )


def test_run_agent_carries_the_blocks_back_unchanged():
    result = T.run_agent(ReasoningMock(), make_weather_registry(), QUESTION)
    assert result.final == "It is 9 degrees celsius in Oslo."
    assert result.messages[1]["reasoning"][0]["type"] == "thinking"


WIRE = load_json("wire_formats.json")["shapes"]


def test_each_wire_shape_answers_the_call_it_made():
    chat = WIRE["OpenAI Chat Completions"]
    assert chat["result"]["tool_call_id"] == chat["reply"]["tool_calls"][0]["id"]
    assert "function" in chat["request"]["tools"][0], "Chat Completions nests the function"
    responses = WIRE["OpenAI Responses API"]
    fc = next(i for i in responses["reply"]["output"] if i["type"] == "function_call")
    assert responses["result"]["call_id"] == fc["call_id"]
    assert "function" not in responses["request"]["tools"][0], "the Responses API puts the keys at the top"
    anthropic = WIRE["Anthropic Messages"]
    use = next(b for b in anthropic["reply"]["content"] if b["type"] == "tool_use")
    assert anthropic["result"]["content"][0]["tool_use_id"] == use["id"]
    assert anthropic["request"]["tool_choice"]["disable_parallel_tool_use"] is True
    assert "disable_parallel_tool_use" not in anthropic["request"], "it sits inside tool_choice"
    assert anthropic["reply"]["content"][0]["type"] == "thinking", "the thinking block comes first"


def test_each_next_request_carries_the_reply_back_unchanged_then_the_result():
    """Review L2: the follow-up request is where the rule shows; it only appends to the first."""
    for vendor, shape in WIRE.items():
        first, follow = shape["request"], shape["next_request"]
        key = "messages" if "messages" in first else "input"
        sent, carried = first[key], follow[key]
        assert carried[: len(sent)] == sent, f"{vendor}: the next request rewrites what was sent before"
        rest = carried[len(sent) :]
        if vendor == "OpenAI Responses API":
            assert rest == [*shape["reply"]["output"], shape["result"]], vendor
            assert rest[0]["type"] == "reasoning" and rest[0]["encrypted_content"], "store false: the item itself"
        else:
            reply = (
                shape["reply"]
                if vendor != "Anthropic Messages"
                else {"role": "assistant", "content": shape["reply"]["content"]}
            )
            assert rest == [reply, shape["result"]], vendor
        assert {k: v for k, v in follow.items() if k != key} == {k: v for k, v in first.items() if k != key}, (
            f"{vendor}: the tools and settings of the next request stay as they were (a changed prefix is refused)"
        )


def post_status(url: str, body: dict) -> int:
    """The HTTP status a JSON POST gets, its response closed either way."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "anthropic-version": "2023-06-01"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as refused:
        with refused:
            return refused.code


def test_the_anthropic_wire_request_is_one_the_messages_api_accepts():
    """Notebook 02 shows this request; the fake refuses what the Messages API refuses, among it a
    manual thinking budget that max_tokens does not exceed (the example once sent 1024 and 2048)."""
    from tests.fakes.llm import FakeMessages

    request = copy.deepcopy(WIRE["Anthropic Messages"]["request"])
    assert request["thinking"] == {"type": "adaptive"}, "adaptive thinking is the current mode, with no budget"
    old = {**request, "max_tokens": 1024, "thinking": {"type": "enabled", "budget_tokens": 2048}}
    with FakeMessages(rate_limit_first=False) as fake:
        assert post_status(fake.base_url + "/v1/messages", request) == 200
        assert post_status(fake.base_url + "/v1/messages", old) == 400
