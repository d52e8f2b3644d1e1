"""Revision 2026-07-28 beside the handshake revisions: a dual-era server (pack §2.6, Part D).

Read for this module: the 2026-07-28 changelog, basic/versioning, server/discover,
basic/patterns/mrtr, basic/transports/streamable-http and schema/2026-07-28/schema.ts.
What changes, and what :class:`ModernServer` does about each:

- No handshake: every request names its version, and the client's capabilities, in
  ``params._meta`` (``io.modelcontextprotocol/protocolVersion``, ``.../clientCapabilities``,
  both required). A request whose ``_meta`` names 2026-07-28 is served on its own, with no
  session state; one without goes the handshake way, so older clients see no change.
- ``server/discover`` (MUST): supported versions, capabilities, instructions.
- Every result carries ``resultType`` (``complete``) and the server's identity in
  ``_meta['io.modelcontextprotocol/serverInfo']``; list and read results are cacheable
  (``ttlMs``, ``cacheScope``).
- Removed: ``ping``, ``logging/setLevel`` (a request asks for logs with
  ``_meta['io.modelcontextprotocol/logLevel']``; without it no ``notifications/message``),
  ``resources/subscribe``/``unsubscribe`` and the HTTP GET stream. They get -32601.
- ``subscriptions/listen`` replaces them: one long-lived stream that carries only the change
  notifications the client opted in to (:mod:`toolkit.mcp.subscriptions`). The request gets
  no reply until the stream ends: on stdio and in memory the handler registers the stream
  and returns at once; on HTTP the POST stays open as an SSE stream (``keep_open``).
  :meth:`ModernServer.list_changed` and :meth:`~ModernServer.resource_updated` publish to it.
- Server-to-client requests become multi round-trip requests: ``tools/call``, ``prompts/get``
  or ``resources/read`` ends with ``resultType: "input_required"`` and ``inputRequests``; the
  client retries the request (a new id) with ``inputResponses`` under the same keys, and
  echoes the ``requestState`` it got (basic/patterns/mrtr). This server's ``requestState``
  carries the answers already given, so a handler that asks in several rounds sees them all;
  it is signed (HMAC-SHA256, a key per process) and bound to the request's method and name,
  and a retry whose state fails the check is -32602 (the spec's security note: the client
  can change the state, so the server must not trust it unchecked).
- An unknown resource is -32602 (it was -32002).
- A ``_meta`` without the client's capabilities, or with an unknown ``logLevel``, is -32602
  before any handler runs (basic/index, server/utilities/logging); a question the client
  declared no capability for ends the request with -32021 and ``data.requiredCapabilities``.
"""

from __future__ import annotations

import base64
import contextvars
import hashlib
import hmac
import json
import secrets
from typing import Any

from .context import InputRequired, Outbox, RequestContext
from .meta import CAPABILITIES_KEY, LOG_LEVEL_KEY, MODERN, SERVER_INFO_KEY, meta_problem
from .protocol import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
    MCPError,
)
from .resources import RESOURCE_NOT_FOUND
from .revisions import HANDSHAKE_VERSIONS, META_VERSION_KEY, STATELESS_VERSIONS
from .server import NO_REPLY, LatestRevisionServer, _meta_version
from .subscriptions import LIST_FLAGS, UPDATED, Listener, Subscriptions, read_filter

__all__ = ["ModernServer", "ModernContext"]

REMOVED = (
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "notifications/initialized",
)
MULTI_ROUND_TRIP = ("tools/call", "prompts/get", "resources/read")
CACHEABLE = (
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/templates/list",
)
_REQUEST_ID: contextvars.ContextVar = contextvars.ContextVar("request_id", default=None)  # per thread
CACHE_HINT = {"ttlMs": 60_000, "cacheScope": "private"}  # the lists are fixed; private: tokens vary
_STATE_KEY = secrets.token_bytes(32)  # signs requestState; one per process, shared by its servers


def seal_state(method: str, params: dict, answers: dict) -> str:
    """The ``requestState`` for a request that needs input: the answers so far, bound to the
    method and the name (or uri) it calls, and signed so a client cannot change them."""
    body = json.dumps({"for": [method, _target(params)], "answers": answers}, sort_keys=True)
    data = base64.urlsafe_b64encode(body.encode("utf-8")).decode("ascii")
    return f"{data}.{hmac.new(_STATE_KEY, data.encode('ascii'), hashlib.sha256).hexdigest()}"


def open_state(method: str, params: dict, state: Any) -> dict:
    """The answers a ``requestState`` from :func:`seal_state` carries; -32602 when it was
    changed, made for another request, or is not one of this server's."""
    data, _, mac = state.rpartition(".") if isinstance(state, str) else ("", "", "")
    want = hmac.new(_STATE_KEY, data.encode("ascii", "replace"), hashlib.sha256).hexdigest()
    if not data or not hmac.compare_digest(mac.encode("utf-8", "replace"), want.encode("ascii")):
        raise MCPError(
            INVALID_PARAMS, "Invalid params: requestState failed its integrity check; send back the one the server gave"
        )
    body = json.loads(base64.urlsafe_b64decode(data))
    if body.get("for") != [method, _target(params)]:
        raise MCPError(INVALID_PARAMS, "Invalid params: this requestState belongs to another request")
    return body["answers"]


def _target(params: dict) -> Any:
    return params.get("uri") if "uri" in params else params.get("name")


class ModernContext(RequestContext):
    """A 2026-07-28 request's context: capabilities and log level come from its ``_meta``;
    a question to the client is answered from the retry's ``inputResponses`` or, the first
    time, raises :class:`~toolkit.mcp.context.InputRequired`.

    Shown in section 7, "2026-07-28: no handshake".
    Notebook 06, through mcp.ModernServer.
    """

    def __init__(self, server: Any, outbox: Outbox | None, params: dict, method: str | None = None) -> None:
        super().__init__(server, outbox, params)
        meta = params["_meta"]
        self.capabilities = meta[CAPABILITIES_KEY]
        self.log_level = meta.get(LOG_LEVEL_KEY)
        self.logs_on = LOG_LEVEL_KEY in meta
        responses = params.get("inputResponses")
        fresh = {k: v for k, v in responses.items() if isinstance(v, dict)} if isinstance(responses, dict) else {}
        self.method = "" if method is None else method
        earlier = open_state(self.method, params, params["requestState"]) if "requestState" in params else {}
        self.responses = {**earlier, **fresh}
        self.used: dict = {}  # the answers the handler has read: they travel on in requestState
        self.asked = 0
        self.params = params

    def ask(self, method: str, params: dict, capability: str | None = None, *, key: str | None = None) -> dict:
        return self.ask_each({key or "": (method, params, capability)})[key or ""]

    def ask_each(self, questions: dict[str, tuple]) -> dict[str, dict]:
        """Every question the client has not answered yet goes out in one ``inputRequests``
        map (keys the handler gives, or ``elicitation-1``-style ones, counted in order)."""
        answers, missing = {}, {}
        for key, (method, params, capability) in questions.items():
            if capability and capability not in self.capabilities:  # basic/index.mdx:387-392
                raise MCPError(
                    MISSING_REQUIRED_CLIENT_CAPABILITY,
                    f"Missing required client capability: this request needs {capability!r}",
                    {"requiredCapabilities": {capability: {}}},
                )
            self.asked += 1
            name = key or f"{method.split('/')[0]}-{self.asked}"  # the same on the retry: handlers ask in order
            if name in self.responses:
                answers[key] = self.used[name] = self.responses[name]
            else:
                missing[name] = {"method": method, "params": params}
        if missing:
            raise InputRequired(missing)
        return answers

    def request_state(self) -> str:
        """The signed ``requestState`` for this request's ``input_required`` result."""
        return seal_state(self.method, self.params, self.used)

    def close_stream(self) -> None:
        pass  # 2026-07-28 streams are not resumable: closing one would lose the request


class ModernServer(LatestRevisionServer):
    """Speaks 2026-07-28 (stateless) as well as every handshake revision (dual era).

    ``python -m toolkit serve --modern`` runs it. See the module docstring for the rules.

    Shown in section 7, "2026-07-28: no handshake".
    Notebook 06.
    """

    SUPPORTED: tuple[str, ...] = HANDSHAKE_VERSIONS + STATELESS_VERSIONS

    def __init__(self, *args: Any, subscriptions: Subscriptions | None = None, **kwargs: Any) -> None:
        """:class:`MCPServer`'s arguments, and ``subscriptions``: the open listen streams, to
        share between the servers an HTTP factory makes (None: this server's own)."""
        super().__init__(*args, **kwargs)
        # Shared when a factory makes one server per request (HTTP): pass the same instance.
        self.subscriptions = subscriptions if subscriptions is not None else Subscriptions()

    def _message(self, msg: Any, outbox: Outbox | None = None) -> dict | None:
        _REQUEST_ID.set(msg.get("id") if isinstance(msg, dict) else None)  # a listen's subscription id
        return super()._message(msg, outbox)

    def _request(self, method: str, params: dict, outbox: Outbox | None = None) -> dict:
        version = _meta_version(params)
        if version is None and method == "server/discover":  # a modern method without its _meta
            raise MCPError(INVALID_PARAMS, f"Invalid params: server/discover needs _meta with {META_VERSION_KEY}")
        if version is None or (method == "initialize" and version not in STATELESS_VERSIONS):
            return super()._request(method, params, outbox)
        if version not in STATELESS_VERSIONS:
            raise self._unsupported(version)
        problem = meta_problem(params["_meta"])
        if problem:  # before any handler runs, so a bad log level cannot fail one later
            raise MCPError(INVALID_PARAMS, f"Invalid params: {problem}")
        if method in REMOVED:
            raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method} was removed in {MODERN}")
        self.protocol_version = version
        if method == "subscriptions/listen":
            return self._listen(params, outbox)
        context = ModernContext(self, outbox, params, method)  # -32602 if its requestState is not ours
        try:
            result = dict(self._modern(method, params, context))
        except InputRequired as need:
            state = context.request_state()
            return {"resultType": "input_required", "inputRequests": need.requests, "requestState": state}
        except MCPError as exc:
            if exc.code == RESOURCE_NOT_FOUND:  # 2026-07-28 changelog, minor change 6
                raise MCPError(INVALID_PARAMS, exc.message, exc.data) from None
            raise
        result.update(CACHE_HINT if method in CACHEABLE else {})
        result["resultType"] = "complete"
        result["_meta"] = {SERVER_INFO_KEY: {"name": self.name, "title": self.title, "version": self.version}}
        return result

    def _modern(self, method: str, params: dict, context: ModernContext) -> dict:
        if method == "server/discover":
            out: dict = {"supportedVersions": list(self.SUPPORTED), "capabilities": self.modern_capabilities()}
            return {**out, "instructions": self.instructions} if self.instructions else out
        if method == "tools/list":
            return self._tools_list(params)
        if method == "tools/call":
            return self._tools_call(params, context)
        handler = self._handlers().get(method)
        if handler is None:
            raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")
        return handler(params, context)

    def modern_capabilities(self) -> dict:
        """The capabilities under 2026-07-28: every list can change and every resource can be
        watched, through ``subscriptions/listen`` (``listChanged: true`` means the server can
        honour that filter: docs/docs/2026-07-28/learn/architecture.mdx, line 224)."""
        caps = self.capabilities()
        for kind in ("tools", "prompts", "resources"):
            if kind in caps:
                caps[kind] = {**caps[kind], "listChanged": True}
        return caps

    # -- subscriptions/listen ------------------------------------------------------------------

    def _listen(self, params: dict, outbox: Outbox | None) -> Any:
        """Open a listen stream: acknowledge the part of the filter this server offers, then
        hold the request open. The reply comes only if the server ends the stream."""
        wanted = read_filter(params)
        if outbox is None or not getattr(outbox, "sse_ok", True):
            raise MCPError(INVALID_REQUEST, "subscriptions/listen needs a stream: on HTTP, Accept text/event-stream")
        caps = self.modern_capabilities()
        kinds = {"toolsListChanged": "tools", "promptsListChanged": "prompts", "resourcesListChanged": "resources"}
        honoured = {flag: True for flag in LIST_FLAGS if wanted.get(flag) and kinds[flag] in caps}
        if "resourceSubscriptions" in wanted and "resources" in caps:
            honoured["resourceSubscriptions"] = wanted["resourceSubscriptions"]
        listener: Listener = self.subscriptions.open(_REQUEST_ID.get(), honoured, outbox.notify, self)
        keep_open = getattr(outbox, "keep_open", None)
        if keep_open is None:
            return NO_REPLY  # stdio, in memory: the stream lives on after this call
        listener.held = True
        client_there = keep_open(listener)  # blocks until someone ends the stream
        self.subscriptions.remove(listener)
        return listener.closing_reply() if client_there else NO_REPLY

    def list_changed(self, kind: str) -> int:
        """Tell the listeners that asked that the ``kind`` list (tools, prompts, resources)
        changed; returns how many streams got it."""
        if kind not in ("tools", "prompts", "resources"):
            raise ValueError(f"list_changed takes 'tools', 'prompts' or 'resources', not {kind!r}")
        return self.subscriptions.publish(f"notifications/{kind}/list_changed")

    def resource_updated(self, uri: str) -> bool:
        """``notifications/resources/updated`` to every listen stream that names ``uri`` (and to
        a handshake session that subscribed to it). True if anyone was told."""
        told = self.subscriptions.publish(UPDATED, {"uri": uri}) > 0
        return super().resource_updated(uri) or told

    def end_listens(self) -> int:
        """End this server's listen streams gracefully (each gets its closing reply)."""
        return self.subscriptions.end(self)

    def connection_closed(self) -> None:
        self.subscriptions.end(self, graceful=False)  # the client is gone: nobody to reply to

    def _notification(self, method: str, params: Any) -> None:
        if method == "notifications/cancelled" and isinstance(params, dict):
            self.subscriptions.cancel(self, params.get("requestId"))  # stdio's way to end a listen
        super()._notification(method, params)

    def _unsupported(self, requested: str | None) -> MCPError:
        data: dict = {"supported": list(self.SUPPORTED)}
        if requested is not None:
            data["requested"] = requested
        return MCPError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", data)
