"""Ready-made sessions for notebook 06: real clients against the toolkit's server (pack §2.6).

Each function here runs one short session and returns what a lesson prints: the negotiated
version, the tools, what each call gave back, and the wire log. Two of them drive the
*official* MCP Python SDK (the ``mcp`` package, a test and lab dependency of this course,
never a dependency of ``toolkit`` itself): it is imported only when they run, and a missing
SDK gives a message that says how to install it.

The SDK's functions are async; these helpers run them on a worker thread with their own
event loop, so they work the same from a script and from a Jupyter cell (where a loop is
already running). Every session has a time limit.

:func:`send_request` is the one helper that is not a whole session: it sends a request of any
method through a toolkit client, so the notebook needs no private name of the client.
"""

from __future__ import annotations

import concurrent.futures
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..mcp.client import MCPClient, result_text
from ..mcp.protocol import MCPError, encode_line
from ..mcp.server import LatestRevisionServer, MCPServer
from ..mcp.transports import InMemoryTransport

__all__ = [
    "SDKSession",
    "sdk_stdio_session",
    "sdk_http_session",
    "bad_argument_by_revision",
    "stateless_probe",
    "official_sdk_version",
    "send_request",
]

SDK_PIN = "mcp==2.3.0"
DEFAULT_CALLS: tuple[tuple[str, dict], ...] = (("add", {"a": 2, "b": 3}), ("add", {"a": "two", "b": 3}), ("nope", {}))
_REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class SDKSession:
    """What one session with the official SDK client showed.

    Notebook 06, through sdk_http_session.
    """

    transport: str
    client_mode: str
    protocol_version: str
    server_info: dict
    tools: list[str]
    calls: list[dict]
    wire: list[tuple[str, Any]] = field(default_factory=list)

    def show_wire(self, width: int = 150, limit: int | None = None) -> None:
        """Print the wire log (the first ``limit`` entries), one message per line, cut to
        ``width`` characters."""
        for arrow, message in self.wire[:limit]:
            text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"))
            print(f"{arrow} {text if len(text) <= width else text[: width - 3] + '...'}")

    def summary(self) -> str:
        lines = [
            f"official MCP SDK client ({self.client_mode}) over {self.transport}",
            f"negotiated protocol version: {self.protocol_version}",
            f"server: {self.server_info.get('name')} {self.server_info.get('version')}",
            f"tools: {', '.join(self.tools)}",
        ]
        for call in self.calls:
            lines.append(f"{call['tool']}({json.dumps(call['arguments'])}) -> {call['kind']}: {call['text']}")
        return "\n".join(lines)


def _require_sdk():
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise ModuleNotFoundError(
            "This cell needs the official MCP Python SDK, the `mcp` package. It is installed "
            f"with the course's lab and test extras (`make lab`); by hand: pip install '{SDK_PIN}'."
        ) from None


def official_sdk_version() -> str:
    """The installed version of the official SDK (raises the same helpful error if absent).

    Notebook 06.
    """
    _require_sdk()
    from importlib.metadata import version

    return version("mcp")


def _run_async(make_coro: Callable[[], Any], timeout: float) -> Any:
    """Run an async function to completion on a fresh event loop in a worker thread."""
    import anyio

    async def bounded():
        with anyio.fail_after(timeout):
            return await make_coro()

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, bounded).result()


async def _drive(session, calls, high_level: bool) -> tuple[list[str], list[dict]]:
    """List every tool (following cursors) and make each call, recording what came back."""
    from mcp.shared.exceptions import MCPError as SDKError

    names, cursor = [], None
    while True:
        if high_level:
            page = await session.list_tools(cursor=cursor)
        else:
            from mcp.types import PaginatedRequestParams

            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        names += [tool.name for tool in page.tools]
        cursor = page.next_cursor
        if not cursor:
            break
    outcomes = []
    for tool, arguments in calls:
        try:
            result = await session.call_tool(tool, arguments)
        except SDKError as exc:
            outcomes.append(
                {
                    "tool": tool,
                    "arguments": arguments,
                    "kind": f"protocol error {exc.error.code}",
                    "text": exc.error.message,
                }
            )
            continue
        text = "\n".join(getattr(block, "text", "") for block in result.content)
        outcomes.append(
            {
                "tool": tool,
                "arguments": arguments,
                "kind": "tool error (isError: true)" if result.is_error else "result",
                "text": text,
            }
        )
    return names, outcomes


def _server_command(extra: list[str]) -> list[str]:
    return ["-m", "toolkit", "serve", "--trace", *extra]


def _child_env() -> dict:
    """The SDK starts children with a trimmed environment; make sure ``toolkit`` imports."""
    from mcp.client.stdio import get_default_environment

    env = get_default_environment()
    env["PYTHONPATH"] = str(_REPO_ROOT)
    return env


def sdk_stdio_session(calls=DEFAULT_CALLS, page_size=None, high_level=False, timeout=30.0, latest=False) -> SDKSession:
    """Start ``python -m toolkit serve --trace`` and drive it with the official SDK's client.

    The SDK asks for 2025-11-25, its newest handshake revision. The lesson server does not
    speak it and offers 2025-06-18; with ``latest=True`` the server runs with ``--latest``
    (:class:`~toolkit.mcp.server.LatestRevisionServer`) and agrees to 2025-11-25.

    ``high_level=False`` uses ``ClientSession`` over ``stdio_client`` (initialize, then
    requests); ``high_level=True`` uses the SDK's ``Client`` in its default mode, which first
    probes ``server/discover`` (revision 2026-07-28) and falls back to initialize when the
    server answers as one from before 2026 does (-32601, no such method). The wire log comes
    from the server's own trace on stderr.

    Notebook 06.
    """
    _require_sdk()
    from mcp import Client, ClientSession, StdioServerParameters, stdio_client

    extra = (["--page-size", str(page_size)] if page_size else []) + (["--latest"] if latest else [])
    params = StdioServerParameters(
        command=sys.executable, args=_server_command(extra), env=_child_env(), cwd=str(_REPO_ROOT)
    )
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:

        async def low():
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    names, outcomes = await _drive(session, calls, high_level=False)
                    return init.protocol_version, init.server_info.model_dump(exclude_none=True), names, outcomes

        async def high():
            async with Client(stdio_client(params, errlog=errlog)) as client:
                names, outcomes = await _drive(client, calls, high_level=True)
                info = client.server_info.model_dump(exclude_none=True) if client.server_info else {}
                return client.protocol_version, info, names, outcomes

        # errlog must be a real file: the SDK hands it to the child process as its stderr.
        version, info, names, outcomes = _run_async(high if high_level else low, timeout)
        errlog.seek(0)
        wire = _parse_trace(errlog.read())
    return SDKSession(
        "stdio", "Client, default mode" if high_level else "ClientSession", version, info, names, outcomes, wire
    )


def sdk_http_session(calls=DEFAULT_CALLS, page_size=None, high_level=False, timeout=30.0, latest=False) -> SDKSession:
    """Start the toolkit's Streamable HTTP server on a free port and drive it with the SDK.

    The server is the lesson server, or :class:`~toolkit.mcp.server.LatestRevisionServer`
    with ``latest=True`` (as for :func:`sdk_stdio_session`).

    Uses ``streamable_http_client`` + ``ClientSession``, or the SDK's ``Client`` in its
    default mode with ``high_level=True``. The server runs in a thread and stops afterwards.
    The server wants its bearer token on every request; the SDK sends it from the headers of
    the ``httpx2.AsyncClient`` it is given (the SDK's documented way to add headers).

    Notebook 06.
    """
    _require_sdk()
    import httpx2
    from mcp import Client, ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from ..mcp.http.server import StreamableHTTPServer
    from .toy_tools import make_server_registry

    wire: list[tuple[str, Any]] = []

    def trace(arrow: str, text: str) -> None:
        wire.append((arrow, text))

    kind = LatestRevisionServer if latest else MCPServer
    with StreamableHTTPServer(lambda: kind(make_server_registry(), page_size=page_size), port=0, trace=trace) as app:

        async def low():
            async with httpx2.AsyncClient(headers=app.auth_headers, timeout=timeout) as http:
                async with streamable_http_client(app.url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as session:
                        init = await session.initialize()
                        names, outcomes = await _drive(session, calls, high_level=False)
                        return (init.protocol_version, init.server_info.model_dump(exclude_none=True), names, outcomes)

        async def high():
            async with httpx2.AsyncClient(headers=app.auth_headers, timeout=timeout) as http:
                async with Client(streamable_http_client(app.url, http_client=http)) as client:
                    names, outcomes = await _drive(client, calls, high_level=True)
                    info = client.server_info.model_dump(exclude_none=True) if client.server_info else {}
                    return client.protocol_version, info, names, outcomes

        version, info, names, outcomes = _run_async(high if high_level else low, timeout)
    # The port changes from run to run, so the label leaves it out (notebook outputs stay stable).
    return SDKSession(
        "Streamable HTTP",
        "Client, default mode" if high_level else "ClientSession",
        version,
        info,
        names,
        outcomes,
        wire,
    )


def _parse_trace(text: str) -> list[tuple[str, Any]]:
    """``-> line`` / ``<- line`` pairs from ``serve --trace``, JSON decoded where possible."""
    wire = []
    for line in text.splitlines():
        arrow, _, rest = line.partition(" ")
        if arrow not in ("->", "<-"):
            continue
        try:
            wire.append((arrow, json.loads(rest)))
        except ValueError:
            wire.append((arrow, rest))
    return wire


def bad_argument_by_revision(
    arguments: dict | None = None, tool: str = "add", versions=("2025-06-18", "2025-11-25")
) -> list[dict]:
    """The same schema-breaking call under each revision, with the toolkit's own client.

    Under 2025-06-18 it is a protocol error (-32602); from 2025-11-25 (SEP-1303) it is a
    result with ``isError: true`` that the model can read. The server is
    :class:`~toolkit.mcp.server.LatestRevisionServer`, which speaks both, so each session
    gets the version it asked for. No SDK needed.

    Notebook 06.
    """
    from .toy_tools import make_server_registry

    arguments = {"a": "two", "b": 3} if arguments is None else arguments
    rows = []
    for version in versions:
        transport = InMemoryTransport(LatestRevisionServer(make_server_registry()))
        client = MCPClient(transport)
        if client.initialize(version)["protocolVersion"] != version:
            raise ValueError(
                f"{version!r} is not a revision the toolkit's server speaks; "
                f"choose from {', '.join(LatestRevisionServer.SUPPORTED)}"
            )
        try:
            result = client.call_tool(tool, arguments)
        except MCPError as exc:
            rows.append({"version": version, "kind": f"protocol error {exc.code}", "text": exc.message})
        else:
            kind = "tool result, isError: true" if result.get("isError") else "tool result"
            rows.append({"version": version, "kind": kind, "text": result_text(result)})
        rows[-1]["reply"] = transport.log[-1][1]
    return rows


def send_request(client: MCPClient, method: str, params: dict | None = None) -> dict:
    """Send a request of any method through ``client`` and return its ``result`` (pack §2.6).

    :class:`MCPClient` has a method for each request the lessons need (``initialize``,
    ``ping``, ``list_tools``, ``call_tool``). This one sends any other, so a lesson can show
    what a server answers to a method it does not offer, such as ``resources/list``. The
    request is part of the client's session: it takes the next unused id, and its reply is
    checked like every other, so an error reply raises :class:`MCPError` with the server's
    code and message.

    Notebook 06.
    """
    if not isinstance(method, str) or not method:
        raise TypeError(f"method must be a non-empty string such as 'tools/list', got {method!r}")
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"params must be a dict (a JSON object) or None, got {type(params).__name__}")
    return client._request(method, params)


def stateless_probe(version: str = "2026-07-28") -> dict:
    """What a client of the stateless revision gets from the toolkit's server.

    It sends ``server/discover`` with its version in ``_meta``, as that revision says; the
    server, which speaks only the handshake revisions, answers as a server from before 2026
    does: error -32601 (no such method), naming the revisions it speaks. Returns the request
    and the reply as they would cross the wire.

    Notebook 06.
    """
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": version,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
    from .toy_tools import make_server_registry

    reply = MCPServer(make_server_registry()).handle(request)
    return {"request": json.loads(encode_line(request)), "reply": json.loads(encode_line(reply))}
