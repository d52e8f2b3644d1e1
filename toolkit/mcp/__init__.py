"""The Model Context Protocol, small enough to read (pack §2.6).

``protocol`` (JSON-RPC 2.0 messages and codes), ``revisions`` (the versions spoken and what
changes between them), ``server`` (lifecycle, tools/list, tools/call, the stdio loop),
``transports`` (in memory, stdio child process), ``http_server`` and ``http_transport``
(Streamable HTTP, both sides), ``client`` (the client side, and a bridge from a server's
tools to a local registry) and ``showcase`` (sessions driven by the official MCP SDK, for
notebook 06; the SDK is imported only when one of those functions runs).
"""

from .client import MCPClient, mcp_to_registry, result_text
from .http_server import StreamableHTTPServer, serve_http
from .http_transport import HTTPTransport
from .protocol import (CONNECTION_CLOSED, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
                       METHOD_NOT_FOUND, PARSE_ERROR, PROTOCOL_VERSION, SUPPORTED_VERSIONS,
                       UNSUPPORTED_PROTOCOL_VERSION, MCPError, decode_line, encode_line)
from .revisions import STATELESS_VERSIONS, revision_notes
from .server import MCPServer, serve_lines, serve_stdio
from .transports import InMemoryTransport, StdioTransport
from . import showcase  # noqa: E402  (stdlib only at import; it loads the SDK when called)

__all__ = [
    "MCPClient", "mcp_to_registry", "result_text", "MCPServer", "serve_lines", "serve_stdio",
    "InMemoryTransport", "StdioTransport", "HTTPTransport", "StreamableHTTPServer", "serve_http",
    "MCPError", "encode_line", "decode_line",
    "PROTOCOL_VERSION", "SUPPORTED_VERSIONS", "STATELESS_VERSIONS", "revision_notes",
    "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR",
    "CONNECTION_CLOSED", "UNSUPPORTED_PROTOCOL_VERSION",
]
