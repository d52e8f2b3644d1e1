"""Server to client over Streamable HTTP: SSE answers, the GET stream, resumption (toolkit/mcp/http)."""

import http.client
import json
import threading
import time

import pytest

from toolkit.lessons.toy_tools import make_server_registry
from toolkit.mcp import HTTPTransport, LatestRevisionServer, MCPClient, MCPServer, ServerTool, StreamableHTTPServer
from toolkit.mcp.course import course_server
from toolkit.registry import ToolRegistry


def _steps(args, ctx):
    for done in (1, 2):
        ctx.progress(done, 2)
    return "stepped"


def _resumable(args, ctx):
    ctx.progress(1, 2)
    ctx.close_stream()
    time.sleep(0.2)
    return "after the break"


def _slow(args, ctx):
    time.sleep(2)
    return "slow done"


TOOLS = (ServerTool("steps", _steps), ServerTool("resumable", _resumable), ServerTool("slow", _slow))


@pytest.fixture(params=[MCPServer, LatestRevisionServer], ids=["2025-06-18", "2025-11-25"])
def app(request):
    kind = request.param

    def make():
        server = course_server(kind, make_server_registry())
        server.server_tools = {t.name: t for t in TOOLS}
        return server

    with StreamableHTTPServer(make, port=0, token=False) as served:
        yield served


def open_session(app, version):
    transport = HTTPTransport(app.url)
    client = MCPClient(transport, on_elicit=lambda m, s: {"action": "accept", "content": {}})
    client.initialize(version)
    return client, transport


def raw_post(app, sid, version, body, accept="application/json, text/event-stream"):
    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=10)
    headers = {"Content-Type": "application/json", "Accept": accept, "Mcp-Session-Id": sid}
    conn.request("POST", "/mcp", json.dumps(body), {**headers, "MCP-Protocol-Version": version})
    response = conn.getresponse()
    return response.status, response.getheader("Content-Type"), response.read().decode()


def events(text):
    out = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) if ": " in line else (line.rstrip(":"), "") for line in block.split("\n"))
        out.append(fields)
    return out


def test_a_post_is_answered_with_sse_only_when_the_server_has_something_to_send_first(app):
    version = max(app.supported)
    client, transport = open_session(app, version)
    call = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/call",
        "params": {"name": "steps", "_meta": {"progressToken": "p"}},
    }
    status, ctype, body = raw_post(app, transport.session_id, version, call)
    assert status == 200 and ctype == "text/event-stream"
    got = events(body)
    if version == "2025-11-25":  # primed: an id, empty data, and how long to wait before resuming
        assert got[0]["data"] == "" and "retry" in got[0] and got[0]["id"]
        got = got[1:]
    messages = [json.loads(e["data"]) for e in got]
    assert [m.get("method") for m in messages] == ["notifications/progress", "notifications/progress", None]
    assert messages[-1]["id"] == 9 and messages[-1]["result"]["content"][0]["text"] == "stepped"
    assert len({e["id"] for e in got}) == len(got)  # every event has its own id
    # nothing to send first: plain JSON, as before; a client accepting only JSON gets no stream
    plain = {
        "jsonrpc": "2.0",
        "id": 10,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}},
    }
    assert raw_post(app, transport.session_id, version, plain)[1] == "application/json"
    assert raw_post(app, transport.session_id, version, call, accept="application/json")[1] == "application/json"
    client.close()


def test_the_client_answers_an_elicitation_that_arrives_on_the_stream(app):
    client, transport = open_session(app, max(app.supported))
    messages = client.get_prompt("plan_outing", {})["messages"]
    assert "Paris" in messages[0]["content"]["text"]  # the form's default, filled in by the client
    asked = [m for d, m in transport.log if d == "<-" and m.get("method") == "elicitation/create"]
    answered = [m for d, m in transport.log if d == "->" and "result" in m]
    assert asked and answered[0]["id"] == asked[0]["id"] and answered[0]["result"]["content"] == {"city": "Paris"}
    client.close()


def test_a_closed_stream_is_resumed_with_last_event_id():
    with StreamableHTTPServer(lambda: LatestRevisionServer(ToolRegistry(), tools=TOOLS), port=0, token=False) as app:
        client, transport = open_session(app, "2025-11-25")
        started = time.monotonic()
        result = client.call_tool("resumable", progress_token="r")
        assert result["content"][0]["text"] == "after the break"
        assert time.monotonic() - started >= 0.5  # it waited the server's retry (500 ms) first
        assert [n["params"]["progress"] for n in client.notifications] == [1]  # no event twice
        gets = [line for line in transport.http_log if line.startswith("GET")]
        assert len(gets) == 1 and gets[0].startswith("GET -> 200")
        conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=10)
        headers = {"Accept": "text/event-stream", "Mcp-Session-Id": transport.session_id, "Last-Event-ID": "nope:1"}
        conn.request("GET", "/mcp", headers=headers)
        assert conn.getresponse().status == 404  # no stream has that event
        client.close()


def test_the_get_stream_carries_resource_updates_and_only_one_is_open(app):
    version = max(app.supported)
    client, transport = open_session(app, version)
    client.subscribe("weather://cities")
    listener = transport.listen()
    session = next(iter(app.sessions.values()))
    server = session.server
    # listen() returns once the stream is open: a request sent next cannot overtake it (the
    # conformance suite's sse-retry scenario failed on a busy machine when it did)
    assert session.channel.standalone_open
    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=10)
    conn.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": transport.session_id})
    assert conn.getresponse().status == 409
    assert server.resource_updated("weather://cities")
    for _ in range(100):
        if client.notifications:
            break
        time.sleep(0.02)
    assert client.notifications[-1] == {
        "jsonrpc": "2.0",
        "method": "notifications/resources/updated",
        "params": {"uri": "weather://cities"},
    }
    client.close()  # DELETE ends the session and its GET stream
    listener.join(5)
    assert not listener.is_alive()


def test_requests_of_one_session_run_side_by_side(app):
    client, transport = open_session(app, max(app.supported))
    results = {}

    def slow():
        results["slow"] = client.call_tool("slow")

    worker = threading.Thread(target=slow)
    worker.start()
    time.sleep(0.1)
    second = HTTPTransport(app.url)
    second.session_id, second.protocol_version = transport.session_id, transport.protocol_version
    other = MCPClient(second)
    assert other.ping() == {}
    assert "slow" not in results, "the ping waited for the slow tool: requests of one session were serialised"
    worker.join(5)
    assert results["slow"]["content"][0]["text"] == "slow done"
    client.close()


def test_a_reply_to_nothing_the_server_asked_gets_202_and_changes_nothing(app):
    client, transport = open_session(app, max(app.supported))
    for stray in ({"jsonrpc": "2.0", "id": [], "result": {}}, {"jsonrpc": "2.0", "id": 424242, "result": {}}):
        assert raw_post(app, transport.session_id, transport.protocol_version, stray)[0] == 202
    assert client.ping() == {}
    client.close()
