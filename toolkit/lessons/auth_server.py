"""Notebook 06, section 9b: a real OAuth authorization server on loopback, from the official
MCP SDK, and a client that shows each step it takes (beyond the pack).

MCP authorization (2025-06-18 and later; optional) needs an authorization server, and the
specification leaves writing one out of its scope. This module does not write one either: it
runs the official Python SDK's (``mcp.server.auth``: its metadata document, ``/register``,
``/authorize`` and ``/token`` handlers, which check PKCE, redirect URIs and client
authentication) on ``127.0.0.1`` in a thread. What the SDK leaves to the deployer is the
store and the login page: :class:`MemoryProvider` keeps clients, codes and tokens in
dictionaries, **consents at once** (no browser, no login: the user's click is automated,
so a notebook runs offline and under nbval) and puts ``iss`` in its redirect (RFC 9207), which
the metadata document then advertises, as 2026-07-28 requires. Beside the SDK's routes, ``/introspect`` answers
token introspection (RFC 7662) from the same store, for a resource server such as
:class:`toolkit.mcp.http.protect.ProtectedResource`. :class:`WatchedOAuth` is the toolkit's
OAuth client with a record of what went over the wire at each step, secrets and random values
replaced by placeholders, so that a notebook can print it.

    with LoopbackAuthorizationServer() as auth_server:
        guard = ProtectedResource(auth_server.issuer, introspect_at(auth_server.introspect_url))
"""

from __future__ import annotations

import re
import secrets
import threading
import time
import urllib.parse
from typing import Any

from toolkit.mcp.auth import OAuth, follow_redirect
from toolkit.mcp.http.server import loopback_listener

__all__ = ["MemoryProvider", "LoopbackAuthorizationServer", "WatchedOAuth"]


class MemoryProvider:
    """The SDK's ``OAuthAuthorizationServerProvider``: clients, codes and tokens in dictionaries;
    ``authorize`` consents at once and redirects back with a fresh code, and with ``iss`` when
    ``issuer`` is given (RFC 9207; the SDK leaves the redirect to the provider, and
    :class:`LoopbackAuthorizationServer` then advertises ``iss`` in its metadata).

    Used by: tests/servers/sdk_protected_server.py.
    """

    def __init__(self, issuer: str | None = None) -> None:
        self.issuer = issuer
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
        back = {"code": code, **({"state": params.state} if params.state else {})}
        if self.issuer:
            back["iss"] = self.issuer
        query = urllib.parse.urlencode(back)
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


class LoopbackAuthorizationServer:
    """The SDK's authorization server on ``127.0.0.1`` in a background thread, until
    :meth:`stop` (or the end of a ``with`` block). ``issuer`` is its URL as its metadata
    writes it; ``introspect_url`` its RFC 7662 endpoint; ``provider`` the store.

    Notebook 06.
    """

    def __init__(self, port: int = 0, start_timeout: float = 30.0) -> None:
        import uvicorn
        from mcp.server.auth.handlers.metadata import MetadataHandler
        from mcp.server.auth.routes import build_metadata, create_auth_routes
        from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
        from pydantic import AnyHttpUrl
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        listener = loopback_listener(port)  # bound first: the metadata must name the port
        self.port = int(listener.getsockname()[1])
        self.issuer = str(AnyHttpUrl(f"http://127.0.0.1:{self.port}"))  # with the "/" pydantic adds
        self.introspect_url = self.issuer + "introspect"
        self.provider = provider = MemoryProvider(self.issuer)

        async def introspect(request: Request) -> JSONResponse:
            form = await request.form()
            token = await provider.load_access_token(str(form.get("token", "")))
            if token is None:
                return JSONResponse({"active": False})
            scope = " ".join(token.scopes)
            return JSONResponse({"active": True, "client_id": token.client_id, "scope": scope, "aud": token.resource})

        options = ClientRegistrationOptions(enabled=True)
        routes = create_auth_routes(provider, AnyHttpUrl(self.issuer), client_registration_options=options)
        # The store adds iss to the redirect, and a server that does MUST say so in its metadata
        # (2026-07-28 basic/authorization/index.mdx:194): the SDK's document, with that one field.
        metadata = build_metadata(AnyHttpUrl(self.issuer), None, options, RevocationOptions())
        metadata.authorization_response_iss_parameter_supported = True
        said = Route("/.well-known/oauth-authorization-server", MetadataHandler(metadata).handle, methods=["GET"])
        app = Starlette(routes=[said, *routes, Route("/introspect", introspect, methods=["POST"])])
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [listener]}, name="auth-server", daemon=True
        )
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


_SECRETS = ("code", "code_challenge", "code_verifier", "state", "client_id", "access_token", "refresh_token")


class WatchedOAuth(OAuth):
    """The toolkit's OAuth client, keeping in :attr:`wire` what each step sent and received:
    ``(step, dict)`` pairs, with the random ports written ``<mcp port>`` and ``<as port>`` and
    every code, verifier, state, client id and token replaced by ``<N chars>``. Tokens are
    never kept in :attr:`wire`; only their length is.

    Notebook 06.
    """

    def __init__(self, server_url: str, **options: Any) -> None:
        super().__init__(server_url, authorize=self._browser, **options)
        self.wire: list[tuple[str, dict]] = []
        self._issuers: list[str] = []

    def show(self, text: str) -> str:
        """``text`` with this flow's loopback ports replaced by placeholders."""
        text = text.replace(self._root(), "http://127.0.0.1:<mcp port>")
        for issuer in self._issuers:
            text = text.replace(issuer.rstrip("/"), "http://127.0.0.1:<as port>")
        return re.sub(r"127\.0\.0\.1%3A\d+", "127.0.0.1%3A<port>", text)

    def _hide(self, fields: dict) -> dict:
        def shown(value: Any) -> Any:
            if isinstance(value, list):
                return [shown(v) for v in value]
            return self.show(value) if isinstance(value, str) else value

        return {k: f"<{len(str(v))} chars>" if k in _SECRETS else shown(v) for k, v in fields.items()}

    def challenge(self, status: int, www_authenticate: str | None) -> bool:
        self.wire.append((f"{status} from the MCP server", {"WWW-Authenticate": self.show(www_authenticate or "")}))
        return super().challenge(status, www_authenticate)

    def _protected_resource(self, metadata_url: str | None) -> dict:
        found = super()._protected_resource(metadata_url)
        self._issuers += [str(i) for i in found["authorization_servers"] if str(i) not in self._issuers]
        self.wire.append(("protected-resource metadata (RFC 9728)", self._hide(found)))
        return found

    def _authorization_server(self, resource: dict) -> Any:
        known = str(resource["authorization_servers"][0]) in self.servers
        server = super()._authorization_server(resource)
        if not known:
            keys = ("issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint")
            shown = {k: server.metadata[k] for k in keys if k in server.metadata}
            for key in ("code_challenge_methods_supported", "authorization_response_iss_parameter_supported"):
                shown[key] = server.metadata.get(key)
            self.wire.append(("authorization-server metadata (RFC 8414)", self._hide(shown)))
        return server

    def _register(self, endpoint: str, supported: list, scope: str | None) -> Any:
        client = super()._register(endpoint, supported, scope)
        got = {"client_id": client.client_id, "token_endpoint_auth_method": client.method}
        self.wire.append(("dynamic client registration (RFC 7591; deprecated at 2026-07-28)", self._hide(got)))
        return client

    def _browser(self, url: str) -> str:
        """The user's browser, automated: the consent is given at once (no login page)."""
        asked = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
        self.wire.append(("authorization request (the browser's GET)", self._hide(asked)))
        back = follow_redirect(url)
        got = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(back).query))
        self.wire.append(("redirect back to the client (consent automated)", self._hide(got)))
        return back

    def _token(self, server: Any, client: Any, grant: dict) -> Any:
        tokens = super()._token(server, client, grant)
        sent = self._hide({**grant, "client_id": client.client_id})
        got = {"access_token": f"<{len(tokens.access)} chars>", "token_type": "Bearer"}
        if tokens.refresh:
            got["refresh_token"] = f"<{len(tokens.refresh)} chars>"
        self.wire.append(("token request (form POST)", sent))
        self.wire.append(("token response", got))
        return tokens
