"""The MCP server's side of authorization: a protected resource (beyond the pack).

MCP authorization (2025-06-18 and later, basic/authorization; optional) makes the MCP server
an OAuth 2.1 resource server. :class:`ProtectedResource`, handed to
``StreamableHTTPServer(..., protect=...)``, does its three jobs:

- serves the protected-resource metadata (RFC 9728) at
  ``/.well-known/oauth-protected-resource<path>``: this resource's URL and its authorization
  server;
- answers a request without a good token with 401 and ``WWW-Authenticate: Bearer
  resource_metadata="..."`` (RFC 9728 §5.1), and one whose token lacks a required scope with
  403 ``insufficient_scope`` and the scopes needed (RFC 6750 §3.1);
- checks each token at the authorization server (token introspection, RFC 7662) and accepts
  it only if it is active and was issued for this resource (RFC 8707): a token meant for
  another server is refused, so a client cannot pass through one it was given elsewhere.

The tokens themselves are never logged.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable

__all__ = ["ProtectedResource", "introspect_at"]


def introspect_at(endpoint: str, client_id: str | None = None, client_secret: str | None = None) -> Callable:
    """An RFC 7662 introspection call: ``check(token) -> dict`` (``{"active": False}`` on any failure).

    Used by: tests/test_mcp_auth.py.
    """
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def check(token: str) -> dict:
        form = {"token": token}
        if client_id:
            form["client_id"] = client_id
        if client_secret:
            form["client_secret"] = client_secret
        request = urllib.request.Request(
            endpoint,
            data=urllib.parse.urlencode(form).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
            method="POST",
        )
        try:
            with opener.open(request, timeout=10) as response:
                found = json.loads(response.read())
        except (urllib.error.URLError, OSError, ValueError):
            return {"active": False}
        return found if isinstance(found, dict) else {"active": False}

    return check


class ProtectedResource:
    """``authorization_server``: the issuer clients go to; ``introspect(token) -> dict``: the
    RFC 7662 answer for a token (see :func:`introspect_at`); ``scopes``: what every request
    needs. The resource's URL is the server's own (set by ``StreamableHTTPServer``).

    Used by: tests/test_mcp_auth.py.
    """

    def __init__(self, authorization_server: str, introspect: Callable[[str], dict], scopes: tuple = ()) -> None:
        self.authorization_server = authorization_server
        self.introspect = introspect
        self.scopes = tuple(scopes)
        self.resource = ""  # the MCP endpoint's URL, set when the server starts

    def metadata_path(self) -> str:
        return "/.well-known/oauth-protected-resource" + urllib.parse.urlsplit(self.resource).path

    def metadata(self) -> dict:
        """RFC 9728 §2."""
        found = {"resource": self.resource, "authorization_servers": [self.authorization_server]}
        if self.scopes:
            found["scopes_supported"] = list(self.scopes)
        return found

    def refusal(self, header: str | None) -> tuple[int, str, str] | None:
        """None when ``header`` carries a token good for this resource; else the status, the
        ``WWW-Authenticate`` challenge and a sentence for people."""
        parts = urllib.parse.urlsplit(self.resource)
        where = f'resource_metadata="{parts.scheme}://{parts.netloc}{self.metadata_path()}"'
        scheme, _, token = (header or "").strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return 401, f"Bearer {where}", "this server needs an access token from its authorization server"
        answer = self.introspect(token.strip())
        if answer.get("active") is not True:
            return 401, f'Bearer error="invalid_token", {where}', "the token is not active"
        audience = answer.get("aud", answer.get("resource"))
        audiences = audience if isinstance(audience, list) else [audience]
        if self.resource not in audiences:  # RFC 8707: a token for another resource is refused
            return 401, f'Bearer error="invalid_token", {where}', "the token was issued for another resource"
        granted = str(answer.get("scope") or "").split()
        missing = [s for s in self.scopes if s not in granted]
        if missing:
            needed = " ".join(self.scopes)
            return 403, f'Bearer error="insufficient_scope", scope="{needed}", {where}', "the token lacks a scope"
        return None
