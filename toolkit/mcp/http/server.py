"""MCP's second transport, Streamable HTTP, on the standard library (pack §2.6, "Transports").

One endpoint (``http://127.0.0.1:PORT/mcp``) takes each JSON-RPC message as its own POST.
What this server does, with the rule each choice follows (2025-06-18 and 2025-11-25
transport pages unless noted). Every request, whatever its method, passes these checks in
this order:

1. ``Origin``: present and not a page on this machine -> 403, whatever the Host ("Servers
   MUST validate the Origin header"; "If the Origin header is present and invalid, servers
   MUST respond with HTTP 403 Forbidden", 2025-11-25).
2. ``Host``: a name that is not this machine -> 421, the other half of the DNS-rebinding
   defence. The official Python SDK allows the same hosts and origins by default for local
   servers (``127.0.0.1:*``, ``localhost:*``, ``[::1]:*``).
3. ``Authorization``: unless the server was started without a token, every request must
   carry ``Authorization: Bearer <token>``, else 401 with a ``WWW-Authenticate`` header
   ("Servers SHOULD implement proper authentication for all connections"). A program without
   the token can neither open a session nor end one. Tokens are compared in constant time.
4. The path: anything but the endpoint -> 404.
5. ``MCP-Protocol-Version``: a version the server does not speak -> 400 ("If the server
   receives a request with an invalid or unsupported MCP-Protocol-Version, it MUST respond
   with 400 Bad Request"), with error -32022 from a server that speaks 2026-07-28 and -32600
   from one that does not. The versions it speaks are the ``SUPPORTED`` of
   the session's server, or of a fresh one before a session exists; in a session, a version
   other than the negotiated one gets 400 too. With no header the session's version is used
   (the spec lets a server rely on the negotiated version).

Then, by method:

- POST ``initialize`` starts a session: the reply carries an ``Mcp-Session-Id`` header
  (random, visible ASCII), and every later request must send it back: without it, 400; with
  an id the server does not know (ended, evicted or invented), 404, which tells a client to
  initialize again. DELETE ends a session.
- A request gets one JSON object back (``Content-Type: application/json``) when the server has
  nothing to send before the reply; when it has (progress, log lines, a request to the client)
  and the client accepts ``text/event-stream``, an SSE stream instead (:mod:`.streams`). A
  notification, or the client's reply to a server request, gets 202 with no body. GET opens
  the session's standalone stream (one at a time: a second gets 409), or, with
  ``Last-Event-ID``, resumes a stream that broke off.
- Bodies must be ``application/json`` (else 415), have a ``Content-Length`` (else 411) and
  be at most ``max_body`` bytes (else 413).
- Slow clients: each read waits at most ``read_timeout`` seconds, and a whole request
  (headers and body, counted from its first byte) must arrive within ``request_deadline``
  seconds, so a client that trickles a byte now and then is cut off too. The listen queue
  (``backlog``) holds a burst of connections without dropping any.
- A request in the stateless 2026-07-28 shape (its ``_meta`` names the version) needs no
  session. If the session servers speak that revision (``ModernServer``), it is answered by a
  fresh server of its own, whatever ``Mcp-Session-Id`` it carries, after its
  ``MCP-Protocol-Version``, ``Mcp-Method`` and ``Mcp-Name`` headers are checked against the
  body (400 with -32020 when they disagree; an unknown method is 404). Otherwise it gets what
  a server of the handshake revisions answers: 400 with error -32600 (no session, or a version
  header it does not speak), which is what a client that speaks both eras falls back to
  initialize on; -32022 would tell it the server speaks 2026-07-28 (streamable-http.mdx:650-665).

Each session has its own :class:`~toolkit.mcp.server.MCPServer`, because the lifecycle and
the negotiated version belong to the session. The requests of one session run concurrently
(each POST on its own thread), so a tool waiting for the client's answer blocks nothing else.
"""

from __future__ import annotations

import hmac
import io
import re
import secrets
import socket
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..meta import header_text, meta_problem, param_headers, param_text, param_value
from ..protocol import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MODERN_ERRORS,
    UNSUPPORTED_PROTOCOL_VERSION,
    MCPError,
    decode_line,
    encode_line,
    error_response,
    is_response,
    valid_id,
)
from ..revisions import META_VERSION_KEY, STATELESS_VERSIONS, at_least
from ..server import MCPServer, _meta_version
from .streams import RETRY_MS, PostStream, SessionChannel, shut_write

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = ["StreamableHTTPServer", "serve_http", "loopback_listener", "LOOPBACK_NAMES", "LISTEN_BACKLOG"]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
LISTEN_BACKLOG = 128  # connections the system queues before accept() (the standard library's default is 5)
# RFC 6750's token characters, at least 16 of them so that a token cannot be guessed quickly.
_TOKEN = re.compile(r"[A-Za-z0-9._~+/-]{16,}=*")


class _Session:
    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self.channel = SessionChannel(server)
        server.outbox = self.channel  # messages outside any request go to the GET stream


def loopback_listener(port: int = 0) -> socket.socket:
    """A TCP socket bound to ``127.0.0.1:port`` (0: a free port, read from ``getsockname()``),
    not yet listening: for a server such as uvicorn that takes a bound socket, so its URL is
    known before it starts and no other program can take the port in between.

    Used by: toolkit/lessons/auth_server.py.
    """
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.bind(("127.0.0.1", port))
    except OSError:
        listener.close()
        raise
    return listener


class StreamableHTTPServer:
    """Serves the tools of ``make_server()`` over Streamable HTTP on 127.0.0.1.

    ``make_server`` builds a fresh :class:`MCPServer` for each session. ``port=0`` lets the
    system pick a free port; :attr:`url` says which. Use :meth:`serve_forever` in the
    foreground (``python -m toolkit serve --http``) or :meth:`start` for a background thread
    (tests, notebooks), and :meth:`close` (or ``with``) to stop.

    ``token``: None (the default) makes a new random bearer token; a string of at least 16
    letters, digits and ``-._~+/`` is used as given; False turns authentication off, for a
    machine you trust (any program on it can then use the tools). A client sends
    :attr:`auth_headers` with every request, for example ``HTTPTransport(url, token=app.token)``.

    Notebook 06.
    """

    def __init__(
        self,
        make_server: Callable[[], MCPServer],
        port: int = 8765,
        path: str = "/mcp",
        allowed_origins: tuple[str, ...] = (),
        max_sessions: int = 64,
        max_body: int = 1_000_000,
        read_timeout: float = 10.0,
        request_deadline: float = 30.0,
        token: str | bool | None = None,
        backlog: int = LISTEN_BACKLOG,
        trace: Callable[[str, str], Any] | None = None,
        stream_timeout: float = 300.0,
        protect: Any = None,
    ) -> None:
        self.make_server = make_server
        self.path = path
        self.allowed_origins = tuple(allowed_origins)
        self.max_sessions = max_sessions
        self.max_body = max_body
        self.read_timeout = read_timeout
        self.request_deadline = request_deadline
        self.protect = protect  # a ProtectedResource (http/protect.py): OAuth instead of one token
        self.token = None if protect is not None else _choose_token(token)
        self.trace = trace
        self.stream_timeout = stream_timeout  # the longest an SSE stream stays open
        self.closing = False  # True once close() began: open streams end (a listen with its reply)
        # The versions a new session would speak, for requests that belong to no session yet.
        self.supported = tuple(make_server().SUPPORTED)
        self.stateless = any(v in STATELESS_VERSIONS for v in self.supported)  # speaks 2026-07-28
        self.sessions: OrderedDict[str, _Session] = OrderedDict()
        self._sessions_lock = threading.Lock()
        self._httpd = _Listener(("127.0.0.1", port), _Handler, bind_and_activate=False)
        self._httpd.request_queue_size = backlog
        try:
            self._httpd.server_bind()
            self._httpd.server_activate()
        except OSError:
            self._httpd.server_close()
            raise
        self._httpd.app = self
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}{path}"
        if protect is not None:
            protect.resource = self.url
        self._thread: threading.Thread | None = None

    @property
    def auth_headers(self) -> dict:
        """What a client must send: ``{"Authorization": "Bearer <token>"}``, or ``{}`` when
        authentication is off."""
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    # -- running -----------------------------------------------------------------------------

    def serve_forever(self) -> None:
        self._httpd.serve_forever(poll_interval=0.05)

    def serve_until_interrupted(self) -> int:
        """Serve in the foreground until Ctrl-C, then close; returns 0 (an exit code)."""
        try:
            self.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self.close()
        return 0

    def start(self) -> StreamableHTTPServer:
        self._thread = threading.Thread(target=self.serve_forever, name="mcp-http", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self.closing = True  # open SSE streams end within a quarter of a second
        with self._sessions_lock:
            for session in self.sessions.values():
                session.channel.close()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> StreamableHTTPServer:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- checks shared by every method (the order is the module docstring's) --------------------

    def _refusal(self, handler: _Handler) -> tuple | None:
        """The answer to a request that fails the checks made before its body is read (Origin,
        Host, token, path), as the arguments of ``handler.reply``; None when it passes them."""
        origin = handler.headers.get("Origin")
        if origin is not None and not self._origin_ok(origin):
            return 403, error_response(
                None,
                INVALID_REQUEST,
                f"Forbidden: Origin {origin!r} is not allowed; this server "
                "only answers pages served from this machine (DNS-rebinding "
                "protection)",
            )
        host = handler.headers.get("Host")
        if not self._host_ok(host):
            return 421, error_response(
                None, INVALID_REQUEST, f"Misdirected request: Host {host!r} is not this machine; use {self.url}"
            )
        if self.protect is not None:
            if handler.command == "GET" and urlsplit(handler.path).path == self.protect.metadata_path():
                return 200, self.protect.metadata()  # RFC 9728: public, before any token
            refused = self.protect.refusal(handler.headers.get("Authorization"))
            if refused is not None:
                status, challenge, why = refused
                return (
                    status,
                    error_response(None, INVALID_REQUEST, f"Unauthorized: {why}"),
                    {"WWW-Authenticate": challenge},
                )
        if self.token is not None and not self._token_ok(handler.headers.get("Authorization")):
            return self._unauthorized(handler.headers.get("Authorization"))
        if urlsplit(handler.path).path != self.path:
            return 404, error_response(None, INVALID_REQUEST, f"Not found: the MCP endpoint is {self.path}")
        return None

    def _host_ok(self, host: str | None) -> bool:
        if not host:
            return False
        try:
            parts = urlsplit("//" + host)
            name, port = parts.hostname, parts.port
        except ValueError:
            return False
        return name in LOOPBACK_NAMES and port in (None, self.port)

    def _origin_ok(self, origin: str) -> bool:
        if origin in self.allowed_origins:
            return True
        try:
            parts = urlsplit(origin)
            _ = parts.port  # raises for a malformed port
        except ValueError:
            return False
        return parts.scheme in ("http", "https") and parts.hostname in LOOPBACK_NAMES

    def _token_ok(self, header: str | None) -> bool:
        """``header`` is ``Bearer <our token>`` (RFC 6750; the scheme name is case-insensitive).
        hmac.compare_digest takes as long wherever the first wrong character is, so the
        answer's timing does not give the token away character by character."""
        assert self.token is not None  # asked only when the server has a token
        scheme, _, given = (header or "").strip().partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode("utf-8", "surrogateescape"), self.token.encode("ascii")
        )

    def _unauthorized(self, header: str | None) -> tuple:
        challenge = 'Bearer realm="mcp"' + (', error="invalid_token"' if header else "")
        problem = "the token does not match" if header else "this server needs a token"
        return (
            401,
            error_response(
                None,
                INVALID_REQUEST,
                f"Unauthorized: {problem}. Send the header 'Authorization: Bearer "
                "<token>' with every request, with the token the server printed "
                "when it started",
            ),
            {"WWW-Authenticate": challenge},
        )

    def _version_refusal(self, handler: _Handler, id_: Any = None) -> tuple | None:
        """400 for an ``MCP-Protocol-Version`` the answering server does not speak, or, in a
        session, for one other than the version that session negotiated."""
        requested = _header(handler.headers, VERSION_HEADER)
        if requested is None:
            return None
        session = self._peek_session(handler.headers.get(SESSION_HEADER))
        supported = list(session.server.SUPPORTED if session else self.supported)
        if requested not in supported:
            # -32022 is 2026-07-28's code, and marks a server of that revision: a server that
            # speaks none of it answers as the handshake revisions did (400; their transport
            # pages name no code), so a dual-era client falls back (streamable-http.mdx:650-665).
            modern = any(v in STATELESS_VERSIONS for v in supported)
            return 400, error_response(
                id_,
                UNSUPPORTED_PROTOCOL_VERSION if modern else INVALID_REQUEST,
                f"Unsupported protocol version {requested!r} in the {VERSION_HEADER} header; "
                f"this server speaks {', '.join(supported)}"
                + ("" if modern else ", and each session starts with initialize"),
                {"supported": supported, "requested": requested},
            )
        # A supported version other than the negotiated one is accepted, as the official SDKs
        # do: the transport page makes 400 a MUST only for an invalid or unsupported version
        # (the client SHOULD send the negotiated one). The conformance suite 0.1.16 relies on it.
        return None

    # -- POST: every client message -------------------------------------------------------------

    def post(self, handler: _Handler) -> None:
        refusal = self._refusal(handler)
        if refusal:
            return handler.reply(*refusal)
        ctype = handler.headers.get("Content-Type", "")
        if not ctype.lower().startswith("application/json"):
            return handler.reply(
                415,
                error_response(
                    None,
                    INVALID_REQUEST,
                    "Unsupported media type: send the JSON-RPC message with Content-Type: application/json",
                ),
            )
        accept = handler.headers.get("Accept")
        if accept is not None and not any(a in accept.lower() for a in ("application/json", "*/*", "application/*")):
            return handler.reply(
                406,
                error_response(
                    None,
                    INVALID_REQUEST,
                    "Not acceptable: this server answers with application/json; list it in Accept",
                ),
            )
        body = handler.read_body(self.max_body)
        if body is None:
            return  # read_body has already answered (411, 413) or the client went away
        if self.trace:
            self.trace("->", f"POST {body.decode('utf-8', 'replace').strip()}")
        try:
            msg = decode_line(body)
        except MCPError as exc:
            return handler.reply(400, error_response(None, exc.code, exc.message))
        id_ = msg.get("id") if isinstance(msg, dict) else None
        refusal = self._version_refusal(handler, id_)  # after the body, so the error carries the id
        if refusal:
            return handler.reply(*refusal)
        if self.stateless and _stateless_era(handler.headers, msg):  # any Mcp-Session-Id is ignored:
            return self._stateless(handler, msg, accept)  # versioning.mdx:176, streamable-http.mdx:685
        if isinstance(msg, dict) and msg.get("method") == "initialize":
            return self._open_session(handler, msg)
        sid = handler.headers.get(SESSION_HEADER)
        if sid is None:
            probe = self.make_server().handle(msg)  # a 2026-style _meta naming a version we lack
            if isinstance(probe, dict) and probe.get("error", {}).get("code") == UNSUPPORTED_PROTOCOL_VERSION:
                return handler.reply(400, probe)
            return handler.reply(
                400,
                error_response(
                    id_,
                    INVALID_REQUEST,
                    f"Bad request: no {SESSION_HEADER} header; send "
                    "initialize first and then send back the session "
                    "id it returns",
                ),
            )
        session = self._session(sid)
        if session is None:
            return handler.reply(
                404,
                error_response(
                    id_,
                    INVALID_REQUEST,
                    "Session not found: it ended or never existed; send initialize to start a new one",
                ),
            )
        if is_response(msg):  # the client answering one of the server's requests
            session.channel.deliver(msg)
            return handler.reply(202, None)
        reply = _handle(handler, session.server, session.channel, msg, accept, {SESSION_HEADER: sid})
        if reply is not None:
            handler.reply(400 if isinstance(reply, dict) and reply.get("id") is None else 200, reply)

    def _stateless(self, handler: _Handler, msg: dict, accept: str | None) -> None:
        """A 2026-07-28 request: no session, a fresh server for it alone. Its headers must
        agree with the body (``MCP-Protocol-Version`` with ``_meta``, ``Mcp-Method`` with the
        method, ``Mcp-Name`` with ``params.name`` or ``params.uri``), else 400 with error
        -32020 (HeaderMismatch); an unknown method is 404 with -32601; a malformed ``_meta``
        (-32602), a missing client capability (-32021) or an unsupported version (-32022) is 400.

        The era comes from the ``MCP-Protocol-Version`` header when the body names none
        (2026-07-28, basic/transports/streamable-http): ``initialize`` under that header is a
        removed method (404, -32601), and a request without ``_meta`` or its version is -32602."""
        server = self.make_server()
        params = msg.get("params") if isinstance(msg, dict) else None
        version = _meta_version(params) if isinstance(params, dict) else None  # any version it names
        if version is None:
            id_ = msg.get("id") if isinstance(msg, dict) else None
            method = msg.get("method") if isinstance(msg, dict) else None
            if method == "initialize":
                return handler.reply(
                    404, error_response(id_, METHOD_NOT_FOUND, "Method not found: initialize was removed in 2026-07-28")
                )
            if not isinstance(method, str) or "id" not in msg:
                return handler.reply(202, None)  # a notification or a stray response: nothing to answer
            return handler.reply(
                400,
                error_response(
                    id_,
                    INVALID_PARAMS,
                    f"Invalid params: a 2026-07-28 request carries params._meta with {META_VERSION_KEY!r}",
                ),
            )
        mismatch = _header_mismatch(handler.headers, msg, version, server)
        if mismatch:
            return handler.reply(400, error_response(msg.get("id"), HEADER_MISMATCH, f"Header mismatch: {mismatch}"))
        reply = _handle(handler, server, SessionChannel(server), msg, accept, {})
        if reply is None:
            return None
        code = reply.get("error", {}).get("code") if isinstance(reply, dict) else None
        malformed = code == INVALID_PARAMS and meta_problem(msg["params"]["_meta"]) is not None
        status = 400 if code in _BAD_REQUEST or malformed else 404 if code == METHOD_NOT_FOUND else 200
        handler.reply(status, reply)

    def _open_session(self, handler: _Handler, msg: dict) -> None:
        server = self.make_server()
        reply = server.handle(msg)
        if reply is None:  # initialize sent as a notification: nothing to answer
            return handler.reply(202, None)
        if not server.initialized:
            return handler.reply(200 if isinstance(reply, dict) and valid_id(reply.get("id")) else 400, reply)
        sid = secrets.token_hex(16)
        with self._sessions_lock:
            self.sessions[sid] = _Session(server)
            while len(self.sessions) > self.max_sessions:
                self.sessions.popitem(last=False)  # the least recently used session ends
        handler.reply(200, reply, {SESSION_HEADER: sid})

    def _session(self, sid: str) -> _Session | None:
        """The session ``sid`` names, marked as the most recently used."""
        with self._sessions_lock:
            session = self.sessions.get(sid)
            if session is not None:
                self.sessions.move_to_end(sid)
            return session

    def _peek_session(self, sid: str | None) -> _Session | None:
        """The session ``sid`` names, without counting this look as a use."""
        if sid is None:
            return None
        with self._sessions_lock:
            return self.sessions.get(sid)

    # -- GET, DELETE and the rest -----------------------------------------------------------------

    def _checked(self, handler: _Handler, method: str) -> bool:
        """Trace and run every check for a request without a body; False once answered."""
        if self.trace:
            self.trace("->", method)
        refusal = self._refusal(handler) or self._version_refusal(handler)
        if refusal:
            handler.reply(*refusal)
            return False
        return True

    def get(self, handler: _Handler) -> None:
        """GET: the session's standalone SSE stream, or, with Last-Event-ID, the rest of a
        stream that broke off (replayed from the event after that id)."""
        if not self._checked(handler, "GET"):
            return
        if "text/event-stream" not in handler.headers.get("Accept", "").lower():
            return handler.reply(
                406,
                error_response(None, INVALID_REQUEST, "Not acceptable: a GET stream needs Accept: text/event-stream"),
            )
        sid = handler.headers.get(SESSION_HEADER)
        session = self._session(sid) if sid else None
        if session is None:
            status = 400 if sid is None else 404
            problem = f"no {SESSION_HEADER} header" if sid is None else "session not found"
            return handler.reply(status, error_response(None, INVALID_REQUEST, f"Bad request: {problem}"))
        channel = session.channel
        last = handler.headers.get("Last-Event-ID")
        if last is not None:
            found = channel.find(last)
            if found is None:
                return handler.reply(404, error_response(None, INVALID_REQUEST, f"No stream has event {last!r}"))
            log, after = found
            handler.start_sse({SESSION_HEADER: sid})
        else:
            if channel.standalone_open:
                return handler.reply(
                    409, error_response(None, INVALID_REQUEST, "Conflict: this session's GET stream is already open")
                )
            log, after = channel.standalone, channel.standalone_seen
            channel.standalone_open = True
            handler.start_sse({SESSION_HEADER: sid})
            if at_least(session.server.protocol_version, "2025-11-25"):
                handler.wfile.write(f"retry: {RETRY_MS}\n\n".encode())
        try:
            log.attach(handler.wfile, after)
            log.wait_done(lambda: not channel.closed and not self.closing, self.stream_timeout)
        finally:
            if log is channel.standalone:
                channel.standalone_seen = log.count
                channel.standalone_open = False

    def delete(self, handler: _Handler) -> None:
        if not self._checked(handler, "DELETE"):
            return
        sid = handler.headers.get(SESSION_HEADER)
        if sid is None:
            return handler.reply(
                400,
                error_response(
                    None,
                    INVALID_REQUEST,
                    f"Bad request: DELETE needs the {SESSION_HEADER} header of the session to end",
                ),
            )
        with self._sessions_lock:
            ended = self.sessions.pop(sid, None)
        if ended is None:
            return handler.reply(404, error_response(None, INVALID_REQUEST, "Session not found"))
        ended.channel.close()
        handler.reply(204, None)

    def other(self, handler: _Handler) -> None:
        """HEAD, PUT, PATCH and OPTIONS: the same checks, then 405."""
        if self._checked(handler, handler.command):
            handler.reply(
                405, error_response(None, INVALID_REQUEST, "Method not allowed: use POST"), {"Allow": "POST, DELETE"}
            )


def _handle(
    handler: _Handler, server: MCPServer, channel: SessionChannel, msg: Any, accept: str | None, headers: dict
) -> Any:
    """``server``'s reply to ``msg``, to send as JSON; None once the answer went out, as an SSE
    stream (the server had something to send first; the reply is its last event) or as 202."""
    stream = None
    if isinstance(msg, dict) and "id" in msg:
        stream = PostStream(handler, channel, "text/event-stream" in (accept or "").lower(), headers)
    reply = server.handle(msg, stream)
    if stream is not None and stream.finish(reply if isinstance(reply, dict) else None):
        return None  # the reply went out as the stream's last event
    if reply is None:
        handler.reply(202, None)
    return reply


_NAMED = ("tools/call", "resources/read", "prompts/get")
# 2026-07-28 errors whose HTTP status MUST be 400 (schema.ts:456-531), and -32600
_BAD_REQUEST = (INVALID_REQUEST, *MODERN_ERRORS)


def _stateless_version(msg: Any) -> str | None:
    """The 2026-07-28-style version a request names in ``params._meta``, or None."""
    params = msg.get("params") if isinstance(msg, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    value = meta.get(META_VERSION_KEY) if isinstance(meta, dict) else None
    return value if isinstance(value, str) and value in STATELESS_VERSIONS else None


def _header(headers: Any, name: str) -> str | None:
    """A header's value without the white space around it (RFC 9110, section 5.5), or None."""
    value = headers.get(name)
    return value.strip() if isinstance(value, str) else None


def _stateless_era(headers: Any, msg: Any) -> bool:
    """True when a POST belongs to 2026-07-28: its ``_meta`` names that revision, or, when the
    body names none, its ``MCP-Protocol-Version`` header does (basic/transports/streamable-http)."""
    return _stateless_version(msg) is not None or _header(headers, VERSION_HEADER) in STATELESS_VERSIONS


def _header_mismatch(headers: Any, msg: dict, version: str, server: MCPServer) -> str:
    """What disagrees between a 2026-07-28 request's headers and its body ('' when nothing).
    ``Mcp-Name`` is required for the methods that name something, and it and ``Mcp-Param-*``
    are compared after Base64 decoding (streamable-http.mdx:283-297, 490-504, 618-630)."""
    if _header(headers, VERSION_HEADER) != version:
        return f"{VERSION_HEADER} is {headers.get(VERSION_HEADER)!r} but _meta says {version!r}"
    if _header(headers, "Mcp-Method") != msg.get("method"):
        return f"Mcp-Method is {headers.get('Mcp-Method')!r} but the method is {msg.get('method')!r}"
    params = msg.get("params") or {}
    if msg.get("method") in _NAMED:
        name = params.get("uri" if msg["method"] == "resources/read" else "name")
        sent = _header(headers, "Mcp-Name")
        if isinstance(name, str) and (sent is None or header_text(sent) != name):
            return f"Mcp-Name is {sent!r} but the request names {name!r}"
    if msg.get("method") == "tools/call":
        return _param_mismatch(headers, params, server)
    return ""


def _param_mismatch(headers: Any, params: dict, server: MCPServer) -> str:
    """Each ``Mcp-Param-{name}`` the called tool's ``x-mcp-header`` marks ask for: present when
    the body holds that value, and equal to it (integers as numbers; lines 547-566)."""
    spec = next((t for t in server.tool_specs() if t["name"] == params.get("name")), None)
    try:
        marks = param_headers(spec.get("inputSchema")) if spec else {}
    except ValueError:
        marks = {}  # a tool no client may call (its clients drop it): nothing to compare
    for name, path in marks.items():
        value = param_value(params.get("arguments"), path)
        want, sent = param_text(value), _header(headers, f"Mcp-Param-{name}")
        if want is None:
            continue  # no value, no header expected
        got = header_text(sent) if sent is not None else None
        if got != want and not (
            isinstance(value, (int, float)) and not isinstance(value, bool) and _number(got) == value
        ):
            return f"Mcp-Param-{name} is {sent!r} but the argument {'.'.join(path)} is {want!r}"
    return ""


def _number(text: str | None) -> float | None:
    """An integer header compared as a number, so 42.0 matches 42 (line 612, a SHOULD)."""
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def _choose_token(token: str | bool | None) -> str | None:
    """None or True: a new random token; False: none (authentication off); a string: checked."""
    if token is None or token is True:
        return secrets.token_urlsafe(32)
    if token is False:
        return None
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        raise ValueError(
            "token must be None (a random token is made), False (no authentication, "
            "for a trusted machine only) or a string of at least 16 letters, digits "
            "and - . _ ~ + / characters"
        )
    return token


class _Listener(ThreadingHTTPServer):
    daemon_threads = True
    # Lets a stopped server be restarted on the same port at once; a port that another
    # program is listening on is still refused (Linux and macOS).
    allow_reuse_address = True
    app: StreamableHTTPServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (reset, broken pipe, timeout) is normal, not a fault to
        print a traceback for; anything else gets one line on standard error."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        sys.stderr.write(f"toolkit HTTP server: {type(exc).__name__} while serving {client_address[0]}: {exc}\n")


class _DeadlineReader(io.RawIOBase):
    """Reads a socket under two clocks: each read waits at most ``idle`` seconds, and once a
    request has started (its first byte arrived), all its reads end ``total`` seconds later.

    A per-read timeout alone lets a client that sends one byte every few seconds hold a
    connection (and a thread) forever; the total deadline does not.
    """

    def __init__(self, sock: socket.socket, idle: float, total: float) -> None:
        self.sock = sock
        self.idle = idle
        self.total = total
        self.deadline: float | None = None

    def readable(self) -> bool:
        return True

    def next_request(self) -> None:
        self.deadline = None  # the clock starts again with the next request's first byte

    def readinto(self, buffer: WriteableBuffer) -> int:
        timeout = self.idle
        if self.deadline is not None:
            timeout = min(timeout, self.deadline - time.monotonic())
            if timeout <= 0:
                raise TimeoutError(f"the request did not arrive within {self.total:g} s")
        self.sock.settimeout(timeout)
        try:
            count = self.sock.recv_into(buffer)
        finally:
            self.sock.settimeout(self.idle)  # writes keep the ordinary timeout
        if count and self.deadline is None:
            self.deadline = time.monotonic() + self.total
        return count


class _Handler(BaseHTTPRequestHandler):
    """Thin glue between :mod:`http.server` and :class:`StreamableHTTPServer`."""

    protocol_version = "HTTP/1.1"
    server_version = "toolkit-mcp/0.1"
    server: _Listener

    def setup(self) -> None:
        app = self.server.app
        # a client that stalls is cut off (typeshed calls timeout a ClassVar, but setup() below
        # reads it from the instance: a per-server value belongs there)
        self.timeout = app.read_timeout  # type: ignore[misc]
        super().setup()
        self.rfile.close()  # reads go through the deadline reader instead
        self._reader = _DeadlineReader(self.connection, app.read_timeout, app.request_deadline)
        self.rfile = io.BufferedReader(self._reader)
        # Headers and body go out in two writes; without this, Nagle's algorithm and the
        # client's delayed ACK hold every reply on a kept-alive connection for ~40 ms
        # (measured: 44 ms median per tools/call before, see the report).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle_one_request(self) -> None:
        self._reader.next_request()
        super().handle_one_request()

    def do_POST(self) -> None:
        self._guarded(self.server.app.post)

    def do_GET(self) -> None:
        self._guarded(self.server.app.get)

    def do_DELETE(self) -> None:
        self._guarded(self.server.app.delete)

    def do_PUT(self) -> None:
        self._guarded(self.server.app.other)

    do_HEAD = do_PATCH = do_OPTIONS = do_PUT

    def _guarded(self, action: Callable[[_Handler], None]) -> None:
        self._consumed = False  # set once the body has been read; see reply()
        try:
            action(self)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True
        except Exception as exc:  # a bug here must cost one request, not the server
            self.close_connection = True
            try:
                self.reply(500, error_response(None, INTERNAL_ERROR, f"Internal error: {type(exc).__name__}"))
            except OSError:
                pass

    def start_sse(self, headers: dict) -> None:
        """Answer 200 with an SSE stream; its end is the connection's end (no length known)."""
        self.close_connection = True
        app = self.server.app
        if app.trace:
            app.trace("<-", "200 text/event-stream")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Accel-Buffering", "no")  # a proxy must not hold events back (2026-07-28 SHOULD)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()

    def end_stream(self) -> None:
        """Close the stream now, while the request goes on (the client may resume it)."""
        try:
            self.wfile.flush()
        except OSError:
            pass
        shut_write(self.connection)

    def read_body(self, limit: int) -> bytes | None:
        """The request body, or None after answering 411/413 (or if the client vanished or
        missed the request deadline)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower() or self.headers.get("Content-Length") is None:
            self.close_connection = True
            self.reply(411, error_response(None, INVALID_REQUEST, "Length required: send a Content-Length header"))
            return None
        try:
            length = int(self.headers["Content-Length"])
        except ValueError:
            length = -1
        if length < 0 or length > limit:
            self.close_connection = True
            status = 413 if length > limit else 400
            self.reply(
                status,
                error_response(
                    None,
                    INVALID_REQUEST,
                    f"Body too large: at most {limit} bytes"
                    if status == 413
                    else "Bad request: Content-Length is not a number",
                ),
            )
            return None
        try:
            body = self.rfile.read(length)
        except OSError:
            self.close_connection = True
            return None
        if len(body) < length:
            self.close_connection = True
            return None
        self._consumed = True
        return body

    def reply(self, status: int, body: Any, headers: dict | None = None) -> None:
        data = encode_line(body).encode("ascii") if body is not None else b""
        if not getattr(self, "_consumed", False) and self.headers.get("Content-Length", "0").strip() != "0":
            self.close_connection = True  # an unread body would be taken for the next request
        app = self.server.app
        if app.trace:
            app.trace("<-", f"{status} {data.decode('ascii').strip()}".rstrip())
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if status != 204:
            if data:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if data and self.command != "HEAD":  # a reply to HEAD has headers only
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the trace, when on, says more; otherwise stay quiet on stderr


def serve_http(
    make_server: Callable[[], MCPServer], port: int = 8765, trace: bool = False, token: str | bool | None = None
) -> int:
    """Run in the foreground until Ctrl-C; the address and the token go to standard error.

    ``token`` as for :class:`StreamableHTTPServer`: by default a new random one, printed
    the way Jupyter prints its URL, so the user can copy it into a client; False turns
    authentication off, with a warning. Returns a process exit code: 0 after Ctrl-C, 2 when
    the port cannot be used.

    Used by: python -m toolkit serve.
    """

    def echo(arrow: str, text: str) -> None:
        sys.stderr.write(f"{arrow} {text}\n")
        sys.stderr.flush()

    try:
        app = StreamableHTTPServer(make_server, port=port, token=token, trace=echo if trace else None)
    except OSError as exc:
        sys.stderr.write(
            f"Cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}); "
            "choose another port with --port N (0 picks a free one).\n"
        )
        return 2
    sys.stderr.write(_banner(app))
    sys.stderr.flush()
    return app.serve_until_interrupted()


def _banner(app: StreamableHTTPServer) -> str:
    """What ``serve --http`` prints at start: where to connect and with which header."""
    first = f"MCP server (Streamable HTTP) listening on {app.url}  (Ctrl-C to stop)\n"
    if app.token is None:
        return first + (
            "WARNING: --no-auth: no token is checked, so any program on this computer "
            "can call these tools. Use it only on a machine you trust.\n"
        )
    return first + (
        "Every request must carry this header (a new token at each start; --no-auth "
        "turns the check off on a trusted machine):\n"
        f"    Authorization: Bearer {app.token}\n"
        f'From Python: HTTPTransport("{app.url}", token="{app.token}")\n'
    )
