"""MCP's second transport, Streamable HTTP, on the standard library (pack §2.6, "Transports").

One endpoint (``http://127.0.0.1:PORT/mcp``) takes each JSON-RPC message as its own POST.
What this server does, with the rule each choice follows (2025-06-18 and 2025-11-25
transport pages unless noted):

- It binds to 127.0.0.1 only ("When running locally, servers SHOULD bind only to localhost").
- It checks ``Origin`` on every request and answers 403 when it is present and not a page on
  this machine ("Servers MUST validate the Origin header"; 403 from 2025-11-25). It also
  checks ``Host`` and answers 421 for a name that is not this machine, the other half of the
  DNS-rebinding defence; the official Python SDK allows the same hosts and origins by default
  for local servers (``127.0.0.1:*``, ``localhost:*``, ``[::1]:*``).
- ``initialize`` starts a session: the reply carries an ``Mcp-Session-Id`` header (random,
  visible ASCII), and every later request must send it back: without it, 400; with an id the
  server does not know (ended, evicted or invented), 404, which tells a client to initialize
  again. DELETE ends a session.
- After initialize, a request whose ``MCP-Protocol-Version`` header names a version the
  server does not speak, or not the one this session negotiated, gets 400. With no header
  the session's version is used (the spec lets a server rely on the negotiated version).
- A request gets one JSON object back (``Content-Type: application/json``), which the spec
  allows instead of an SSE stream; a notification or a response gets 202 with no body. GET
  gets 405: this server never starts messages of its own, so it offers no stream.
- Bodies must be ``application/json`` (else 415), have a ``Content-Length`` (else 411) and
  be at most ``max_body`` bytes (else 413); slow clients time out after ``read_timeout``.
- A request in the stateless 2026-07-28 shape (``server/discover``, or an
  ``MCP-Protocol-Version`` of 2026-07-28) gets 400 with error -32022 and the versions we
  speak: that revision's rule for an unsupported version, and the signal a client that
  speaks both eras uses to fall back to initialize.

Each session has its own :class:`~toolkit.mcp.server.MCPServer`, because the lifecycle and
the negotiated version belong to the session; a lock serialises the requests of one session.
"""

from __future__ import annotations

import secrets
import socket
import sys
import threading
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import urlsplit

from .protocol import (INTERNAL_ERROR, INVALID_REQUEST, UNSUPPORTED_PROTOCOL_VERSION, MCPError,
                       decode_line, encode_line, error_response, valid_id)
from .server import MCPServer

__all__ = ["StreamableHTTPServer", "serve_http", "LOOPBACK_NAMES"]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"


class _Session:
    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self.lock = threading.Lock()


class StreamableHTTPServer:
    """Serves the tools of ``make_server()`` over Streamable HTTP on 127.0.0.1.

    ``make_server`` builds a fresh :class:`MCPServer` for each session. ``port=0`` lets the
    system pick a free port; :attr:`url` says which. Use :meth:`serve_forever` in the
    foreground (``python -m toolkit serve --http``) or :meth:`start` for a background thread
    (tests, notebooks), and :meth:`close` (or ``with``) to stop.
    """

    def __init__(self, make_server: Callable[[], MCPServer], port: int = 8765, path: str = "/mcp",
                 allowed_origins: tuple[str, ...] = (), max_sessions: int = 64,
                 max_body: int = 1_000_000, read_timeout: float = 10.0,
                 trace: Callable[[str, str], Any] | None = None) -> None:
        self.make_server = make_server
        self.path = path
        self.allowed_origins = tuple(allowed_origins)
        self.max_sessions = max_sessions
        self.max_body = max_body
        self.read_timeout = read_timeout
        self.trace = trace
        self.sessions: OrderedDict[str, _Session] = OrderedDict()
        self._sessions_lock = threading.Lock()
        self._httpd = _Listener(("127.0.0.1", port), _Handler)
        self._httpd.app = self
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}{path}"
        self._thread: threading.Thread | None = None

    # -- running -----------------------------------------------------------------------------

    def serve_forever(self) -> None:
        self._httpd.serve_forever(poll_interval=0.05)

    def start(self) -> "StreamableHTTPServer":
        self._thread = threading.Thread(target=self.serve_forever, name="mcp-http", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> "StreamableHTTPServer":
        return self.start() if self._thread is None else self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- checks shared by every method --------------------------------------------------------

    def _refusal(self, handler: "_Handler") -> tuple[int, dict] | None:
        """403 for a foreign Origin, 421 for a foreign Host, 404 for another path."""
        host = handler.headers.get("Host")
        if not self._host_ok(host):
            return 421, error_response(None, INVALID_REQUEST,
                                       f"Misdirected request: Host {host!r} is not this machine; "
                                       f"use {self.url}")
        origin = handler.headers.get("Origin")
        if origin is not None and not self._origin_ok(origin):
            return 403, error_response(None, INVALID_REQUEST,
                                       f"Forbidden: Origin {origin!r} is not allowed; this server "
                                       "only answers pages served from this machine (DNS-rebinding "
                                       "protection)")
        if urlsplit(handler.path).path != self.path:
            return 404, error_response(None, INVALID_REQUEST,
                                       f"Not found: the MCP endpoint is {self.path}")
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
            parts.port  # raises for a malformed port
        except ValueError:
            return False
        return parts.scheme in ("http", "https") and parts.hostname in LOOPBACK_NAMES

    # -- POST: every client message -------------------------------------------------------------

    def post(self, handler: "_Handler") -> None:
        refusal = self._refusal(handler)
        if refusal:
            return handler.reply(*refusal)
        ctype = handler.headers.get("Content-Type", "")
        if not ctype.lower().startswith("application/json"):
            return handler.reply(415, error_response(None, INVALID_REQUEST,
                                                     "Unsupported media type: send the JSON-RPC "
                                                     "message with Content-Type: application/json"))
        accept = handler.headers.get("Accept")
        if accept is not None and not any(a in accept.lower() for a in ("application/json", "*/*", "application/*")):
            return handler.reply(406, error_response(None, INVALID_REQUEST,
                                                     "Not acceptable: this server answers with "
                                                     "application/json; list it in Accept"))
        body = handler.read_body(self.max_body)
        if body is None:
            return  # read_body has already answered (411, 413) or the client went away
        if self.trace:
            self.trace("->", f"POST {body.decode('utf-8', 'replace').strip()}")
        try:
            msg = decode_line(body)
        except MCPError as exc:
            return handler.reply(400, error_response(None, exc.code, exc.message))
        header_version = handler.headers.get(VERSION_HEADER)
        sid = handler.headers.get(SESSION_HEADER)
        if isinstance(msg, dict) and msg.get("method") == "initialize":
            return self._open_session(handler, msg)
        id_ = msg.get("id") if isinstance(msg, dict) else None
        if header_version is not None and header_version not in MCPServer.SUPPORTED:
            return handler.reply(400, self._unsupported(id_, header_version))
        if sid is None:
            probe = self.make_server().handle(msg)  # answers server/discover and 2026-style requests
            if isinstance(probe, dict) and probe.get("error", {}).get("code") == UNSUPPORTED_PROTOCOL_VERSION:
                return handler.reply(400, probe)
            return handler.reply(400, error_response(id_, INVALID_REQUEST,
                                                     f"Bad request: no {SESSION_HEADER} header; send "
                                                     "initialize first and then send back the session "
                                                     "id it returns"))
        session = self._session(sid)
        if session is None:
            return handler.reply(404, error_response(id_, INVALID_REQUEST,
                                                     "Session not found: it ended or never existed; "
                                                     "send initialize to start a new one"))
        with session.lock:
            negotiated = session.server.protocol_version
            if header_version is not None and header_version != negotiated:
                return handler.reply(400, error_response(
                    id_, INVALID_REQUEST, f"Bad request: {VERSION_HEADER} is {header_version} but "
                                          f"this session negotiated {negotiated}"))
            reply = session.server.handle(msg)
        if reply is None:
            return handler.reply(202, None)
        status = 400 if isinstance(reply, dict) and reply.get("id") is None else 200
        handler.reply(status, reply)

    def _open_session(self, handler: "_Handler", msg: dict) -> None:
        server = self.make_server()
        reply = server.handle(msg)
        if reply is None:  # initialize sent as a notification: nothing to answer
            return handler.reply(202, None)
        if not server.initialized:
            return handler.reply(200 if valid_id(reply.get("id")) else 400, reply)
        sid = secrets.token_hex(16)
        with self._sessions_lock:
            self.sessions[sid] = _Session(server)
            while len(self.sessions) > self.max_sessions:
                self.sessions.popitem(last=False)  # the least recently used session ends
        handler.reply(200, reply, {SESSION_HEADER: sid})

    def _session(self, sid: str) -> _Session | None:
        with self._sessions_lock:
            session = self.sessions.get(sid)
            if session is not None:
                self.sessions.move_to_end(sid)
            return session

    def _unsupported(self, id_: Any, requested: str) -> dict:
        supported = list(MCPServer.SUPPORTED)
        return error_response(id_, UNSUPPORTED_PROTOCOL_VERSION,
                              f"Unsupported protocol version {requested!r} in the "
                              f"{VERSION_HEADER} header; this server speaks "
                              + ", ".join(supported) + " and each session starts with initialize",
                              {"supported": supported, "requested": requested})

    # -- GET and DELETE ------------------------------------------------------------------------

    def get(self, handler: "_Handler") -> None:
        if self.trace:
            self.trace("->", "GET")
        refusal = self._refusal(handler)
        if refusal:
            return handler.reply(*refusal)
        handler.reply(405, error_response(None, INVALID_REQUEST,
                                          "Method not allowed: this server sends nothing unasked, "
                                          "so it offers no GET stream; POST your messages"),
                      {"Allow": "POST, DELETE"})

    def delete(self, handler: "_Handler") -> None:
        if self.trace:
            self.trace("->", "DELETE")
        refusal = self._refusal(handler)
        if refusal:
            return handler.reply(*refusal)
        sid = handler.headers.get(SESSION_HEADER)
        if sid is None:
            return handler.reply(400, error_response(None, INVALID_REQUEST,
                                                     f"Bad request: DELETE needs the {SESSION_HEADER} "
                                                     "header of the session to end"))
        with self._sessions_lock:
            ended = self.sessions.pop(sid, None)
        if ended is None:
            return handler.reply(404, error_response(None, INVALID_REQUEST, "Session not found"))
        handler.reply(204, None)


class _Listener(ThreadingHTTPServer):
    daemon_threads = True
    # Lets a stopped server be restarted on the same port at once; a port that another
    # program is listening on is still refused (Linux and macOS).
    allow_reuse_address = True
    app: StreamableHTTPServer

    def handle_error(self, request, client_address) -> None:
        """A client that hangs up (reset, broken pipe, timeout) is normal, not a fault to
        print a traceback for; anything else gets one line on standard error."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        sys.stderr.write(f"toolkit HTTP server: {type(exc).__name__} while serving {client_address[0]}: {exc}\n")


class _Handler(BaseHTTPRequestHandler):
    """Thin glue between :mod:`http.server` and :class:`StreamableHTTPServer`."""

    protocol_version = "HTTP/1.1"
    server_version = "toolkit-mcp/0.1"
    server: _Listener

    def setup(self) -> None:
        self.timeout = self.server.app.read_timeout  # a client that stalls is cut off
        super().setup()
        # Headers and body go out in two writes; without this, Nagle's algorithm and the
        # client's delayed ACK hold every reply on a kept-alive connection for ~40 ms
        # (measured: 44 ms median per tools/call before, see the report).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        self._guarded(self.server.app.post)

    def do_GET(self) -> None:
        self._guarded(self.server.app.get)

    def do_DELETE(self) -> None:
        self._guarded(self.server.app.delete)

    def do_PUT(self) -> None:
        self.reply(405, error_response(None, INVALID_REQUEST, "Method not allowed: use POST"),
                   {"Allow": "POST, DELETE"})

    do_PATCH = do_PUT

    def _guarded(self, action: Callable[["_Handler"], None]) -> None:
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

    def read_body(self, limit: int) -> bytes | None:
        """The request body, or None after answering 411/413 (or if the client vanished)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower() or self.headers.get("Content-Length") is None:
            self.close_connection = True
            self.reply(411, error_response(None, INVALID_REQUEST,
                                           "Length required: send a Content-Length header"))
            return None
        try:
            length = int(self.headers["Content-Length"])
        except ValueError:
            length = -1
        if length < 0 or length > limit:
            self.close_connection = True
            status = 413 if length > limit else 400
            self.reply(status, error_response(None, INVALID_REQUEST,
                                              f"Body too large: at most {limit} bytes" if status == 413
                                              else "Bad request: Content-Length is not a number"))
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
        if data:
            self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the trace, when on, says more; otherwise stay quiet on stderr


def serve_http(make_server: Callable[[], MCPServer], port: int = 8765, trace: bool = False) -> int:
    """Run in the foreground until Ctrl-C; the address goes to standard error.

    Returns a process exit code: 0 after Ctrl-C, 2 when the port cannot be used.
    """
    def echo(arrow: str, text: str) -> None:
        sys.stderr.write(f"{arrow} {text}\n")
        sys.stderr.flush()

    try:
        app = StreamableHTTPServer(make_server, port=port, trace=echo if trace else None)
    except OSError as exc:
        sys.stderr.write(f"Cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}); "
                         "choose another port with --port N (0 picks a free one).\n")
        return 2
    sys.stderr.write(f"MCP server (Streamable HTTP) listening on {app.url}  (Ctrl-C to stop)\n")
    sys.stderr.flush()
    try:
        app.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        app.close()
    return 0
