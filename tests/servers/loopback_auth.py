"""A real OAuth authorization server on loopback, from the official MCP SDK (beyond the pack).

MCP authorization (2025-06-18 and later; optional) needs an authorization server, and the
specification leaves writing one out of its scope. This module does not write one either: it
runs the official Python SDK's (``mcp.server.auth``: its metadata document, ``/register``,
``/authorize`` and ``/token`` handlers, which check PKCE, redirect URIs and client
authentication) on ``127.0.0.1`` in a thread. What the SDK leaves to the deployer is the
store and the login page: :class:`MemoryProvider` keeps clients, codes and tokens in
dictionaries, and **consents at once** (no browser, no login: the user's click is automated,
so a notebook runs offline and under nbval). Beside the SDK's routes, ``/introspect`` answers
token introspection (RFC 7662) from the same store, for a resource server such as
:class:`toolkit.mcp.http.protect.ProtectedResource`.

    with LoopbackAuthorizationServer() as auth_server:
        guard = ProtectedResource(auth_server.issuer, introspect_at(auth_server.introspect_url))
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
from typing import Any

__all__ = ["MemoryProvider", "LoopbackAuthorizationServer"]


class MemoryProvider:
    """The SDK's ``OAuthAuthorizationServerProvider``: clients, codes and tokens in dictionaries;
    ``authorize`` consents at once and redirects back with a fresh code.

    Used by: tests/servers/sdk_protected_server.py.
    """

    def __init__(self) -> None:
        self.clients: dict[str, Any] = {}
        self.codes: dict[str, Any] = {}
        self.tokens: dict[str, Any] = {}
        self.refresh: dict[str, Any] = {}

    async def get_client(self, client_id: str) -> Any:
        return self.clients.get(client_id)

    async def register_client(self, client_info: Any) -> None:
        self.clients[str(client_info.client_id)] = client_info

    async def authorize(self, client: Any, params: Any) -> str:
        from mcp.server.auth.provider import AuthorizationCode

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

    async def load_authorization_code(self, client: Any, code: str) -> Any:
        return self.codes.get(code)

    async def exchange_authorization_code(self, client: Any, code: Any) -> Any:
        self.codes.pop(code.code, None)
        return self._issue(str(client.client_id), code.scopes, code.resource)

    async def load_refresh_token(self, client: Any, token: str) -> Any:
        return self.refresh.get(token)

    async def exchange_refresh_token(self, client: Any, token: Any, scopes: list[str]) -> Any:
        self.refresh.pop(token.token, None)  # rotated, as the SDK's docs ask
        return self._issue(str(client.client_id), scopes or token.scopes, token.resource)

    async def load_access_token(self, token: str) -> Any:
        return self.tokens.get(token)

    async def revoke_token(self, token: Any) -> None:
        self.tokens.pop(token.token, None)
        self.refresh.pop(token.token, None)

    async def exchange_identity_assertion(self, client: Any, params: Any) -> Any:
        raise NotImplementedError("enterprise identity assertions (SEP-990) are not part of this lesson")

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> Any:
        from mcp.server.auth.provider import AccessToken, RefreshToken
        from mcp.shared.auth import OAuthToken

        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.tokens[access] = AccessToken(token=access, client_id=client_id, scopes=scopes, resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=3600, refresh_token=refresh)


def _free_port() -> int:
    with socket.socket() as probe:  # the URLs in the metadata must be known before the start
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LoopbackAuthorizationServer:
    """The SDK's authorization server on ``127.0.0.1`` in a background thread, until
    :meth:`stop` (or the end of a ``with`` block). ``issuer`` is its URL as its metadata
    writes it; ``introspect_url`` its RFC 7662 endpoint; ``provider`` the store.

    Used by: tests/test_mcp_auth.py.
    """

    def __init__(self, port: int = 0, start_timeout: float = 30.0) -> None:
        import uvicorn
        from mcp.server.auth.routes import create_auth_routes
        from mcp.server.auth.settings import ClientRegistrationOptions
        from pydantic import AnyHttpUrl
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        self.port = port or _free_port()
        self.issuer = str(AnyHttpUrl(f"http://127.0.0.1:{self.port}"))  # with the "/" pydantic adds
        self.introspect_url = self.issuer + "introspect"
        self.provider = provider = MemoryProvider()

        async def introspect(request: Request) -> JSONResponse:
            form = await request.form()
            token = await provider.load_access_token(str(form.get("token", "")))
            if token is None:
                return JSONResponse({"active": False})
            scope = " ".join(token.scopes)
            return JSONResponse({"active": True, "client_id": token.client_id, "scope": scope, "aud": token.resource})

        options = ClientRegistrationOptions(enabled=True)
        routes = create_auth_routes(provider, AnyHttpUrl(self.issuer), client_registration_options=options)
        app = Starlette(routes=[*routes, Route("/introspect", introspect, methods=["POST"])])
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="auth-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + start_timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the authorization server did not start on port {self.port}")
            time.sleep(0.02)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def __enter__(self) -> LoopbackAuthorizationServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
