"""The client side of Streamable HTTP, on :mod:`urllib` (pack §2.6, "Transports").

:class:`HTTPTransport` has the same ``send``/``close`` shape as the in-memory and stdio
transports, so :class:`~toolkit.mcp.client.MCPClient` works over it unchanged. It does what
the 2025-06-18 transport page asks of a client: one POST per message with ``Accept:
application/json, text/event-stream``; it keeps the ``Mcp-Session-Id`` that initialize
returned and sends it back, with the negotiated ``MCP-Protocol-Version``, on every later
request; it reads a reply sent as JSON or as an SSE stream; and ``close`` ends the session
with DELETE. With ``token`` it sends ``Authorization: Bearer <token>`` on every request, as
the toolkit's server asks by default. Besides the message ``log`` it keeps ``http_log``: one
line per HTTP exchange, so a lesson can show the headers that carry the session and the
version (never the token). With ``auth`` (an :class:`~toolkit.mcp.auth.OAuth`) it gets a
token when the server answers 401 or 403 and sends the request again (MCP authorization,
2025-06-18 and later).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

from ..auth import AuthorizationFailed, OAuthError
from ..meta import header_value, param_headers, param_text, param_value
from ..protocol import (
    CONNECTION_CLOSED,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MCPError,
    decode_line,
    encode_line,
    error_response,
)
from ..revisions import META_VERSION_KEY

__all__ = ["HTTPTransport"]


class HTTPTransport:
    """Sends MCP messages to a Streamable HTTP endpoint such as ``http://127.0.0.1:8765/mcp``.

    ``token`` is the bearer token the server printed at start (or ``app.token`` for a server
    started in Python); ``headers`` adds any other headers to every request. With ``listen``
    the transport opens the session's GET stream once the handshake is done (:meth:`listen`).

    Notebook 06.
    """

    def __init__(
        self,
        url: str,
        timeout: float = 30.0,
        headers: dict | None = None,
        token: str | None = None,
        listen: bool = False,
        auth: Any = None,
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.extra_headers = dict(headers or {})
        if token:
            self.extra_headers["Authorization"] = f"Bearer {token}"
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.log: list[tuple[str, Any]] = []
        self.http_log: list[str] = []
        self.closed = False
        self.on_message: Callable[[dict], dict | None] | None = None  # set by MCPClient
        self.retry_ms = 1000  # how long to wait before reconnecting, until the server says
        self.auto_listen = listen
        self.max_reconnects = 5
        self.param_marks: dict[str, dict] = {}  # 2026-07-28: tool name -> {header: property path}
        self.auth = auth  # an OAuth (toolkit.mcp.auth): credentials asked for on 401/403
        # Straight to the address given: no proxies from the environment for a local server.
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def _headers(self, is_init: bool = False) -> dict:
        headers = {"Accept": "application/json, text/event-stream", **self.extra_headers}
        if self.auth is not None:
            headers.update(self.auth.headers())
        if self.session_id and not is_init:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version and not is_init:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    def send(self, msg: dict) -> dict | None:
        if self.closed:
            raise MCPError(CONNECTION_CLOSED, "Connection closed: the transport was closed")
        is_init = msg.get("method") == "initialize"
        self.log.append(("->", msg))
        if self.auth is not None:
            self.auth.new_request()
        while True:
            headers = {"Content-Type": "application/json", **self._headers(is_init), **self._modern_headers(msg)}
            status, reply_headers, body = self._exchange("POST", encode_line(msg).encode("ascii"), headers, stream=True)
            if status not in (401, 403) or self.auth is None:
                break
            try:
                if not self.auth.challenge(status, reply_headers.get("WWW-Authenticate")):
                    break
            except OAuthError as exc:
                raise AuthorizationFailed(str(exc)) from None
        if status == 403 and self.auth is not None:
            raise MCPError(INVALID_REQUEST, f"HTTP 403 from {self.url}: the server refused this client's token")
        if status == 401:
            raise MCPError(
                INVALID_REQUEST,
                f"HTTP 401 from {self.url}: the server wants a bearer token; "
                + (
                    "the one given does not match"
                    if "Authorization" in headers
                    else "pass the one it printed at start as HTTPTransport(url, token=...)"
                ),
            )
        if is_init and status == 200:
            self.session_id = reply_headers.get("Mcp-Session-Id")
        if isinstance(body, bytes):
            reply = self._parse(reply_headers.get("Content-Type", ""), body, msg.get("id"))
        else:
            reply = self._follow(body, msg.get("id"))
        if reply is not None:
            self.log.append(("<-", reply))
        if is_init and status == 200 and isinstance(reply, dict) and isinstance(reply.get("result"), dict):
            self.protocol_version = reply["result"].get("protocolVersion")
        if msg.get("method") == "tools/list" and "MCP-Protocol-Version" in self._modern_headers(msg):
            self._keep_marks(reply)
        if msg.get("method") == "notifications/initialized" and self.auto_listen and status < 400:
            self.listen()  # the session's GET stream, for what the server sends outside a request
        if "id" not in msg:
            if status >= 400:
                detail = reply["error"].get("message") if isinstance(reply, dict) and "error" in reply else ""
                raise MCPError(INVALID_REQUEST, f"HTTP {status}: the server refused the message. {detail}".strip())
            return None
        if reply is None:
            raise MCPError(CONNECTION_CLOSED, f"HTTP {status} came back without a JSON-RPC reply")
        return reply

    def _exchange(self, method: str, data: bytes | None, headers: dict, stream: bool = False) -> tuple[int, Any, Any]:
        """One HTTP request: status, headers and the body; with ``stream``, an SSE answer comes
        back as the open response, to be read event by event."""
        request = urllib.request.Request(self.url, data=data, headers=headers, method=method)
        try:
            response = self._opener.open(request, timeout=self.timeout)
            status, reply_headers = response.status, response.headers
            if stream and reply_headers.get("Content-Type", "").lower().startswith("text/event-stream"):
                body = response
            else:
                with response:
                    body = response.read()
        except urllib.error.HTTPError as exc:  # 4xx/5xx still carry headers and a body
            status, reply_headers, body = exc.code, exc.headers, exc.read()
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise MCPError(CONNECTION_CLOSED, f"Cannot reach {self.url}: {reason}") from None
        shown = [f"{method} -> {status}"]
        for name in ("Mcp-Session-Id", "MCP-Protocol-Version"):
            if name in headers:
                shown.append(f"sent {name}: {headers[name]}")
        if reply_headers.get("Mcp-Session-Id"):
            shown.append(f"got Mcp-Session-Id: {reply_headers['Mcp-Session-Id']}")
        self.http_log.append("; ".join(shown))
        return status, reply_headers, body

    def _follow(self, response: Any, request_id: Any) -> dict | None:
        """Read an SSE answer until the reply to ``request_id``, answering what the server asks
        on the way; if the stream ends first, wait ``retry`` ms and resume it with GET and
        ``Last-Event-ID`` (2025-11-25 transport, "Resumability and Redelivery")."""
        where: dict = {"id": None, "retry": self.retry_ms}  # this stream's last event id and retry
        for attempt in range(self.max_reconnects + 1):
            with response:
                reply = self._read_events(response, request_id, where)
            if reply is not None or where["id"] is None or attempt == self.max_reconnects:
                return reply
            time.sleep(where["retry"] / 1000)
            headers = {**self._headers(), "Last-Event-ID": where["id"]}
            status, _, response = self._exchange("GET", None, headers, stream=True)
            if isinstance(response, bytes):
                return None  # the server cannot resume this stream
        return None

    def _read_events(self, response: Any, request_id: Any, where: dict) -> dict | None:
        for event_id, retry, data in _sse_events(response):
            where["id"] = event_id or where["id"]
            where["retry"] = retry if retry is not None else where["retry"]
            try:
                message = json.loads(data) if data.strip() else None
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue  # a priming event, or something that is not a message
            if message.get("id") == request_id and "method" not in message:
                return message
            self._dispatch(message)
        return None

    def _dispatch(self, message: dict) -> None:
        """A message from the server that is not the awaited reply: kept, and answered if a
        request (the reply goes back as its own POST)."""
        self.log.append(("<-", message))
        answer = self.on_message(message) if self.on_message is not None else None
        if "id" in message and "method" in message:
            if answer is None:
                answer = error_response(message["id"], METHOD_NOT_FOUND, "Method not found")
            self.log.append(("->", answer))
            headers = {"Content-Type": "application/json", **self._headers()}
            self._exchange("POST", encode_line(answer).encode("ascii"), headers)

    def listen(self) -> threading.Thread:
        """Open the session's standalone GET stream in a background thread; what arrives there
        (``notifications/resources/updated``, say) goes to ``on_message``. Ends with the session.
        Returns once the server has answered the GET (or ``timeout`` passed), so the stream is
        open before the next request goes out, however busy the machine."""
        opened = threading.Event()

        def run() -> None:
            try:
                status, _, response = self._exchange("GET", None, self._headers(), stream=True)
                opened.set()
                if not isinstance(response, bytes):
                    with response:
                        self._read_events(response, object(), {"id": None, "retry": self.retry_ms})
            except (MCPError, OSError, ValueError):
                pass  # the stream ended: the session closed or the server went away
            finally:
                opened.set()

        listener = threading.Thread(target=run, name="mcp-get-stream", daemon=True)
        listener.start()
        opened.wait(self.timeout)
        return listener

    def open_stream(self, msg: dict, on_end: Callable[[dict | None], None]) -> Callable[[], None]:
        """POST a 2026-07-28 ``subscriptions/listen`` and read its SSE stream in a background
        thread: each message goes to ``on_message``; ``on_end`` gets the reply to the listen
        (the server ended it, or refused it) or None (the stream dropped). Returns the
        cancellation, which closes the stream ("Closing the SSE response stream is the
        cancellation signal", 2026-07-28 basic/patterns/cancellation)."""
        parts = urlsplit(self.url)
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        connection = kind(parts.hostname or "127.0.0.1", parts.port, timeout=None)
        headers = {"Content-Type": "application/json", **self._headers(), **self._modern_headers(msg)}
        self.log.append(("->", msg))
        connection.connect()  # before the thread starts, so cancelling always has a socket to close
        sock = connection.sock

        def run() -> None:
            reply = None
            try:
                connection.request("POST", parts.path or "/", encode_line(msg).encode("ascii"), headers)
                response = connection.getresponse()
                self.http_log.append(f"POST subscriptions/listen -> {response.status}")
                with response:
                    if response.headers.get("Content-Type", "").lower().startswith("text/event-stream"):
                        reply = self._read_events(response, msg["id"], {"id": None, "retry": self.retry_ms})
                    else:
                        reply = self._parse(response.headers.get("Content-Type", ""), response.read(), msg["id"])
            except (OSError, ValueError, MCPError, http.client.HTTPException):
                pass  # the stream dropped, or the client cancelled it
            finally:
                connection.close()
            if reply is not None:
                self.log.append(("<-", reply))
            on_end(reply)

        reader = threading.Thread(target=run, name="mcp-listen-stream", daemon=True)
        reader.start()

        def cancel() -> None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed
            reader.join(timeout=5)

        return cancel

    def _modern_headers(self, msg: dict) -> dict:
        """The headers a 2026-07-28 request carries, from its body: its version and method, the
        name it names (``Mcp-Name``), and for ``tools/call`` the ``Mcp-Param-*`` its tool's
        ``x-mcp-header`` marks ask for, each value Base64-encoded when it is not plain ASCII
        (streamable-http.mdx:276-297, 514-531); none for a request of the handshake revisions."""
        params: dict = msg["params"] if isinstance(msg.get("params"), dict) else {}
        meta: dict = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
        version, method = meta.get(META_VERSION_KEY), msg.get("method")
        if not isinstance(version, str):
            return {}
        headers = {"MCP-Protocol-Version": version, "Mcp-Method": str(method)}
        name = params.get("uri" if method == "resources/read" else "name")
        if method not in ("tools/call", "resources/read", "prompts/get") or not isinstance(name, str):
            return headers
        headers["Mcp-Name"] = header_value(name)
        for header, path in self.param_marks.get(name, {}).items() if method == "tools/call" else ():
            text = param_text(param_value(params.get("arguments"), path))
            if text is not None:  # no value in the body: no header (line 566)
                headers[f"Mcp-Param-{header}"] = header_value(text)
        return headers

    def _keep_marks(self, reply: Any) -> None:
        """Read a 2026-07-28 ``tools/list`` reply: keep each tool's ``x-mcp-header`` marks for its
        calls, and take out a tool whose marks break the rules, with a line in :attr:`http_log`
        saying why (streamable-http.mdx:395-403: the client MUST leave it out of the list)."""
        result = reply.get("result") if isinstance(reply, dict) else None
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            return
        kept = []
        for tool in result["tools"]:
            name = tool.get("name") if isinstance(tool, dict) else None
            try:
                if isinstance(name, str):
                    self.param_marks[name] = param_headers(tool.get("inputSchema"))
                kept.append(tool)
            except ValueError as exc:
                self.http_log.append(f"left out tool {name!r} from tools/list: {exc}")
        result["tools"] = kept

    @staticmethod
    def _parse(content_type: str, body: bytes, request_id: Any) -> Any:
        if not body.strip():
            return None
        if content_type.lower().startswith("text/event-stream"):
            return _reply_from_sse(body.decode("utf-8", "replace"), request_id)
        return decode_line(body)

    def close(self) -> None:
        """End the session (DELETE) and refuse further messages."""
        if self.closed:
            return
        self.closed = True
        if self.session_id:
            headers = {**self.extra_headers, "Mcp-Session-Id": self.session_id}
            if self.protocol_version:
                headers["MCP-Protocol-Version"] = self.protocol_version
            try:
                self._exchange("DELETE", None, headers)
            except MCPError:
                pass  # the server is gone already; nothing left to end

    def __enter__(self) -> HTTPTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _sse_events(lines: Any) -> Iterator[tuple[str | None, int | None, str]]:
    """``(id, retry, data)`` for each event of an SSE byte stream (the WHATWG format's fields;
    comments and other fields are skipped)."""
    event_id: str | None = None
    retry: int | None = None
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if not line:
            if data or event_id is not None or retry is not None:
                yield event_id, retry, "\n".join(data)
            event_id, retry, data = None, None, []
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            data.append(value)
        elif field == "id":
            event_id = value
        elif field == "retry" and value.isdigit():
            retry = int(value)
    if data:
        yield event_id, retry, "\n".join(data)


def _reply_from_sse(text: str, request_id: Any) -> Any:
    """The reply to ``request_id`` from an SSE body (events of ``data:`` lines)."""
    found = None
    for _, _, data in _sse_events(text.encode("utf-8").splitlines(keepends=True)):
        try:
            message = json.loads(data)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
            found = message
    return found
