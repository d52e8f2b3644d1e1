"""``python -m toolkit serve``: the course's toy MCP server over stdio or Streamable HTTP."""

from __future__ import annotations

import argparse

__all__ = ["serve"]


def serve(args: argparse.Namespace) -> int:
    """Serve the toy tools with the revision ``args`` asks for (--latest, --modern), over
    stdio or, with --http, on 127.0.0.1:--port; 0 when the client hangs up.

    Used by: python -m toolkit serve.
    """
    from ..lessons.toy_tools import make_server_registry
    from ..mcp import LatestRevisionServer, MCPServer, serve_http, serve_stdio
    from ..mcp.course import course_server
    from ..mcp.modern import ModernServer
    from ..mcp.subscriptions import Subscriptions

    kind = ModernServer if args.modern else LatestRevisionServer if args.latest else MCPServer
    listens = Subscriptions()  # one list of listen streams for every server HTTP makes

    def make_server() -> MCPServer:
        server = course_server(kind, make_server_registry(), page_size=args.page_size)
        if isinstance(server, ModernServer):
            server.subscriptions = listens
        return server

    if args.http:
        return serve_http(make_server, port=args.port, trace=args.trace, token=False if args.no_auth else None)
    serve_stdio(make_server(), trace=args.trace)
    return 0
