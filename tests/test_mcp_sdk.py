"""Interop with the official MCP Python SDK (the ``mcp`` package, pinned in the test extra).

Pack §2.6: a server written once should work with any client that speaks MCP. Here the
SDK's clients drive ``python -m toolkit serve`` over stdio, and the toolkit's client drives a
server built with the SDK (tests/servers/sdk_server.py). Every session runs under a time
limit, and every child process is stopped by the context that started it.
"""

import json
import subprocess
import sys
from pathlib import Path

import anyio
import mcp.types as types
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment
from mcp.shared.exceptions import MCPError as SDKError

import toolkit as T
from toolkit.lessons import sdk_sessions
from toolkit.mcp import result_text

ROOT = Path(__file__).resolve().parents[1]
SDK_SERVER = ROOT / "tests" / "servers" / "sdk_server.py"
LIMIT = 30  # seconds for one whole session, start-up included


def toolkit_server(*options):
    env = get_default_environment()  # the SDK passes a trimmed environment to children
    env["PYTHONPATH"] = str(ROOT)
    return StdioServerParameters(
        command=sys.executable, args=["-m", "toolkit", "serve", *options], env=env, cwd=str(ROOT)
    )


def run(async_fn):
    async def bounded():
        with anyio.fail_after(LIMIT):
            return await async_fn()

    return anyio.run(bounded)


try:
    GROUP = BaseExceptionGroup
except NameError:  # Python 3.10: anyio brings the backport
    from exceptiongroup import BaseExceptionGroup as GROUP


def leaf_errors(exc):
    """The SDK raises from inside task groups; find the MCP errors in the group."""
    if isinstance(exc, GROUP):
        return [leaf for sub in exc.exceptions for leaf in leaf_errors(sub)]
    return [exc]


# ---- the SDK's stdio client against `python -m toolkit serve` --------------------------------


def test_sdk_client_session_lists_pages_calls_and_gets_both_kinds_of_error():
    async def session():
        async with stdio_client(toolkit_server("--latest", "--page-size", "1")) as (read, write):
            async with ClientSession(read, write) as s:
                init = await s.initialize()
                first = await s.list_tools()
                second = await s.list_tools(params=types.PaginatedRequestParams(cursor=first.next_cursor))
                ok = await s.call_tool("add", {"a": 2, "b": 3})
                echo = await s.call_tool("echo", {"text": "héllo\nworld"})
                bad = await s.call_tool("add", {"a": "two", "b": 3})
                with pytest.raises(SDKError) as unknown:
                    await s.call_tool("nope", {})
                return init, first, second, ok, echo, bad, unknown.value

    init, first, second, ok, echo, bad, unknown = run(session)
    # The SDK asks for the newest handshake revision it knows; serve --latest speaks it, so it is echoed.
    assert init.protocol_version == types.version.LATEST_HANDSHAKE_VERSION == "2025-11-25"
    assert (init.server_info.name, init.server_info.title) == ("toy-tools", "Toy Tools")
    assert [t.name for t in first.tools] == ["echo"] and first.next_cursor
    assert [t.name for t in second.tools] == ["add"] and second.next_cursor is None
    assert second.tools[0].annotations.read_only_hint is True
    assert (ok.is_error, ok.content[0].text) == (False, "5")
    assert echo.content[0].text == "héllo\nworld"
    # 2025-11-25 (SEP-1303): a schema-breaking call is a tool result the model can read ...
    assert bad.is_error is True and "a: expected integer, got string ('two')" in bad.content[0].text
    # ... and an unknown tool is still a protocol error.
    assert unknown.error.code == -32602 and "Unknown tool: 'nope'" in unknown.error.message


def test_sdk_session_against_the_lesson_server_settles_on_the_pack_revision():
    """The SDK offers 2025-11-25; the lesson server does not speak it and offers its latest,
    2025-06-18, which the SDK speaks too, so the session goes on under the pack's rules."""

    async def session():
        async with stdio_client(toolkit_server()) as (read, write):
            async with ClientSession(read, write) as s:
                init = await s.initialize()
                with pytest.raises(SDKError) as bad:
                    await s.call_tool("add", {"a": "two", "b": 3})
                ok = await s.call_tool("add", {"a": 2, "b": 3})
                return init, bad.value, ok

    init, bad, ok = run(session)
    assert types.version.LATEST_HANDSHAKE_VERSION == "2025-11-25"  # what the SDK asked for
    assert init.protocol_version == "2025-06-18"
    assert bad.error.code == -32602 and ok.content[0].text == "5"


def test_sdk_session_pinned_to_the_pack_revision_gets_a_protocol_error_for_bad_arguments():
    async def session():
        async with stdio_client(toolkit_server()) as (read, write):
            async with ClientSession(read, write) as s:
                # ClientSession.initialize always offers the SDK's newest revision, so send the
                # pack's revision by hand, the way the spec's handshake describes it.
                result = await s.send_request(
                    types.InitializeRequest(
                        params=types.InitializeRequestParams(
                            protocol_version="2025-06-18",
                            capabilities=types.ClientCapabilities(),
                            client_info=types.Implementation(name="pinned", version="1"),
                        )
                    ),
                    types.InitializeResult,
                )
                s.adopt(result)
                await s.send_notification(types.InitializedNotification())
                with pytest.raises(SDKError) as bad:
                    await s.call_tool("add", {"a": "two", "b": 3})
                return result, bad.value

    result, bad = run(session)
    assert result.protocol_version == "2025-06-18"
    assert bad.error.code == -32602
    assert bad.error.message == "Invalid arguments for tool 'add': a: expected integer, got string ('two')"


@pytest.mark.parametrize("options, version", [((), "2025-06-18"), (("--latest",), "2025-11-25")])
def test_sdk_high_level_client_in_default_mode_connects_and_works(options, version):
    async def session():
        async with Client(toolkit_server(*options)) as client:
            tools = await client.list_tools()
            result = await client.call_tool("add", {"a": 20, "b": 22})
            return client.mode, client.protocol_version, client.server_info.name, tools, result

    mode, negotiated, name, tools, result = run(session)
    assert mode == "auto"  # the default: probe server/discover, fall back to initialize
    assert (negotiated, name) == (version, "toy-tools")
    assert [t.name for t in tools.tools] == ["echo", "add"]
    assert result.content[0].text == "42" and not result.is_error


@pytest.mark.parametrize(
    "latest, version, bad_call",
    [(False, "2025-06-18", "protocol error -32602"), (True, "2025-11-25", "tool error (isError: true)")],
)
def test_sdk_default_client_falls_back_after_our_answer_to_server_discover(latest, version, bad_call):
    report = sdk_sessions.sdk_stdio_session(high_level=True, page_size=1, latest=latest)
    assert report.protocol_version == version and report.tools == ["echo", "add"]
    methods = [m.get("method") for arrow, m in report.wire if arrow == "->"]
    assert methods[:3] == ["server/discover", "initialize", "notifications/initialized"]
    first_reply = report.wire[1][1]
    # as a server from before 2026-07-28 would answer, so any dual-era client falls back (B12)
    assert first_reply["error"]["code"] == -32601
    server = T.LatestRevisionServer if latest else T.MCPServer
    assert ", ".join(server.SUPPORTED) in first_reply["error"]["message"]
    assert [c["kind"] for c in report.calls] == ["result", bad_call, "protocol error -32602"]


def test_a_client_pinned_to_the_stateless_revision_fails_with_a_reason():
    """2026-07-28 basic/versioning.mdx:167 (modern client, legacy server): it fails, and the
    error names the revisions the server does speak."""

    async def session():
        async with Client(toolkit_server(), mode="2026-07-28") as client:
            await client.list_tools()

    with pytest.raises(BaseException) as caught:
        run(session)
    errors = [e for e in leaf_errors(caught.value) if isinstance(e, SDKError)]
    assert errors, f"expected an MCP error, got {caught.value!r}"
    assert errors[0].error.code in (-32600, -32601)
    assert "2024-11-05, 2025-03-26, 2025-06-18" in errors[0].error.message


@pytest.mark.parametrize("latest, version", [(False, "2025-06-18"), (True, "2025-11-25")])
def test_sdk_session_helper_for_the_notebook(latest, version):
    report = sdk_sessions.sdk_stdio_session(latest=latest)
    assert report.client_mode == "ClientSession" and report.protocol_version == version
    assert report.calls[0] == {"tool": "add", "arguments": {"a": 2, "b": 3}, "kind": "result", "text": "5"}
    arrows = [arrow for arrow, _ in report.wire]
    assert arrows[:2] == ["->", "<-"] and report.wire[0][1]["method"] == "initialize"
    assert report.wire[0][1]["params"]["protocolVersion"] == "2025-11-25"  # what the SDK asks for
    assert report.wire[1][1]["result"]["protocolVersion"] == version
    assert f"negotiated protocol version: {version}" in report.summary()


def test_the_helpers_say_how_to_install_a_missing_sdk(monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)  # makes `import mcp` fail
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'mcp==2\.3\.0'"):
        sdk_sessions.sdk_stdio_session()


def test_send_request_sends_any_method_through_the_client_as_the_next_request():
    """Notebook 06 asks for a method the server does not offer, through public calls only."""
    link = T.InMemoryTransport(T.MCPServer(T.RetailEnv().registry))
    client = T.MCPClient(link)
    client.initialize()
    assert sdk_sessions.send_request(client, "ping") == {}
    with pytest.raises(T.MCPError) as refused:
        sdk_sessions.send_request(client, "resources/list")
    assert refused.value.code == T.METHOD_NOT_FOUND and "resources/list" in refused.value.message
    assert client.call_tool("get_order", {"order_id": "A1"})["isError"] is False  # the session goes on
    ids = [msg["id"] for arrow, msg in link.log if arrow == "->" and "id" in msg]
    assert ids == [1, 2, 3, 4]  # one numbering for every request, none reused
    with pytest.raises(TypeError, match="params must be a dict"):
        sdk_sessions.send_request(client, "tools/list", ["not", "an", "object"])
    assert "send_request" in sdk_sessions.__all__


# ---- the toolkit's client against a server built with the SDK ---------------------------------


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_toolkit_client_against_an_sdk_server(version):
    with T.StdioTransport([sys.executable, str(SDK_SERVER)], timeout=LIMIT) as transport:
        client = T.MCPClient(transport)
        assert client.initialize(version)["protocolVersion"] == version
        assert client.server_info["name"] == "sdk-test-server"
        assert client.instructions == "A server built with the official SDK."
        assert [t["name"] for t in client.list_tools()] == ["add", "weather", "chatty"]
        assert result_text(client.call_tool("add", {"a": 2, "b": 3})) == "5"
        failed = client.call_tool("weather", {"city": "Rome"})
        assert failed["isError"] is True and "try Paris" in result_text(failed)
        assert client.ping() == {}


def test_toolkit_client_skips_log_notifications_sent_before_the_reply():
    with T.StdioTransport([sys.executable, str(SDK_SERVER)], timeout=LIMIT) as transport:
        client = T.MCPClient(transport)
        client.initialize()
        start = len(transport.log)
        result = client.call_tool("chatty", {"text": "hi"})
        assert result_text(result) == "HI"
        incoming = [m for arrow, m in transport.log[start:] if arrow == "<-"]
        assert [m.get("method", "reply") for m in incoming] == [
            "notifications/message",
            "notifications/message",
            "reply",
        ]
        assert incoming[0]["params"]["data"] == "starting on 'hi'"
        assert client.call_tool("add", {"a": 1, "b": 1})["content"][0]["text"] == "2"  # still in step


def test_sdk_server_tools_run_in_the_agent_loop_through_the_bridge():
    with T.StdioTransport([sys.executable, str(SDK_SERVER)], timeout=LIMIT) as transport:
        client = T.MCPClient(transport)
        client.initialize()
        registry = T.mcp_to_registry(client)
        model = T.ScriptedModel(
            [
                {"tool_calls": [T.call("c1", "add", a=19, b=23), T.call("c2", "weather", city="Rome")]},
                {"content": "done"},
            ]
        )
        outcome = T.run_agent(model, registry, "add and weather", parallel=False)
        tool_messages = [m for m in outcome.messages if m["role"] == "tool"]
        assert json.loads(tool_messages[0]["content"]) == {"result": 42}  # the SDK wraps an int
        assert tool_messages[1]["is_error"] and "try Paris" in tool_messages[1]["content"]
        assert outcome.final == "done"


# ---- the serve command's options, as the helpers above use them -------------------------------


def test_serve_trace_goes_to_stderr_and_stdout_stays_protocol_only():
    lines = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        ),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", "serve", "--trace", "--page-size", "1"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=LIMIT,
        cwd=ROOT,
    )
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, 2]
    assert len(replies[1]["result"]["tools"]) == 1 and "nextCursor" in replies[1]["result"]
    traced = [line[:2] for line in proc.stderr.splitlines()]
    assert traced == ["->", "<-", "->", "<-"]


@pytest.mark.parametrize(
    "argv",
    [
        ["demo", "--http"],
        ["serve", "--page-size", "0"],
        ["serve", "--port", "70000"],
        ["serve", "--no-auth"],
        ["demo", "--no-auth"],
        ["demo", "--latest"],
    ],
)
def test_serve_options_are_checked(argv):
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", *argv], capture_output=True, text=True, timeout=LIMIT, cwd=ROOT
    )
    assert proc.returncode == 2 and "error:" in proc.stderr


def test_importing_toolkit_loads_no_third_party_module():
    code = (
        "import sys; before = set(sys.modules); import toolkit, toolkit.mcp; "
        "names = {m.split('.')[0] for m in set(sys.modules) - before}; "
        "print(sorted(n for n in names if n not in sys.stdlib_module_names and n != 'toolkit'))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=LIMIT, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# ---- the SDK reads a resource, gets a prompt and answers an elicitation ---------------------


async def _answer_city(context, params):
    assert "city" in params.requested_schema["properties"]
    return types.ElicitResult(action="accept", content={"city": "Tokyo"})


async def _primitives(session):
    resources = await session.list_resources()
    read = await session.read_resource("weather://forecast/Oslo")
    prompt = await session.get_prompt("plan_outing", {})
    return [str(r.uri) for r in resources.resources], read.contents[0].text, prompt.messages


def _check_primitives(uris, text, messages):
    assert uris == ["weather://cities"]
    assert json.loads(text) == {"city": "Oslo", "celsius": 9}
    assert "Tokyo" in messages[0].content.text  # the answer to the elicitation reached the prompt
    assert str(messages[1].content.uri) == "weather://forecast/Tokyo"


@pytest.mark.parametrize("options", [(), ("--latest",)])
def test_sdk_reads_a_resource_gets_a_prompt_and_answers_an_elicitation_over_stdio(options):
    async def session():
        async with stdio_client(toolkit_server(*options)) as (read, write):
            async with ClientSession(read, write, elicitation_callback=_answer_city) as s:
                await s.initialize()
                return await _primitives(s)

    _check_primitives(*run(session))


@pytest.mark.parametrize("kind", [T.MCPServer, T.LatestRevisionServer])
def test_sdk_reads_a_resource_gets_a_prompt_and_answers_an_elicitation_over_http(kind):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    from toolkit.lessons.toy_tools import make_server_registry
    from toolkit.mcp import StreamableHTTPServer
    from toolkit.mcp.course import course_server

    with StreamableHTTPServer(lambda: course_server(kind, make_server_registry()), port=0) as app:

        async def session():
            async with httpx2.AsyncClient(headers=app.auth_headers, timeout=LIMIT) as http:
                async with streamable_http_client(app.url, http_client=http) as (read, write):
                    async with ClientSession(read, write, elicitation_callback=_answer_city) as s:
                        await s.initialize()
                        return await _primitives(s)

        _check_primitives(*run(session))


def test_sdk_client_pinned_to_2026_07_28_works_against_serve_modern():
    async def session():
        async with Client(toolkit_server("--modern"), mode="2026-07-28", elicitation_callback=_answer_city) as client:
            result = await client.call_tool("add", {"a": 20, "b": 22})
            return client.protocol_version, result, await _primitives(client)

    version, result, primitives = run(session)
    assert version == "2026-07-28" and result.content[0].text == "42"
    _check_primitives(*primitives)
