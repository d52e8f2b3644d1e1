"""The Model Context Protocol, small enough to read (pack §2.6).

``protocol`` (JSON-RPC 2.0 messages and codes), ``server`` (lifecycle, tools/list,
tools/call, the stdio loop), ``transports`` (in memory, stdio child process) and ``client``
(the client side, and a bridge from a server's tools to a local registry).
"""

from .client import MCPClient, mcp_to_registry, result_text
from .protocol import (CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
                       METHOD_NOT_FOUND, PARSE_ERROR, PROTOCOL_VERSION, SUPPORTED_VERSIONS,
                       MCPError, decode_line, encode_line)
from .server import MCPServer, serve_lines, serve_stdio
from .transports import InMemoryTransport, StdioTransport

__all__ = [
    "MCPClient", "mcp_to_registry", "result_text", "MCPServer", "serve_lines", "serve_stdio",
    "InMemoryTransport", "StdioTransport", "MCPError", "encode_line", "decode_line",
    "PROTOCOL_VERSION", "SUPPORTED_VERSIONS", "PARSE_ERROR", "INVALID_REQUEST",
    "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR", "CONNECTION_CLOSED",
]
