"""Server-Sent Events for Streamable HTTP: how the server talks first (pack §2.6, "Transports").

A POST that carries a request may be answered with one JSON object or with an SSE stream
(``Content-Type: text/event-stream``) that carries the server's own messages first (progress,
log lines, requests to the client) and the reply last. This server answers with JSON unless it
has something to send before the reply, so a client that only reads JSON sees no change.

- Each stream has a random id; each event on it gets ``<stream>:<n>`` as its SSE ``id``, and is
  kept, so a client whose stream broke can reconnect with GET and ``Last-Event-ID`` and receive
  what came after (2025-06-18 and 2025-11-25 "Resumability and Redelivery"; events are
  replayed only on the stream they were sent on). Revision 2026-07-28 removed both: its
  events carry no ``id`` (changelog, major change 9).
- From 2025-11-25 a stream opens with a *priming* event (an id and empty data) and a ``retry``
  field, so the client knows where to resume from and how long to wait (SEP-1699); the server
  may then close the stream early (:meth:`PostStream.close_stream`) and keep the rest for the
  reconnection.
- A GET without ``Last-Event-ID`` opens the session's one standalone stream: messages that
  belong to no request (``notifications/resources/updated``) go there, kept until it opens.
- Revision 2026-07-28 has no GET stream: a ``subscriptions/listen`` POST is answered with an
  SSE stream that stays open (:meth:`PostStream.keep_open`) until the client closes it, the
  server closes, or ``stream_timeout`` passes; a comment line (``:``) every
  ``KEEPALIVE_S`` seconds keeps quiet streams open through proxies (2026-07-28
  basic/transports/streamable-http, the note on long-lived streams).
"""

from __future__ import annotations

import collections
import json
import secrets
import select
import socket
import threading
import time
from typing import Any

from ..protocol import CONNECTION_CLOSED, INVALID_REQUEST, MCPError, valid_id
from ..revisions import HANDSHAKE_VERSIONS, STATELESS_VERSIONS, at_least

__all__ = ["PostStream", "SessionChannel", "RETRY_MS"]

RETRY_MS = 500  # what the priming event tells a client to wait before it reconnects
KEEPALIVE_S = 15.0  # a listen stream with nothing to say sends a comment this often
KEPT_EVENTS = 200  # per stream: older ones cannot be replayed


def sse_event(event_id: str | None, data: str, retry: int | None = None) -> bytes:
    """One SSE event: ``id``, optional ``retry``, one ``data`` line (JSON has no newlines).

    Used by: toolkit/mcp/http/streams.py (StreamLog).
    """
    head = (f"id: {event_id}\n" if event_id else "") + (f"retry: {retry}\n" if retry is not None else "")
    return (head + f"data: {data}\n\n").encode("utf-8")


class StreamLog:
    """The events of one SSE stream, and the socket writing them now (if any).

    Used by: toolkit/mcp/http/server.py.
    """

    def __init__(self, ids: bool = True) -> None:
        self.id = secrets.token_hex(8)
        self.ids = ids  # False at 2026-07-28, which removed SSE event ids (changelog.mdx:28)
        self.events: collections.deque = collections.deque(maxlen=KEPT_EVENTS)  # (n, bytes)
        self.count = 0
        self.writer: Any = None  # a binary file: the wfile of the handler streaming it
        self.done = False  # the reply went out: nothing more will come
        self.cond = threading.Condition()

    def add(self, msg: dict | None, retry: int | None = None) -> None:
        """Store a message (None: the priming event) and write it if a client is attached."""
        with self.cond:
            self.count += 1
            data = json.dumps(msg, separators=(",", ":")) if msg is not None else ""
            event = sse_event(f"{self.id}:{self.count}" if self.ids else None, data, retry)
            self.events.append((self.count, event))
            self._write(event)
            self.cond.notify_all()

    def _write(self, data: bytes) -> None:
        if self.writer is None:
            return
        try:
            self.writer.write(data)
            self.writer.flush()
        except OSError:
            self.writer = None  # the client went away; the event stays for a reconnection

    def comment(self) -> None:
        """An SSE comment line: no event, only a sign of life (and a test of the connection)."""
        with self.cond:
            self._write(b":\n\n")

    def attach(self, writer: Any, after: int) -> None:
        """Replay the events after number ``after`` to ``writer``, then keep writing to it."""
        with self.cond:
            self.writer = writer
            for n, event in list(self.events):
                if n > after:
                    self._write(event)

    def finish(self) -> None:
        with self.cond:
            self.done = True
            self.cond.notify_all()

    def wait_done(self, alive: Any, timeout: float) -> None:
        """Block until the stream is done, ``alive()`` turns false, or ``timeout`` passes."""
        end = time.monotonic() + timeout
        with self.cond:
            while not self.done and alive() and self.writer is not None and time.monotonic() < end:
                self.cond.wait(0.25)
            self.writer = None


class PostStream:
    """The outbox of one POSTed request: JSON until the server has something to send first,
    then an SSE stream. Requests to the client wait for the reply that arrives by POST.

    Shown in section 8, "Streamable HTTP, in one place".
    Notebook 06, through mcp.StreamableHTTPServer.
    """

    def __init__(self, handler: Any, channel: SessionChannel, sse_ok: bool, headers: dict) -> None:
        self.handler = handler
        self.channel = channel
        self.sse_ok = sse_ok
        self.headers = headers
        self.log: StreamLog | None = None  # set once the answer became a stream

    def _open(self) -> StreamLog:
        if self.log is None:
            self.log = self.channel.new_stream()
            self.handler.start_sse(self.headers)
            self.log.writer = self.handler.wfile
            version = self.channel.version()
            if at_least(version, "2025-11-25") and version in HANDSHAKE_VERSIONS:  # 2026-07-28 has no event ids
                self.log.add(None, retry=RETRY_MS)  # the priming event
        return self.log

    def notify(self, msg: dict) -> None:
        if self.sse_ok:  # a client that reads only JSON cannot get notifications here
            self._open().add(msg)

    def request(self, msg: dict) -> dict:
        if not self.sse_ok:
            raise MCPError(INVALID_REQUEST, "The client accepts only JSON, so the server cannot ask it anything")
        return self.channel.ask(msg, lambda: self._open().add(msg))

    def close_stream(self) -> None:
        """End the HTTP response now (SEP-1699); what follows waits for a GET with Last-Event-ID."""
        log = self._open()
        with log.cond:
            log.writer = None
        self.handler.end_stream()

    def keep_open(self, listener: Any) -> bool:
        """Hold a ``subscriptions/listen`` stream open until ``listener.ended`` is set, the client
        goes away, the server closes or ``stream_timeout`` passes. True when the client is still
        there, so the server owes it the closing reply; False when it left (its cancellation)."""
        app = self.handler.server.app
        log = self._open()
        started = quiet = time.monotonic()
        while not listener.ended.wait(0.25):
            if log.writer is None or peer_closed(self.handler.connection):
                return False
            now = time.monotonic()
            if app.closing or now - started >= app.stream_timeout:
                return True
            if now - quiet >= KEEPALIVE_S:
                log.comment()
                quiet = now
        return listener.graceful

    def finish(self, reply: dict | None) -> bool:
        """Send the reply on the stream; False when no stream was opened (reply as JSON)."""
        if self.log is None:
            return False
        if reply is not None:
            self.log.add(reply)
        self.log.finish()
        return True


class SessionChannel:
    """A session's streams, its standalone GET stream, and the requests awaiting the client.

    It is also the session server's :attr:`~toolkit.mcp.server.MCPServer.outbox`: messages that
    belong to no request go to the standalone stream.

    Shown in section 8, "Streamable HTTP, in one place".
    Notebook 06, through mcp.StreamableHTTPServer.
    """

    def __init__(self, server: Any, timeout: float = 60.0) -> None:
        self.server = server
        self.timeout = timeout
        self.streams: collections.OrderedDict[str, StreamLog] = collections.OrderedDict()
        self.standalone = StreamLog()
        self.standalone_open = False
        self.standalone_seen = 0  # events of the standalone stream already delivered
        self.pending: dict[Any, dict] = {}
        self.lock = threading.Lock()
        self.closed = False

    def version(self) -> str | None:
        return self.server.protocol_version

    def new_stream(self) -> StreamLog:
        log = StreamLog(ids=self.version() not in STATELESS_VERSIONS)
        with self.lock:
            self.streams[log.id] = log
            while len(self.streams) > 32:
                self.streams.popitem(last=False)
        return log

    def find(self, last_event_id: str) -> tuple[StreamLog, int] | None:
        stream_id, _, number = last_event_id.rpartition(":")
        log = self.standalone if stream_id == self.standalone.id else self.streams.get(stream_id)
        return (log, int(number)) if log is not None and number.isdigit() else None

    def ask(self, msg: dict, send: Any) -> dict:
        """Send a request to the client (with ``send``) and wait for its reply by POST."""
        slot: dict = {"event": threading.Event()}
        with self.lock:
            self.pending[msg["id"]] = slot
        send()
        answered = slot["event"].wait(self.timeout)
        with self.lock:
            self.pending.pop(msg["id"], None)
        if not answered or "reply" not in slot:
            raise MCPError(CONNECTION_CLOSED, f"The client did not answer {msg['method']} within {self.timeout:g} s")
        return slot["reply"]

    def deliver(self, reply: dict) -> bool:
        """A reply the client POSTed: hand it to the request waiting for it; False if none is."""
        if not valid_id(reply.get("id")):
            return False
        with self.lock:
            slot = self.pending.get(reply.get("id"))
        if slot is None:
            return False
        slot["reply"] = reply
        slot["event"].set()
        return True

    def notify(self, msg: dict) -> None:
        self.standalone.add(msg)

    def request(self, msg: dict) -> dict:
        return self.ask(msg, lambda: self.standalone.add(msg))

    def close(self) -> None:
        self.closed = True
        for log in [self.standalone, *self.streams.values()]:
            log.finish()
        with self.lock:
            for slot in self.pending.values():
                slot["event"].set()


def peer_closed(connection: socket.socket) -> bool:
    """Has the client closed ``connection``? Its request was read whole, so the socket turning
    readable with nothing to read means it hung up."""
    try:
        readable, _, _ = select.select([connection], [], [], 0)
        return bool(readable) and connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def shut_write(connection: socket.socket) -> None:
    """End what the server sends on ``connection`` (the client sees the body end)."""
    try:
        connection.shutdown(socket.SHUT_WR)
    except OSError:
        pass
