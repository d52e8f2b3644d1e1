"""``subscriptions/listen`` (revision 2026-07-28): toolkit/mcp/subscriptions.py on the server,
toolkit/mcp/listening.py on the client. The rules are the specification's
docs/specification/2026-07-28/basic/patterns/subscriptions.mdx and schema/2026-07-28/schema.ts."""

import json
import queue
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from toolkit.lessons.toy_tools import make_server_registry
from toolkit.mcp import HTTPTransport, InMemoryTransport, MCPClient, MCPError, StreamableHTTPServer, serve_lines
from toolkit.mcp.course import course_server
from toolkit.mcp.meta import modern_meta
from toolkit.mcp.modern import ModernServer
from toolkit.mcp.subscriptions import Subscriptions

TAG = "io.modelcontextprotocol/subscriptionId"
CITIES = "weather://cities"


def modern_request(method, params=None, id_=1):
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": method,
        "params": {**(params or {}), "_meta": modern_meta("t", "1", {})},
    }


def server(hub=None):
    made = course_server(ModernServer, make_server_registry())
    if hub is not None:
        made.subscriptions = hub
    return made


def eventually(condition, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.fixture
def http_app():
    hub = Subscriptions()
    app = StreamableHTTPServer(lambda: server(hub), port=0, token=False).start()
    app.hub = hub
    yield app
    app.close()


# -- the notifications arrive on the listen stream, and only those asked for ---------------------


def test_a_listening_client_hears_a_tool_list_change_and_a_resource_update_in_memory():
    s = server()
    client = MCPClient(InMemoryTransport(s))
    client.connect()
    stream = client.listen({"toolsListChanged": True, "resourceSubscriptions": [CITIES]})
    assert stream.acknowledged == {"toolsListChanged": True, "resourceSubscriptions": [CITIES]}
    assert s.list_changed("tools") == 1
    assert stream.next(2)["method"] == "notifications/tools/list_changed"
    assert s.resource_updated(CITIES) is True
    updated = stream.next(2)
    assert updated["method"] == "notifications/resources/updated" and updated["params"]["uri"] == CITIES
    assert updated["params"]["_meta"][TAG] == stream.id  # every message names its stream
    # Not asked for: the prompt list and another resource never reach the stream.
    assert s.list_changed("prompts") == 0 and s.resource_updated("weather://forecast/Rome") is False
    assert len(stream.notifications) == 2
    assert not any(n.get("method", "").startswith("notifications/tools") for n in client.notifications)


def test_the_acknowledgement_comes_first_and_leaves_out_what_the_server_does_not_offer():
    bare = ModernServer(make_server_registry())  # tools only: no prompts, no resources
    sent = []

    class Outbox:
        def notify(self, msg):
            sent.append(msg)

        def request(self, msg):
            raise AssertionError("a listen asks the client nothing")

    wanted = {"toolsListChanged": True, "promptsListChanged": True, "resourceSubscriptions": [CITIES]}
    assert bare.handle(modern_request("subscriptions/listen", {"notifications": wanted}, id_="L"), Outbox()) is None
    assert sent[0]["method"] == "notifications/subscriptions/acknowledged"
    assert sent[0]["params"] == {"notifications": {"toolsListChanged": True}, "_meta": {TAG: "L"}}
    bare.list_changed("prompts")
    bare.list_changed("tools")
    assert [m["method"] for m in sent[1:]] == ["notifications/tools/list_changed"]


def test_over_http_the_listen_post_stays_an_open_sse_stream_while_other_requests_go_on(http_app):
    client = MCPClient(HTTPTransport(http_app.url))
    client.connect()
    stream = client.listen({"toolsListChanged": True, "resourceSubscriptions": [CITIES]})
    assert http_app.hub.count() == 1
    assert client.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"] == "5"  # not blocked
    assert http_app.hub.publish("notifications/resources/updated", {"uri": CITIES}) == 1
    assert stream.next(5)["params"]["uri"] == CITIES
    http_app.hub.publish("notifications/tools/list_changed")
    assert stream.next(5)["method"] == "notifications/tools/list_changed"
    stream.close()


def test_the_discover_result_announces_what_listen_can_honour():
    caps = server().handle(modern_request("server/discover"))["result"]["capabilities"]
    assert caps["tools"]["listChanged"] is True and caps["prompts"]["listChanged"] is True
    assert caps["resources"] == {"subscribe": True, "listChanged": True}


# -- bad params get a JSON-RPC error, and the server goes on -----------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"notifications": None},
        {"notifications": ["toolsListChanged"]},
        {"notifications": {"toolsListChanged": "true"}},
        {"notifications": {"resourceSubscriptions": CITIES}},
        {"notifications": {"resourceSubscriptions": [CITIES, 7]}},
    ],
)
def test_a_malformed_filter_is_invalid_params_and_opens_nothing(params):
    s = server()
    sent = []
    outbox = type("Outbox", (), {"notify": lambda self, m: sent.append(m), "request": None})()
    reply = s.handle(modern_request("subscriptions/listen", params, id_=9), outbox)
    assert reply["id"] == 9 and reply["error"]["code"] == -32602 and "notifications" in reply["error"]["message"]
    assert sent == [] and s.subscriptions.count() == 0
    assert "tools" in s.handle(modern_request("tools/list", id_=10))["result"]  # still serving


def test_over_http_a_malformed_filter_is_a_json_error_and_the_server_still_answers(http_app):
    body = json.dumps(modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": 1}}, id_=4))
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "subscriptions/listen",
    }
    with urllib.request.urlopen(urllib.request.Request(http_app.url, body.encode(), headers), timeout=10) as r:
        assert r.headers["Content-Type"].startswith("application/json")
        reply = json.loads(r.read())
    assert reply["id"] == 4 and reply["error"]["code"] == -32602
    json_only = {**headers, "Accept": "application/json"}  # no SSE: nowhere to put the stream
    request = urllib.request.Request(
        http_app.url, body.replace('"toolsListChanged": 1', '"toolsListChanged": true').encode(), json_only
    )
    with pytest.raises(urllib.error.HTTPError) as no_sse:
        urllib.request.urlopen(request, timeout=10)
    assert no_sse.value.code == 400 and json.loads(no_sse.value.read())["error"]["code"] == -32600
    assert http_app.hub.count() == 0
    client = MCPClient(HTTPTransport(http_app.url))
    client.connect()
    with pytest.raises(MCPError) as refused:
        client.listen({"resourceSubscriptions": "weather://cities"})
    assert refused.value.code == -32602
    assert client.listen({"toolsListChanged": True}).acknowledged == {"toolsListChanged": True}


def test_a_listen_needs_a_stream_and_the_2026_revision():
    s = server()
    no_stream = s.handle(modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}}))
    assert no_stream["error"]["code"] == -32600 and "stream" in no_stream["error"]["message"]
    handshake = MCPClient(InMemoryTransport(server()))
    handshake.initialize()
    reply = handshake.transport.send({"jsonrpc": "2.0", "id": 50, "method": "subscriptions/listen", "params": {}})
    assert reply["error"]["code"] == -32601  # not a method before 2026-07-28
    with pytest.raises(MCPError, match="2026-07-28"):
        handshake.listen({"toolsListChanged": True})


# -- the listen ends cleanly: client gone, client cancels, server ends it ------------------------


def test_when_the_http_client_goes_away_its_listen_ends_and_nothing_is_sent_to_it(http_app):
    client = MCPClient(HTTPTransport(http_app.url))
    client.connect()
    stream = client.listen({"toolsListChanged": True})
    assert http_app.hub.count() == 1
    stream.close()  # closing the SSE stream is the cancellation on HTTP
    assert eventually(lambda: http_app.hub.count() == 0)
    assert http_app.hub.publish("notifications/tools/list_changed") == 0
    assert stream.ended and stream.reply is None and not stream.graceful
    assert client.call_tool("echo", {"text": "still here"})["isError"] is False


def test_when_the_http_server_closes_each_listen_gets_its_closing_reply():
    hub = Subscriptions()
    app = StreamableHTTPServer(lambda: server(hub), port=0, token=False).start()
    client = MCPClient(HTTPTransport(app.url))
    client.connect()
    stream = client.listen({"toolsListChanged": True})
    app.close()
    assert stream.wait_ended(5) and stream.graceful
    assert stream.reply["id"] == stream.id
    assert stream.reply["result"] == {"resultType": "complete", "_meta": {TAG: stream.id}}


def test_on_stdio_cancelled_ends_a_listen_without_a_reply_and_stdin_closing_ends_the_rest():
    s = server()
    lines: queue.Queue = queue.Queue()
    written: list = []
    loop = threading.Thread(target=serve_lines, args=(s, iter(lines.get, None), written.append), daemon=True)
    loop.start()
    listen = modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, id_="a")
    lines.put(json.dumps(listen))
    lines.put(json.dumps({**listen, "id": "b"}))
    assert eventually(lambda: s.subscriptions.count() == 2)
    s.list_changed("tools")
    assert eventually(lambda: len(written) == 4)
    tags = [json.loads(w)["params"]["_meta"][TAG] for w in written]
    assert sorted(tags) == ["a", "a", "b", "b"]  # two acks, two changes: one channel, told apart by tag
    lines.put(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "a"}}))
    lines.put(json.dumps(modern_request("tools/list", id_=3)))  # the loop goes on
    assert eventually(lambda: len(written) == 5) and json.loads(written[4])["id"] == 3
    assert s.subscriptions.count() == 1 and s.list_changed("tools") == 1
    lines.put(None)  # stdin ends: the client is gone
    loop.join(5)
    assert not loop.is_alive() and s.subscriptions.count() == 0
    assert not any(json.loads(w).get("id") in ("a", "b") for w in written)  # no reply to a cancelled listen


def test_on_stdio_a_server_that_ends_its_listens_replies_to_each():
    s = server()
    written: list = []
    listen = modern_request("subscriptions/listen", {"notifications": {"promptsListChanged": True}}, id_=5)
    serve_lines(s, [json.dumps(listen)], written.append)  # stdin ends at once: nothing left open
    assert s.subscriptions.count() == 0
    lines: queue.Queue = queue.Queue()
    loop = threading.Thread(target=serve_lines, args=(s, iter(lines.get, None), written.append), daemon=True)
    loop.start()
    lines.put(json.dumps(listen))
    assert eventually(lambda: s.subscriptions.count() == 1)
    assert s.end_listens() == 1
    assert eventually(lambda: len(written) >= 2 and json.loads(written[-2]).get("id") == 5)
    assert json.loads(written[-2])["result"] == {"resultType": "complete", "_meta": {TAG: 5}}
    # and, on stdio, notifications/cancelled naming the listen (schema.ts, CancelledNotification)
    assert json.loads(written[-1]) == {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 5, "reason": "the server ended the subscription"},
    }
    with pytest.raises(ValueError, match="tools"):
        s.list_changed("tool")  # a typo is an error, not a silent nothing
    lines.put(None)
    loop.join(5)


def test_serve_modern_on_stdio_acknowledges_a_listen_and_survives_a_bad_one():
    listen = modern_request("subscriptions/listen", {"notifications": {"resourceSubscriptions": [CITIES]}}, id_=1)
    bad = modern_request("subscriptions/listen", {"notifications": {"toolsListChanged": "yes"}}, id_=2)
    after = modern_request("tools/list", id_=3)
    text = "".join(json.dumps(m) + "\n" for m in (listen, bad, after))
    out = subprocess.run(
        [sys.executable, "-m", "toolkit", "serve", "--modern"], input=text, capture_output=True, text=True, timeout=60
    )
    replies = [json.loads(line) for line in out.stdout.splitlines()]
    assert replies[0]["method"] == "notifications/subscriptions/acknowledged"
    assert replies[0]["params"]["notifications"] == {"resourceSubscriptions": [CITIES]}
    assert replies[1]["id"] == 2 and replies[1]["error"]["code"] == -32602
    assert replies[2]["id"] == 3 and replies[2]["result"]["tools"]
    assert len(replies) == 3 and out.returncode == 0


# A child server whose tool list grows when its `grow` tool is called: the change a listen
# stream exists to report, seen over a real stdio pipe.
GROWING_SERVER = """
from toolkit.lessons.toy_tools import make_server_registry
from toolkit.mcp import ServerTool, serve_stdio
from toolkit.mcp.modern import ModernServer

def grow(args, ctx):
    ctx.server.server_tools["extra"] = ServerTool("extra", lambda a, c: "more", "a tool added at run time")
    ctx.server.list_changed("tools")
    return "grown"

serve_stdio(ModernServer(make_server_registry(), tools=(ServerTool("grow", grow, "add a tool"),)))
"""


def test_over_stdio_the_client_hears_the_tool_list_change_and_cancels_with_notifications_cancelled():
    from toolkit.mcp import StdioTransport

    with StdioTransport([sys.executable, "-c", GROWING_SERVER]) as pipe:
        client = MCPClient(pipe)
        client.connect()
        stream = client.listen({"toolsListChanged": True, "promptsListChanged": True})
        assert stream.acknowledged == {"toolsListChanged": True}  # this server has no prompts
        assert client.call_tool("grow")["content"][0]["text"] == "grown"  # the change comes meanwhile
        changed = stream.next(10)
        assert changed["method"] == "notifications/tools/list_changed" and changed["params"]["_meta"][TAG] == stream.id
        assert "extra" in [t["name"] for t in client.list_tools()]
        stream.close()
        sent = [m for d, m in pipe.log if d == "->" and m.get("method") == "notifications/cancelled"]
        assert sent and sent[0]["params"]["requestId"] == stream.id
        client.call_tool("grow")  # the list changes again, but nobody listens now
        client.list_tools()
        heard = [m for d, m in pipe.log if d == "<-" and m.get("method") == "notifications/tools/list_changed"]
        assert len(heard) == 1 and len(stream.notifications) == 1
