"""A small MCP client, and a bridge that turns a server's tools into local ones.

Pack §2.6 ("The session: initialize, then use"). The client numbers its requests from 1 and
never reuses an id, checks every reply's shape, and raises :class:`MCPError` for error
replies. :func:`mcp_to_registry` lets the agent loop of §2.2 use remote tools as if they were
local. A server's annotations are its own claims: they set the permission gate's flags only
for a server the host marks trusted (pack §2.10).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, Protocol

from ..registry import Tool, ToolError, ToolRegistry
from ..schema import short_repr
from .answers import ServerRequests
from .auth import AuthorizationFailed
from .listening import ListenStream
from .logs import check_level
from .meta import MODERN, SERVER_INFO_KEY, modern_meta
from .protocol import (
    HEADER_MISMATCH,
    INVALID_REQUEST,
    MODERN_ERRORS,
    PROTOCOL_VERSION,
    UNSUPPORTED_PROTOCOL_VERSION,
    MCPError,
)
from .revisions import HANDSHAKE_VERSIONS

__all__ = ["MCPClient", "mcp_to_registry"]


class Transport(Protocol):
    """What the client needs from a transport (in memory, stdio or HTTP): send one message and
    get the reply back (None for a notification), and close."""

    def send(self, msg: dict) -> dict | None: ...

    def close(self) -> None: ...


class MCPClient:
    """Speaks MCP over a transport (anything with ``send(msg)`` and ``close()``).

    :attr:`SUPPORTED` is every handshake revision the toolkit implements, one more than the
    lesson server speaks: a client may speak more than the servers it meets, and settles on
    the version the server offers when it knows that one too.

    Notebook 06.
    """

    SUPPORTED = HANDSHAKE_VERSIONS

    def __init__(
        self,
        transport: Transport,
        name: str = "toy-client",
        version: str = "0.1.0",
        on_elicit: Callable[[str, dict], dict] | None = None,
        on_sample: Callable[[dict], dict] | None = None,
    ) -> None:
        self.transport = transport
        self.name = name
        self.version = version
        self._ids = itertools.count(1)
        self.server_info: dict | None = None
        self.capabilities: dict | None = None
        self.instructions: str | None = None
        self.protocol_version: str | None = None
        self.modern = False  # set by connect() when the server speaks 2026-07-28
        self.log_level: str | None = None  # 2026-07-28: sent in _meta, set by set_log_level
        self._rounds = 0  # multi round-trip retries under way
        self.server_requests = ServerRequests(on_elicit, on_sample)
        self.notifications = self.server_requests.notifications
        self.listens: list[ListenStream] = []  # open subscriptions/listen streams (2026-07-28)
        try:
            transport.on_message = self._incoming  # type: ignore[attr-defined]
        except AttributeError:
            pass  # a transport that cannot carry server messages

    def _request(self, method: str, params: dict | None = None) -> dict:
        if self.modern:  # 2026-07-28: version and capabilities join the request's own _meta
            params = dict(params or {})
            params["_meta"] = {**(params.get("_meta") or {}), **self._meta()}
        id_ = next(self._ids)
        reply = self.transport.send(
            {"jsonrpc": "2.0", "id": id_, "method": method, "params": params if params is not None else {}}
        )
        if not isinstance(reply, dict):
            raise MCPError(INVALID_REQUEST, f"Bad reply to {method}: expected a JSON object, got {reply!r}")
        if reply.get("id") != id_:
            raise MCPError(INVALID_REQUEST, f"Bad reply to {method}: id {reply.get('id')!r} does not match {id_}")
        if ("result" in reply) == ("error" in reply):
            raise MCPError(INVALID_REQUEST, f"Bad reply to {method}: it must have exactly one of result or error")
        if "error" in reply:
            err = reply["error"] if isinstance(reply["error"], dict) else {}
            raise MCPError(err.get("code", INVALID_REQUEST), str(err.get("message", "error")), err.get("data"))
        result = reply["result"]
        kind = result.get("resultType") if isinstance(result, dict) else None
        if kind == "input_required":
            return self._retry_with_input(method, params or {}, result)
        if self.modern and kind not in (None, "complete"):  # invalid: 2026-07-28 basic/index.mdx:84
            raise MCPError(INVALID_REQUEST, f"Bad reply to {method}: this client does not know resultType {kind!r}")
        return result

    def _incoming(self, msg: dict) -> dict | None:
        """A message from the server outside a reply: a listen stream's, or one for
        :attr:`server_requests` (kept if a notification, answered if a request)."""
        for stream in list(self.listens):
            if stream.receive(msg):
                if stream.ended:
                    self.listens.remove(stream)
                return None
        if "method" not in msg:
            return None  # a reply nobody waits for (a listen that was already closed)
        return self.server_requests.answer(msg)

    def _meta(self) -> dict:
        return modern_meta(self.name, self.version, self.server_requests.capabilities(), self.log_level)

    def _retry_with_input(self, method: str, params: dict, result: dict) -> dict:
        """A multi round-trip request (2026-07-28): answer each of the server's
        ``inputRequests`` (elicitation, sampling) and send the request again, with a new id."""
        if self._rounds >= 5:
            raise MCPError(INVALID_REQUEST, f"{method}: the server still wants input after 5 rounds")
        answers = {}
        for key, asked in (result.get("inputRequests") or {}).items():
            reply = self.server_requests.answer({"jsonrpc": "2.0", "id": key, **asked}) or {}
            if "error" in reply:
                raise MCPError(INVALID_REQUEST, f"{method}: cannot answer {asked.get('method')}: {reply['error']}")
            answers[key] = reply.get("result", {})
        retry = {k: v for k, v in params.items() if k not in ("inputResponses", "requestState")}  # _meta stays
        retry["inputResponses"] = answers
        if "requestState" in result:
            retry["requestState"] = result["requestState"]
        self._rounds += 1
        try:
            return self._request(method, retry)
        finally:
            self._rounds -= 1

    def connect(self) -> dict:
        """Dual era (2026-07-28 basic/versioning): probe with ``server/discover`` in 2026-07-28.
        A legacy server answers with some other error (commonly -32601), and the client falls
        back to ``initialize`` with its newest handshake revision. An error that revision
        defines (-32020, -32021, -32022) comes from a modern server: it is raised, never a
        reason to fall back (basic/transports/stdio.mdx:129-141). After -32022 (unsupported
        protocol version) whose ``data.supported`` lists 2026-07-28, the client sends
        ``server/discover`` once more (basic/versioning.mdx:143-146: the client retries with a
        supported version); a second refusal is raised. Returns the discover or initialize result."""
        self.modern = True
        for attempt in (1, 2):
            try:
                result = self._request("server/discover")
                break
            except MCPError as exc:
                self.modern = False
                if isinstance(exc, AuthorizationFailed):
                    raise  # the same server, the same authorization: initialize would fail alike
                if exc.code not in MODERN_ERRORS:
                    return self.initialize(max(self.SUPPORTED))
                if exc.code != UNSUPPORTED_PROTOCOL_VERSION:
                    raise
                supported = exc.data.get("supported") if isinstance(exc.data, dict) else None
                spoken = [v for v in supported or () if isinstance(v, str)]
                # retry with a version from the error's list (versioning.mdx:143-146), never by
                # falling back to initialize (stdio.mdx:131-134); once, so a refusal ends it
                if attempt == 1 and MODERN in spoken:
                    self.modern = True
                    continue
                exc.message += f" (the server speaks {supported}; this client's stateless revision is {MODERN})"
                raise
        self.protocol_version = MODERN
        self.capabilities = result.get("capabilities")
        self.server_info = (result.get("_meta") or {}).get(SERVER_INFO_KEY)
        self.instructions = result.get("instructions")
        return result

    def _notify(self, method: str, params: dict | None = None) -> None:
        msg: dict = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.transport.send(msg)

    def initialize(self, protocol_version: str = PROTOCOL_VERSION) -> dict:
        """The handshake: initialize, check the version, then notifications/initialized.

        ``protocol_version`` is the revision to ask for: the pack's 2025-06-18 by default, or
        any other in :attr:`SUPPORTED` (2024-11-05 to 2025-11-25). A server may answer with
        another revision (the lesson server asked for 2025-11-25 answers 2025-06-18); the
        client goes on if it speaks that one too, else raises.
        """
        result = self._request(
            "initialize",
            {
                "protocolVersion": protocol_version,
                "capabilities": self.server_requests.capabilities(),
                "clientInfo": {"name": self.name, "version": self.version},
            },
        )
        version = result.get("protocolVersion")
        if version not in self.SUPPORTED:
            raise MCPError(
                INVALID_REQUEST,
                f"The server chose protocol version {version!r}, which this "
                f"client does not speak ({', '.join(self.SUPPORTED)}); disconnect.",
            )
        self.protocol_version = version
        self.server_info = result.get("serverInfo")
        self.capabilities = result.get("capabilities")
        self.instructions = result.get("instructions")
        self._notify("notifications/initialized")
        return result

    def ping(self) -> dict:
        return self._request("ping")

    def list_tools(self) -> list[dict]:
        """Every tool the server offers, following ``nextCursor`` page by page."""
        return self._list_all("tools/list", "tools")

    def _list_all(self, method: str, key: str) -> list[dict]:
        items: list[dict] = []
        cursor = None
        seen = set()
        while True:
            result = self._request(method, {"cursor": cursor} if cursor is not None else {})
            items.extend(result.get(key, []))
            cursor = result.get("nextCursor")
            if cursor is None:
                return items
            if cursor in seen:
                raise MCPError(INVALID_REQUEST, "The server repeated a cursor; stopping to avoid a loop")
            seen.add(cursor)

    def call_tool(self, name: str, arguments: dict | None = None, progress_token: str | int | None = None) -> dict:
        """The tools/call result: ``content``, ``isError`` and maybe ``structuredContent``.
        With ``progress_token`` the server may send ``notifications/progress`` meanwhile
        (kept in :attr:`notifications`)."""
        params: dict = {"name": name, "arguments": arguments or {}}
        if progress_token is not None:
            params["_meta"] = {"progressToken": progress_token}
        try:
            return self._request("tools/call", params)
        except MCPError as exc:
            if not self.modern or exc.code != HEADER_MISMATCH:
                raise
        # 2026-07-28 over HTTP: the tool's x-mcp-header marks may be new to this client; list the
        # tools (the transport reads the marks) and try once more (streamable-http.mdx:533-537)
        self.list_tools()
        return self._request("tools/call", params)

    def list_resources(self) -> list[dict]:
        return self._list_all("resources/list", "resources")

    def list_resource_templates(self) -> list[dict]:
        return self._list_all("resources/templates/list", "resourceTemplates")

    def read_resource(self, uri: str) -> dict:
        """The ``resources/read`` result: ``contents``, each with ``text`` or ``blob``."""
        return self._request("resources/read", {"uri": uri})

    def subscribe(self, uri: str) -> dict:
        return self._request("resources/subscribe", {"uri": uri})

    def listen(self, notifications: dict, timeout: float = 10.0) -> ListenStream:
        """Open a 2026-07-28 ``subscriptions/listen`` stream for the change notifications in
        ``notifications`` (``{"toolsListChanged": True, "resourceSubscriptions": [uri]}``) and
        return it once the server acknowledged it; ``stream.close()`` cancels it.

        Needs a session from :meth:`connect` at 2026-07-28. Over HTTP a background thread
        reads the stream; over stdio its messages are read whenever the transport reads (any
        request, or waiting on the stream)."""
        if not self.modern:
            raise MCPError(
                INVALID_REQUEST,
                "subscriptions/listen is a 2026-07-28 method: connect() to a server that speaks it "
                "(in a handshake session, subscribe(uri) and the GET stream do this job)",
            )
        open_stream = getattr(self.transport, "open_stream", None)
        if open_stream is None:
            raise MCPError(INVALID_REQUEST, f"{type(self.transport).__name__} cannot hold a listen stream open")
        stream = ListenStream(next(self._ids), notifications)
        stream.pump = getattr(self.transport, "pump", None)
        self.listens.append(stream)
        params = {"notifications": notifications, "_meta": self._meta()}
        stream.closer = open_stream(
            {"jsonrpc": "2.0", "id": stream.id, "method": "subscriptions/listen", "params": params}, stream.end
        )
        try:
            stream.wait_acknowledged(timeout)
        except MCPError:
            stream.close()
            self.listens.remove(stream)
            raise
        return stream

    def list_prompts(self) -> list[dict]:
        return self._list_all("prompts/list", "prompts")

    def get_prompt(self, name: str, arguments: dict | None = None) -> dict:
        """The ``prompts/get`` result: ``messages`` (and maybe a ``description``)."""
        return self._request("prompts/get", {"name": name, "arguments": arguments or {}})

    def complete(self, prompt: str, argument: str, value: str) -> list[str]:
        """Suggested values for a prompt's argument, from what the user has typed so far."""
        params = {"ref": {"type": "ref/prompt", "name": prompt}, "argument": {"name": argument, "value": value}}
        return self._request("completion/complete", params)["completion"]["values"]

    def set_log_level(self, level: str) -> dict:
        """The least severe log level the client wants. A handshake session sends
        ``logging/setLevel``; revision 2026-07-28 removed that method, so there the level rides
        in each later request's ``_meta`` (server/utilities/logging.mdx:62-64)."""
        if self.modern:
            self.log_level = check_level(level)
            return {}
        return self._request("logging/setLevel", {"level": level})

    def close(self) -> None:
        self.transport.close()


def result_text(result: dict) -> str:
    """The text blocks of a tools/call result, joined.

    Notebook 06.
    """
    parts = [c.get("text", "") for c in result.get("content", []) if isinstance(c, dict) and c.get("type") == "text"]
    return "\n".join(parts)


HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}  # the specification's cautious defaults for absent hints


def mcp_to_registry(client: MCPClient, trusted: bool = False) -> ToolRegistry:
    """A registry whose tools forward to the server behind ``client``.

    Annotations are the server's own claims. The MCP specification makes it a MUST for a
    client to distrust them, except from a server it trusts (pack §2.6, §2.10). So:

    * ``trusted=False`` (the default): the hints never relax the gate. Every tool is taken to
      change state, to be destructive, to be open world and to carry outside text, whatever
      it claims; a server that calls its mail tool read-only gains nothing.
    * ``trusted=True`` (a server the host vouches for): the hints are used, with the
      specification's cautious defaults for any that are absent (not read-only, destructive,
      open world).

    Either way the annotations must be well formed: an object whose hints are JSON booleans
    (``"false"`` is a string, not false). Anything else raises :class:`MCPError` naming the
    tool, the key and what was found, before any tool is registered.

    Protocol errors and ``isError`` results both become :class:`ToolError` text that the
    model can read.

    Notebook 06.
    """
    registry = ToolRegistry()
    specs = client.list_tools()
    flags = [_flags(spec, trusted) for spec in specs]  # check every tool before using any
    for spec, (read_only, destructive, open_world, outside_text) in zip(specs, flags):
        registry.register(
            Tool(
                name=spec["name"],
                description=spec.get("description") or spec["name"],
                fn=_forwarder(client, spec["name"]),
                input_schema=spec.get("inputSchema") or {"type": "object", "properties": {}},
                read_only=read_only,
                destructive=destructive,
                open_world=open_world,
                outside_text=outside_text,
            )
        )
    return registry


def _flags(spec: Any, trusted: bool) -> tuple[bool, bool, bool, bool | None]:
    """``(read_only, destructive, open_world, outside_text)`` for one listed tool."""
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or not spec["name"]:
        raise MCPError(
            INVALID_REQUEST,
            f"Bad tool list: each tool needs a non-empty string 'name'; "
            f"got {_brief(spec)}. The server is broken; ask its author to fix it.",
        )
    if not isinstance(spec.get("inputSchema", {}), dict):
        raise MCPError(
            INVALID_REQUEST,
            f"Bad tool list: tool {spec['name']!r} has an inputSchema that is "
            f"not an object: {_brief(spec['inputSchema'])}. The server is "
            "broken; ask its author to fix it, or leave this server out.",
        )
    hints = _hints(spec["name"], spec.get("annotations", {}))
    if not trusted:
        return False, True, True, True
    read_only = hints.get("readOnlyHint", HINT_DEFAULTS["readOnlyHint"])
    # destructiveHint means something only for a tool that is not read-only (the spec)
    destructive = (not read_only) and hints.get("destructiveHint", HINT_DEFAULTS["destructiveHint"])
    open_world = hints.get("openWorldHint", HINT_DEFAULTS["openWorldHint"])
    return read_only, destructive, open_world, None


def _hints(name: str, annotations: Any) -> dict:
    """The behaviour hints of one tool's annotations, each checked to be a JSON boolean."""
    if not isinstance(annotations, dict):
        raise MCPError(
            INVALID_REQUEST,
            f"Bad annotations for tool {name!r}: 'annotations' must be an "
            f"object, got {_brief(annotations)}. The server is broken; ask "
            "its author to fix it, or leave this server out.",
        )
    hints = {}
    for key in HINT_DEFAULTS:
        if key not in annotations:
            continue
        value = annotations[key]
        if not isinstance(value, bool):
            raise MCPError(
                INVALID_REQUEST,
                f"Bad annotations for tool {name!r}: {key} must be true or "
                f"false (a JSON boolean), got {_brief(value)}. The server is "
                "broken; ask its author to fix it, or leave this server out.",
            )
        hints[key] = value
    return hints


def _brief(value: Any) -> str:
    """A value as an error message shows it: its repr, cut short, and its JSON type."""
    text = short_repr(value, 60)
    kind = {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)
    return f"{text} ({kind})"


def _forwarder(client: MCPClient, name: str) -> Callable[..., Any]:
    def forward(**arguments: Any) -> Any:
        try:
            result = client.call_tool(name, arguments)
        except MCPError as exc:
            raise ToolError(f"The server refused the call: {exc.message}") from None
        if result.get("isError"):
            raise ToolError(result_text(result) or f"Tool {name!r} failed on the server.")
        if isinstance(result.get("structuredContent"), dict):
            return result["structuredContent"]
        return result_text(result)

    forward.__name__ = name
    return forward
