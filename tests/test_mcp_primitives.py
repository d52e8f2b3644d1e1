"""Every server primitive beside tools, and the server-to-client messages (toolkit/mcp; pack §2.6)."""

import pytest

from toolkit.lessons.toy_tools import make_server_registry
from toolkit.mcp import InMemoryTransport, MCPClient, MCPError, MCPServer, StdioTransport
from toolkit.mcp.answers import with_defaults
from toolkit.mcp.content import audio, check_block, embedded, image, resource_link
from toolkit.mcp.course import course_server
from toolkit.mcp.prompts import Prompt, PromptArgument, Prompts
from toolkit.mcp.resources import RESOURCE_NOT_FOUND, Resource, Resources, ResourceTemplate
from toolkit.mcp.tools import ServerTool
from toolkit.registry import ToolRegistry

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


def _steps(args, ctx):
    for done in (0, 50, 100):
        ctx.progress(done, 100)
        ctx.log("debug", f"step {done}")
    return "done"


def _ask(args, ctx):
    answer = ctx.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string", "default": "Ann"}}})
    return f"{answer['action']}: {answer.get('content')}"


def _fail(args, ctx):
    raise RuntimeError("the tool broke on purpose")


TOOLS = (
    ServerTool("steps", _steps),
    ServerTool("ask", _ask),
    ServerTool("fail", _fail),
    ServerTool("media", lambda a, c: [image(PNG), audio(PNG), resource_link("x://a", "a"), embedded("x://b", "B")]),
    ServerTool(
        "weather",
        lambda a, c: {"temp": 21} if a.get("good", True) else {"temp": "warm"},
        input_schema={"type": "object", "properties": {"good": {"type": "boolean"}}},
        output_schema={"type": "object", "properties": {"temp": {"type": "integer"}}, "required": ["temp"]},
    ),
)


def rich_server():
    note = Resource("note://today", "today", lambda: "sunny")
    day = ResourceTemplate("note://day/{day}", "day", lambda v: f"notes for {v['day']}")
    greet = Prompt(
        "greet",
        lambda a, c: [{"role": "user", "content": {"type": "text", "text": f"Hello {a['who']}"}}],
        arguments=[PromptArgument("who", required=True, choices=("Ann", "Bob", "Anouk"))],
    )
    return MCPServer(
        ToolRegistry(), tools=TOOLS, resources=Resources((note,), (day,)), prompts=Prompts((greet,)), logging=True
    )


def session(server=None, **callbacks):
    client = MCPClient(InMemoryTransport(server or rich_server()), **callbacks)
    client.initialize()
    return client


def test_capabilities_name_only_what_the_server_has():
    assert MCPClient(InMemoryTransport(MCPServer(make_server_registry()))).initialize()["capabilities"] == {
        "tools": {"listChanged": False}
    }
    caps = session().capabilities
    assert set(caps) == {"tools", "resources", "prompts", "logging", "completions"}
    bare = session(MCPServer(make_server_registry()))
    with pytest.raises(MCPError) as err:
        bare.list_resources()
    assert err.value.code == -32601  # no resources capability: the method does not exist


def test_resources_list_read_templates_and_a_missing_uri():
    client = session()
    assert [r["uri"] for r in client.list_resources()] == ["note://today"]
    assert client.read_resource("note://today")["contents"] == [
        {"uri": "note://today", "mimeType": "text/plain", "text": "sunny"}
    ]
    assert client.list_resource_templates()[0]["uriTemplate"] == "note://day/{day}"
    assert client.read_resource("note://day/monday")["contents"][0]["text"] == "notes for monday"
    with pytest.raises(MCPError) as err:
        client.read_resource("note://day/")  # the template needs a non-empty day
    assert err.value.code == RESOURCE_NOT_FOUND


def test_a_subscribed_resource_sends_updated_and_an_unsubscribed_one_does_not():
    server = rich_server()
    client = session(server)
    assert server.resource_updated("note://today") is False  # nobody subscribed yet
    client.subscribe("note://today")
    assert server.resource_updated("note://today") is True
    assert client.notifications[-1]["params"] == {"uri": "note://today"}
    client._request("resources/unsubscribe", {"uri": "note://today"})
    assert server.resource_updated("note://today") is False


def test_prompts_fill_arguments_refuse_a_missing_one_and_complete_values():
    client = session()
    assert client.list_prompts()[0]["arguments"] == [{"name": "who", "description": "", "required": True}]
    assert client.get_prompt("greet", {"who": "Ann"})["messages"][0]["content"]["text"] == "Hello Ann"
    with pytest.raises(MCPError) as err:
        client.get_prompt("greet", {})
    assert err.value.code == -32602 and "who" in err.value.message
    assert client.complete("greet", "who", "An") == ["Ann", "Anouk"]


def test_progress_only_with_a_token_and_logs_above_the_level_set():
    client = session()
    client.call_tool("steps")
    assert [n["method"] for n in client.notifications] == ["notifications/message"] * 3  # no token: no progress
    client.notifications.clear()
    client.call_tool("steps", progress_token="t1")
    progress = [n["params"] for n in client.notifications if n["method"] == "notifications/progress"]
    assert [(p["progressToken"], p["progress"], p["total"]) for p in progress] == [
        ("t1", 0, 100),
        ("t1", 50, 100),
        ("t1", 100, 100),
    ]
    client.notifications.clear()
    client.set_log_level("warning")
    client.call_tool("steps")
    assert client.notifications == []  # debug is below warning
    with pytest.raises(MCPError):
        client.set_log_level("loud")


def test_every_content_type_and_a_failing_tool_is_an_iserror_result():
    client = session()
    types = [b["type"] for b in client.call_tool("media")["content"]]
    assert types == ["image", "audio", "resource_link", "resource"]
    failed = client.call_tool("fail")
    assert failed["isError"] is True and failed["content"][0]["text"] == "the tool broke on purpose"
    with pytest.raises(MCPError):
        check_block({"type": "image", "data": "not base64!", "mimeType": "image/png"})


def test_structured_content_must_fit_the_output_schema():
    client = session()
    listed = {t["name"]: t for t in client.list_tools()}
    assert listed["weather"]["outputSchema"]["required"] == ["temp"] and "outputSchema" not in listed["steps"]
    good = client.call_tool("weather")
    assert good["structuredContent"] == {"temp": 21} and good["content"][0]["text"] == '{"temp": 21}'
    with pytest.raises(MCPError) as err:
        client.call_tool("weather", {"good": False})
    assert err.value.code == -32603 and "outputSchema" in err.value.message


def test_elicitation_goes_to_the_host_callback_with_defaults_applied():
    seen = []
    client = session(on_elicit=lambda message, schema: seen.append(message) or {"action": "accept", "content": {}})
    assert client.call_tool("ask")["content"][0]["text"] == "accept: {'name': 'Ann'}"
    assert seen == ["Your name?"]
    declined = session(on_elicit=lambda m, s: {"action": "decline"})
    assert declined.call_tool("ask")["content"][0]["text"] == "decline: None"


def test_a_client_without_the_capability_is_not_asked():
    result = session().call_tool("ask")  # no on_elicit: no elicitation capability declared
    assert result["isError"] is True and "elicitation" in result["content"][0]["text"]


def test_sampling_goes_to_the_host_callback():
    server = MCPServer(ToolRegistry(), tools=(ServerTool("s", lambda a, c: c.sample("hi")["content"]["text"]),))
    reply = {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "mock"}
    client = session(server, on_sample=lambda params: reply)
    assert client.call_tool("s")["content"][0]["text"] == "hello"


def test_the_stdio_server_asks_for_the_missing_city_and_the_answer_comes_back():
    with StdioTransport() as transport:
        client = MCPClient(transport, on_elicit=lambda m, s: {"action": "accept", "content": {"city": "Oslo"}})
        client.initialize()
        messages = client.get_prompt("plan_outing", {})["messages"]
        assert "Oslo" in messages[0]["content"]["text"]
        assert messages[1]["content"]["uri"] == "weather://forecast/Oslo"
        asked = [m for d, m in transport.log if d == "<-" and m.get("method") == "elicitation/create"]
        assert asked and asked[0]["params"]["requestedSchema"]["properties"]["city"]["default"] == "Paris"
        assert [t["name"] for t in client.list_tools()] == ["echo", "add"]


def test_the_course_server_reads_its_resources():
    client = session(course_server(MCPServer, make_server_registry()))
    assert "Oslo" in client.read_resource("weather://cities")["contents"][0]["text"]
    assert client.complete("plan_outing", "city", "O") == ["Oslo"]


def test_with_defaults_fills_only_what_the_user_left_out():
    schema = {"properties": {"a": {"default": 1}, "b": {"default": 2}, "c": {}}}
    assert with_defaults({"b": 5}, schema) == {"a": 1, "b": 5}


# ---- outputSchema: the JSON Schema 2020-12 keywords a result can break (issue 20, item 1) -------
# 2025-06-18 server/tools.mdx:313-316: a server MUST send structuredContent that conforms to its
# outputSchema; 2026-07-28 basic/index.mdx:291-292: validate by the dialect, 2020-12 by default.

DEFS = {"$defs": {"city": {"type": "string", "minLength": 2}}}
KEYWORD_CASES = [
    # (schema of the field "v", a value that fits, a value that breaks it)
    ({"type": "integer", "minimum": 0, "maximum": 10}, 10, 11),
    ({"type": "number", "exclusiveMinimum": 0}, 0.5, 0),
    ({"type": "number", "maximum": 10.5}, 10, 11),
    ({"type": "integer"}, 2**70, 2.5),
    ({"type": "number", "exclusiveMaximum": 1}, 0.5, 1),
    ({"type": "string", "minLength": 2, "maxLength": 3}, "abc", "abcd"),
    ({"const": "celsius"}, "celsius", "kelvin"),
    ({"const": 1}, 1, True),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 3, 3.5),
    ({"oneOf": [{"type": "integer"}, {"minimum": 5}]}, 3, 7),
    ({"allOf": [{"type": "integer"}, {"minimum": 5}]}, 6, 4),
    ({"not": {"type": "null"}}, 0, None),
    ({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": False}, ["a", 1], ["a", 1, 2]),
    ({"type": "array", "prefixItems": [{"type": "string"}]}, ["a", {"any": 1}], [1]),
    ({"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "integer"}}, [1, 2], [1, 2, 3]),
    ({"$ref": "#/$defs/city"}, "Oslo", "O"),
    (
        {"type": "object", "properties": {"w": {"$ref": "#/$defs/city"}}, "additionalProperties": False},
        {"w": "Rome"},
        {"x": 1},
    ),
    ({"type": "object", "additionalProperties": {"type": "integer"}}, {"a": 1}, {"a": "1"}),
    ({"enum": [[1, 2], {"k": True}]}, {"k": True}, {"k": 1}),
]


def output_server(field_schema):
    schema = {"type": "object", "properties": {"v": field_schema}, "required": ["v"], **DEFS}
    tool = ServerTool("give", lambda args, ctx: {"v": args["v"]}, output_schema=schema)
    client = MCPClient(InMemoryTransport(MCPServer(ToolRegistry(), tools=(tool,))))
    client.initialize()
    return client


@pytest.mark.parametrize("field, fits, breaks", KEYWORD_CASES)
def test_a_result_that_breaks_any_enforced_keyword_is_not_sent(field, fits, breaks):
    client = output_server(field)
    assert client.call_tool("give", {"v": fits})["structuredContent"] == {"v": fits}
    with pytest.raises(MCPError) as err:
        client.call_tool("give", {"v": breaks})
    assert err.value.code == -32603 and "structuredContent.v" in err.value.message


@pytest.mark.parametrize(
    "schema, named",
    [
        ({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]+$"}}}, "pattern"),
        ({"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}}, "if"),
        ({"type": "object", "properties": {"xs": {"type": "array", "uniqueItems": True}}}, "uniqueItems"),
        ({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}, "$ref"),
        ({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}, "$schema"),
    ],
)
def test_a_tool_whose_output_schema_the_check_cannot_enforce_is_refused_when_built(schema, named):
    """Refused rather than half-checked: a keyword the check skipped would let a result that
    breaks it through (2026-07-28 basic/index.mdx:293-296: an unsupported dialect is an error;
    301-303: no network $ref)."""
    with pytest.raises(ValueError) as refused:
        ServerTool("t", lambda a, c: {}, output_schema=schema)
    assert named in str(refused.value) and "outputSchema" in str(refused.value)
    # words that only describe are fine, and so is the 2020-12 dialect named outright
    ServerTool(
        "ok",
        lambda a, c: {},
        output_schema={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "T",
            "type": "object",
            "properties": {"d": {"type": "string", "format": "date", "description": "when", "examples": ["x"]}},
        },
    )


# ---- the course's tools written for MCP: one elicits, one samples (notebook 06, section 5) ------


def mock_model(params):
    return {"role": "assistant", "content": {"type": "text", "text": "Walk by the water."}, "model": "mock-model"}


def course_client(kind=MCPServer, **callbacks):
    from toolkit.mcp.course import course_tools

    link = InMemoryTransport(course_server(kind, make_server_registry(), tools=course_tools()))
    client = MCPClient(link, **callbacks)
    if kind is MCPServer:
        client.initialize()
    else:
        client.connect()
    return client, link


def test_the_forecast_tool_asks_for_a_city_the_model_left_out():
    client, link = course_client(on_elicit=lambda message, schema: {"action": "accept", "content": {"city": "Oslo"}})
    assert [t["name"] for t in client.list_tools()] == ["echo", "add", "forecast", "outing_tip"]
    result = client.call_tool("forecast", {})
    assert result["structuredContent"] == {"city": "Oslo", "celsius": 9} and not result["isError"]
    asked = [m for arrow, m in link.log if arrow == "<-" and m.get("method") == "elicitation/create"]
    assert len(asked) == 1 and asked[0]["params"]["requestedSchema"]["required"] == ["city"]
    assert client.call_tool("forecast", {"city": "Paris"})["structuredContent"]["city"] == "Paris"  # not asked
    assert len([m for arrow, m in link.log if m.get("method") == "elicitation/create"]) == 1


def test_the_forecast_tool_says_so_when_the_user_declines_or_the_client_cannot_ask():
    declined, _ = course_client(on_elicit=lambda message, schema: {"action": "decline"})
    result = declined.call_tool("forecast", {})
    assert result["isError"] and "no city" in result["content"][0]["text"]
    mute, _ = course_client()  # no elicitation capability declared
    result = mute.call_tool("forecast", {})
    assert result["isError"] and "elicitation" in result["content"][0]["text"]


def test_the_outing_tip_is_written_by_the_clients_model():
    client, link = course_client(on_sample=mock_model)
    text = client.call_tool("outing_tip", {"city": "Oslo"})["content"][0]["text"]
    assert text == "Walk by the water. (sampled from mock-model)"
    (asked,) = [m for arrow, m in link.log if arrow == "<-" and m.get("method") == "sampling/createMessage"]
    assert "Oslo" in asked["params"]["messages"][0]["content"]["text"] and asked["params"]["maxTokens"] == 60


def test_both_course_tools_work_as_multi_round_trip_requests_at_2026():
    from toolkit.mcp.modern import ModernServer

    client, link = course_client(
        ModernServer, on_elicit=lambda m, s: {"action": "accept", "content": {}}, on_sample=mock_model
    )
    assert client.modern
    assert client.call_tool("forecast", {})["structuredContent"] == {"city": "Paris", "celsius": 21}  # the default
    assert client.call_tool("outing_tip", {"city": "Rome"})["content"][0]["text"].startswith("Walk by the water.")
    kinds = [m["result"].get("resultType") for arrow, m in link.log if arrow == "<-" and "result" in m]
    assert kinds.count("input_required") == 2


def test_the_client_declares_only_capabilities_the_schemas_define():
    """2025-11-25 schema.ts:341: elicitation is {form?, url?}; the client used to add an
    'applyDefaults' key that no revision defines (issue 20 audit, nit a)."""
    client = MCPClient(InMemoryTransport(MCPServer(ToolRegistry())), on_elicit=lambda m, s: {}, on_sample=mock_model)
    assert client.server_requests.capabilities() == {"elicitation": {"form": {}}, "sampling": {}}
