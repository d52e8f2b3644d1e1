"""Revision 2026-07-28 beside the handshake revisions (toolkit/mcp/modern.py; pack §2.6, Part D)."""

import json
import subprocess
import sys

import pytest

from toolkit.lessons.toy_tools import make_server_registry
from toolkit.mcp import (
    HTTPTransport,
    InMemoryTransport,
    MCPClient,
    MCPError,
    MCPServer,
    StdioTransport,
    StreamableHTTPServer,
)
from toolkit.mcp.course import course_server
from toolkit.mcp.meta import modern_meta
from toolkit.mcp.modern import ModernServer

CITY = {"action": "accept", "content": {"city": "Rome"}}


def modern_request(method, params=None, id_=1, caps=None, **meta):
    body = dict(params or {})
    body["_meta"] = {**modern_meta("t", "1", caps if caps is not None else {}), **meta}
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": body}


def server():
    return course_server(ModernServer, make_server_registry())


def test_discover_needs_no_handshake_and_every_result_says_complete():
    s = server()
    reply = s.handle(modern_request("server/discover"))["result"]
    assert reply["supportedVersions"][-1] == "2026-07-28" and "2025-11-25" in reply["supportedVersions"]
    assert (
        reply["resultType"] == "complete"
        and reply["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "toy-tools"
    )
    assert reply["capabilities"]["resources"]["subscribe"] is True  # watched through subscriptions/listen
    listed = s.handle(modern_request("tools/list", id_=2))["result"]
    assert [t["name"] for t in listed["tools"]] == ["echo", "add"] and listed["ttlMs"] > 0 and listed["cacheScope"]
    called = s.handle(modern_request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, id_=3))["result"]
    assert called["resultType"] == "complete" and "ttlMs" not in called
    assert s.initialized is False  # nothing was negotiated: no session state


@pytest.mark.parametrize("method", ["ping", "logging/setLevel", "resources/subscribe"])
def test_methods_the_revision_removed_are_not_found(method):
    reply = server().handle(modern_request(method, {"uri": "weather://cities", "level": "info"}))
    assert reply["error"]["code"] == -32601 and "removed in 2026-07-28" in reply["error"]["message"]


def test_capabilities_are_required_and_an_unknown_resource_is_invalid_params():
    request = modern_request("tools/list")
    del request["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert server().handle(request)["error"]["code"] == -32602
    missing = server().handle(modern_request("resources/read", {"uri": "weather://nowhere"}))
    assert missing["error"]["code"] == -32602  # -32002 in the handshake revisions


def test_an_elicitation_becomes_input_required_and_the_retry_carries_the_answer():
    s = server()
    caps = {"elicitation": {}}
    first = s.handle(modern_request("prompts/get", {"name": "plan_outing"}, caps=caps))["result"]
    assert first["resultType"] == "input_required"
    ((key, asked),) = first["inputRequests"].items()
    assert asked["method"] == "elicitation/create" and "city" in asked["params"]["requestedSchema"]["properties"]
    retry = modern_request("prompts/get", {"name": "plan_outing", "inputResponses": {key: CITY}}, id_=2, caps=caps)
    done = s.handle(retry)["result"]
    assert done["resultType"] == "complete" and "Rome" in done["messages"][0]["content"]["text"]
    # a client that did not declare elicitation is not asked: MissingRequiredClientCapability,
    # naming it (basic/index.mdx:387-392; schema.ts:505-531; issue 20, B4)
    refused = s.handle(modern_request("prompts/get", {"name": "plan_outing"}, id_=3))["error"]
    assert refused["code"] == -32021 and refused["data"] == {"requiredCapabilities": {"elicitation": {}}}


def test_logs_only_for_a_request_that_asked_for_them():
    s, sent = server(), []

    class Outbox:
        def notify(self, msg):
            sent.append(msg)

        def request(self, msg):
            raise AssertionError("2026-07-28 sends no requests to the client")

    caps = {"elicitation": {}}
    params = {"name": "plan_outing", "inputResponses": {"elicitation-1": CITY}}
    s.handle(modern_request("prompts/get", params, caps=caps), Outbox())
    assert sent == []
    s.handle(modern_request("prompts/get", params, caps=caps, **{"io.modelcontextprotocol/logLevel": "info"}), Outbox())
    assert [m["method"] for m in sent] == ["notifications/message"]


def test_a_legacy_client_still_gets_the_handshake_and_never_2026():
    client = MCPClient(InMemoryTransport(server()))
    assert client.initialize("1999-01-01")["protocolVersion"] == "2025-11-25"  # the newest handshake revision
    assert client.ping() == {}


@pytest.mark.parametrize("kind, era", [(ModernServer, "2026-07-28"), (MCPServer, "2025-06-18")])
def test_the_toolkit_client_connects_to_either_era_and_falls_back(kind, era):
    client = MCPClient(InMemoryTransport(course_server(kind, make_server_registry())), on_elicit=lambda m, s: CITY)
    client.connect()
    assert client.protocol_version == era and client.modern == (era == "2026-07-28")
    assert "Rome" in client.get_prompt("plan_outing")["messages"][0]["content"]["text"]
    assert client.call_tool("add", {"a": 40, "b": 2})["content"][0]["text"] == "42"


def test_a_2026_session_end_to_end_over_http_and_stdio():
    with StreamableHTTPServer(server, port=0) as app:
        transport = HTTPTransport(app.url, token=app.token)
        client = MCPClient(transport, on_elicit=lambda m, s: CITY)
        client.connect()
        assert client.modern and "Rome" in client.get_prompt("plan_outing")["messages"][0]["content"]["text"]
        assert json.loads(client.read_resource("weather://forecast/Oslo")["contents"][0]["text"])["celsius"] == 9
        assert transport.session_id is None and not app.sessions  # no protocol sessions
        assert all("sent MCP-Protocol-Version: 2026-07-28" in line for line in transport.http_log)
    with StdioTransport([sys.executable, "-m", "toolkit", "serve", "--modern"]) as stdio:
        client = MCPClient(stdio, on_elicit=lambda m, s: CITY)
        client.connect()
        assert client.modern and client.call_tool("add", {"a": 1, "b": 1})["content"][0]["text"] == "2"


def test_http_headers_must_agree_with_the_body():
    import http.client

    with StreamableHTTPServer(server, port=0, token=False) as app:
        body = modern_request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        good = {"Content-Type": "application/json", "Accept": "application/json", "MCP-Protocol-Version": "2026-07-28"}
        good.update({"Mcp-Method": "tools/call", "Mcp-Name": "add"})
        for change, status in (({}, 200), ({"Mcp-Name": "echo"}, 400), ({"Mcp-Method": "tools/list"}, 400)):
            conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=10)
            conn.request("POST", "/mcp", json.dumps(body), {**good, **change})
            response = conn.getresponse()
            reply = json.loads(response.read())
            assert response.status == status, change
            if status == 400:
                assert reply["error"]["code"] == -32020
        unknown = modern_request("nope/nothing")
        conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=10)
        conn.request("POST", "/mcp", json.dumps(unknown), {**good, "Mcp-Method": "nope/nothing"})
        assert conn.getresponse().status == 404


def test_serve_refuses_latest_and_modern_together():
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "serve", "--latest", "--modern"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "give one of --latest, --modern" in done.stderr


def test_the_client_gives_up_after_five_rounds_of_input():
    from toolkit.mcp import ServerTool
    from toolkit.registry import ToolRegistry

    def greedy(args, ctx):
        for _ in range(10):
            ctx.elicit("more?", {"type": "object", "properties": {}})
        return "never"

    s = ModernServer(ToolRegistry(), tools=(ServerTool("greedy", greedy),))
    client = MCPClient(InMemoryTransport(s), on_elicit=lambda m, sc: {"action": "accept", "content": {}})
    client.connect()
    with pytest.raises(MCPError, match="after 5 rounds"):
        client.call_tool("greedy")


# ---- issue 20 audit, part B: the 2026-07-28 client and server against the specification ----------


def reporter(args, ctx):
    """A tool that reports progress twice and logs at two levels."""
    ctx.progress(1, 2)
    ctx.log("debug", "detail")
    ctx.log("warning", "half way")
    ctx.progress(2, 2)
    return "done"


def modern_client(*tools, **options):
    from toolkit.mcp import ServerTool
    from toolkit.registry import ToolRegistry

    s = ModernServer(ToolRegistry(), tools=tuple(ServerTool(t.__name__, t) for t in tools), logging=True)
    link = InMemoryTransport(s)
    client = MCPClient(link, **options)
    client.connect()
    return client, link


def test_b1_a_progress_token_survives_the_2026_meta():
    """schema/2026-07-28/schema.ts:67: progressToken sits in the request's _meta, beside the
    per-request protocol fields; the client used to replace that _meta wholesale."""
    client, link = modern_client(reporter)
    assert client.modern
    client.call_tool("reporter", progress_token="p1")
    sent = [m for arrow, m in link.log if arrow == "->" and m.get("method") == "tools/call"][-1]
    meta = sent["params"]["_meta"]
    assert meta["progressToken"] == "p1" and meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    progress = [n["params"] for n in client.notifications if n["method"] == "notifications/progress"]
    assert [(p["progressToken"], p["progress"]) for p in progress] == [("p1", 1), ("p1", 2)]


def test_b1_the_token_rides_on_the_retry_of_a_multi_round_trip_request_too():
    def asks_then_reports(args, ctx):
        ctx.elicit("go?", {"type": "object", "properties": {}})
        ctx.progress(1, 1)
        return "ok"

    client, link = modern_client(asks_then_reports, on_elicit=lambda m, s: {"action": "accept", "content": {}})
    client.call_tool("asks_then_reports", progress_token=7)
    calls = [m for arrow, m in link.log if arrow == "->" and m.get("method") == "tools/call"]
    assert len(calls) == 2 and all(c["params"]["_meta"]["progressToken"] == 7 for c in calls)
    assert [n["params"]["progressToken"] for n in client.notifications if "progress" in n["method"]] == [7]


def test_b2_a_2026_client_asks_for_logs_in_meta_and_never_sends_set_level():
    """2026-07-28 server/utilities/logging.mdx:62-64: the level rides in each request's _meta
    (io.modelcontextprotocol/logLevel); changelog.mdx:20 removed logging/setLevel."""
    client, link = modern_client(reporter)
    client.call_tool("reporter")
    assert not [n for n in client.notifications if n["method"] == "notifications/message"]  # not asked for
    assert client.set_log_level("warning") == {}
    client.call_tool("reporter")
    methods = [m.get("method") for arrow, m in link.log if arrow == "->"]
    assert "logging/setLevel" not in methods
    sent = [m for arrow, m in link.log if arrow == "->" and m.get("method") == "tools/call"][-1]
    assert sent["params"]["_meta"]["io.modelcontextprotocol/logLevel"] == "warning"
    logs = [n["params"]["level"] for n in client.notifications if n["method"] == "notifications/message"]
    assert logs == ["warning"]
    with pytest.raises(MCPError) as bad:
        client.set_log_level("loud")
    assert bad.value.code == -32602


class Scripted:
    """A transport whose server is a function of the request (for replies no toolkit server sends)."""

    def __init__(self, answer):
        self.answer, self.sent = answer, []

    def send(self, msg):
        self.sent.append(msg)
        if "id" not in msg:
            return None
        reply = self.answer(msg)
        return {"jsonrpc": "2.0", "id": msg["id"], **reply}

    def close(self):
        pass


def test_b14_an_unknown_result_type_is_invalid():
    """2026-07-28 basic/index.mdx:84: a resultType the client does not recognize MUST be
    considered invalid (an absent one means complete, line 85)."""

    def answer(msg):
        if msg["method"] == "server/discover":
            return {"result": {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {}}}
        return {"result": {"resultType": "task_created", "content": []}}

    client = MCPClient(Scripted(answer))
    client.connect()
    with pytest.raises(MCPError, match="resultType"):
        client.call_tool("anything")


def error_on_discover(code, data=None):
    def answer(msg):
        if msg["method"] == "server/discover":
            return {"error": {"code": code, "message": "no", **({"data": data} if data is not None else {})}}
        if msg["method"] == "initialize":
            caps = {"tools": {}}
            info = {"name": "old", "version": "1"}
            return {"result": {"protocolVersion": "2025-06-18", "capabilities": caps, "serverInfo": info}}
        return {"result": {}}

    return Scripted(answer)


@pytest.mark.parametrize(
    "code, data",
    [
        (-32020, None),
        (-32021, {"requiredCapabilities": {"elicitation": {}}}),
        (-32022, {"supported": ["2027-01-01"], "requested": "2026-07-28"}),
        (-32022, {"supported": ["2025-11-25"], "requested": "2026-07-28"}),
    ],
)
def test_b3_a_recognized_modern_error_is_no_reason_to_fall_back(code, data):
    """2026-07-28 basic/transports/stdio.mdx:131-134 ("Do not fall back to initialize") and
    basic/versioning.mdx:143-146: these codes identify a modern server."""
    transport = error_on_discover(code, data)
    with pytest.raises(MCPError) as caught:
        MCPClient(transport).connect()
    assert caught.value.code == code
    assert [m["method"] for m in transport.sent] == ["server/discover"]


def refuse_discover(times):
    """A modern server that refuses the first ``times`` discover requests with -32022 listing
    2026-07-28, as the suite's request-metadata scenario does once."""
    refused = []

    def answer(msg):
        if msg["method"] == "server/discover" and len(refused) < times:
            refused.append(msg)
            data = {"supported": ["2026-07-28"], "requested": "2026-07-28"}
            return {"error": {"code": -32022, "message": "Unsupported protocol version", "data": data}}
        if msg["method"] == "server/discover":
            return {"result": {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {}}}
        return {"result": {}}

    return Scripted(answer)


def test_after_32022_listing_2026_07_28_the_client_retries_once_with_it():
    """2026-07-28 basic/versioning.mdx:143-146: a modern error means the client retries with a
    supported version; the retry carries that version in header and _meta."""
    transport = refuse_discover(1)
    client = MCPClient(transport)
    client.connect()
    assert client.modern and client.protocol_version == "2026-07-28"
    assert [m["method"] for m in transport.sent] == ["server/discover", "server/discover"]
    assert transport.sent[1]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"


def test_a_server_that_keeps_refusing_gets_one_retry_and_the_error():
    transport = refuse_discover(5)
    with pytest.raises(MCPError) as caught:
        MCPClient(transport).connect()
    assert caught.value.code == -32022 and "2026-07-28" in caught.value.message
    assert [m["method"] for m in transport.sent] == ["server/discover", "server/discover"]


@pytest.mark.parametrize("code", [-32601, -32602, -32600, -32603, -32000, -32002])
def test_b3_any_other_error_means_a_legacy_server(code):
    """stdio.mdx:135-141: any other error means a legacy server, and the fallback MUST NOT be
    keyed to one code."""
    transport = error_on_discover(code)
    client = MCPClient(transport)
    client.connect()
    assert not client.modern and client.protocol_version == "2025-06-18"
    assert [m["method"] for m in transport.sent] == ["server/discover", "initialize", "notifications/initialized"]


def raw_post(app, body, headers=None, modern=True):
    """POST ``body`` to ``app`` with the 2026-07-28 headers taken from it; (status, headers, raw text)."""
    import http.client

    params = body.get("params") or {}
    sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if modern:
        sent.update({"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": body["method"]})
        name = params.get("name", params.get("uri"))
        if isinstance(name, str):
            sent["Mcp-Name"] = name
    sent.update(headers or {})
    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=10)
    try:
        conn.request("POST", "/mcp", json.dumps(body).encode(), sent)
        response = conn.getresponse()
        return response.status, dict(response.headers), response.read().decode()
    finally:
        conn.close()


def test_b4_a_missing_client_capability_is_32021_and_400_over_http():
    """basic/index.mdx:387-392 and schema.ts:505-531: -32021 with data.requiredCapabilities,
    and on HTTP the status MUST be 400."""
    with StreamableHTTPServer(server, port=0, token=False) as app:
        status, _, text = raw_post(app, modern_request("prompts/get", {"name": "plan_outing"}))
        reply = json.loads(text)
        assert status == 400 and reply["error"]["code"] == -32021
        assert reply["error"]["data"]["requiredCapabilities"] == {"elicitation": {}}
    # the toolkit's client hears the same as an MCPError
    client = MCPClient(InMemoryTransport(server()))
    client.connect()
    with pytest.raises(MCPError) as caught:
        client.get_prompt("plan_outing")
    assert caught.value.code == -32021


def test_b4_a_server_tool_that_needs_a_capability_fails_the_request_not_the_tool():
    from toolkit.mcp import ServerTool
    from toolkit.registry import ToolRegistry

    def asks(args, ctx):
        return ctx.elicit("city?", {"type": "object", "properties": {}})

    s = ModernServer(ToolRegistry(), tools=(ServerTool("asks", asks),))
    reply = s.handle(modern_request("tools/call", {"name": "asks", "arguments": {}}))
    assert reply["error"]["code"] == -32021 and "result" not in reply


def test_b5_a_meta_without_client_capabilities_is_400_over_http():
    """basic/index.mdx:380-382: a request missing a required _meta field MUST get -32602 and,
    on HTTP, 400 Bad Request."""
    body = modern_request("tools/list")
    del body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    with StreamableHTTPServer(server, port=0, token=False) as app:
        status, _, text = raw_post(app, body)
        assert status == 400 and json.loads(text)["error"]["code"] == -32602
        unknown = modern_request("resources/read", {"uri": "weather://nowhere"})
        status, _, text = raw_post(app, unknown)  # an ordinary -32602 stays a JSON-RPC matter
        assert status == 200 and json.loads(text)["error"]["code"] == -32602


def test_b10_an_unknown_log_level_is_invalid_params_before_any_handler_runs():
    """server/utilities/logging.mdx:100-104: an unrecognized logLevel SHOULD get -32602; it
    used to reach a handler that logs and come back as -32603 Internal error."""
    caps = {"elicitation": {}}
    params = {"name": "plan_outing", "inputResponses": {"elicitation-1": CITY}}
    reply = server().handle(
        modern_request("prompts/get", params, caps=caps, **{"io.modelcontextprotocol/logLevel": "loud"})
    )
    assert reply["error"]["code"] == -32602 and "logLevel" in reply["error"]["message"]
    good = server().handle(
        modern_request("prompts/get", params, caps=caps, **{"io.modelcontextprotocol/logLevel": "info"})
    )
    assert good["result"]["resultType"] == "complete"


def test_b9_2026_sse_streams_carry_no_event_ids():
    """changelog.mdx:28 (major change 9) removed SSE event IDs with resumability; the 2025-11-25
    session keeps them (with its priming event)."""
    caps = {"elicitation": {}}
    params = {"name": "plan_outing", "inputResponses": {"elicitation-1": CITY}}
    body = modern_request("prompts/get", params, caps=caps, **{"io.modelcontextprotocol/logLevel": "info"})
    with StreamableHTTPServer(server, port=0, token=False) as app:
        status, headers, text = raw_post(app, body)
        assert status == 200 and headers["Content-Type"] == "text/event-stream"
        assert "data: " in text and not [line for line in text.splitlines() if line.startswith(("id:", "retry:"))]


def test_b11_a_2026_request_with_a_session_id_is_served_statelessly():
    """basic/versioning.mdx:176-177 (modern _meta: served statelessly) and
    streamable-http.mdx:685 (ignore Mcp-Session-Id); it used to get 404 Session not found."""
    body = modern_request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    with StreamableHTTPServer(server, port=0, token=False) as app:
        status, headers, text = raw_post(app, body, {"Mcp-Session-Id": "made-up"})
        assert status == 200 and json.loads(text)["result"]["content"][0]["text"] == "3"
        assert "Mcp-Session-Id" not in headers and not app.sessions


def test_b12_the_dual_era_server_still_answers_an_unknown_version_with_32022():
    """The 2026-07-28 code stays where it belongs: a server that speaks that revision."""
    with StreamableHTTPServer(server, port=0, token=False) as app:
        status, _, text = raw_post(app, modern_request("tools/list"), {"MCP-Protocol-Version": "1999-01-01"})
        reply = json.loads(text)
        assert status == 400 and reply["error"]["code"] == -32022
        assert "2026-07-28" in reply["error"]["data"]["supported"]


# ---- request metadata in HTTP headers: Mcp-Name and Mcp-Param-* (streamable-http.mdx:276-640) ----


def test_b7_header_values_outside_plain_ascii_are_base64_encoded():
    """streamable-http.mdx:479-508 and its table of examples."""
    from toolkit.mcp.meta import header_text, header_value

    examples = {
        "us-west1": "us-west1",
        "Hello, 世界": "=?base64?SGVsbG8sIOS4lueVjA==?=",
        " padded ": "=?base64?IHBhZGRlZCA=?=",
        "line1\nline2": "=?base64?bGluZTEKbGluZTI=?=",
        "=?base64?literal?=": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
    }
    for text, header in examples.items():
        assert header_value(text) == header and header_text(header) == text
    assert header_text("=?base64?not base64!?=") is None and header_text("tab\there") == "tab\there"
    assert header_text("bad\x01char") is None


def unicode_server():
    from toolkit.mcp import ServerTool
    from toolkit.registry import ToolRegistry

    return ModernServer(ToolRegistry(), tools=(ServerTool("météo", lambda args, ctx: "sunny"),))


def test_b6_b7_a_non_ascii_tool_name_travels_base64_and_the_server_decodes_it():
    with StreamableHTTPServer(unicode_server, port=0, token=False) as app:
        transport = HTTPTransport(app.url)
        client = MCPClient(transport)
        client.connect()
        assert client.call_tool("météo")["content"][0]["text"] == "sunny"
        body = modern_request("tools/call", {"name": "météo", "arguments": {}})
        encoded = {"Mcp-Name": "=?base64?bcOpdMOpbw==?="}
        assert raw_post(app, body, encoded)[0] == 200
        ascii_body = modern_request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}})
    with StreamableHTTPServer(server, port=0, token=False) as app:  # an ASCII name may be encoded too
        assert raw_post(app, ascii_body, {"Mcp-Name": "=?base64?YWRk?="})[0] == 200


@pytest.mark.parametrize("name_header", [None, "m?t?o", "météo", "=?base64?bcOpdA==?="])
def test_b6_mcp_name_is_required_and_must_match_after_decoding(name_header):
    """streamable-http.mdx:283-290 (required for tools/call, resources/read, prompts/get) and
    624-630 (missing, different, or raw bytes outside visible ASCII: a header mismatch); a
    non-ASCII name used to skip the check."""
    body = modern_request("tools/call", {"name": "météo", "arguments": {}})
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
    if name_header is not None:
        headers["Mcp-Name"] = name_header  # "météo" goes out as Latin-1 bytes, not as text
    with StreamableHTTPServer(unicode_server, port=0, token=False) as app:
        status, _, text = raw_post(app, body, headers, modern=False)
        assert status == 400 and json.loads(text)["error"]["code"] == -32020


def region_server():
    from toolkit.mcp import ServerTool
    from toolkit.registry import ToolRegistry

    region = {
        "type": "object",
        "properties": {
            "where": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}},
            "limit": {"type": "integer", "x-mcp-header": "Limit"},
            "query": {"type": "string"},
        },
    }
    bad = {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string", "x-mcp-header": "X"}}}}
    tools = (
        ServerTool("query", lambda args, ctx: json.dumps(args), input_schema=region),
        ServerTool("broken", lambda args, ctx: "never", input_schema=bad),
    )
    return ModernServer(ToolRegistry(), tools=tools)


def test_b8_the_http_client_mirrors_x_mcp_header_parameters_and_drops_invalid_tools():
    """streamable-http.mdx:364-407 (client MUST mirror; MUST drop a tool whose x-mcp-header
    breaks the rules from tools/list) and 524-537 (how)."""
    with StreamableHTTPServer(region_server, port=0, token=False) as app:
        transport = HTTPTransport(app.url)
        client = MCPClient(transport)
        client.connect()
        assert [t["name"] for t in client.list_tools()] == ["query"]
        assert any("broken" in line and "x-mcp-header" in line for line in transport.http_log)
        sent = []
        exchange = transport._exchange
        transport._exchange = lambda method, data, headers, stream=False: (
            sent.append(headers) or exchange(method, data, headers, stream)
        )
        args = {"where": {"region": "Zürich"}, "limit": 5, "query": "x"}
        assert json.loads(client.call_tool("query", args)["content"][0]["text"]) == args
        assert sent[-1]["Mcp-Param-Region"] == "=?base64?WsO8cmljaA==?=" and sent[-1]["Mcp-Param-Limit"] == "5"
        client.call_tool("query", {"query": "no headers needed"})
        assert not [h for h in sent[-1] if h.startswith("Mcp-Param-")]


def test_b8_the_server_checks_mcp_param_headers_against_the_body():
    """streamable-http.mdx:547-566: a value in the body needs its header, which must match
    after decoding (integers compared as numbers), else 400 with -32020."""
    args = {"where": {"region": "eu"}, "limit": 5}
    body = modern_request("tools/call", {"name": "query", "arguments": args})
    cases = [
        ({"Mcp-Param-Region": "eu", "Mcp-Param-Limit": "5"}, 200),
        ({"mcp-param-region": "=?base64?ZXU=?=", "Mcp-Param-Limit": "5.0"}, 200),
        ({"Mcp-Param-Limit": "5"}, 400),  # the region header is missing
        ({"Mcp-Param-Region": "us", "Mcp-Param-Limit": "5"}, 400),
        ({"Mcp-Param-Region": "eu", "Mcp-Param-Limit": "6"}, 400),
    ]
    with StreamableHTTPServer(region_server, port=0, token=False) as app:
        for headers, expected in cases:
            status, _, text = raw_post(app, body, headers)
            assert status == expected, (headers, text)
            if expected == 400:
                assert json.loads(text)["error"]["code"] == -32020
        without = modern_request("tools/call", {"name": "query", "arguments": {"query": "q"}})
        assert raw_post(app, without)[0] == 200  # no value in the body: no header expected


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "number", "x-mcp-header": "N"},
        {"type": "string", "x-mcp-header": ""},
        {"type": "string", "x-mcp-header": "Two Words"},
        {"type": "object", "x-mcp-header": "O"},
    ],
)
def test_b8_x_mcp_header_rules(prop):
    from toolkit.mcp.meta import param_headers

    with pytest.raises(ValueError, match="x-mcp-header"):
        param_headers({"type": "object", "properties": {"p": prop}})
    twice = {"a": {"type": "string", "x-mcp-header": "Same"}, "b": {"type": "string", "x-mcp-header": "same"}}
    with pytest.raises(ValueError, match="unique"):
        param_headers({"type": "object", "properties": twice})
    nested = {
        "type": "object",
        "properties": {"o": {"type": "object", "properties": {"s": {"type": "string", "x-mcp-header": "S"}}}},
    }
    assert param_headers(nested) == {"S": ("o", "s")}


def test_b8_after_a_header_mismatch_the_client_lists_the_tools_and_retries_once():
    """streamable-http.mdx:533-537 (SHOULD): a -32020 for missing Mcp-Param-* headers sends the
    client to tools/list for the tool's current inputSchema, then the call goes again."""
    with StreamableHTTPServer(region_server, port=0, token=False) as app:
        transport = HTTPTransport(app.url)
        client = MCPClient(transport)
        client.connect()  # no tools/list yet: the client does not know the marks
        args = {"where": {"region": "eu"}, "limit": 2}
        assert json.loads(client.call_tool("query", args)["content"][0]["text"]) == args
        posts = [line.split(" -> ")[1][:3] for line in transport.http_log if line.startswith("POST")]
        assert posts[-3:] == ["400", "200", "200"]  # the call, tools/list, the call again
