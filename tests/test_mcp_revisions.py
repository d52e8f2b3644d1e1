"""MCP revisions: negotiation, and the behaviour that is switched by the negotiated version
(pack §2.6, assignment Part D; toolkit/mcp/revisions.py names the source of each rule)."""

import json

import pytest

import toolkit as T
from toolkit.lessons import sdk_sessions
from toolkit.lessons.toy_tools import make_server_registry
from toolkit.mcp import UNSUPPORTED_PROTOCOL_VERSION, result_text, revision_notes
from toolkit.mcp.revisions import KNOWN_VERSIONS, at_least

# The lesson server speaks the pack's revision and the older handshake revisions; the
# extension class adds 2025-11-25, the newest revision with a handshake.
PACK_SERVER = ("2024-11-05", "2025-03-26", "2025-06-18")
HANDSHAKE = PACK_SERVER + ("2025-11-25",)


def init_msg(version, id_=1):
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }


def session(version, kind=T.MCPServer):
    s = kind(make_server_registry())
    assert s.handle(init_msg(version))["result"]["protocolVersion"] == version
    s.handle({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return s


def call(server, name, arguments, id_=9):
    return server.handle(
        {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    )


# ---- negotiation ----------------------------------------------------------------------------


def test_the_pack_revision_stays_the_default():
    assert T.PROTOCOL_VERSION == "2025-06-18"
    assert tuple(T.MCPServer.SUPPORTED) == PACK_SERVER
    assert max(T.MCPServer.SUPPORTED) == T.PROTOCOL_VERSION  # its latest is the pack's revision
    assert tuple(T.LatestRevisionServer.SUPPORTED) == HANDSHAKE
    assert issubclass(T.LatestRevisionServer, T.MCPServer)
    assert tuple(T.MCPClient(None).SUPPORTED) == HANDSHAKE  # a client may speak more than a server


@pytest.mark.parametrize("version", PACK_SERVER)
def test_each_revision_of_the_lesson_server_is_echoed(version):
    reply = T.MCPServer(make_server_registry()).handle(init_msg(version))
    assert reply["result"]["protocolVersion"] == version


@pytest.mark.parametrize("version", HANDSHAKE)
def test_each_handshake_revision_is_echoed_by_the_extension(version):
    reply = T.LatestRevisionServer(make_server_registry()).handle(init_msg(version))
    assert reply["result"]["protocolVersion"] == version


UNKNOWN = ["1999-01-01", "2026-07-28", "2025-11-26", "latest", ""]


@pytest.mark.parametrize("asked", UNKNOWN + ["2025-11-25"])
def test_a_version_the_lesson_server_does_not_speak_gets_the_pack_revision(asked):
    """Lifecycle, Version Negotiation: otherwise the server MUST answer with another version
    it supports, and SHOULD pick its latest. The lesson server's latest is the pack's
    revision, which is also API.md's "else its own"."""
    server = T.MCPServer(make_server_registry())
    assert server.handle(init_msg(asked))["result"]["protocolVersion"] == "2025-06-18"
    assert server.protocol_version == "2025-06-18"


@pytest.mark.parametrize("asked", UNKNOWN)
def test_a_version_the_extension_does_not_speak_gets_2025_11_25(asked):
    reply = T.LatestRevisionServer(make_server_registry()).handle(init_msg(asked))
    assert reply["result"]["protocolVersion"] == "2025-11-25"


def test_the_toolkit_client_asking_for_2025_11_25_settles_on_the_lesson_servers_revision():
    server = T.MCPServer(make_server_registry())
    client = T.MCPClient(T.InMemoryTransport(server))
    assert client.initialize("2025-11-25")["protocolVersion"] == "2025-06-18"
    assert client.protocol_version == server.protocol_version == "2025-06-18" and server.ready
    with pytest.raises(T.MCPError) as bad:  # and the session follows 2025-06-18's rules
        client.call_tool("add", {"a": "two", "b": 3})
    assert bad.value.code == -32602


def test_the_toolkit_client_hangs_up_on_a_version_it_does_not_speak():
    class FutureServer(T.MCPServer):
        SUPPORTED = ("2099-01-01",)

    server = FutureServer(make_server_registry())
    client = T.MCPClient(T.InMemoryTransport(server))
    with pytest.raises(T.MCPError) as refused:
        client.initialize()
    assert "'2099-01-01'" in refused.value.message and "disconnect" in refused.value.message
    assert client.protocol_version is None and not server.ready  # no notifications/initialized sent


class OldServer(T.MCPServer):
    """A server that stopped at 2025-03-26 (the one revision with JSON-RPC batches)."""

    SUPPORTED = ("2024-11-05", "2025-03-26")


@pytest.mark.parametrize(
    "asked, answered",
    [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-03-26"),
        ("2025-11-25", "2025-03-26"),
        ("1999-01-01", "2025-03-26"),
    ],
)
def test_a_subclass_that_speaks_fewer_revisions_is_honoured(asked, answered):
    server = OldServer(make_server_registry())
    assert server.handle(init_msg(asked))["result"]["protocolVersion"] == answered
    assert server.protocol_version == answered


def test_the_latest_revision_does_not_depend_on_the_order_of_supported():
    class NewestFirst(T.MCPServer):
        SUPPORTED = ("2025-06-18", "2024-11-05")

    assert (
        NewestFirst(make_server_registry()).handle(init_msg("2025-11-25"))["result"]["protocolVersion"] == "2025-06-18"
    )


def test_the_toolkit_client_follows_a_subclass_down_to_its_revision():
    server = OldServer(make_server_registry())
    client = T.MCPClient(T.InMemoryTransport(server))
    assert client.initialize("2025-06-18")["protocolVersion"] == "2025-03-26"
    assert client.protocol_version == "2025-03-26"
    # the session then follows the revision it agreed on: 2025-03-26 accepts a batch
    assert server.handle([{"jsonrpc": "2.0", "id": 7, "method": "ping"}]) == [{"jsonrpc": "2.0", "id": 7, "result": {}}]


def test_a_server_that_speaks_no_revision_is_refused_at_once():
    class Mute(T.MCPServer):
        SUPPORTED = ()

    with pytest.raises(ValueError, match="SUPPORTED"):
        Mute(make_server_registry())


@pytest.mark.parametrize("version", HANDSHAKE)
def test_the_toolkit_client_speaks_every_handshake_revision(version):
    client = T.MCPClient(T.InMemoryTransport(T.LatestRevisionServer(make_server_registry())))
    assert client.initialize(version)["protocolVersion"] == version
    assert client.protocol_version == version
    assert [t["name"] for t in client.list_tools()] == ["echo", "add"]


def test_revisions_are_ordered_by_list_not_by_string():
    assert at_least("2025-11-25", "2025-06-18") and at_least("2025-06-18", "2025-06-18")
    assert not at_least("2025-03-26", "2025-06-18")
    assert not at_least("9999-99-99", "2024-11-05")  # unknown: never "new enough"
    assert not at_least(None, "2024-11-05")
    with pytest.raises(ValueError):
        at_least("2025-06-18", "2025-07-01")


def test_revision_notes_cover_every_known_revision():
    rows = revision_notes()
    assert [r["version"] for r in rows] == list(KNOWN_VERSIONS)
    assert [r["version"] for r in rows if r["handshake"]] == list(HANDSHAKE)
    assert [r["version"] for r in rows if r["served"]] == list(HANDSHAKE) + ["2026-07-28"]  # ModernServer
    assert [r["version"] for r in rows if r["lesson server"]] == list(T.MCPServer.SUPPORTED)
    rows[0]["version"] = "changed"  # a copy: the table itself cannot be edited by accident
    assert revision_notes()[0]["version"] == "2024-11-05"


# ---- arguments that break the schema (SEP-1303) ---------------------------------------------


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18"])
def test_up_to_2025_06_18_bad_arguments_are_a_protocol_error(version):
    reply = call(session(version), "add", {"a": "two", "b": 3})
    assert reply["error"] == {
        "code": -32602,
        "message": "Invalid arguments for tool 'add': a: expected integer, got string ('two')",
    }


def test_from_2025_11_25_bad_arguments_come_back_for_the_model_to_read():
    reply = call(session("2025-11-25", T.LatestRevisionServer), "add", {"a": "two"})
    result = reply["result"]
    assert result["isError"] is True and "structuredContent" not in result
    text = result_text(result)
    # names each problem and what the tool expects, so a model can fix the call
    assert "a: expected integer, got string ('two')" in text
    assert "missing required parameter 'b'" in text
    assert "b (integer, required)" in text


def test_a_corrected_call_then_works_at_2025_11_25():
    s = session("2025-11-25", T.LatestRevisionServer)
    assert call(s, "add", {"a": "2", "b": 3}, id_=1)["result"]["isError"] is True  # no repair on the server
    assert call(s, "add", {"a": 2, "b": 3}, id_=2)["result"] == {
        "content": [{"type": "text", "text": "5"}],
        "isError": False,
    }


@pytest.mark.parametrize("version", HANDSHAKE)
def test_an_unknown_tool_is_a_protocol_error_in_every_revision(version):
    reply = call(session(version, T.LatestRevisionServer), "ad", {"a": 1, "b": 2})
    assert reply["error"]["code"] == -32602 and "Unknown tool: 'ad'" in reply["error"]["message"]


@pytest.mark.parametrize("arguments", [[1, 2], "a=1", 5])
def test_arguments_that_are_not_an_object_stay_a_protocol_error_at_2025_11_25(arguments):
    reply = call(session("2025-11-25", T.LatestRevisionServer), "add", arguments)
    assert reply["error"]["code"] == -32602


def test_the_toolkit_client_sees_the_difference():
    rows = sdk_sessions.bad_argument_by_revision()
    assert [(r["version"], r["kind"]) for r in rows] == [
        ("2025-06-18", "protocol error -32602"),
        ("2025-11-25", "tool result, isError: true"),
    ]
    assert "error" in rows[0]["reply"] and rows[1]["reply"]["result"]["isError"] is True


# ---- JSON-RPC batches: required in 2025-03-26 only -------------------------------------------


def test_a_2025_03_26_session_answers_a_batch_in_order():
    s = session("2025-03-26")
    replies = s.handle(
        [
            {"jsonrpc": "2.0", "id": "p", "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/whatever"},
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
            },
            {"jsonrpc": "2.0", "id": 8, "method": "nope"},
        ]
    )
    assert [r["id"] for r in replies] == ["p", 7, 8]
    assert replies[1]["result"]["content"][0]["text"] == "3"
    assert replies[2]["error"]["code"] == -32601


def test_batch_edge_cases_in_2025_03_26():
    s = session("2025-03-26")
    assert s.handle([])["error"]["code"] == -32600
    assert s.handle([{"jsonrpc": "2.0", "method": "notifications/x"}]) is None
    inner = s.handle([init_msg("2025-03-26", id_=3), [{"jsonrpc": "2.0", "id": 4, "method": "ping"}], 17])
    assert [(r["id"], r["error"]["code"]) for r in inner] == [(3, -32600), (None, -32600), (None, -32600)]
    assert "initialize must not be part of a batch" in inner[0]["error"]["message"]
    assert s.protocol_version == "2025-03-26"  # the batched initialize changed nothing


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25", None])
def test_other_revisions_refuse_batches(version):
    s = session(version, T.LatestRevisionServer) if version else T.MCPServer(make_server_registry())
    reply = s.handle([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])
    assert reply["id"] is None and reply["error"]["code"] == -32600


def test_a_batch_reply_is_one_line_on_stdio():
    out = []
    lines = [
        json.dumps(init_msg("2025-03-26")),
        json.dumps([{"jsonrpc": "2.0", "id": 2, "method": "ping"}, {"jsonrpc": "2.0", "id": 3, "method": "ping"}]),
    ]
    T.serve_lines(T.MCPServer(make_server_registry()), lines, out.append)
    assert len(out) == 2 and all(x.count("\n") == 1 for x in out)
    assert json.loads(out[1]) == [{"jsonrpc": "2.0", "id": 2, "result": {}}, {"jsonrpc": "2.0", "id": 3, "result": {}}]


# ---- the stateless 2026-07-28 revision: a handshake-only server answers as older servers do ----
# (issue 20, B12) A dual-era client probes with server/discover and falls back to initialize on
# any error that is not one revision 2026-07-28 defines (-32020, -32021, -32022): those mark a
# modern server (2026-07-28 basic/transports/stdio.mdx:129-141, basic/versioning.mdx:143-146).
# A server that speaks no 2026-07-28 must therefore answer like a server from before it.


def discover(version="2026-07-28", id_=1):
    meta = {"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}}
    return {"jsonrpc": "2.0", "id": id_, "method": "server/discover", "params": {"_meta": meta}}


@pytest.mark.parametrize("kind", [T.MCPServer, T.LatestRevisionServer])
def test_server_discover_is_a_method_a_handshake_server_does_not_have(kind):
    reply = kind(make_server_registry()).handle(discover())
    assert reply["id"] == 1 and reply["error"]["code"] == -32601 != UNSUPPORTED_PROTOCOL_VERSION
    assert "initialize" in reply["error"]["message"]
    assert ", ".join(kind.SUPPORTED) in reply["error"]["message"]  # still names what it speaks


def test_server_discover_is_not_found_after_initialize_too_and_without_meta():
    s = session("2025-06-18")
    assert s.handle(discover(id_="d"))["error"]["code"] == -32601
    bare = s.handle({"jsonrpc": "2.0", "id": 2, "method": "server/discover"})
    assert bare["error"]["code"] == -32601
    assert s.handle({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})["result"]["tools"]  # session unharmed


def test_a_stateless_request_before_initialize_hears_the_lifecycle_rule():
    s = T.MCPServer(make_server_registry())
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    reply = s.handle({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": meta}})
    assert reply["error"]["code"] == -32600 and reply["error"]["message"].startswith("Server not initialized")
    assert "2025-06-18" in reply["error"]["message"]
    plain = s.handle({"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
    assert plain["error"] == {"code": -32600, "message": "Server not initialized"}
    assert not s.initialized


@pytest.mark.parametrize("kind, version", [(T.MCPServer, "2025-06-18"), (T.LatestRevisionServer, "2025-11-25")])
def test_the_toolkit_client_falls_back_from_its_probe_to_the_handshake(kind, version):
    link = T.InMemoryTransport(kind(make_server_registry()))
    client = T.MCPClient(link)
    client.connect()
    assert not client.modern and client.protocol_version == version
    sent = [m["method"] for arrow, m in link.log if arrow == "->"]
    assert sent == ["server/discover", "initialize", "notifications/initialized"]


def test_stateless_probe_helper_shows_the_wire():
    probe = sdk_sessions.stateless_probe()
    assert probe["request"]["method"] == "server/discover"
    assert probe["reply"]["error"]["code"] == -32601 and "2025-06-18" in probe["reply"]["error"]["message"]
