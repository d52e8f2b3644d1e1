"""The Model Context Protocol, small enough to read (pack §2.6).

``protocol`` (JSON-RPC 2.0 messages and codes), ``revisions`` (the versions spoken and what
changes between them), ``server`` (lifecycle, tools/list, tools/call, the stdio loop; the
lesson server ``MCPServer`` and ``LatestRevisionServer``, which adds revision 2025-11-25),
``transports`` (in memory, stdio child process), ``http_server`` and ``http_transport``
(Streamable HTTP, both sides), ``client`` (the client side, and a bridge from a server's
tools to a local registry) and ``showcase`` (sessions driven by the official MCP SDK, for
notebook 06; the SDK is imported only when one of those functions runs).
"""

import importlib

from .client import MCPClient, mcp_to_registry, result_text
from .protocol import (CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
                       METHOD_NOT_FOUND, PARSE_ERROR, PROTOCOL_VERSION, SUPPORTED_VERSIONS,
                       UNSUPPORTED_PROTOCOL_VERSION, MCPError, decode_line, encode_line)
from .revisions import HANDSHAKE_VERSIONS, STATELESS_VERSIONS, revision_notes
from .server import LatestRevisionServer, MCPServer, serve_lines, serve_stdio
from .transports import InMemoryTransport, StdioTransport

# The HTTP side pulls in http.server, ssl and friends, and showcase is only for notebook 06:
# both load on first use, so `python -m toolkit serve` over stdio starts faster.
_LAZY = {"StreamableHTTPServer": "http_server", "serve_http": "http_server",
         "HTTPTransport": "http_transport", "showcase": None}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'toolkit.mcp' has no attribute {name!r}")
    module = importlib.import_module(f".{_LAZY[name] or name}", __name__)
    value = module if _LAZY[name] is None else getattr(module, name)
    globals()[name] = value
    return value

__all__ = [
    "MCPClient", "mcp_to_registry", "result_text", "MCPServer", "LatestRevisionServer",
    "serve_lines", "serve_stdio",
    "InMemoryTransport", "StdioTransport", "HTTPTransport", "StreamableHTTPServer", "serve_http",
    "MCPError", "encode_line", "decode_line",
    "PROTOCOL_VERSION", "SUPPORTED_VERSIONS", "HANDSHAKE_VERSIONS", "STATELESS_VERSIONS",
    "revision_notes",
    "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR",
    "CONNECTION_CLOSED", "UNSUPPORTED_PROTOCOL_VERSION",
]
