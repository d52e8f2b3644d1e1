"""The Model Context Protocol, small enough to read (pack §2.6).

``protocol`` (JSON-RPC 2.0 messages and codes), ``server`` (lifecycle, tools/list, tools/call, the stdio loop; the
lesson server ``MCPServer`` and ``LatestRevisionServer``, which adds revision 2025-11-25),
``transports`` (in memory, stdio child process), ``client`` (the client side, and a bridge from a server's
tools to a local registry) make the lesson core. The other primitives sit one idea to a module:
``resources``, ``prompts``, ``tools`` (``ServerTool``), ``content``, ``logs``, ``context`` (what a
handler sends while it works) and ``answers`` (the client's answers to server requests). The extras sit apart: ``http`` (Streamable
HTTP, ``http.server`` and ``http.transport``, both sides; ``http.protect``, the server as an
OAuth resource server), ``auth`` (the OAuth 2.1 client MCP authorization asks for) and
``revisions`` (the versions spoken and what changes between them). Notebook 06's sessions driven by the official MCP SDK
live with the lessons (``toolkit.lessons.sdk_sessions``).
"""

import importlib
from typing import Any

from .client import MCPClient, mcp_to_registry, result_text
from .context import RequestContext
from .modern import ModernServer
from .prompts import Prompt, PromptArgument, Prompts
from .protocol import (
    CONNECTION_CLOSED,
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
    MCPError,
    decode_line,
    encode_line,
)
from .resources import Resource, Resources, ResourceTemplate
from .revisions import HANDSHAKE_VERSIONS, STATELESS_VERSIONS, revision_notes
from .server import LatestRevisionServer, MCPServer, serve_lines, serve_stdio
from .tools import ServerTool
from .transports import InMemoryTransport, StdioTransport

# The HTTP side pulls in http.server, ssl and friends: it loads on first use, so
# `python -m toolkit serve` over stdio starts faster.
_LAZY = {"StreamableHTTPServer": "http.server", "serve_http": "http.server", "HTTPTransport": "http.transport"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'toolkit.mcp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


__all__ = ["MCPClient", "mcp_to_registry", "result_text"]
__all__ += ["MCPServer", "LatestRevisionServer", "serve_lines", "serve_stdio"]
__all__ += ["InMemoryTransport", "StdioTransport", "HTTPTransport", "StreamableHTTPServer", "serve_http"]
__all__ += ["ServerTool", "Resource", "ResourceTemplate", "Resources", "Prompt", "PromptArgument", "Prompts"]
__all__ += ["RequestContext", "ModernServer"]
__all__ += ["MCPError", "encode_line", "decode_line", "revision_notes"]
__all__ += ["PROTOCOL_VERSION", "SUPPORTED_VERSIONS", "HANDSHAKE_VERSIONS", "STATELESS_VERSIONS"]
__all__ += ["PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR"]  # JSON-RPC 2.0
__all__ += ["CONNECTION_CLOSED", "UNSUPPORTED_PROTOCOL_VERSION"]  # codes MCP and its SDK add
__all__ += ["HEADER_MISMATCH", "MISSING_REQUIRED_CLIENT_CAPABILITY"]  # and the rest of 2026-07-28's
