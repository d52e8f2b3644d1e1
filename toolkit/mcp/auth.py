"""An OAuth 2.1 client for MCP over HTTP, standard library only (beyond the pack).

MCP authorization is optional ("Authorization is **OPTIONAL** for MCP implementations",
2026-07-28 basic/authorization/index.mdx:18); when a server asks for it, the client takes the
steps the specification lists (2025-06-18 and later; the ``iss`` check and the deprecation of
dynamic registration are 2026-07-28's). :class:`OAuth` is handed to
``HTTPTransport(url, auth=OAuth(url))`` and does them when the server answers 401 or 403:

1. **Protected-resource metadata** (RFC 9728): the URL in ``WWW-Authenticate``'s
   ``resource_metadata``, else the well-known paths (with the endpoint's path, then without).
   Its ``resource`` must name this server (else stop: a token for another resource is useless
   here and must not be asked for). 2025-06-18 and later.
2. **Authorization-server metadata** (RFC 8414, then OpenID Connect discovery), whose
   ``issuer`` must be the one the URL was built from (RFC 8414 §3.3;
   authorization-server-discovery.mdx:94 at 2026-07-28), and which must list
   ``code_challenge_methods_supported`` with S256 (else the client MUST refuse to proceed,
   security-considerations.mdx:57-59).
3. **The client's identity**, in the priority order of 2026-07-28
   client-registration.mdx:13-18: a pre-registered ``client_id``, a client ID metadata
   document (its HTTPS URL is the ``client_id``), dynamic registration (RFC 7591) only when
   neither applies ("deprecated", line 141). Credentials are kept per issuer, so a server that
   moves to another authorization server gets a new registration.
4. **Authorization code with PKCE S256** (RFC 7636), ``state``, and the ``resource``
   parameter (RFC 8707). ``authorize(url)`` is the user's browser: it returns the URL the
   authorization server redirected to. A present ``iss`` (RFC 9207) must equal the recorded
   issuer by simple string comparison, and an absent one is refused when the metadata
   advertises it (2026-07-28 index.mdx:196-211), all before the code goes to the token endpoint.
5. **Token request** with the client authentication the server registered or supports
   (``client_secret_basic``, ``client_secret_post``, ``none``), then the retried request with
   ``Authorization: Bearer``. A 401 with a refresh token first tries the refresh grant; a 403
   ``insufficient_scope`` asks again for the union of the scopes so far and the new ones
   (scope step-up), at most ``max_attempts`` times per request.

Tokens never leave this object except in the ``Authorization`` header: ``steps`` records what
happened with no secret in it, and the repr shows none.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .protocol import INVALID_REQUEST, MCPError

__all__ = ["OAuth", "OAuthError", "AuthorizationFailed", "pkce_pair", "parse_challenge", "follow_redirect"]

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"


class OAuthError(Exception):
    """The authorization flow stopped; the message says which step and why (never a token).

    Used by: toolkit/mcp/http/transport.py.
    """


class AuthorizationFailed(MCPError):
    """What the transport raises when :class:`OAuth` stopped: no reason to try another era.

    Used by: toolkit/mcp/http/transport.py.
    """

    def __init__(self, why: str) -> None:
        super().__init__(INVALID_REQUEST, f"Authorization failed: {why}")


@dataclass
class Client:
    """The client's identity at one authorization server."""

    client_id: str
    secret: str | None = field(default=None, repr=False)
    method: str = "none"  # token endpoint authentication


@dataclass
class Tokens:
    access: str = field(repr=False)
    refresh: str | None = field(default=None, repr=False)
    scope: str | None = None


@dataclass
class Server:
    """What was learnt about one authorization server (keyed by its issuer)."""

    issuer: str
    metadata: dict
    client: Client | None = None
    tokens: Tokens | None = None


def pkce_pair() -> tuple[str, str]:
    """A PKCE verifier and its S256 challenge (RFC 7636 §4.1-4.2).

    Used by: tests/test_mcp_auth.py.
    """
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def parse_challenge(header: str | None) -> dict[str, str]:
    """The parameters of a ``WWW-Authenticate: Bearer ...`` header (RFC 6750 §3), lower-cased names.

    Used by: tests/test_mcp_auth.py.
    """
    if not header or not header.strip().lower().startswith("bearer"):
        return {}
    found = re.findall(r'([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))', header.strip()[6:])
    return {name.lower(): quoted.replace('\\"', '"') if quoted else bare for name, quoted, bare in found}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


def _http(
    method: str, url: str, data: dict | None = None, headers: dict | None = None, form: bool = False
) -> tuple[int, Any, bytes]:
    """One request, no redirects followed: status, headers, body."""
    sent = {"Accept": JSON, **(headers or {})}
    body = None
    if data is not None:
        body = (urllib.parse.urlencode(data) if form else json.dumps(data)).encode()
        sent["Content-Type"] = FORM if form else JSON
    request = urllib.request.Request(url, data=body, headers=sent, method=method)
    try:
        with _OPENER.open(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        raise OAuthError(f"cannot reach {url}: {getattr(exc, 'reason', exc)}") from None


def _json(status: int, body: bytes) -> dict | None:
    if status != 200:
        return None
    try:
        found = json.loads(body)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def follow_redirect(url: str) -> str:
    """A browser that consents at once: GET the authorization URL, return where it redirects.

    Used by: toolkit/mcp/auth.py.
    """
    status, headers, _ = _http("GET", url, headers={"Accept": "text/html"})
    location = headers.get("Location") if status in (301, 302, 303, 307, 308) else None
    if not location:
        raise OAuthError(f"the authorization endpoint answered {status} without a redirect")
    return urllib.parse.urljoin(url, location)


def _well_known(url: str, name: str, path_after: bool = False) -> str:
    parts = urllib.parse.urlsplit(url)
    path = parts.path.rstrip("/")
    if path_after:  # OpenID Connect discovery 1.0 §4: the path, then the well-known suffix
        return urllib.parse.urlunsplit((parts.scheme, parts.netloc, f"{path}/.well-known/{name}", "", ""))
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, f"/.well-known/{name}{path}", "", ""))


def _origin(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


class OAuth:
    """Authorization for one MCP server URL; pass it as ``HTTPTransport(url, auth=...)``.

    ``client_id``/``client_secret``: a pre-registered client. ``client_metadata_url``: the
    HTTPS URL of this client's metadata document, used as its ``client_id`` where the
    authorization server supports that (2025-11-25). Otherwise the client registers itself
    (RFC 7591) as ``client_name`` with ``redirect_uri``. ``authorize(url) -> redirect URL``
    stands for the user's browser (default :func:`follow_redirect`).

    Used by: tests/conformance/client.py.
    """

    def __init__(
        self,
        server_url: str,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        client_metadata_url: str | None = None,
        client_name: str = "toolkit-mcp-client",
        redirect_uri: str = "http://127.0.0.1:3000/callback",
        authorize: Callable[[str], str] = follow_redirect,
        max_attempts: int = 3,
    ) -> None:
        self.server_url = server_url
        self.pre_registered = Client(client_id, client_secret) if client_id else None
        self.client_metadata_url = client_metadata_url
        self.client_name = client_name
        self.redirect_uri = redirect_uri
        self.authorize_in_browser = authorize
        self.max_attempts = max_attempts
        self.servers: dict[str, Server] = {}  # by issuer (2026-07-28: credentials keyed by issuer)
        self.issuer: str | None = None
        self.scopes: list[str] = []  # every scope asked for so far (for step-up unions)
        self.steps: list[str] = []  # what happened, for people; never a secret
        self.attempts = 0

    def __repr__(self) -> str:
        return f"OAuth({self.server_url!r}, issuer={self.issuer!r}, steps={len(self.steps)})"

    # -- what the transport calls --------------------------------------------------------

    def headers(self) -> dict:
        """``Authorization: Bearer`` once there is a token for the current issuer."""
        server = self.servers.get(self.issuer or "")
        return {"Authorization": f"Bearer {server.tokens.access}"} if server and server.tokens else {}

    def new_request(self) -> None:
        """A new MCP request starts: its authorization attempts are counted from zero."""
        self.attempts = 0

    def challenge(self, status: int, www_authenticate: str | None) -> bool:
        """The server answered 401 or 403: get credentials it will take. True: send again."""
        params = parse_challenge(www_authenticate)
        if status == 403 and params.get("error") != "insufficient_scope":
            return False  # a refusal no new token changes
        if self.attempts >= self.max_attempts:
            self.steps.append(f"{status} again after {self.attempts} authorizations: giving up")
            return False
        self.attempts += 1
        self.steps.append(f"{status} from the MCP server" + (f" ({params['error']})" if "error" in params else ""))
        resource = self._protected_resource(params.get("resource_metadata"))
        server = self._authorization_server(resource)
        wanted = params.get("scope")
        if status == 401 and server.tokens and server.tokens.refresh and self._refresh(server, resource):
            return True
        if status == 403 and wanted:  # step-up: what was asked before, and what is asked now
            scopes = self.scopes + [s for s in wanted.split() if s not in self.scopes]
        elif wanted:
            scopes = wanted.split()
        else:
            scopes = [str(s) for s in resource.get("scopes_supported") or []]
        offered = server.metadata.get("scopes_supported") or []
        if "offline_access" in offered and "offline_access" not in scopes and scopes:
            scopes.append("offline_access")  # a refresh token, where the server offers one
        self.scopes = scopes
        self._authorize(server, resource, " ".join(scopes) or None)
        return True

    # -- discovery -----------------------------------------------------------------------

    def _protected_resource(self, metadata_url: str | None) -> dict:
        """RFC 9728: the server's protected-resource metadata, checked against its URL."""
        urls = [metadata_url] if metadata_url else []
        urls += [_well_known(self.server_url, "oauth-protected-resource")]
        urls += [_well_known(self._root(), "oauth-protected-resource")]
        for url in dict.fromkeys(urls):
            found = _json(*_http("GET", url)[::2])
            if found and found.get("authorization_servers"):
                self.steps.append(f"protected-resource metadata from {url}")
                break
        else:
            raise OAuthError(f"no protected-resource metadata for {self.server_url} (RFC 9728)")
        resource = str(found.get("resource") or "")
        if not self._names_this_server(resource):
            raise OAuthError(f"the metadata is for resource {resource!r}, not {self.server_url}: not authorizing")
        return found

    def _root(self) -> str:
        scheme, netloc = _origin(self.server_url)
        return f"{scheme}://{netloc}"

    def _names_this_server(self, resource: str) -> bool:
        """RFC 8707/9728 §3.3: same origin, and the server's URL at or under the resource's path."""
        if not resource or _origin(resource) != _origin(self.server_url):
            return False
        base = urllib.parse.urlsplit(resource).path.rstrip("/")
        path = urllib.parse.urlsplit(self.server_url).path.rstrip("/")
        return path == base or path.startswith(base + "/")

    def _authorization_server(self, resource: dict) -> Server:
        issuer = str(resource["authorization_servers"][0])
        if issuer != self.issuer:
            self.steps.append(f"authorization server {issuer}")
        self.issuer = issuer
        if issuer in self.servers:
            return self.servers[issuer]
        has_path = urllib.parse.urlsplit(issuer).path.strip("/")
        urls = [_well_known(issuer, "oauth-authorization-server"), _well_known(issuer, "openid-configuration")]
        if has_path:
            urls.append(_well_known(issuer, "openid-configuration", path_after=True))
        for url in urls:
            found = _json(*_http("GET", url)[::2])
            if found is None:
                continue
            if found.get("issuer") != issuer:  # RFC 8414 §3.3: MUST NOT use it
                raise OAuthError(f"metadata at {url} names issuer {found.get('issuer')!r}, not {issuer!r}")
            if "S256" not in (found.get("code_challenge_methods_supported") or []):
                raise OAuthError(f"{issuer} does not offer PKCE S256; MCP clients must refuse to go on")
            self.steps.append(f"authorization-server metadata from {url}")
            self.servers[issuer] = Server(issuer, found)
            return self.servers[issuer]
        raise OAuthError(f"no authorization-server metadata for {issuer} (RFC 8414, OpenID discovery)")

    # -- who the client is ---------------------------------------------------------------

    def _client(self, server: Server, scope: str | None) -> Client:
        if server.client:
            return server.client
        meta = server.metadata
        supported = meta.get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
        if self.pre_registered:
            client = self.pre_registered
            if client.secret:
                client.method = next(
                    (m for m in ("client_secret_basic", "client_secret_post") if m in supported), "client_secret_basic"
                )
            self.steps.append("pre-registered client")
        elif self.client_metadata_url and meta.get("client_id_metadata_document_supported"):
            client = Client(self.client_metadata_url)
            self.steps.append("client ID metadata document as client_id")
        elif meta.get("registration_endpoint"):
            client = self._register(meta["registration_endpoint"], supported, scope)
        else:
            raise OAuthError(f"{server.issuer} offers no way for this client to identify itself")
        server.client = client
        return client

    def _register(self, endpoint: str, supported: list, scope: str | None) -> Client:
        """RFC 7591 dynamic registration (deprecated at 2026-07-28; used only when needed)."""
        method = next((m for m in ("client_secret_basic", "client_secret_post", "none") if m in supported), "none")
        asked = {
            "client_name": self.client_name,
            "redirect_uris": [self.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": "native",
        }
        if scope:  # RFC 7591 §2: the scopes this client may ask for (some servers hold it to them)
            asked["scope"] = scope
        status, _, body = _http("POST", endpoint, asked)
        try:
            found = json.loads(body) if status in (200, 201) else None
        except ValueError:
            found = None
        if not isinstance(found, dict) or not found.get("client_id"):
            raise OAuthError(f"dynamic client registration at {endpoint} failed (HTTP {status})")
        secret = found.get("client_secret")
        method = found.get("token_endpoint_auth_method") or (method if secret else "none")
        self.steps.append("registered dynamically (RFC 7591)")
        return Client(str(found["client_id"]), secret, method)

    # -- the authorization code flow -------------------------------------------------------

    def _authorize(self, server: Server, resource: dict, scope: str | None) -> None:
        meta = server.metadata
        client = self._client(server, scope)
        verifier, challenge = pkce_pair()
        state = secrets.token_urlsafe(16)
        query = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": self.redirect_uri,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": state,
            "resource": resource["resource"],
        }
        if scope:
            query["scope"] = scope
        endpoint = meta["authorization_endpoint"]
        url = endpoint + ("&" if "?" in endpoint else "?") + urllib.parse.urlencode(query)
        self.steps.append("authorization request (PKCE S256" + (f", scope {scope!r})" if scope else ")"))
        back = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.authorize_in_browser(url)).query))
        if back.get("state") != state:
            raise OAuthError("the authorization response's state is not the one sent: not using it")
        if "error" in back:
            raise OAuthError(f"the authorization server refused: {back['error']} {back.get('error_description', '')}")
        if "iss" in back and back["iss"] != server.issuer:  # RFC 9207 §2.4: simple string comparison
            raise OAuthError(f"the authorization response came from issuer {back['iss']!r}, not {server.issuer!r}")
        if "iss" not in back and meta.get("authorization_response_iss_parameter_supported") is True:
            raise OAuthError(f"{server.issuer} promised an iss parameter and the response has none")
        if not back.get("code"):
            raise OAuthError("the authorization response has no code")
        grant = {
            "grant_type": "authorization_code",
            "code": back["code"],
            "redirect_uri": self.redirect_uri,
            "code_verifier": verifier,
            "resource": resource["resource"],
        }
        server.tokens = self._token(server, client, grant)

    def _refresh(self, server: Server, resource: dict) -> bool:
        assert server.tokens is not None and server.client is not None
        grant = {
            "grant_type": "refresh_token",
            "refresh_token": server.tokens.refresh,
            "resource": resource["resource"],
        }
        try:
            tokens = self._token(server, server.client, grant)
        except OAuthError:
            self.steps.append("refresh refused; authorizing again")
            return False
        tokens.refresh = tokens.refresh or server.tokens.refresh
        server.tokens = tokens
        return True

    def _token(self, server: Server, client: Client, grant: dict) -> Tokens:
        # client_id in the form always: RFC 6749 §4.1.3 allows it with Basic, and some servers want it
        data, headers = {**grant, "client_id": client.client_id}, {}
        if client.method == "client_secret_basic" and client.secret:
            pair = f"{urllib.parse.quote(client.client_id, safe='')}:{urllib.parse.quote(client.secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
        elif client.method == "client_secret_post" and client.secret:
            data["client_secret"] = client.secret
        status, _, body = _http("POST", server.metadata["token_endpoint"], data, headers, form=True)
        found = _json(status, body)
        if not found or not found.get("access_token"):
            error = (json.loads(body) if body.startswith(b"{") else {}).get("error", f"HTTP {status}")
            raise OAuthError(f"the token endpoint refused the {grant['grant_type']} grant: {error}")
        if str(found.get("token_type", "")).lower() != "bearer":
            raise OAuthError(f"the token endpoint gave a {found.get('token_type')!r} token; this client uses Bearer")
        self.steps.append(f"token from the {grant['grant_type']} grant (client auth {client.method})")
        return Tokens(str(found["access_token"]), found.get("refresh_token"), found.get("scope"))
