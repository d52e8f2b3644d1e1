"""JSON-RPC 2.0 as MCP uses it: message shapes, error codes, and one-line encoding.

Pack §2.6 ("Messages: JSON-RPC 2.0"): requests carry a method and an id that is a string or
an integer (never null, never reused); responses carry the same id and exactly one of
``result`` or ``error``; notifications have no id and get no reply.
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

# The pack pins 2025-06-18; the revisions the toolkit speaks, and what differs between them,
# live in revisions.py.
from .revisions import PROTOCOL_VERSION, SUPPORTED_VERSIONS

__all__ = [
    "PROTOCOL_VERSION",
    "SUPPORTED_VERSIONS",
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "CONNECTION_CLOSED",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "HEADER_MISMATCH",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "MODERN_ERRORS",
    "MCPError",
    "encode_line",
    "decode_line",
    "error_response",
    "result_response",
    "valid_id",
    "is_response",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
CONNECTION_CLOSED = -32000  # the same code the official SDK uses when a transport closes
# The codes revision 2026-07-28 defines (schema/2026-07-28/schema.ts:434-450). Each marks a
# modern server: a dual-era client that gets one does not fall back to initialize.
HEADER_MISMATCH = -32020  # an HTTP header disagrees with the body, or a required one is missing
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021  # data.requiredCapabilities: what the client lacks
# The request names a protocol version the server does not implement; ``data`` lists the ones
# it does (``supported``, ``requested``; basic/versioning).
UNSUPPORTED_PROTOCOL_VERSION = -32022
MODERN_ERRORS = (HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION)


class MCPError(Exception):
    """A JSON-RPC error: an integer ``code``, a ``message`` and optional ``data``.

    Notebook 06.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.code = code
        self.message = message
        self.data = data

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"

    def to_error(self) -> dict:
        err = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


def valid_id(value: Any) -> bool:
    """MCP ids are strings or integers; null, booleans and floats are not allowed.

    Notebook 06, through MCPServer.
    """
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def is_response(msg: Any) -> bool:
    """Is the message a reply (a result or an error, no method) rather than a request?

    Notebook 06, through MCPServer.
    """
    return isinstance(msg, dict) and "method" not in msg and ("result" in msg or "error" in msg)


def error_response(id_: Any, code: int, message: str, data: Any = None) -> dict:
    """A JSON-RPC 2.0 error reply; an id that is not valid is sent back as null.

    Notebook 06, through MCPServer.
    """
    err: dict = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": id_ if valid_id(id_) else None, "error": err}


def result_response(id_: Any, result: dict) -> dict:
    """A JSON-RPC 2.0 success reply carrying ``result``.

    Notebook 06, through MCPServer.
    """
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def encode_line(msg: Any) -> str:
    """Compact JSON and one newline. JSON escapes newlines inside strings, so the only
    newline is the last character, as the stdio transport requires (pack §2.6).

    Notebook 06, through InMemoryTransport.
    """
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=True, allow_nan=False) + "\n"


def decode_line(line: str | bytes) -> Any:
    """Parse one line of JSON strictly; raises ``MCPError(PARSE_ERROR)`` for anything else.

    Not UTF-8, NaN/Infinity literals, nesting too deep for the parser, and integers too long
    for Python to convert all become parse errors rather than exceptions of other kinds.

    Notebook 06, through StdioTransport.
    """
    if isinstance(line, (bytes, bytearray)):
        try:
            line = bytes(line).decode("utf-8")
        except UnicodeDecodeError:
            raise MCPError(PARSE_ERROR, "Parse error: the line is not valid UTF-8") from None
    try:
        return json.loads(line, parse_constant=_reject_constant)
    except RecursionError:
        raise MCPError(PARSE_ERROR, "Parse error: the JSON is nested too deeply") from None
    except (ValueError, TypeError) as exc:
        raise MCPError(PARSE_ERROR, f"Parse error: {_first_line(exc)}") from None


def _first_line(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:200]
