"""``subscriptions/listen``: the one long-lived notification stream of revision 2026-07-28
(pack §2.6).

Read for this module: docs/specification/2026-07-28/basic/patterns/subscriptions.mdx and
schema/2026-07-28/schema.ts (``SubscriptionFilter`` line 1270, ``SubscriptionsListenRequest``
1314, ``SubscriptionsListenResult`` 1349, ``SubscriptionsAcknowledgedNotification`` 1398,
``NotificationMetaObject`` 120, ``CancelledNotification`` 637) in the specification
repository, modelcontextprotocol/modelcontextprotocol (lines as of commit b0f60ba, 2026-08-22).
What it says, and what this does:

- The client sends ``subscriptions/listen`` with ``params.notifications``, a filter: booleans
  ``toolsListChanged``, ``promptsListChanged``, ``resourcesListChanged`` and a list of URIs
  ``resourceSubscriptions`` (it replaces ``resources/subscribe`` and the HTTP GET stream). A
  filter of the wrong shape is -32602 here (the schema types each field; the page names no code).
- The server's first message on the stream is ``notifications/subscriptions/acknowledged``,
  holding the part of the filter it will honour (kinds it does not offer are left out); then
  only the kinds asked for. Every message on the stream carries the listen request's id in
  ``_meta["io.modelcontextprotocol/subscriptionId"]``.
- The stream ends when the client cancels (HTTP: closes the SSE stream; stdio:
  ``notifications/cancelled`` with the listen's id), with no reply; when the transport closes;
  or when the server ends it, which it SHOULD do with a reply to the listen request:
  ``{"resultType": "complete", "_meta": {subscriptionId: id}}`` (Graceful Closure). The pages
  differ on what else a server sends then: basic/patterns/cancellation.mdx (lines 11-13) makes
  ``notifications/cancelled`` with the listen's id a MUST, and the schema narrows that to stdio
  (schema.ts line 637: "On stdio, the server also sends this notification, solely to terminate
  a subscriptions/listen stream"). Following the schema: on stdio (and in memory) the closing
  reply is followed by that notification; on HTTP the reply is the stream's last event.

:class:`Subscriptions` is the server's list of open streams; :class:`ModernServer
<toolkit.mcp.modern.ModernServer>` opens them and publishes changes to them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .protocol import INVALID_PARAMS, MCPError

__all__ = ["Subscriptions", "Listener", "read_filter", "SUBSCRIPTION_ID_KEY"]

SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"
LIST_FLAGS = {
    "toolsListChanged": "notifications/tools/list_changed",
    "promptsListChanged": "notifications/prompts/list_changed",
    "resourcesListChanged": "notifications/resources/list_changed",
}
UPDATED = "notifications/resources/updated"


def read_filter(params: dict) -> dict:
    """The ``notifications`` filter of a listen request, checked; -32602 if it is malformed.

    Keys the schema does not define are ignored (an extension may add its own).

    Shown in section 7, "2026-07-28: no handshake".
    Notebook 06, through mcp.ModernServer.
    """
    wanted = params.get("notifications")
    if not isinstance(wanted, dict):
        raise MCPError(INVALID_PARAMS, "Invalid params: subscriptions/listen needs 'notifications', an object")
    out: dict = {}
    for flag in LIST_FLAGS:
        if flag in wanted:
            if not isinstance(wanted[flag], bool):
                raise MCPError(INVALID_PARAMS, f"Invalid params: notifications.{flag} must be true or false")
            if wanted[flag]:
                out[flag] = True
    if "resourceSubscriptions" in wanted:
        uris = wanted["resourceSubscriptions"]
        if not isinstance(uris, list) or not all(isinstance(u, str) for u in uris):
            raise MCPError(INVALID_PARAMS, "Invalid params: notifications.resourceSubscriptions must be a list of URIs")
        out["resourceSubscriptions"] = list(dict.fromkeys(uris))
    return out


class Listener:
    """One open ``subscriptions/listen`` stream: its request ``id``, the ``honoured`` filter,
    and ``send``, which puts a message on the stream (the transport's outbox).

    Shown in section 7, "2026-07-28: no handshake".
    Notebook 06, through mcp.ModernServer.
    """

    def __init__(self, request_id: Any, honoured: dict, send: Callable[[dict], None], owner: object) -> None:
        self.id = request_id
        self.honoured = honoured
        self.send = send
        self.owner = owner  # the server (one per stdio connection, one per HTTP request)
        self.ended = threading.Event()
        self.graceful = False  # the server ended it and owes the client the closing reply
        self.held = False  # a transport thread waits on it and sends that reply (HTTP)

    def wants(self, method: str, uri: str | None) -> bool:
        if method == UPDATED:
            return uri in self.honoured.get("resourceSubscriptions", ())
        return any(self.honoured.get(flag) for flag, m in LIST_FLAGS.items() if m == method)

    def deliver(self, method: str, params: dict) -> None:
        meta = {**params.get("_meta", {}), SUBSCRIPTION_ID_KEY: self.id}
        self.send({"jsonrpc": "2.0", "method": method, "params": {**params, "_meta": meta}})

    def closing_reply(self) -> dict:
        """The listen request's result when the server ends the stream (Graceful Closure)."""
        return {"resultType": "complete", "_meta": {SUBSCRIPTION_ID_KEY: self.id}}


class Subscriptions:
    """The open listen streams of one server, or of every server a factory makes (share one
    instance between them, as Streamable HTTP must: there each request gets a fresh server).

    Shown in section 7, "2026-07-28: no handshake".
    Notebook 06, through mcp.ModernServer.
    """

    def __init__(self) -> None:
        self._open: list[Listener] = []
        self._lock = threading.Lock()

    def open(self, request_id: Any, honoured: dict, send: Callable[[dict], None], owner: object) -> Listener:
        """Acknowledge first, then register: nothing reaches the stream before the ack."""
        listener = Listener(request_id, honoured, send, owner)
        with self._lock:
            listener.deliver("notifications/subscriptions/acknowledged", {"notifications": honoured})
            self._open.append(listener)
        return listener

    def publish(self, method: str, params: dict | None = None) -> int:
        """Send ``method`` to every stream that asked for it; returns how many got it. A stream
        whose transport fails is closed (its client went away)."""
        params = params or {}
        sent = 0
        with self._lock:
            for listener in list(self._open):
                if listener.wants(method, params.get("uri")):
                    try:
                        listener.deliver(method, params)
                        sent += 1
                    except (OSError, ValueError, MCPError):
                        self._drop(listener)
        return sent

    def cancel(self, owner: object, request_id: Any) -> bool:
        """The client cancelled the listen ``request_id`` it opened through ``owner``: no reply."""
        with self._lock:
            for listener in self._open:
                if listener.owner is owner and listener.id == request_id:
                    self._drop(listener)
                    return True
        return False

    def end(self, owner: object | None = None, graceful: bool = True) -> int:
        """End the streams opened through ``owner`` (None: all). ``graceful``: the server is
        ending them, so each gets its closing reply; otherwise the transport is gone."""
        with self._lock:
            ending = [s for s in self._open if owner is None or s.owner is owner]
            for listener in ending:
                listener.graceful = graceful
                self._drop(listener)
                if graceful and not listener.held:  # stdio, in memory: the reply goes out now
                    reply = {"jsonrpc": "2.0", "id": listener.id, "result": listener.closing_reply()}
                    ended = {"requestId": listener.id, "reason": "the server ended the subscription"}
                    try:
                        listener.send(reply)
                        listener.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": ended})
                    except (OSError, ValueError, MCPError):
                        pass  # the client is gone already
        return len(ending)

    def remove(self, listener: Listener) -> None:
        with self._lock:
            self._drop(listener)

    def count(self) -> int:
        with self._lock:
            return len(self._open)

    def _drop(self, listener: Listener) -> None:
        if listener in self._open:
            self._open.remove(listener)
        listener.ended.set()
