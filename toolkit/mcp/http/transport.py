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
version (never the token).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from ..protocol import CONNECTION_CLOSED, INVALID_REQUEST, MCPError, decode_line, encode_line

__all__ = ["HTTPTransport"]


class HTTPTransport:
    """Sends MCP messages to a Streamable HTTP endpoint such as ``http://127.0.0.1:8765/mcp``.

    ``token`` is the bearer token the server printed at start (or ``app.token`` for a server
    started in Python); ``headers`` adds any other headers to every request.

    Notebook 06.
    """

    def __init__(self, url: str, timeout: float = 30.0, headers: dict | None = None, token: str | None = None) -> None:
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
        # Straight to the address given: no proxies from the environment for a local server.
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def send(self, msg: dict) -> dict | None:
        if self.closed:
            raise MCPError(CONNECTION_CLOSED, "Connection closed: the transport was closed")
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **self.extra_headers,
        }
        is_init = msg.get("method") == "initialize"
        if self.session_id and not is_init:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version and not is_init:
            headers["MCP-Protocol-Version"] = self.protocol_version
        self.log.append(("->", msg))
        status, reply_headers, body = self._exchange("POST", encode_line(msg).encode("ascii"), headers)
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
        reply = self._parse(reply_headers.get("Content-Type", ""), body, msg.get("id"))
        if reply is not None:
            self.log.append(("<-", reply))
        if is_init and status == 200 and isinstance(reply, dict) and isinstance(reply.get("result"), dict):
            self.session_id = reply_headers.get("Mcp-Session-Id")
            self.protocol_version = reply["result"].get("protocolVersion")
        if "id" not in msg:
            if status >= 400:
                detail = reply["error"].get("message") if isinstance(reply, dict) and "error" in reply else ""
                raise MCPError(INVALID_REQUEST, f"HTTP {status}: the server refused the message. {detail}".strip())
            return None
        if reply is None:
            raise MCPError(CONNECTION_CLOSED, f"HTTP {status} came back without a JSON-RPC reply")
        return reply

    def _exchange(self, method: str, data: bytes | None, headers: dict) -> tuple[int, Any, bytes]:
        request = urllib.request.Request(self.url, data=data, headers=headers, method=method)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                status, reply_headers, body = response.status, response.headers, response.read()
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


def _reply_from_sse(text: str, request_id: Any) -> Any:
    """The reply to ``request_id`` from an SSE body (events of ``data:`` lines)."""
    found = None
    for event in text.replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip(" ") for line in event.split("\n") if line.startswith("data:"))
        if not data:
            continue
        try:
            message = json.loads(data)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
            found = message
    return found
