"""An MCP server protected by the official Python SDK's own OAuth machinery (``mcp``), for
the test that the toolkit's OAuth client completes an authorized session with it.

The SDK's ``MCPServer`` with ``AuthSettings`` and an ``auth_server_provider`` serves both roles
on one loopback port: the authorization server (the SDK's metadata, /register, /authorize and
/token handlers, PKCE and client authentication checked by the SDK) and the protected MCP
endpoint (the SDK's bearer check and protected-resource metadata). The provider below only
stores what the SDK hands it, in memory; its ``authorize`` consents at once and redirects back
with a code (no browser here).

Run: ``python tests/servers/sdk_protected_server.py`` prints the MCP URL on its first line.
With ``--as-only`` it is the SDK's authorization server alone (``create_auth_routes``) plus a
token introspection endpoint (RFC 7662, ``/introspect``, answered from the same store), for
the course's protected server to ask; it prints the issuer URL.
"""

import secrets
import socket
import sys
import time
import warnings

import uvicorn
from mcp.server.auth.provider import AccessToken, AuthorizationCode, AuthorizationParams, RefreshToken
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

warnings.simplefilter("ignore")  # the SDK's deprecation notes (DCR at 2026-07-28, 3.0 defaults)


class MemoryProvider:
    """Clients, codes and tokens in dictionaries; consent is given at once."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=str(client.client_id),
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        query = f"code={code}" + (f"&state={params.state}" if params.state else "")
        return f"{params.redirect_uri}{'&' if '?' in str(params.redirect_uri) else '?'}{query}"

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(code.code, None)
        return self._issue(str(client.client_id), code.scopes, code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, token: str) -> RefreshToken | None:
        return self.refresh.get(token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(token.token, None)
        return self._issue(str(client.client_id), scopes or token.scopes, token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.tokens.get(token)

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.tokens.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.tokens[access] = AccessToken(token=access, client_id=client_id, scopes=scopes, resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=3600, refresh_token=refresh)


def authorization_server_only(provider: MemoryProvider, issuer: str) -> Starlette:
    """The SDK's own /authorize, /token, /register and metadata, with /introspect beside them."""

    async def introspect(request: Request) -> JSONResponse:
        form = await request.form()
        token = await provider.load_access_token(str(form.get("token", "")))
        if token is None:
            return JSONResponse({"active": False})
        return JSONResponse(
            {"active": True, "client_id": token.client_id, "scope": " ".join(token.scopes), "aud": token.resource}
        )

    routes = create_auth_routes(
        provider, AnyHttpUrl(issuer), client_registration_options=ClientRegistrationOptions(enabled=True)
    )
    return Starlette(routes=[*routes, Route("/introspect", introspect, methods=["POST"])])


def main() -> int:
    with socket.socket() as probe:  # a free port, so the URLs in the metadata are known before start
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    if "--as-only" in sys.argv:
        issuer = str(AnyHttpUrl(base))  # as the SDK writes it in its metadata (with a "/")
        print(issuer, flush=True)
        app = authorization_server_only(MemoryProvider(), issuer)
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
        return 0
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
