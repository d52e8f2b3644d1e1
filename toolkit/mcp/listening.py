"""The client's end of a 2026-07-28 ``subscriptions/listen`` stream (pack §2.6).

:meth:`MCPClient.listen <toolkit.mcp.client.MCPClient.listen>` sends the request and returns a
:class:`ListenStream` once the server has acknowledged it. Messages tagged with the stream's
id (``_meta["io.modelcontextprotocol/subscriptionId"]``, which the client MUST use to tell
streams apart on stdio) land in :attr:`ListenStream.notifications`; a reply to the listen
request means the server ended the stream (a result: gracefully) or refused it (an error).
:meth:`ListenStream.close` is the client's cancellation: the transport closes the SSE stream
(HTTP) or sends ``notifications/cancelled`` (in memory, stdio). Specification:
docs/specification/2026-07-28/basic/patterns/subscriptions.mdx.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from .protocol import CONNECTION_CLOSED, INVALID_REQUEST, MCPError
from .subscriptions import SUBSCRIPTION_ID_KEY

__all__ = ["ListenStream"]

ACKNOWLEDGED = "notifications/subscriptions/acknowledged"


def cancel_notice(request_id: Any) -> dict:
    """The client's cancellation of the listen ``request_id`` where no SSE stream can be
    closed (in memory, stdio): ``notifications/cancelled`` naming it."""
    note = {"requestId": request_id, "reason": "the client closed the stream"}
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": note}


class ListenStream:
    """One listen stream as the client sees it: ``id``, the filter ``requested``, the one the
    server ``acknowledged``, the ``notifications`` that came since, and how it ended.

    Shown in section 7, "2026-07-28: no handshake".
    Notebook 06, through mcp.MCPClient.
    """

    def __init__(self, request_id: Any, requested: dict) -> None:
        self.id = request_id
        self.requested = requested
        self.acknowledged: dict | None = None
        self.notifications: list[dict] = []
        self.reply: dict | None = None  # the server's reply to the listen request, if any
        self.ended = False
        self.closer: Callable[[], None] = lambda: None  # set by the transport that opened it
        self.pump: Callable[[float], None] | None = None  # stdio: read the pipe while waiting
        self._seen = 0  # notifications already handed out by next()
        self._cond = threading.Condition()

    def receive(self, msg: dict) -> bool:
        """Take ``msg`` if it belongs to this stream (its tag, or the reply to its id)."""
        if "method" not in msg:
            if msg.get("id") != self.id:
                return False
            self.end(msg)
            return True
        params: dict = msg["params"] if isinstance(msg.get("params"), dict) else {}
        meta: dict = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
        if meta.get(SUBSCRIPTION_ID_KEY) != self.id:
            return False
        with self._cond:
            if msg["method"] == ACKNOWLEDGED:
                self.acknowledged = params.get("notifications") or {}
            else:
                self.notifications.append(msg)
            self._cond.notify_all()
        return True

    def end(self, reply: dict | None) -> None:
        """The stream is over: ``reply`` is the server's reply to the listen, or None."""
        with self._cond:
            if not self.ended:
                self.ended, self.reply = True, reply
            self._cond.notify_all()

    @property
    def graceful(self) -> bool:
        """True if the server ended the stream with its closing result (not a dropped line)."""
        return isinstance(self.reply, dict) and isinstance(self.reply.get("result"), dict)

    def wait_acknowledged(self, timeout: float = 10.0) -> dict:
        """The acknowledged filter; MCPError if the server refused the listen or stayed silent."""
        self._wait(lambda: self.acknowledged is not None or self.ended, timeout)
        if self.acknowledged is not None:
            return self.acknowledged
        err = (self.reply or {}).get("error")
        if isinstance(err, dict):
            raise MCPError(err.get("code", INVALID_REQUEST), str(err.get("message", "error")), err.get("data"))
        raise MCPError(CONNECTION_CLOSED, f"subscriptions/listen was not acknowledged within {timeout:g} s")

    def next(self, timeout: float = 10.0) -> dict:
        """The next notification on the stream; MCPError if none comes within ``timeout``."""
        self._wait(lambda: len(self.notifications) > self._seen or self.ended, timeout)
        with self._cond:
            if len(self.notifications) > self._seen:
                self._seen += 1
                return self.notifications[self._seen - 1]
        state = "the stream ended" if self.ended else f"nothing came within {timeout:g} s"
        raise MCPError(CONNECTION_CLOSED, f"No notification on listen stream {self.id!r}: {state}")

    def wait_ended(self, timeout: float = 10.0) -> bool:
        """Wait for the stream to end; True if it did."""
        self._wait(lambda: self.ended, timeout)
        return self.ended

    def close(self) -> None:
        """Cancel the stream (the client's side of "Cancellation"); no reply is expected."""
        if not self.ended:
            self.closer()
            self.end(None)

    def _wait(self, done: Callable[[], bool], timeout: float) -> None:
        end = time.monotonic() + timeout
        while not done() and time.monotonic() < end:
            left = min(0.25, max(0.0, end - time.monotonic()))
            if self.pump is not None:  # nobody else reads a stdio pipe: read it here
                try:
                    self.pump(left)
                except MCPError:
                    self.end(None)  # the server went away
            else:
                with self._cond:
                    if not done():
                        self._cond.wait(left)
