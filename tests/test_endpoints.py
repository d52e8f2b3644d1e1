"""The endpoint adapters (toolkit/lessons/endpoints.py) against local fakes of the two APIs.

No network and no key: tests/fakes/llm.py serves OpenAI's Chat Completions and Anthropic's
Messages on 127.0.0.1 and refuses what the real services refuse (illegal names, BFCL types,
a wrong key, unanswered tool calls), and answers the first request with 429 + Retry-After.
The adapters send through the official ``openai`` and ``anthropic`` SDKs, whose retry waits
the ``sdk_waits`` fixture (tests/conftest.py) records instead of sleeping.
"""

from __future__ import annotations

import json
import re
import socket

import pytest

import toolkit as T
from tests.fakes.llm import FakeChatCompletions, FakeMessages, schema_type_problem
from toolkit.lessons.endpoints import ChatCompletionsModel, EndpointError, MessagesModel
from toolkit.lessons.toy_tools import make_weather_registry
from toolkit.lessons.wire import LEGAL_NAME, legal_names, wire_schema, wire_tools

KEY = "sk-test-LEAKCANARY-123"
APIS = [(FakeChatCompletions, ChatCompletionsModel), (FakeMessages, MessagesModel)]
IDS = ["openai", "anthropic"]
pytestmark = pytest.mark.usefixtures("sdk_waits")


def model_for(fake, cls, *, key=KEY, **options):
    return cls(fake.base_url, "test-model", key, **options)


def tool_results_in(body) -> int:
    """How many tool results the conversation in a request body holds, in either format."""
    n = 0
    for m in body["messages"]:
        if m.get("role") == "tool":
            n += 1
        elif isinstance(m.get("content"), list):
            n += sum(1 for b in m["content"] if b.get("type") == "tool_result")
    return n


# --------------------------------------------------------------------------------------------
# replies: parallel calls, text with calls, malformed arguments, refusals, stop reasons


@pytest.mark.parametrize("fake_cls,model_cls", APIS, ids=IDS)
def test_parallel_calls_with_text_come_back_in_the_mocks_shape(fake_cls, model_cls):
    def respond(body):
        return {
            "text": "Checking both.",
            "calls": [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Oslo", "unit": "celsius"})],
        }

    with fake_cls(respond, api_key=KEY) as fake:
        reply = model_for(fake, model_cls).respond(
            [{"role": "user", "content": "Paris or Oslo?"}], make_weather_registry().list_schemas()
        )
    assert reply["content"] == "Checking both."
    assert [(c["name"], c["arguments"]) for c in reply["tool_calls"]] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Oslo", "unit": "celsius"}),
    ]
    assert len({c["id"] for c in reply["tool_calls"]}) == 2
    assert reply["stop_reason"] == ("tool_calls" if model_cls is ChatCompletionsModel else "tool_use")
    assert reply["refusal"] is None


@pytest.mark.parametrize("fake_cls,model_cls", APIS, ids=IDS)
def test_a_whole_run_through_run_agent_with_parallel_calls(fake_cls, model_cls):
    def respond(body):
        if tool_results_in(body) == 0:
            return {"calls": [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Oslo"})]}
        return {"text": "Paris is warmer."}

    with fake_cls(respond, api_key=KEY) as fake:
        result = T.run_agent(
            model_for(fake, model_cls), make_weather_registry(), "Paris or Oslo?", system="Answer in one line."
        )
        last = fake.requests[-1]["body"]
    assert result.final == "Paris is warmer." and result.calls == 2 and result.stop_reason == "final"
    assert [r.ok for _, r in result.results] == [True, True]
    assert tool_results_in(last) == 2  # both answers went back, in the API's own format
    if model_cls is MessagesModel:
        assert last["system"] == "Answer in one line."
        assert [m["role"] for m in last["messages"]] == ["user", "assistant", "user"]


def test_malformed_json_arguments_reach_the_loops_validation_as_the_string_sent():
    raw = '{"city": "Oslo"'  # cut off: not JSON

    def respond(body):
        if tool_results_in(body) == 0:
            return {"calls": [("get_weather", {"city": "Paris"}), ("get_weather", raw)]}
        return {"text": "done"}

    with FakeChatCompletions(respond) as fake:
        model = model_for(fake, ChatCompletionsModel)
        first = model.respond([{"role": "user", "content": "x"}], make_weather_registry().list_schemas())
        assert first["tool_calls"][1]["arguments"] == raw
        result = T.run_agent(model, make_weather_registry(), "Paris and Oslo?")
        sent_back = fake.requests[-1]["body"]["messages"]
    call, answer = result.results[1]
    assert call["arguments"] == raw
    assert answer.kind == "invalid_args" and "arguments must be an object, got string" in answer.content
    assert result.results[0][1].ok
    # the next request carries the model's own string back, unchanged, with the error as the result
    assistant = next(m for m in sent_back if m["role"] == "assistant")
    assert assistant["tool_calls"][1]["function"]["arguments"] == raw
    tool_msgs = [m for m in sent_back if m["role"] == "tool"]
    assert "arguments must be an object" in tool_msgs[1]["content"]


@pytest.mark.parametrize("fake_cls,model_cls", APIS, ids=IDS)
def test_arguments_the_loop_can_repair_are_repaired(fake_cls, model_cls):
    def respond(body):
        if tool_results_in(body) == 0:
            return {"calls": [("get_weather", {"City": "Paris", "unit": "Celsius"})]}
        return {"text": "21"}

    with fake_cls(respond) as fake:
        result = T.run_agent(model_for(fake, model_cls), make_weather_registry(), "Paris?")
    assert result.results[0][1].ok
    assert any("renamed parameter 'City' to 'city'" in e for e in result.events)


def test_json_that_is_not_an_object_stays_a_string_and_empty_arguments_are_an_empty_object():
    def respond(body):
        return {"calls": [("get_weather", "[1, 2]"), ("get_weather", "")]}

    with FakeChatCompletions(respond, rate_limit_first=False) as fake:
        reply = model_for(fake, ChatCompletionsModel).respond(
            [{"role": "user", "content": "x"}], make_weather_registry().list_schemas()
        )
    assert [c["arguments"] for c in reply["tool_calls"]] == ["[1, 2]", {}]


@pytest.mark.parametrize("fake_cls,model_cls", APIS, ids=IDS)
def test_a_refusal_is_said_in_the_content_and_kept(fake_cls, model_cls):
    def respond(body):
        return {"refusal": "I can't help with that."}

    with fake_cls(respond) as fake:
        model = model_for(fake, model_cls)
        reply = model.respond([{"role": "user", "content": "x"}], [])
        result = T.run_agent(model, make_weather_registry(), "x")
    assert reply["tool_calls"] == []
    assert reply["refusal"] == "I can't help with that."
    assert reply["content"] == "The model refused: I can't help with that."
    assert result.final == "The model refused: I can't help with that."
    if model_cls is MessagesModel:
        assert reply["stop_reason"] == "refusal"


@pytest.mark.parametrize(
    "fake_cls,model_cls,expected",
    [(FakeChatCompletions, ChatCompletionsModel, "length"), (FakeMessages, MessagesModel, "max_tokens")],
    ids=IDS,
)
def test_the_stop_reason_is_kept(fake_cls, model_cls, expected):
    with fake_cls(lambda body: {"text": "half an ans", "stop": "length"}, rate_limit_first=False) as fake:
        reply = model_for(fake, model_cls).respond([{"role": "user", "content": "x"}], [])
    assert reply["stop_reason"] == expected and reply["content"] == "half an ans"


@pytest.mark.parametrize("fake_cls,model_cls", APIS, ids=IDS)
def test_usage_is_counted(fake_cls, model_cls):
    with fake_cls() as fake:
        model = model_for(fake, model_cls)
        model.respond([{"role": "user", "content": "x"}], [])
        model.respond([{"role": "user", "content": "y"}], [])
    assert model.usage["requests"] == 3  # the 429 was a request too
    assert model.usage["input_tokens"] > 0 and model.usage["output_tokens"] > 0


# --------------------------------------------------------------------------------------------
# retries, back-off, timeouts


@pytest.mark.parametrize("fake_cls,model_cls", APIS, ids=IDS)
def test_429_is_retried_after_the_seconds_retry_after_names(fake_cls, model_cls, sdk_waits):
    waits = sdk_waits
    with fake_cls(retry_after="3") as fake:
        reply = model_for(fake, model_cls).respond([{"role": "user", "content": "x"}], [])
        assert len(fake.requests) == 2
    assert waits == [3.0]
    assert reply["content"] == "ok"


def failing(body):
    raise RuntimeError("upstream down")  # the fake answers 500


@pytest.mark.parametrize("fake_cls,model_cls", APIS, ids=IDS)
def test_5xx_backs_off_exponentially_and_gives_up_after_max_retries(fake_cls, model_cls, sdk_waits):
    with fake_cls(failing, rate_limit_first=False) as fake:
        model = model_for(fake, model_cls, max_retries=3)
        with pytest.raises(EndpointError) as err:
            model.respond([{"role": "user", "content": "x"}], [])
        assert len(fake.requests) == 4
    assert len(sdk_waits) == 3 and sdk_waits == sorted(sdk_waits) and sdk_waits[0] < sdk_waits[-1] / 2
    assert err.value.status == 500 and "after 4 tries" in str(err.value) and model.usage["requests"] == 4
    assert "\n" not in str(err.value)


def test_back_off_waits_are_capped(sdk_waits):
    with FakeChatCompletions(failing, rate_limit_first=False) as fake:
        model = model_for(fake, ChatCompletionsModel, max_retries=8)
        with pytest.raises(EndpointError):
            model.respond([{"role": "user", "content": "x"}], [])
    assert len(sdk_waits) == 8 and max(sdk_waits) <= 8 and sum(sdk_waits) <= 0.5 + 1 + 2 + 4 + 8 * 4


def test_a_retry_after_beyond_two_minutes_is_not_slept(sdk_waits):
    with FakeChatCompletions(retry_after="600") as fake:
        with pytest.raises(EndpointError) as err:
            model_for(fake, ChatCompletionsModel).respond([{"role": "user", "content": "x"}], [])
    assert sdk_waits == [] and err.value.status == 429 and "600" in str(err.value)


@pytest.fixture
def silent_server():
    """A socket that accepts connections and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


@pytest.mark.parametrize("model_cls", [ChatCompletionsModel, MessagesModel], ids=IDS)
def test_a_timeout_is_one_clear_error(silent_server, model_cls):
    model = model_cls(silent_server + "/v1", "m", KEY, timeout=0.3, max_retries=1)
    with pytest.raises(EndpointError) as err:
        model.respond([{"role": "user", "content": "x"}], [])
    text = str(err.value)
    assert err.value.kind == "timeout" and "within 0.3 s (timeout, 2 tries)" in text and "\n" not in text
    assert KEY not in text


def test_no_server_at_all_says_so():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with pytest.raises(EndpointError) as err:
        ChatCompletionsModel(f"http://127.0.0.1:{port}/v1", "m").respond([{"role": "user", "content": "x"}], [])
    assert err.value.kind == "connection" and "is the server running" in str(err.value)


# --------------------------------------------------------------------------------------------
# 400, 401, 404: one line that says what to fix, never the key


def one_line_error(fake, model) -> str:
    with pytest.raises(EndpointError) as err:
        model.respond([{"role": "user", "content": "x"}], [])
    text = str(err.value)
    assert "\n" not in text and KEY not in text and KEY not in repr(err.value)
    assert len(fake.requests) >= 1
    return text


def test_400_names_the_field_the_server_named():
    with FakeChatCompletions(rate_limit_first=False) as fake:
        text = one_line_error(fake, model_for(fake, ChatCompletionsModel, extra_body={"stream": True}))
    assert text.startswith("400 Bad Request") and "the field 'stream'" in text


def test_400_from_anthropic_passes_on_the_servers_words():
    manual = {"thinking": {"type": "enabled", "budget_tokens": 2048}}  # the older mode: budget inside max_tokens
    with FakeMessages(rate_limit_first=False) as fake:
        text = one_line_error(fake, model_for(fake, MessagesModel, extra_body=manual))  # max_tokens 1024
    assert text.startswith("400 Bad Request") and "must be greater than `thinking.budget_tokens`" in text


@pytest.mark.parametrize(
    "fake_cls,model_cls,var",
    [(FakeChatCompletions, ChatCompletionsModel, "OPENAI_API_KEY"), (FakeMessages, MessagesModel, "ANTHROPIC_API_KEY")],
    ids=IDS,
)
def test_401_says_to_check_the_key_in_its_variable(fake_cls, model_cls, var):
    with fake_cls(api_key="the-right-key") as fake:
        text = one_line_error(fake, model_for(fake, model_cls))
        assert f"check the API key in ${var}" in text
        text = one_line_error(fake, model_for(fake, model_cls, api_key_env="UNI_LLM_KEY"))
        assert "check the API key in $UNI_LLM_KEY" in text


@pytest.mark.parametrize("fake_cls,model_cls", APIS, ids=IDS)
def test_no_key_where_one_is_needed_says_which_variable_to_set(fake_cls, model_cls):
    with fake_cls(api_key=KEY) as fake:
        text = one_line_error(fake, model_for(fake, model_cls, key=None))
    assert text.startswith("401") and "check the API key in $" in text


@pytest.mark.parametrize("model_cls", [ChatCompletionsModel, MessagesModel], ids=IDS)
def test_a_base_url_that_serves_a_web_page_says_to_check_it(model_cls):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    class Page(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            page = b"<html><body>Welcome to the course portal</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Page) as server:
        Thread(target=server.serve_forever, daemon=True).start()
        model = model_cls(f"http://127.0.0.1:{server.server_address[1]}/v1", "m", KEY)
        with pytest.raises(EndpointError) as err:
            model.respond([{"role": "user", "content": "x"}], [])
        server.shutdown()
    assert err.value.kind == "protocol" and "is --base-url the API's address?" in str(err.value)


@pytest.mark.parametrize("fake_cls,model_cls", APIS, ids=IDS)
def test_404_for_an_unknown_model_says_to_check_the_url_and_model(fake_cls, model_cls):
    with fake_cls(model_names=["other-model"], rate_limit_first=False) as fake:
        text = one_line_error(fake, model_for(fake, model_cls))
    assert "check --base-url (OpenAI-style URLs end in /v1) and --model" in text
    assert "'test-model'" in text


def test_404_for_a_base_url_without_v1():
    with FakeChatCompletions(rate_limit_first=False) as fake:
        model = ChatCompletionsModel(fake.base_url[: -len("/v1")], "m")
        text = one_line_error(fake, model)
    assert text.startswith("404") and "end in /v1" in text


@pytest.mark.parametrize("fake_cls,model_cls", APIS, ids=IDS)
def test_the_key_goes_in_its_header_and_nowhere_else(fake_cls, model_cls):
    with fake_cls(api_key=KEY) as fake:
        model = model_for(fake, model_cls)
        reply = model.respond([{"role": "user", "content": "x"}], [])
        request = fake.requests[-1]
    if model_cls is ChatCompletionsModel:
        assert request["headers"]["authorization"] == f"Bearer {KEY}"
    else:
        # the anthropic SDK sends the key as a bearer token; Anthropic's API takes it there or in x-api-key
        assert f"Bearer {KEY}" == request["headers"].get("authorization") or request["headers"].get("x-api-key") == KEY
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", request["headers"]["anthropic-version"])  # the SDK's own
    assert KEY not in json.dumps(request["body"])
    assert KEY not in repr(model) and KEY not in str(model) and "api_key=<set>" in repr(model)
    assert KEY not in json.dumps(reply) and KEY not in json.dumps(model.last_response)


def test_a_server_that_echoes_the_key_does_not_get_it_into_the_error():
    class Echo(FakeChatCompletions):
        def check_headers(self, headers):
            from tests.fakes.llm import ApiError

            raise ApiError(401, "invalid_request_error", f"Incorrect API key provided: {headers['authorization']}")

    with Echo() as fake:
        text = one_line_error(fake, model_for(fake, ChatCompletionsModel))
    assert "[key hidden]" in text


# --------------------------------------------------------------------------------------------
# tool definitions real endpoints accept, and names mapped back


BFCL_FUNCTION = {
    "name": "math.hypot",
    "description": "Hypotenuse.",
    "parameters": {
        "type": "dict",
        "required": ["x"],
        "properties": {
            "x": {"type": "float", "description": "first"},
            "point": {"type": "tuple", "items": {"type": "float"}},
            "data": {"type": "any"},
            "options": {
                "type": "dict",
                "properties": {
                    "scale": {"type": "integer"},
                    "pairs": {"type": "array", "items": {"type": "dict", "properties": {"k": {"type": "float"}}}},
                },
            },
            "weird": {"type": "HashMap"},
            "maybe": {"type": ["float", "null"]},
        },
    },
}


def test_bfcl_types_become_json_schema_types_all_the_way_down():
    before = json.dumps(BFCL_FUNCTION, sort_keys=True)
    schema = wire_schema(BFCL_FUNCTION["parameters"])
    assert json.dumps(BFCL_FUNCTION, sort_keys=True) == before  # the case itself is untouched
    props = schema["properties"]
    assert schema["type"] == "object" and schema["required"] == ["x"]
    assert props["x"] == {"type": "number", "description": "first"}
    assert props["point"] == {"type": "array", "items": {"type": "number"}}
    assert props["data"] == {"type": "string"}  # as BFCL's own handlers send "any"
    assert props["options"]["type"] == "object"
    assert props["options"]["properties"]["pairs"]["items"] == {
        "type": "object",
        "properties": {"k": {"type": "number"}},
    }
    assert props["weird"] == {"type": "object"}
    assert props["maybe"] == {"type": ["number", "null"]}
    assert schema_type_problem(schema) is None  # what the fakes (and real APIs) check


def test_parameters_named_like_schema_keywords_are_converted_too():
    keywords = ("title", "description", "default", "enum", "type", "required", "items")
    schema = wire_schema({"type": "dict", "properties": {k: {"type": "float"} for k in keywords}})
    assert schema["properties"] == {k: {"type": "number"} for k in keywords}
    assert schema_type_problem(schema) is None


def test_a_missing_or_empty_schema_becomes_an_empty_object():
    assert wire_schema(None) == {"type": "object", "properties": {}}
    assert wire_schema({"type": "dict"}) == {"type": "object", "properties": {}}


def test_names_get_legal_distinct_aliases():
    long_dotted = "a." * 40  # 80 characters
    names = legal_names(
        ["math.hypot", "math_hypot", "math-hypot", "math hypot", long_dotted, long_dotted + "x", "ok_name", "ünïcode"]
    )
    assert names["math_hypot"] == "math_hypot" and names["math-hypot"] == "math-hypot"
    assert names["math.hypot"] == "math_hypot_2" and names["math hypot"] == "math_hypot_3"
    assert names["ok_name"] == "ok_name"
    assert all(LEGAL_NAME.match(a) for a in names.values())
    assert len(set(names.values())) == len(names)
    assert len(names[long_dotted]) == 64 and len(names[long_dotted + "x"]) == 64


def test_wire_tools_reads_registry_and_bfcl_definitions():
    specs, names = wire_tools(make_weather_registry().list_schemas() + [BFCL_FUNCTION])
    assert [s["name"] for s in specs] == ["get_weather", "flaky_rate", "slow_lookup", "math_hypot"]
    assert names["math.hypot"] == "math_hypot"
    assert specs[0]["parameters"]["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]


@pytest.mark.parametrize("fake_cls,model_cls", APIS, ids=IDS)
def test_illegal_names_go_out_as_aliases_and_come_back_as_the_original(fake_cls, model_cls):
    seen = []

    def respond(body):
        seen.append(body)
        if tool_results_in(body) == 0:
            return {"calls": [("math_hypot", {"x": 3.0})]}
        return {"text": "5"}

    registry = T.ToolRegistry()
    registry.register(T.Tool("math.hypot", "Hypotenuse.", lambda x: 5.0, wire_schema(BFCL_FUNCTION["parameters"])))
    with fake_cls(respond) as fake:
        result = T.run_agent(model_for(fake, model_cls), registry, "hypot?")
    assert result.results[0][0]["name"] == "math.hypot" and result.results[0][1].ok
    assert result.final == "5"
    wire = json.dumps(seen[-1])
    assert "math.hypot" not in wire and "math_hypot" in wire  # tools and history both use the alias


def test_a_made_up_illegal_name_is_answered_and_sent_back_legally():
    def respond(body):
        if tool_results_in(body) == 0:
            return {"calls": [("no.such.tool", {})]}
        return {"text": "sorry"}

    with FakeChatCompletions(respond) as fake:
        result = T.run_agent(model_for(fake, ChatCompletionsModel), make_weather_registry(), "x")
    assert result.results[0][1].kind == "unknown_tool" and result.final == "sorry"


# --------------------------------------------------------------------------------------------
# the request bodies are what the official SDKs send for the same call


CONVERSATION = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Paris or Oslo, and the hypotenuse of 3 and 4?"},
    {
        "role": "assistant",
        "content": "Looking.",
        "tool_calls": [
            {"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}},
            {"id": "c2", "name": "math.hypot", "arguments": '{"x": 3'},
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "name": "get_weather", "content": "21", "is_error": False},
    {"role": "tool", "tool_call_id": "c2", "name": "math.hypot", "content": "bad", "is_error": True},
    {"role": "user", "content": "And Oslo?"},
]
TOOLS = [make_weather_registry().list_schemas()[0], BFCL_FUNCTION]


def weather_parameters():
    return make_weather_registry().list_schemas()[0]["inputSchema"]


def hypot_parameters():
    return {
        "type": "object",
        "required": ["x"],
        "properties": {
            "x": {"type": "number", "description": "first"},
            "point": {"type": "array", "items": {"type": "number"}},
            "data": {"type": "string"},
            "options": {
                "type": "object",
                "properties": {
                    "scale": {"type": "integer"},
                    "pairs": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "number"}}}},
                },
            },
            "weird": {"type": "object"},
            "maybe": {"type": ["number", "null"]},
        },
    }


def captured_body(fake_cls, model_cls, **options):
    with fake_cls(rate_limit_first=False) as fake:
        model_for(fake, model_cls, **options).respond(CONVERSATION, TOOLS)
        return fake.requests[-1]["body"]


def test_chat_completions_body_equals_the_openai_sdks():
    sdk = pytest.importorskip("tests.fakes.llm").sdk_request_body
    pytest.importorskip("openai")
    expected = sdk(
        "openai",
        model="test-model",
        temperature=0,
        max_tokens=1024,
        tool_choice="auto",
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Paris or Oslo, and the hypotenuse of 3 and 4?"},
            {
                "role": "assistant",
                "content": "Looking.",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    },
                    {"id": "c2", "type": "function", "function": {"name": "math_hypot", "arguments": '{"x": 3'}},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "21"},
            {"role": "tool", "tool_call_id": "c2", "content": "bad"},
            {"role": "user", "content": "And Oslo?"},
        ],
        tools=[
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": TOOLS[0]["description"],
                    "parameters": weather_parameters(),
                },
            },
            {
                "type": "function",
                "function": {"name": "math_hypot", "description": "Hypotenuse.", "parameters": hypot_parameters()},
            },
        ],
    )
    assert captured_body(FakeChatCompletions, ChatCompletionsModel) == expected


def test_messages_body_equals_the_anthropic_sdks():
    sdk = pytest.importorskip("tests.fakes.llm").sdk_request_body
    pytest.importorskip("anthropic")
    expected = sdk(
        "anthropic",
        model="test-model",
        max_tokens=1024,
        system="Be brief.",
        messages=[
            {"role": "user", "content": "Paris or Oslo, and the hypotenuse of 3 and 4?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Paris"}},
                    {"type": "tool_use", "id": "c2", "name": "math_hypot", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "21"},
                    {"type": "tool_result", "tool_use_id": "c2", "content": "bad", "is_error": True},
                    {"type": "text", "text": "And Oslo?"},
                ],
            },
        ],
        tools=[
            {"name": "get_weather", "description": TOOLS[0]["description"], "input_schema": weather_parameters()},
            {"name": "math_hypot", "description": "Hypotenuse.", "input_schema": hypot_parameters()},
        ],
        tool_choice={"type": "auto"},
    )
    assert captured_body(FakeMessages, MessagesModel) == expected


def test_settings_reach_the_body():
    body = captured_body(FakeChatCompletions, ChatCompletionsModel, temperature=None, extra_body={"seed": 7})
    assert "temperature" not in body and body["seed"] == 7
    body = captured_body(FakeMessages, MessagesModel, max_tokens=64)
    assert body["max_tokens"] == 64 and "temperature" not in body  # left out unless given


def test_a_temperature_sent_to_the_messages_api_comes_back_as_its_one_line_refusal():
    # API version 2026-10-21, which the anthropic SDK 2.x sends, refuses sampling parameters
    with FakeMessages(rate_limit_first=False) as fake:
        text = one_line_error(fake, model_for(fake, MessagesModel, temperature=0))
        assert fake.requests[-1]["body"]["temperature"] == 0
    assert text.startswith("400 Bad Request") and "temperature: Extra inputs are not permitted" in text


def test_bad_settings_are_refused_at_once():
    with pytest.raises(ValueError, match="http"):
        ChatCompletionsModel("localhost:11434/v1", "m")
    with pytest.raises(ValueError, match="model"):
        ChatCompletionsModel("http://localhost:11434/v1", "")
    with pytest.raises(ValueError, match="max_tokens"):
        MessagesModel("http://localhost", "m", max_tokens=0)


def test_a_short_placeholder_key_is_not_scrubbed_out_of_ordinary_words():
    # Ollama and friends accept any key; people pass "ollama". It is no secret, and hiding it
    # would turn the model's name "ollama/llama3" into nonsense in every message.
    with FakeChatCompletions(model_names=["x"], rate_limit_first=False) as fake:
        model = ChatCompletionsModel(fake.base_url, "ollama/llama3", "ollama")
        with pytest.raises(EndpointError) as err:
            model.respond([{"role": "user", "content": "x"}], [])
    assert "'ollama/llama3'" in str(err.value)


def test_an_anthropic_base_url_given_with_v1_still_reaches_v1_messages():
    with FakeMessages(rate_limit_first=False) as fake:
        reply = MessagesModel(fake.base_url + "/v1/", "m").respond([{"role": "user", "content": "x"}], [])
        assert fake.requests[-1]["path"] == "/v1/messages"
    assert reply["content"] == "ok"


def test_an_answer_cut_short_is_a_one_line_connection_error():
    import threading

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)

    def serve_half_an_answer():
        conn, _ = sock.accept()
        # Read the whole request first: closing with unread bytes makes the
        # kernel send a reset, and the client would see ConnectionResetError
        # instead of the short answer this test is about.
        request = b""
        while b"\r\n\r\n" not in request:
            request += conn.recv(65536)
        head, _, body = request.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
        while len(body) < length:
            body += conn.recv(65536)
        conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"ch')
        conn.shutdown(socket.SHUT_WR)
        conn.close()

    threading.Thread(target=serve_half_an_answer, daemon=True).start()
    try:
        with pytest.raises(EndpointError) as err:
            url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
            ChatCompletionsModel(url, "m", timeout=5, max_retries=0).respond([{"role": "user", "content": "x"}], [])
    finally:
        sock.close()
    assert err.value.kind == "connection" and "the connection broke" in str(err.value)


# --------------------------------------------------------------------------------------------
# what a real local server needs (issue 24): FakeChatCompletions(local=True) acts as
# llama-cpp-python's server does


def weather_run(fake, **options):
    """The weather question through run_agent with a local fake that calls once, then answers."""

    def respond(body):
        if any(m["role"] == "tool" for m in body["messages"]):
            return {"text": "Paris is warmer."}
        return {"calls": [("get_weather", {"city": "Paris"})]}

    fake.respond = respond
    model = model_for(fake, ChatCompletionsModel, **options)
    return T.run_agent(model, make_weather_registry(), "Paris or Oslo?")


def test_tools_go_out_with_tool_choice_auto_so_a_local_server_shows_them_to_the_model():
    with FakeChatCompletions(local=True, rate_limit_first=False) as fake:
        result = weather_run(fake)
    assert fake.requests[0]["body"]["tool_choice"] == "auto"
    assert result.calls == 1 and result.final == "Paris is warmer."


def test_tool_choice_can_be_none_required_a_named_tool_or_left_out():
    sent = {}
    for choice in ("none", "required", "get_weather", "math.hypot", None):
        sent[choice] = captured_body(FakeChatCompletions, ChatCompletionsModel, tool_choice=choice).get("tool_choice")
    assert sent == {
        "none": "none",
        "required": "required",
        "get_weather": {"type": "function", "function": {"name": "get_weather"}},
        "math.hypot": {"type": "function", "function": {"name": "math_hypot"}},  # the wire alias
        None: None,
    }
    sent = {c: captured_body(FakeMessages, MessagesModel, tool_choice=c)["tool_choice"] for c in ("none", "required")}
    assert sent == {"none": {"type": "none"}, "required": {"type": "any"}}
    assert captured_body(FakeMessages, MessagesModel, tool_choice="math.hypot")["tool_choice"] == {
        "type": "tool",
        "name": "math_hypot",
    }


def test_no_tool_choice_when_no_tools_are_sent():
    with FakeChatCompletions(rate_limit_first=False) as fake:
        model_for(fake, ChatCompletionsModel).respond([{"role": "user", "content": "hi"}], [])
    assert "tool_choice" not in fake.requests[-1]["body"] and "tools" not in fake.requests[-1]["body"]


def test_an_assistant_turn_with_only_calls_goes_out_with_empty_text_not_null():
    with FakeChatCompletions(local=True, rate_limit_first=False) as fake:
        weather_run(fake)
    second = fake.requests[-1]["body"]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "tool"]
    assert second[1]["content"] == ""


def test_max_tokens_goes_out_on_both_apis_by_default_and_can_be_changed_or_left_out():
    assert captured_body(FakeChatCompletions, ChatCompletionsModel)["max_tokens"] == 1024
    assert captured_body(FakeMessages, MessagesModel)["max_tokens"] == 1024
    assert captured_body(FakeChatCompletions, ChatCompletionsModel, max_tokens=64)["max_tokens"] == 64
    assert "max_tokens" not in captured_body(FakeChatCompletions, ChatCompletionsModel, max_tokens=None)
    with pytest.raises(ValueError, match="max_tokens"):
        ChatCompletionsModel("http://127.0.0.1:1/v1", "m", max_tokens=0)


def test_with_max_tokens_a_rambling_local_model_answers_within_the_timeout():
    with FakeChatCompletions(local=True, ramble=3.0, rate_limit_first=False) as fake:
        result = weather_run(fake, timeout=1.0)  # would time out after 1 s if it rambled
    assert result.final == "Paris is warmer." and all("max_tokens" in r["body"] for r in fake.requests)


def test_a_plain_400_is_not_retried_and_a_500_without_a_validation_error_still_is(sdk_waits):
    waits = sdk_waits
    with FakeChatCompletions(rate_limit_first=False, respond=failing) as fake:
        with pytest.raises(EndpointError) as err:
            model_for(fake, ChatCompletionsModel, max_retries=2).respond(CONVERSATION, TOOLS)
    assert err.value.kind == "http" and len(waits) == 2 and "busy or failing" in str(err.value)
    waits.clear()
    with FakeChatCompletions(rate_limit_first=False) as fake:
        with pytest.raises(EndpointError) as err:
            model_for(fake, ChatCompletionsModel, temperature=None, max_tokens=None,
                      extra_body={"max_tokens": 0}).respond(CONVERSATION, TOOLS)  # fmt: skip
    assert (err.value.kind, err.value.status, waits, len(fake.requests)) == ("refused", 400, [], 1)


# --------------------------------------------------------------------------------------------
# reasoning models (issue 21): opaque reasoning goes back unmodified


def thinks_then_calls(body):
    """The fake model: reasoning with one call, then an answer once the tool result is back."""
    if tool_results_in(body):
        return {"text": "Paris is warmer."}
    return {"reasoning": "Compare: fetch Paris first.", "redacted": True, "calls": [("get_weather", {"city": "Paris"})]}


def reasoning_run(fake, model):
    fake.respond = thinks_then_calls
    return T.run_agent(model, make_weather_registry(), "Paris or Oslo?")


def dropping_reasoning(fake, model):
    """The second request of a harness that keeps the call but drops the reply's reasoning."""
    fake.respond = thinks_then_calls
    tools = make_weather_registry().list_schemas()
    messages: list[dict] = [{"role": "user", "content": "Paris or Oslo?"}]
    reply = model.respond(messages, tools)
    assert reply["reasoning"]
    call = reply["tool_calls"][0]
    messages.append({"role": "assistant", "content": reply["content"], "tool_calls": [call]})
    messages.append({"role": "tool", "tool_call_id": call["id"], "content": "21"})
    return model.respond(messages, tools)


def keeping_reasoning(respond):
    """A loop that carries a reply's "reasoning" into the assistant turn, as run_agent does
    (issue 21); it wraps the model so this test does not depend on the loop's version."""
    state: dict = {}

    def model(messages, tools):
        for m in messages:
            if m.get("role") == "assistant" and m.get("tool_calls") and "reasoning" in state:
                m.setdefault("reasoning", state["reasoning"])
        reply = respond(messages, tools)
        if "reasoning" in reply:
            state["reasoning"] = reply["reasoning"]
        return reply

    return model


def test_anthropic_thinking_blocks_come_back_as_reasoning_and_go_back_first_unmodified():
    with FakeMessages(rate_limit_first=False) as fake:
        model = model_for(fake, MessagesModel, extra_body={"thinking": {"type": "adaptive"}})
        result = reasoning_run(fake, keeping_reasoning(model.respond))
    assert result.final == "Paris is warmer."
    first_reply = fake.answered[0]["content"]
    assistant = fake.requests[-1]["body"]["messages"][1]
    assert [b["type"] for b in assistant["content"]] == ["thinking", "redacted_thinking", "tool_use"]
    assert assistant["content"][:2] == first_reply[:2]  # signature and data as they came


def test_anthropic_thinking_blocks_dropped_by_a_harness_are_refused():
    manual = {"thinking": {"type": "enabled", "budget_tokens": 2048}}  # the older, deprecated mode
    with FakeMessages(rate_limit_first=False) as fake:
        model = model_for(fake, MessagesModel, max_tokens=4096, extra_body=manual)
        with pytest.raises(EndpointError, match="thinking"):
            dropping_reasoning(fake, model)


def test_with_anthropic_thinking_on_a_forced_tool_choice_goes_out_as_auto():
    for thinking in ({"type": "adaptive"}, {"type": "enabled", "budget_tokens": 2048}):
        body = captured_body(
            FakeMessages, MessagesModel, tool_choice="required", max_tokens=4096, extra_body={"thinking": thinking}
        )
        assert body["tool_choice"] == {"type": "auto"}, thinking
    assert captured_body(FakeMessages, MessagesModel, tool_choice="required")["tool_choice"] == {"type": "any"}


def test_a_manual_thinking_budget_goes_out_as_given_with_the_cap_it_needs():
    roomy = {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    body = captured_body(FakeMessages, MessagesModel, max_tokens=16000, extra_body=roomy)  # the fake accepted it
    assert body["max_tokens"] == 16000 and body["thinking"] == roomy["thinking"]
    adaptive = {"thinking": {"type": "adaptive"}}  # no budget: the default cap goes out
    assert captured_body(FakeMessages, MessagesModel, extra_body=adaptive)["max_tokens"] == 1024


def test_openai_style_reasoning_content_goes_back_on_the_turn_that_made_the_calls():
    with FakeChatCompletions(rate_limit_first=False) as fake:
        model = model_for(fake, ChatCompletionsModel)
        result = reasoning_run(fake, keeping_reasoning(model.respond))
    assert result.final == "Paris is warmer."
    assistant = fake.requests[-1]["body"]["messages"][1]
    assert assistant["reasoning_content"] == "Compare: fetch Paris first." and assistant["tool_calls"]
    with FakeChatCompletions(rate_limit_first=False) as fake:
        model = model_for(fake, ChatCompletionsModel)
        with pytest.raises(EndpointError, match="reasoning_content"):
            dropping_reasoning(fake, model)


def test_a_server_on_this_machine_gets_a_longer_timeout_and_fewer_retries_by_default():
    for url in ("http://127.0.0.1:8080/v1", "http://localhost:11434/v1", "http://[::1]:8080/v1"):
        assert (ChatCompletionsModel(url, "m").timeout, ChatCompletionsModel(url, "m").max_retries) == (300, 1)
    hosted = ChatCompletionsModel("https://api.openai.com/v1", "m")
    assert (hosted.timeout, hosted.max_retries) == (60, 4)
    given = MessagesModel("https://api.anthropic.com", "m", timeout=9, max_retries=0)
    assert (given.timeout, given.max_retries) == (9, 0)


@pytest.mark.parametrize("model_cls", [ChatCompletionsModel, MessagesModel], ids=IDS)
def test_a_local_model_too_slow_for_the_timeout_is_asked_twice_not_five_times(silent_server, model_cls):
    model = model_cls(silent_server + "/v1", "m", timeout=0.2)
    with pytest.raises(EndpointError) as err:
        model.respond([{"role": "user", "content": "x"}], [])
    assert err.value.kind == "timeout" and "(timeout, 2 tries)" in str(err.value)
