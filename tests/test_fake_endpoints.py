"""The fake model endpoints speak the real wire formats (issue 14, point 5; pack §2.5).

tests/fakes/llm.py stands in for OpenAI's Chat Completions and Anthropic's Messages APIs in
the adapter tests. A fake is only worth trusting if the official SDKs accept it: here each
fake is driven by the ``openai`` and ``anthropic`` SDKs (the ``models`` extra), and every body it
answers with is also validated field by field against the SDK's own response model.
"""

import json
import socket
import urllib.error
import urllib.request

import anthropic
import openai
import pytest
from anthropic.types import Message
from fakes.llm import FakeChatCompletions, FakeMessages, schema_type_problem, sdk_request_body
from openai.types.chat import ChatCompletion

KEY = "sk-test-7f3a"
USER = [{"role": "user", "content": "What is the weather in Paris and in Rome?"}]
WEATHER_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def openai_tool(name="get_weather", schema=WEATHER_SCHEMA):
    return {"type": "function", "function": {"name": name, "description": "Weather now.", "parameters": schema}}


def anthropic_tool(name="get_weather", schema=WEATHER_SCHEMA):
    return {"name": name, "description": "Weather now.", "input_schema": schema}


def says(**intent):
    """A scenario that always answers with ``intent``."""
    return lambda body: intent


def openai_reply(intent, *, tools=True, **fake_options):
    """Run one SDK call against a fake that answers ``intent``; (typed reply, fake)."""
    fake_options.setdefault("rate_limit_first", False)
    with FakeChatCompletions(says(**intent), api_key=KEY, **fake_options) as fake:
        client = openai.OpenAI(base_url=fake.base_url, api_key=KEY, max_retries=2)
        extra = {"tools": [openai_tool()]} if tools else {}
        reply = client.chat.completions.create(model="gpt-test", messages=USER, **extra)
    for body in fake.answered:
        ChatCompletion.model_validate(body)  # every field the SDK's model requires, with legal values
    return reply, fake


def anthropic_reply(intent, *, tools=True, **fake_options):
    fake_options.setdefault("rate_limit_first", False)
    with FakeMessages(says(**intent), api_key=KEY, **fake_options) as fake:
        client = anthropic.Anthropic(base_url=fake.base_url, api_key=KEY, max_retries=2)
        extra = {"tools": [anthropic_tool()]} if tools else {}
        reply = client.messages.create(model="claude-test", max_tokens=256, messages=USER, **extra)
    for body in fake.answered:
        Message.model_validate(body)
    return reply, fake


def raw_post(url, body, headers=None):
    """POST with the standard library: (status, parsed JSON, response headers)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method="POST", headers={"content-type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read()), dict(response.headers)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read()), dict(err.headers)


# -- OpenAI Chat Completions, through the openai SDK -----------------------------------------


def test_openai_text_reply_parses():
    reply, fake = openai_reply({"text": "Sunny.", "calls": []}, tools=False)
    choice = reply.choices[0]
    assert (choice.message.content, choice.message.tool_calls, choice.finish_reason) == ("Sunny.", None, "stop")
    assert reply.model == "gpt-test" and reply.usage.total_tokens > 0
    sent = fake.requests[0]
    assert (sent["method"], sent["path"]) == ("POST", "/v1/chat/completions")
    assert sent["headers"]["authorization"] == f"Bearer {KEY}"
    assert sent["body"]["messages"] == USER


def test_openai_one_tool_call_has_arguments_as_a_json_string():
    reply, _ = openai_reply({"calls": [("get_weather", {"city": "Paris"})]})
    choice = reply.choices[0]
    call = choice.message.tool_calls[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    assert (call.id, call.type, call.function.name) == ("call_1", "function", "get_weather")
    assert isinstance(call.function.arguments, str)
    assert json.loads(call.function.arguments) == {"city": "Paris"}


def test_openai_parallel_calls_with_text_in_one_turn():
    reply, _ = openai_reply(
        {"text": "Checking both.", "calls": [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]}
    )
    message = reply.choices[0].message
    assert message.content == "Checking both."
    assert [c.id for c in message.tool_calls] == ["call_1", "call_2"]
    assert [json.loads(c.function.arguments)["city"] for c in message.tool_calls] == ["Paris", "Rome"]
    assert reply.choices[0].finish_reason == "tool_calls"


def test_openai_malformed_arguments_are_sent_unchanged():
    reply, _ = openai_reply({"calls": [("get_weather", '{"city": "Par')]})
    assert reply.choices[0].message.tool_calls[0].function.arguments == '{"city": "Par'


def test_openai_refusal_and_length():
    refused, _ = openai_reply({"refusal": "I can't help with that."})
    assert refused.choices[0].message.refusal == "I can't help with that."
    assert refused.choices[0].message.content is None
    cut, _ = openai_reply({"text": "The weather in Pa", "stop": "length"})
    assert cut.choices[0].finish_reason == "length"


def test_openai_rate_limit_once_then_success():
    reply, fake = openai_reply({"text": "ok"}, rate_limit_first=True)
    assert reply.choices[0].message.content == "ok"
    assert len(fake.requests) == 2 and len(fake.answered) == 1
    assert fake.requests[1]["headers"]["x-stainless-retry-count"] == "1"  # the SDK's own retry


def test_openai_a_full_tool_turn_is_accepted():
    with FakeChatCompletions(says(text="Paris: sunny."), rate_limit_first=False) as fake:
        client = openai.OpenAI(base_url=fake.base_url, api_key="unused", max_retries=0)
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
        }
        history = USER + [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        ]
        reply = client.chat.completions.create(model="m", messages=history, tools=[openai_tool()])
        assert reply.choices[0].message.content == "Paris: sunny."
        with pytest.raises(openai.BadRequestError, match="did not have response messages: call_1"):
            client.chat.completions.create(model="m", messages=history[:-1] + USER, tools=[openai_tool()])


# -- Anthropic Messages, through the anthropic SDK --------------------------------------------


def test_anthropic_text_reply_parses():
    reply, fake = anthropic_reply({"text": "Sunny."}, tools=False)
    assert [(b.type, b.text) for b in reply.content] == [("text", "Sunny.")]
    assert (reply.role, reply.stop_reason, reply.stop_sequence) == ("assistant", "end_turn", None)
    assert reply.usage.input_tokens > 0 and reply.usage.output_tokens > 0
    sent = fake.requests[0]
    assert (sent["method"], sent["path"]) == ("POST", "/v1/messages")
    assert sent["headers"]["anthropic-version"]
    assert sent["body"]["max_tokens"] == 256


def test_anthropic_tool_use_input_is_a_dict():
    reply, _ = anthropic_reply({"text": "Let me look.", "calls": [("get_weather", {"city": "Paris"})]})
    assert reply.stop_reason == "tool_use"
    assert [b.type for b in reply.content] == ["text", "tool_use"]
    use = reply.content[1]
    assert (use.id, use.name, use.input) == ("toolu_1", "get_weather", {"city": "Paris"})


def test_anthropic_parallel_calls():
    reply, _ = anthropic_reply({"calls": [("get_weather", {"city": "Paris"}), ("get_weather", '{"city": "Rome"}')]})
    assert [(b.id, b.input["city"]) for b in reply.content] == [("toolu_1", "Paris"), ("toolu_2", "Rome")]


def test_anthropic_refusal_and_max_tokens():
    refused, _ = anthropic_reply({"refusal": "Declined by policy."})
    assert refused.stop_reason == "refusal" and refused.content == []
    assert refused.stop_details.explanation == "Declined by policy."
    cut, _ = anthropic_reply({"text": "The weather in Pa", "stop": "length"})
    assert cut.stop_reason == "max_tokens"


def test_anthropic_rate_limit_once_then_success():
    reply, fake = anthropic_reply({"text": "ok"}, rate_limit_first=True)
    assert reply.content[0].text == "ok"
    assert len(fake.requests) == 2 and len(fake.answered) == 1


def test_anthropic_a_full_tool_turn_is_accepted():
    with FakeMessages(says(text="Paris: sunny."), rate_limit_first=False) as fake:
        client = anthropic.Anthropic(base_url=fake.base_url, api_key="unused", max_retries=0)
        use = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
        result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}
        history = USER + [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]
        reply = client.messages.create(model="m", max_tokens=64, messages=history, tools=[anthropic_tool()])
        assert reply.content[0].text == "Paris: sunny."
        with pytest.raises(anthropic.BadRequestError, match="without `tool_result` blocks"):
            client.messages.create(model="m", max_tokens=64, messages=history[:-1] + USER)
        with pytest.raises(anthropic.BadRequestError, match="top-level `system` parameter"):
            system_turn = [{"role": "system", "content": "Be brief."}]
            client.messages.create(model="m", max_tokens=64, messages=system_turn + USER)


def test_anthropic_manual_thinking_budget_must_fit_inside_max_tokens():
    """As the Messages API: budget_tokens of at least 1024, and max_tokens greater than it."""
    with FakeMessages(says(text="ok"), rate_limit_first=False) as fake:
        client = anthropic.Anthropic(base_url=fake.base_url, api_key="unused", max_retries=0)

        def ask(max_tokens, thinking):
            return client.messages.create(model="m", max_tokens=max_tokens, messages=USER, thinking=thinking)

        with pytest.raises(
            anthropic.BadRequestError, match="`max_tokens` must be greater than `thinking.budget_tokens`"
        ):
            ask(1024, {"type": "enabled", "budget_tokens": 2048})
        with pytest.raises(anthropic.BadRequestError, match="`max_tokens` must be greater"):
            ask(1024, {"type": "enabled", "budget_tokens": 1024})  # equal is refused too
        with pytest.raises(anthropic.BadRequestError, match="greater than or equal to 1024"):
            ask(4096, {"type": "enabled", "budget_tokens": 512})
        assert ask(1025, {"type": "enabled", "budget_tokens": 1024}).content[0].text == "ok"
        assert ask(1024, {"type": "adaptive"}).content[0].text == "ok"  # adaptive has no budget


def test_anthropic_key_may_come_as_x_api_key_too():
    """The docs and SDKs before 2.0 send ``x-api-key``; the 2.x SDK sends a Bearer token."""
    with FakeMessages(api_key=KEY, rate_limit_first=False) as fake:
        body = {"model": "m", "max_tokens": 8, "messages": USER}
        status, reply, _ = raw_post(
            fake.base_url + "/v1/messages", body, {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
        )
        assert status == 200 and Message.model_validate(reply).content[0].text == "ok"
        status, reply, _ = raw_post(fake.base_url + "/v1/messages", body, {"x-api-key": KEY})
        assert status == 400 and reply["error"]["message"] == "anthropic-version: header is required"
        status, reply, _ = raw_post(
            fake.base_url + "/v1/messages",
            {"model": "m", "messages": USER},
            {"x-api-key": KEY, "anthropic-version": "2023-06-01"},
        )
        assert status == 400 and reply["error"]["message"] == "max_tokens: Field required"
        assert reply["type"] == "error" and reply["error"]["type"] == "invalid_request_error"


# -- refusals both APIs share: names, types, keys, models -------------------------------------

SDKS = {
    "openai": (
        FakeChatCompletions,
        openai,
        openai_tool,
        lambda fake, key, tools, model="gpt-test": openai.OpenAI(
            base_url=fake.base_url, api_key=key, max_retries=2
        ).chat.completions.create(model=model, messages=USER, tools=tools),
    ),
    "anthropic": (
        FakeMessages,
        anthropic,
        anthropic_tool,
        lambda fake, key, tools, model="claude-test": anthropic.Anthropic(
            base_url=fake.base_url, api_key=key, max_retries=2
        ).messages.create(model=model, max_tokens=64, messages=USER, tools=tools),
    ),
}

BFCL_SCHEMAS = {
    "dict at the top": {"type": "dict", "properties": {"a": {"type": "integer"}}},
    "float property": {"type": "object", "properties": {"x": {"type": "float"}}},
    "tuple items": {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "tuple"}}}},
    "any deep inside": {
        "type": "object",
        "properties": {"o": {"type": "object", "properties": {"v": {"type": "any"}}}},
    },
}


@pytest.mark.parametrize("api", SDKS)
@pytest.mark.parametrize("name", ["math.hypot", "has space", "x" * 65, ""])
def test_illegal_tool_name_is_a_400(api, name):
    fake_class, sdk, tool, call = SDKS[api]
    with fake_class(api_key=KEY, retry_after="0.01") as fake:  # the SDK waits what Retry-After says
        with pytest.raises(sdk.BadRequestError) as caught:
            call(fake, KEY, [tool(name=name)])
    assert caught.value.status_code == 400 and "pattern" in str(caught.value)
    assert len(fake.requests) == 2 and fake.answered == []  # the 429 first, then the refusal: never retried


@pytest.mark.parametrize("api", SDKS)
@pytest.mark.parametrize("case", BFCL_SCHEMAS)
def test_non_json_schema_type_is_a_400(api, case):
    fake_class, sdk, tool, call = SDKS[api]
    with fake_class(rate_limit_first=False) as fake:
        with pytest.raises(sdk.BadRequestError, match="not a JSON Schema type"):
            call(fake, "any", [tool(name="bfcl_tool", schema=BFCL_SCHEMAS[case])])
    assert fake.answered == []


@pytest.mark.parametrize("api", SDKS)
def test_wrong_key_is_a_401_and_no_key_is_needed_without_one(api):
    fake_class, sdk, tool, call = SDKS[api]
    with fake_class(api_key=KEY, rate_limit_first=False) as fake:
        with pytest.raises(sdk.AuthenticationError) as caught:
            call(fake, "sk-wrong-5e1d", [tool()])
    assert "5e1d" not in str(caught.value.body) and "7f3a" not in str(caught.value.body)  # no key echoed
    assert len(fake.requests) == 1  # a 401 is not retried
    with fake_class(rate_limit_first=False) as local:  # like Ollama: any key, or none, is fine
        call(local, "whatever", [tool()])
    assert len(local.answered) == 1


@pytest.mark.parametrize("api", SDKS)
def test_unknown_model_is_a_404(api):
    fake_class, sdk, tool, call = SDKS[api]
    with fake_class(rate_limit_first=False, model_names=["known"]) as fake:
        with pytest.raises(sdk.NotFoundError, match="nope"):
            call(fake, KEY, [tool()], model="nope")
        call(fake, KEY, [tool()], model="known")
    assert len(fake.answered) == 1


def test_other_paths_are_404_in_each_shape_and_recorded():
    with FakeChatCompletions() as chat, FakeMessages() as messages:
        status, body, _ = raw_post(chat.base_url + "/completions", {"model": "m"})
        assert status == 404 and set(body["error"]) == {"message", "type", "param", "code"}
        status, body, _ = raw_post(messages.base_url + "/v1/complete", {"model": "m"})
        assert status == 404 and body["type"] == "error" and body["error"]["type"] == "not_found_error"
    assert chat.requests[0]["path"] == "/v1/completions"
    assert messages.requests[0]["body"] == {"model": "m"}


def test_the_429_carries_retry_after_in_each_shape():
    with FakeChatCompletions(retry_after="7") as chat, FakeMessages(retry_after="3") as messages:
        status, body, headers = raw_post(chat.base_url + "/chat/completions", {"model": "m", "messages": USER})
        assert (status, headers["retry-after"], body["error"]["code"]) == (429, "7", "rate_limit_exceeded")
        status, body, headers = raw_post(
            messages.base_url + "/v1/messages", {"model": "m", "messages": USER}, {"anthropic-version": "2023-06-01"}
        )
        assert (status, headers["retry-after"], body["error"]["type"]) == (429, "3", "rate_limit_error")


def test_openai_missing_fields_and_bad_json_are_400s():
    with FakeChatCompletions(rate_limit_first=False) as fake:
        url = fake.base_url + "/chat/completions"
        assert raw_post(url, {"messages": USER})[1]["error"]["message"] == "you must provide a model parameter"
        status, body, _ = raw_post(url, {"model": "m"})
        assert (status, body["error"]["param"]) == (400, "messages")
        assert body["error"]["code"] == "missing_required_parameter"
        assert raw_post(url, b"{not json")[0] == 400
    assert fake.answered == [] and len(fake.requests) == 3 and fake.requests[2]["body"] is None


def test_a_failing_scenario_is_a_500_that_names_the_problem():
    def broken(body):
        raise KeyError("no such case")

    with FakeChatCompletions(broken, rate_limit_first=False) as fake:
        status, body, _ = raw_post(fake.base_url + "/chat/completions", {"model": "m", "messages": USER})
    assert status == 500 and "no such case" in body["error"]["message"] and fake.errors


def test_schema_walk_finds_types_in_nested_places():
    assert schema_type_problem(WEATHER_SCHEMA) is None
    assert schema_type_problem({"type": ["string", "null"]}) is None
    assert schema_type_problem({"anyOf": [{"type": "string"}, {"type": "dict"}]}) == (("anyOf", 1), "dict")
    assert schema_type_problem({"type": "object", "additionalProperties": {"type": "float"}}) == (
        ("additionalProperties",),
        "float",
    )


def test_stop_frees_the_port():
    fake = FakeChatCompletions().start()
    port = fake.port
    fake.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    with pytest.raises(RuntimeError, match="not running"):
        _ = fake.base_url


# -- what the SDKs send, for the adapters to compare with -------------------------------------


def test_sdk_request_body_records_what_each_sdk_sends():
    sent = sdk_request_body("openai", model="m", messages=USER, tools=[openai_tool()], temperature=0)
    assert sent == {"model": "m", "messages": USER, "tools": [openai_tool()], "temperature": 0}
    sent = sdk_request_body(
        "anthropic", model="m", max_tokens=32, messages=USER, tools=[anthropic_tool()], system="Be brief."
    )
    assert sent == {
        "model": "m",
        "max_tokens": 32,
        "messages": USER,
        "tools": [anthropic_tool()],
        "system": "Be brief.",
    }
    with pytest.raises(ValueError, match="openai' or 'anthropic"):
        sdk_request_body("gemini", model="m")
