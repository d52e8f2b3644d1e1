"""Log messages from server to client: ``logging/setLevel`` and ``notifications/message``.

Pack §2.6 (utilities). The eight levels are syslog's (RFC 5424), least severe first. A client
that sent ``logging/setLevel`` gets messages at that level and above; until it does, the
server sends every level (the 2025-06-18 logging page leaves the default to the server).
"""

from __future__ import annotations

from .protocol import INVALID_PARAMS, MCPError

__all__ = ["LEVELS", "check_level", "is_shown"]

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def check_level(level: object) -> str:
    """``level`` if it is one of :data:`LEVELS`, else -32602 naming them.

    Shown in section 5, "Every content type, progress and logs".
    Notebook 06, through mcp.MCPServer.
    """
    if level not in LEVELS:
        raise MCPError(INVALID_PARAMS, f"Invalid params: level must be one of {', '.join(LEVELS)} (got {level!r})")
    assert isinstance(level, str)
    return level


def is_shown(level: str, threshold: str | None) -> bool:
    """Does a message at ``level`` pass the client's ``threshold`` (None: nothing set yet)?

    Used by: toolkit/mcp/context.py.
    """
    return threshold is None or LEVELS.index(level) >= LEVELS.index(threshold)
