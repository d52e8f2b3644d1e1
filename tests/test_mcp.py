"""MCP over JSON-RPC 2.0: server rules, client checks, in memory and over a child process
(pack §2.6; API.md §3)."""

import io
import json
import os
import subprocess
import sys

import pytest

import toolkit as T
from toolkit.lessons.toy_tools import make_server_registry, make_weather_registry
from toolkit.mcp import decode_line, result_text


def server(**kw):
    return T.MCPServer(make_weather_registry(), **kw)


def init_msg(id_=1, version="2025-06-18"):
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }


def ready_server(**kw):
    s = server(**kw)
    s.handle(init_msg())
    s.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return s


def err_code(reply):
    return reply["error"]["code"]


def test_constants_and_error_type():
    assert T.PROTOCOL_VERSION == "2025-06-18"
    assert (T.PARSE_ERROR, T.INVALID_REQUEST, T.METHOD_NOT_FOUND, T.INVALID_PARAMS) == (-32700, -32600, -32601, -32602)
    e = T.MCPError(-32602, "bad", {"x": 1})
    assert (e.code, e.message, e.data, str(e)) == (-32602, "bad", {"x": 1}, "[-32602] bad")
    assert "2025-06-18" in T.MCPServer.SUPPORTED


def test_initialize_handshake_and_flags():
    s = server(instructions="Use add for sums.")
    assert not s.initialized and not s.ready
    reply = s.handle(init_msg())
    assert reply == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "toy-tools", "title": "Toy Tools", "version": "0.1.0"},
            "instructions": "Use add for sums.",
        },
    }
    assert s.initialized and not s.ready
    assert s.handle({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert s.ready


def test_version_negotiation():
    assert server().handle(init_msg(version="2024-11-05"))["result"]["protocolVersion"] == "2024-11-05"
    # a version the server does not speak: its latest (the spec's SHOULD), which for the lesson
    # server is the pack's revision (API.md: "else its own")
    assert server().handle(init_msg(version="1999-01-01"))["result"]["protocolVersion"] == "2025-06-18"
    assert server().handle(init_msg(version="2025-11-25"))["result"]["protocolVersion"] == "2025-06-18"


@pytest.mark.parametrize("options, answer", [([], "2025-06-18"), (["--latest"], "2025-11-25")])
def test_serve_speaks_the_pack_revision_unless_asked_for_the_latest(options, answer):
    """`python -m toolkit serve` runs the lesson server; `--latest` adds revision 2025-11-25."""
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "serve", *options],
        input=json.dumps(init_msg(version="2025-11-25")) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"]["protocolVersion"] == answer


def test_initialize_needs_its_params():
    for missing in ("protocolVersion", "capabilities", "clientInfo"):
        msg = init_msg()
        del msg["params"][missing]
        reply = server().handle(msg)
        assert err_code(reply) == -32602 and missing in reply["error"]["message"]


def test_requests_before_initialize_and_ping_any_time():
    s = server()
    assert s.handle({"jsonrpc": "2.0", "id": 7, "method": "ping"}) == {"jsonrpc": "2.0", "id": 7, "result": {}}
    reply = s.handle({"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
    assert reply["id"] == 8 and err_code(reply) == -32600 and reply["error"]["message"] == "Server not initialized"


@pytest.mark.parametrize(
    "msg, code",
    [
        ([init_msg()], -32600),  # a batch
        ("hello", -32600),  # not an object
        ({"id": 1, "method": "ping"}, -32600),  # no jsonrpc
        ({"jsonrpc": "1.0", "id": 1, "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": 1, "method": 5}, -32600),  # method not a string
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, -32600),  # null id
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, -32600),  # bool id
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, -32600),  # float id
        ({"jsonrpc": "2.0", "id": [1], "method": "ping"}, -32600),
        ({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}, -32602),
    ],
)
def test_malformed_messages_get_errors(msg, code):
    reply = ready_server().handle(msg)
    assert err_code(reply) == code
    assert set(reply) == {"jsonrpc", "id", "error"}


def test_bad_ids_are_answered_with_a_null_id_and_good_ids_are_echoed():
    s = ready_server()
    assert s.handle({"jsonrpc": "2.0", "id": False, "method": "ping"})["id"] is None
    assert s.handle({"jsonrpc": "2.0", "id": "abc", "method": "nope"})["id"] == "abc"


def test_notifications_are_never_answered():
    s = ready_server()
    assert s.handle({"jsonrpc": "2.0", "method": "notifications/whatever"}) is None
    assert s.handle({"jsonrpc": "2.0", "method": "tools/list"}) is None  # no id: a notification


def test_tools_list_and_annotations():
    s = ready_server()
    tools = s.handle({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})["result"]["tools"]
    assert [t["name"] for t in tools] == ["get_weather", "flaky_rate", "slow_lookup"]
    assert tools[0]["annotations"] == {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False}
    assert tools[0]["inputSchema"]["required"] == ["city"]


def test_paging_with_opaque_cursors_and_bad_cursors():
    s = ready_server(page_size=2)
    first = s.handle({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})["result"]
    assert len(first["tools"]) == 2 and isinstance(first["nextCursor"], str)
    second = s.handle({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": first["nextCursor"]}})[
        "result"
    ]
    assert [t["name"] for t in second["tools"]] == ["slow_lookup"] and "nextCursor" not in second
    for bad in ("²", "nonsense", 5, "b2Zmc2V0Ojk5OQ==", "", "b2Zmc2V0OsKy"):
        reply = s.handle({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"cursor": bad}})
        assert err_code(reply) == -32602, bad


def test_tools_call_success_structured_and_text():
    s = ready_server()
    r = s.handle(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "get_weather", "arguments": {"city": "Paris"}},
        }
    )["result"]
    assert r["isError"] is False
    assert r["structuredContent"] == {"city": "Paris", "temp": 21, "unit": "celsius"}
    assert json.loads(r["content"][0]["text"]) == r["structuredContent"]
    adder = T.MCPServer(make_server_registry())
    adder.handle(init_msg())
    r = adder.handle(
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}
    )
    assert r == {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "5"}], "isError": False}}


def test_the_two_kinds_of_error():
    s = ready_server()
    unknown = s.handle({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "nope", "arguments": {}}})
    assert err_code(unknown) == -32602 and "nope" in unknown["error"]["message"]
    bad_args = s.handle(
        {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "get_weather", "arguments": {"city": 5}}}
    )
    assert bad_args["error"] == {
        "code": -32602,
        "message": "Invalid arguments for tool 'get_weather': city: expected string, got integer (5)",
    }
    # no repair on the server side: a case slip is still a protocol error
    assert (
        err_code(
            s.handle(
                {
                    "jsonrpc": "2.0",
                    "id": 7,
                    "method": "tools/call",
                    "params": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "Celsius"}},
                }
            )
        )
        == -32602
    )
    failure = s.handle(
        {
            "jsonrpc": "2.0",
            "id": 8,
            "method": "tools/call",
            "params": {"name": "get_weather", "arguments": {"city": "Atlantis"}},
        }
    )["result"]
    assert failure["isError"] is True and "Atlantis" in failure["content"][0]["text"]
    assert err_code(s.handle({"jsonrpc": "2.0", "id": 9, "method": "resources/list"})) == -32601


def test_an_exception_inside_a_handler_becomes_internal_error_with_the_id(monkeypatch):
    s = ready_server()
    monkeypatch.setattr(s, "_tools_list", lambda params: 1 / 0)
    reply = s.handle({"jsonrpc": "2.0", "id": "x1", "method": "tools/list"})
    assert reply["id"] == "x1" and err_code(reply) == -32603


def test_encode_line_is_one_compact_line():
    line = T.encode_line({"jsonrpc": "2.0", "id": 1, "result": {"text": "two\nlines"}})
    assert line.endswith("\n") and line.count("\n") == 1
    assert line == '{"jsonrpc":"2.0","id":1,"result":{"text":"two\\nlines"}}\n'


def test_serve_lines_skips_blanks_and_reports_parse_errors():
    out = []
    lines = [
        "",
        "   ",
        "not json",
        json.dumps(init_msg()),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b"\xff\xfe not utf-8",
        "[" * 5000 + "]" * 5000,
        "1" * 5000,
        "NaN",
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    ]
    T.serve_lines(server(), lines, out.append)
    replies = [json.loads(x) for x in out]
    assert [r.get("id") for r in replies] == [None, 1, None, None, None, None, 2]
    assert [r["error"]["code"] for r in replies if "error" in r] == [-32700, -32700, -32700, -32700, -32700]
    assert all(x.count("\n") == 1 for x in out)


def ping_line(id_, pad=0):
    """A ping as one line of JSON, padded to be long when asked."""
    params = {"pad": "x" * pad} if pad else {}
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": "ping", "params": params})


def test_a_line_over_the_limit_gets_one_error_and_the_next_line_is_served():
    from toolkit.mcp.server import MAX_LINE_BYTES, bounded_lines

    assert MAX_LINE_BYTES == 1024 * 1024
    exact = ping_line(1, pad=100)
    limit = len(exact)
    data = "\n".join([exact, ping_line(2, pad=101), ping_line(3, pad=5000), ping_line(4)]).encode() + b"\n"
    out = []
    T.serve_lines(server(), bounded_lines(io.BytesIO(data), max_line=limit), out.append)
    replies = [json.loads(x) for x in out]
    assert [r["id"] for r in replies] == [1, None, None, 4]  # exactly the limit is fine; one byte more is not
    for refused, size in zip(replies[1:3], (limit + 1, limit + 4900)):
        assert refused["error"]["code"] == -32600
        assert f"at most {limit:,} bytes" in refused["error"]["message"]
        assert refused["error"]["data"] == {"maxLineBytes": limit, "lineBytes": size}


def test_serve_lines_applies_the_same_limit_to_lines_given_as_strings():
    out = []
    T.serve_lines(server(), [ping_line(1, pad=3000), ping_line(2)], out.append, max_line=1000)
    replies = [json.loads(x) for x in out]
    assert replies[0]["id"] is None and "at most 1,000 bytes" in replies[0]["error"]["message"]
    assert replies[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_in_memory_client_session_and_log():
    transport = T.InMemoryTransport(server())
    client = T.MCPClient(transport)
    result = client.initialize()
    assert client.server_info == {"name": "toy-tools", "title": "Toy Tools", "version": "0.1.0"}
    assert client.capabilities == {"tools": {"listChanged": False}} and result["protocolVersion"] == "2025-06-18"
    assert client.ping() == {}
    assert [t["name"] for t in client.list_tools()] == ["get_weather", "flaky_rate", "slow_lookup"]
    r = client.call_tool("get_weather", {"city": "Oslo"})
    assert r["structuredContent"]["temp"] == 9
    with pytest.raises(T.MCPError) as e:
        client.call_tool("get_weather", {"city": 5})
    assert e.value.code == -32602
    sent = [m for arrow, m in transport.log if arrow == "->"]
    assert [m.get("id") for m in sent] == [1, None, 2, 3, 4, 5]  # ids from 1, never reused
    assert sent[1] == {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert [a for a, _ in transport.log].count("<-") == 5
    transport.close()
    with pytest.raises(T.MCPError):
        client.ping()


def test_client_follows_every_cursor():
    client = T.MCPClient(T.InMemoryTransport(server(page_size=1)))
    client.initialize()
    assert [t["name"] for t in client.list_tools()] == ["get_weather", "flaky_rate", "slow_lookup"]


class FakeTransport:
    def __init__(self, replies):
        self.replies = list(replies)

    def send(self, msg):
        return self.replies.pop(0) if "id" in msg else None

    def close(self):
        pass


@pytest.mark.parametrize(
    "reply",
    [
        {"jsonrpc": "2.0", "id": 99, "result": {}},  # wrong id
        {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "x"}},  # both
        {"jsonrpc": "2.0", "id": 1},  # neither
        "not an object",
    ],
)
def test_client_rejects_malformed_replies(reply):
    with pytest.raises(T.MCPError):
        T.MCPClient(FakeTransport([reply])).ping()


def test_client_raises_error_replies_with_code_message_data():
    client = T.MCPClient(
        FakeTransport([{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope", "data": [1]}}])
    )
    with pytest.raises(T.MCPError) as e:
        client.ping()
    assert (e.value.code, e.value.message, e.value.data) == (-32601, "nope", [1])


def test_client_disconnects_from_a_version_it_does_not_speak():
    reply = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {}},
    }
    transport = FakeTransport([reply])
    with pytest.raises(T.MCPError):
        T.MCPClient(transport).initialize()


def test_mcp_to_registry_maps_annotations_and_errors():
    s = server()
    client = T.MCPClient(T.InMemoryTransport(s))
    client.initialize()
    reg = T.mcp_to_registry(client, trusted=True)  # annotations count only from a trusted server
    assert reg.names() == ["get_weather", "flaky_rate", "slow_lookup"]
    w = reg.get("get_weather")
    assert (w.read_only, w.destructive, w.open_world) == (True, False, False)
    ok = reg.run("get_weather", {"city": "Rome"})
    assert ok.ok and ok.data == {"city": "Rome", "temp": 21, "unit": "celsius"}
    failed = reg.run("get_weather", {"city": "Atlantis"})
    assert failed.kind == "tool_error" and "Atlantis" in failed.content
    # a remote tool with no annotations takes the spec's cautious defaults
    bare = T.MCPClient(
        FakeTransport(
            [
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "result": {
                        "tools": [
                            {"name": "mystery", "description": "?", "inputSchema": {"type": "object", "properties": {}}}
                        ]
                    },
                },
                {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Unknown tool: 'mystery'"}},
            ]
        )
    )
    reg2 = T.mcp_to_registry(bare)
    m = reg2.get("mystery")
    assert (m.read_only, m.destructive, m.open_world) == (False, True, True)
    refused = reg2.run("mystery", {})
    assert refused.kind == "tool_error" and "Unknown tool" in refused.content


def test_agent_loop_uses_remote_tools_through_the_bridge():
    client = T.MCPClient(T.InMemoryTransport(server()))
    client.initialize()
    reg = T.mcp_to_registry(client)
    model = T.ScriptedModel([{"tool_calls": [T.call("c1", "get_weather", city="Paris")]}, {"content": "done"}])
    res = T.run_agent(model, reg, "weather in Paris?")
    assert res.final == "done" and '"temp": 21' in res.messages[2]["content"]


# ---- a real child process -----------------------------------------------------------------


def test_stdio_session_with_a_real_child_process():
    with T.StdioTransport() as transport:
        client = T.MCPClient(transport)
        assert client.initialize()["protocolVersion"] == "2025-06-18"
        assert [t["name"] for t in client.list_tools()] == ["echo", "add"]
        assert client.call_tool("add", {"a": 2, "b": 3})["content"] == [{"type": "text", "text": "5"}]
        assert result_text(client.call_tool("echo", {"text": "héllo\nworld"})) == "héllo\nworld"
        with pytest.raises(T.MCPError) as e:
            client.call_tool("add", {"a": "two", "b": 3})
        assert e.value.code == -32602
        with pytest.raises(T.MCPError) as e:
            client.call_tool("nope", {})
        assert e.value.code == -32602
        proc = transport.proc
    assert proc.poll() is not None  # closed cleanly


def test_stdio_server_answers_raw_bad_lines_by_hand():
    """Exercise 6 by code: null id, a batch, and a line that is not JSON."""
    with T.StdioTransport() as t:
        assert t.send_line(json.dumps(init_msg()))["id"] == 1
        assert t.send_line('{"jsonrpc":"2.0","method":"notifications/initialized"}', wait=0.3) is None
        assert t.send_line('{"jsonrpc":"2.0","id":null,"method":"ping"}')["error"]["code"] == -32600
        assert t.send_line('[{"jsonrpc":"2.0","id":3,"method":"ping"}]')["error"]["code"] == -32600
        assert t.send_line("this is not json")["error"]["code"] == -32700
        assert t.send_line('{"jsonrpc":"2.0","id":4,"method":"ping"}') == {"jsonrpc": "2.0", "id": 4, "result": {}}


def test_send_line_waits_for_a_slow_starting_server_but_not_for_a_notification(tmp_path):
    """A busy machine can take seconds to start the child; that is not a missing reply. The
    child here does not start serving until the test says so (a file appears), so a
    notification sent before that can only return if it is not held for the start-up."""
    go = tmp_path / "go"
    slow = [
        sys.executable,
        "-c",
        "import pathlib, runpy, sys, time\n"
        f"while not pathlib.Path({str(go)!r}).exists(): time.sleep(0.05)\n"
        "time.sleep(1.0); sys.argv = ['toolkit', 'serve']; runpy.run_module('toolkit', run_name='__main__')",
    ]
    with T.StdioTransport(slow, timeout=30) as t:
        assert t.send_line('{"jsonrpc":"2.0","method":"notifications/initialized"}', wait=0.2) is None
        go.touch()  # only now may the server start, a second from now
        assert t.send_line(json.dumps(init_msg()), wait=0.2)["id"] == 1
        assert t.send_line('{"jsonrpc":"2.0","id":2,"method":"ping"}', wait=0.2)["id"] == 2


def peak_memory_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(next(line for line in status if line.startswith("VmHWM:")).split()[1])


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads peak memory from Linux /proc")
def test_the_stdio_server_discards_a_line_of_several_mib_without_holding_it():
    """`python -m toolkit serve` gets an 8 MiB line: one -32600 reply with id null, the line
    read and dropped in small pieces (peak memory barely moves), then the next request works."""
    with T.StdioTransport(timeout=60) as t:
        assert t.send_line(json.dumps(init_msg()))["id"] == 1
        before = peak_memory_kib(t.proc.pid)
        refused = t.send_line(ping_line(2, pad=8 * 1024 * 1024), wait=60)
        grown = peak_memory_kib(t.proc.pid) - before
        assert refused["id"] is None and refused["error"]["code"] == -32600
        assert "at most 1,048,576 bytes" in refused["error"]["message"]
        assert t.send_line(ping_line(3)) == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert grown < 4 * 1024, f"peak memory grew by {grown} KiB while discarding the line"


FUZZ_LINES = [
    b"not json",
    b"\xff\xfe\xfd",
    b"[" * 5000 + b"]" * 5000,
    b"1" * 5000,
    b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"ping"}',
    b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"\xc2\xb2"}}',
    b"NaN",
    b'{"a":' * 3000 + b"1" + b"}" * 3000,
    b"{}",
    b"[]",
    b"null",
    b'"str"',
    b'{"jsonrpc":"2.0"}',
    b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1e999,"b":1}}}',
    b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\\ud800"}}}',
]


def test_stdio_server_survives_hostile_lines_and_keeps_stdout_clean():
    init = json.dumps(init_msg()).encode()
    data = b"\n".join([init] + FUZZ_LINES + [b'{"jsonrpc":"2.0","id":"last","method":"ping"}']) + b"\n"
    proc = subprocess.run([sys.executable, "-m", "toolkit", "serve"], input=data, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()[-500:]
    lines = proc.stdout.decode("ascii").splitlines()
    replies = [json.loads(x) for x in lines]
    for r in replies:
        assert r["jsonrpc"] == "2.0" and ("result" in r) != ("error" in r)
    assert replies[0]["id"] == 1 and replies[-1] == {"jsonrpc": "2.0", "id": "last", "result": {}}
    # every hostile line is a request or not a valid message at all, so each gets one reply
    assert len(replies) == 2 + len(FUZZ_LINES)
    assert all(r["error"]["code"] in (-32700, -32600, -32602) for r in replies[1:-1] if "error" in r)


def test_decode_line_raises_only_parse_errors():
    for bad in (b"\xff", "[" * 100000, "1" * 10000, "Infinity", "{"):
        with pytest.raises(T.MCPError) as e:
            decode_line(bad)
        assert e.value.code == -32700
