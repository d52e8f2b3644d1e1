"""An MCP server protected by the official Python SDK's own OAuth machinery (``mcp``), for
the test that the toolkit's OAuth client completes an authorized session with it.

The SDK's ``MCPServer`` with ``AuthSettings`` and an ``auth_server_provider`` serves both roles
on one loopback port: the authorization server (the SDK's metadata, /register, /authorize and
/token handlers, PKCE and client authentication checked by the SDK) and the protected MCP
endpoint (the SDK's bearer check, its protected-resource metadata, and the token's resource
checked with ``validate_token_resource``). The store is ``toolkit/lessons/auth_server.py``'s
``MemoryProvider``, which consents at once (no browser here).

Run: ``python tests/servers/sdk_protected_server.py`` prints the MCP URL on its first line.
"""

import socket
import sys
import warnings

import uvicorn
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer

from toolkit.lessons.auth_server import MemoryProvider

warnings.simplefilter("ignore")  # the SDK's deprecation notes (DCR at 2026-07-28, 3.0 defaults)


def main() -> int:
    with socket.socket() as probe:  # a free port, so the URLs in the metadata are known before start
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    server = MCPServer(
        "sdk-protected-server",
        auth_server_provider=MemoryProvider(),
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            client_registration_options=ClientRegistrationOptions(enabled=True),
            required_scopes=["mcp"],
            validate_token_resource=True,
        ),
    )

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    print(f"{base}/mcp", flush=True)
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
