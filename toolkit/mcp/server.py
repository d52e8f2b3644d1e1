"""A small MCP server: the lifecycle, tools/list with paging, tools/call, and the stdio loop.

Pack §2.6. The server wraps a :class:`~toolkit.registry.ToolRegistry`. It follows revision
2025-06-18 and this reading of the two kinds of error: an unknown tool or arguments that
break the schema are protocol errors (-32602, handled by the host); a failure inside the tool
is a normal result with ``isError: true``, which the model reads and can act on.
"""

from __future__ import annotations

import base64
import re
import sys
from typing import Any, Callable, Iterable

from ..registry import ToolRegistry
from ..schema import validate_args
from .protocol import (INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
                       PROTOCOL_VERSION, SUPPORTED_VERSIONS, MCPError, decode_line,
                       encode_line, error_response, is_response, result_response, valid_id)

__all__ = ["MCPServer", "serve_lines", "serve_stdio"]

_CURSOR = re.compile(r"^[0-9]{1,9}$", re.ASCII)


def _encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode()


def _decode_cursor(cursor: Any) -> int:
    if not isinstance(cursor, str):
        raise MCPError(INVALID_PARAMS, "Invalid cursor: it must be the string from a previous nextCursor")
    try:
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("ascii")
    except (ValueError, UnicodeError):
        text = ""
    prefix, _, number = text.partition(":")
    if prefix != "offset" or not _CURSOR.match(number):
        raise MCPError(INVALID_PARAMS, "Invalid cursor: it must be the string from a previous nextCursor")
    return int(number)


class MCPServer:
    """Answers MCP messages for the tools in ``registry``.

    :meth:`handle` takes one parsed message and returns the reply (a dict), or None for a
    notification. It never raises: malformed input gets a JSON-RPC error, and an unexpected
    fault inside a handler becomes -32603 with the request's id.
    """

    SUPPORTED = SUPPORTED_VERSIONS

    def __init__(self, registry: ToolRegistry, name: str = "toy-tools", version: str = "0.1.0",
                 title: str = "Toy Tools", instructions: str | None = None,
                 page_size: int | None = None) -> None:
        self.registry = registry
        self.name = name
        self.version = version
        self.title = title
        self.instructions = instructions
        self.page_size = page_size
        self.initialized = False
        self.ready = False
        self.protocol_version: str | None = None

    # -- entry point -------------------------------------------------------------------------

    def handle(self, msg: Any) -> dict | None:
        if isinstance(msg, list):
            return error_response(None, INVALID_REQUEST,
                                  "Invalid Request: batches (JSON arrays) are not supported; "
                                  "revision 2025-06-18 removed JSON-RPC batching")
        if not isinstance(msg, dict):
            return error_response(None, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
        if is_response(msg):
            return None  # this server sends no requests, so there is nothing to match it to
        has_id = "id" in msg
        id_ = msg.get("id")
        if has_id and not valid_id(id_):
            return error_response(None, INVALID_REQUEST,
                                  "Invalid Request: id must be a string or an integer (not null or a boolean)")
        if msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str):
            return error_response(id_ if has_id else None, INVALID_REQUEST, "Invalid Request")
        method = msg["method"]
        params = msg.get("params", {})
        if not has_id:
            self._notification(method, params)
            return None
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return error_response(id_, INVALID_PARAMS, "Invalid params: params must be an object")
        try:
            return result_response(id_, self._request(method, params))
        except MCPError as exc:
            return error_response(id_, exc.code, exc.message, exc.data)
        except Exception as exc:  # a bug in a handler must not kill the session
            return error_response(id_, INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")

    # -- notifications and requests ----------------------------------------------------------

    def _notification(self, method: str, params: Any) -> None:
        if method == "notifications/initialized" and self.initialized:
            self.ready = True

    def _request(self, method: str, params: dict) -> dict:
        if method == "ping":
            return {}
        if method == "initialize":
            return self._initialize(params)
        if not self.initialized:
            raise MCPError(INVALID_REQUEST, "Server not initialized")
        if method == "tools/list":
            return self._tools_list(params)
        if method == "tools/call":
            return self._tools_call(params)
        raise MCPError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def _initialize(self, params: dict) -> dict:
        missing = [k for k in ("protocolVersion", "capabilities", "clientInfo") if k not in params]
        if missing:
            raise MCPError(INVALID_PARAMS, "Invalid params: initialize needs " + ", ".join(missing))
        asked = params["protocolVersion"]
        if not isinstance(asked, str) or not isinstance(params["capabilities"], dict) \
                or not isinstance(params["clientInfo"], dict):
            raise MCPError(INVALID_PARAMS, "Invalid params: protocolVersion must be a string, "
                                           "capabilities and clientInfo objects")
        version = asked if asked in self.SUPPORTED else PROTOCOL_VERSION
        self.protocol_version = version
        self.initialized = True
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": self.name, "title": self.title, "version": self.version},
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def _tools_list(self, params: dict) -> dict:
        tools = [t.to_mcp() for t in self.registry.tools()]
        start = _decode_cursor(params["cursor"]) if params.get("cursor") is not None else 0
        if start > len(tools):
            raise MCPError(INVALID_PARAMS, "Invalid cursor: it points past the end of the list")
        if not self.page_size:
            return {"tools": tools[start:]}
        end = start + self.page_size
        out: dict = {"tools": tools[start:end]}
        if end < len(tools):
            out["nextCursor"] = _encode_cursor(end)
        return out

    def _tools_call(self, params: dict) -> dict:
        name = params.get("name")
        if not isinstance(name, str):
            raise MCPError(INVALID_PARAMS, "Invalid params: tools/call needs a string 'name'")
        args = params.get("arguments", {})
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise MCPError(INVALID_PARAMS, "Invalid params: 'arguments' must be an object")
        tool = self.registry.get(name)
        if tool is None:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name!r}",
                           {"available": self.registry.names()})
        errors = validate_args(args, tool.input_schema)
        if errors:
            raise MCPError(INVALID_PARAMS, f"Invalid arguments for tool {name!r}: " + "; ".join(errors))
        result = self.registry.run(name, args, repair=False)
        out: dict = {"content": [{"type": "text", "text": result.content}], "isError": not result.ok}
        if result.ok and isinstance(result.data, dict):
            out["structuredContent"] = result.data
        return out


def serve_lines(server: MCPServer, lines: Iterable[str | bytes], write: Callable[[str], Any]) -> None:
    """The stdio loop: one message per line in, one reply per request out.

    Blank lines are skipped; a line that is not JSON gets a -32700 reply with id null;
    notifications get nothing. ``write`` receives each reply as one encoded line.
    """
    for line in lines:
        if not line.strip():
            continue
        try:
            msg = decode_line(line)
        except MCPError as exc:
            write(encode_line(error_response(None, exc.code, exc.message)))
            continue
        reply = server.handle(msg)
        if reply is None:
            continue
        try:
            text = encode_line(reply)
        except (ValueError, TypeError, RecursionError):
            text = encode_line(error_response(reply.get("id"), INTERNAL_ERROR,
                                              "Internal error: the reply could not be encoded as JSON"))
        write(text)


def serve_stdio(server: MCPServer) -> None:
    """Run ``server`` on this process's stdin and stdout until stdin closes.

    Standard output carries only MCP messages, so anything else that prints (a tool calling
    ``print``, say) is sent to standard error instead.
    """
    out = sys.stdout.buffer
    sys.stdout = sys.stderr

    def write(text: str) -> None:
        out.write(text.encode("ascii"))
        out.flush()

    serve_lines(server, sys.stdin.buffer, write)
