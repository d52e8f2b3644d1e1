"""The client's side of server-to-client messages: notifications kept, requests answered.

Pack §2.6. A server may ask its client things in the middle of a request: ``ping``,
``elicitation/create`` (ask the user to fill in a small form; 2025-06-18 client/elicitation)
and ``sampling/createMessage`` (ask the host's model; deprecated from 2026-07-28). The host
supplies the answers as callbacks; a client declares only the capabilities it has callbacks
for, and refuses the rest with -32601. Form defaults the user left alone are filled in from
the schema before the answer goes back (SEP-1034, 2025-11-25).
"""

from __future__ import annotations

from collections.abc import Callable

from .protocol import INTERNAL_ERROR, METHOD_NOT_FOUND, MCPError, error_response, result_response

__all__ = ["ServerRequests", "with_defaults"]


def with_defaults(content: dict, schema: dict) -> dict:
    """``content`` with each property's ``default`` from ``schema`` where the user gave none.

    Shown in section 5, "A tool that asks for the missing city".
    Notebook 06.
    """
    out = dict(content)
    properties = schema.get("properties") if isinstance(schema, dict) else None
    for name, spec in (properties or {}).items():
        if name not in out and isinstance(spec, dict) and "default" in spec:
            out[name] = spec["default"]
    return out


class ServerRequests:
    """Answers what a server sends the client; ``notifications`` keeps every notification.

    ``on_elicit(message, requested_schema)`` returns ``{"action": "accept", "content": {...}}``
    (or ``decline``/``cancel``); ``on_sample(params)`` returns a sampling result (``role``,
    ``content``, ``model``).

    Shown in section 5, "A tool that asks for the missing city".
    Notebook 06, through mcp.MCPClient.
    """

    def __init__(self, on_elicit: Callable | None = None, on_sample: Callable | None = None) -> None:
        self.on_elicit = on_elicit
        self.on_sample = on_sample
        self.notifications: list[dict] = []

    def capabilities(self) -> dict:
        caps: dict = {}
        if self.on_elicit is not None:
            caps["elicitation"] = {"form": {}}  # form mode (2025-11-25 schema.ts:341); no invented keys
        if self.on_sample is not None:
            caps["sampling"] = {}
        return caps

    def answer(self, msg: dict) -> dict | None:
        """The reply to a server request, or None for a notification (which is kept)."""
        if "id" not in msg:
            self.notifications.append(msg)
            return None
        method, params = msg.get("method"), msg.get("params") or {}
        try:
            if method == "ping":
                return result_response(msg["id"], {})
            if method == "elicitation/create" and self.on_elicit is not None:
                return result_response(msg["id"], self._elicit(params))
            if method == "sampling/createMessage" and self.on_sample is not None:
                return result_response(msg["id"], self.on_sample(params))
        except MCPError as exc:
            return error_response(msg["id"], exc.code, exc.message, exc.data)
        except Exception as exc:  # the host's callback failed: the server hears an error, not silence
            return error_response(msg["id"], INTERNAL_ERROR, f"Internal error in the client: {type(exc).__name__}")
        return error_response(msg["id"], METHOD_NOT_FOUND, f"Method not found: this client does not offer {method!r}")

    def _elicit(self, params: dict) -> dict:
        assert self.on_elicit is not None
        schema = params.get("requestedSchema") or {}
        answer = dict(self.on_elicit(str(params.get("message", "")), schema))
        if answer.get("action") == "accept":
            answer["content"] = with_defaults(answer.get("content") or {}, schema)
        return answer
