"""What a request handler can send back to the client while it works (pack §2.6, utilities).

A server answers each request once, but before that answer it may send the client
notifications (``notifications/progress``, ``notifications/message`` log lines) and requests
of its own (``elicitation/create`` to ask the user, ``sampling/createMessage`` to ask the
client's model, ``roots/list``). Where those go depends on the transport, so the transport
hands the server an *outbox*: stdio writes them as lines, Streamable HTTP turns the POST's
answer into an SSE stream, the in-memory transport calls the client directly.
:class:`RequestContext` is the handler's side of that outbox, one per request.
"""

from __future__ import annotations

import itertools
from typing import Any, Protocol

from .logs import check_level, is_shown
from .protocol import INVALID_REQUEST, MCPError

__all__ = ["Outbox", "RequestContext", "InputRequired", "question"]

_SERVER_IDS = itertools.count(1)


class _Session(Protocol):
    """What a request's context reads of its server (an MCPServer; named by shape, so this
    module and the server's do not import each other)."""

    log_level: str | None
    client_capabilities: dict | None


class Outbox(Protocol):
    """Where a transport carries the server's own messages: ``notify`` sends a notification;
    ``request`` sends a request and returns the client's reply message (result or error).

    Shown in section 5, "Every content type, progress and logs".
    Notebook 06, through mcp.InMemoryTransport.
    """

    def notify(self, msg: dict) -> None: ...

    def request(self, msg: dict) -> dict: ...


def question(method: str, params: dict, capability: str | None = None) -> tuple:
    """One question for :meth:`RequestContext.ask_each`: ``(method, params, capability)``.

    Used by: tests/conformance/server.py.
    """
    return (method, params, capability)


def _elicit_question(message: str, schema: dict) -> tuple:
    return question("elicitation/create", {"message": message, "requestedSchema": schema}, "elicitation")


def _sample_question(prompt: str, max_tokens: int = 100) -> tuple:
    messages = [{"role": "user", "content": {"type": "text", "text": prompt}}]
    return question("sampling/createMessage", {"messages": messages, "maxTokens": max_tokens}, "sampling")


class InputRequired(Exception):
    """Raised by a 2026-07-28 context that needs the client's input first: the request ends
    with ``resultType: "input_required"`` and these ``inputRequests`` (see modern.py).

    Shown in section 7, "2026-07-28: no handshake".
    Notebook 06, through mcp.ModernServer.
    """

    def __init__(self, requests: dict) -> None:
        super().__init__("input required: " + ", ".join(requests))
        self.requests = requests


class RequestContext:
    """Handed to a tool (or prompt) handler: progress, logs, and questions to the client.

    Without an outbox (a transport that cannot carry them) notifications are dropped and
    requests raise :class:`MCPError`. Requests the client did not declare a capability for
    are refused before anything is sent (2025-06-18 client/elicitation, client/sampling).

    Shown in section 5, "Every content type, progress and logs".
    Notebook 06, through mcp.MCPServer.
    """

    def __init__(self, server: _Session, outbox: Outbox | None, params: dict) -> None:
        self.server = server
        self.outbox = outbox
        meta = params.get("_meta")
        self.progress_token = meta.get("progressToken") if isinstance(meta, dict) else None
        self.log_level = server.log_level  # the client's threshold; None: every level
        self.logs_on = True  # 2026-07-28: only when the request asked for logs

    def notify(self, method: str, params: dict) -> None:
        if self.outbox is not None:
            self.outbox.notify({"jsonrpc": "2.0", "method": method, "params": params})

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """``notifications/progress``, only when the request asked for it (``_meta.progressToken``)."""
        if self.progress_token is None:
            return
        params: dict = {"progressToken": self.progress_token, "progress": done}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        self.notify("notifications/progress", params)

    def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """A log line for the client, if the level passes the one it set with logging/setLevel."""
        if self.logs_on and is_shown(check_level(level), self.log_level):
            params = {"level": level, "data": data, **({"logger": logger} if logger else {})}
            self.notify("notifications/message", params)

    def ask(self, method: str, params: dict, capability: str | None = None, *, key: str | None = None) -> dict:
        """Send the client a request and return its result; its error becomes MCPError.
        ``key`` names the question in a 2026-07-28 ``inputRequests`` map (unused here)."""
        if capability and capability not in (self.server.client_capabilities or {}):
            raise MCPError(INVALID_REQUEST, f"The client did not declare the {capability!r} capability")
        if self.outbox is None:
            raise MCPError(INVALID_REQUEST, "This transport cannot carry requests to the client")
        reply = self.outbox.request({"jsonrpc": "2.0", "id": next(_SERVER_IDS), "method": method, "params": params})
        if "error" in reply:
            err = reply["error"] if isinstance(reply["error"], dict) else {}
            raise MCPError(err.get("code", INVALID_REQUEST), str(err.get("message", "error")), err.get("data"))
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    def ask_each(self, questions: dict[str, tuple]) -> dict[str, dict]:
        """Several questions at once, ``{key: (method, params, capability)}`` (see
        :func:`question`); returns ``{key: result}``. Here they go one after another; a
        2026-07-28 context sends them in one ``inputRequests`` map."""
        return {key: self.ask(*asked, key=key) for key, asked in questions.items()}

    def elicit(self, message: str, schema: dict, *, key: str | None = None) -> dict:
        """Ask the user, through the client, for values that fit the flat ``schema``: the
        reply has ``action`` (accept, decline or cancel) and, on accept, ``content``."""
        return self.ask(*_elicit_question(message, schema), key=key)

    def sample(self, prompt: str, max_tokens: int = 100, *, key: str | None = None) -> dict:
        """Ask the client's model for a completion (deprecated from 2026-07-28)."""
        return self.ask(*_sample_question(prompt, max_tokens), key=key)

    def list_roots(self, *, key: str | None = None) -> list[dict]:
        """The client's roots (``roots/list``): the directories or URIs it lets the server see."""
        roots = self.ask("roots/list", {}, "roots", key=key).get("roots")
        return [r for r in roots if isinstance(r, dict)] if isinstance(roots, list) else []

    def close_stream(self) -> None:
        """End the HTTP response stream now; the client resumes with Last-Event-ID (SEP-1699)."""
        close = getattr(self.outbox, "close_stream", None)
        if close is not None:
            close()
