"""toolkit.mcp.auth: the OAuth 2.1 client MCP authorization asks for (2025-06-18 and later;
the iss check and DCR's deprecation from 2026-07-28).

A small authorization server and a protected MCP endpoint live in this file, on loopback,
each with knobs for one way to misbehave; the course's own MCP server answers behind the
token check. The last tests run the official SDK's authorization server and bearer check
(tests/servers/sdk_protected_server.py) and its authorization server alone
(toolkit/lessons/auth_server.py) in front of the course's protected server. The official suite's auth/* scenarios run in
``make test-conformance``.
"""

import base64
import hashlib
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from toolkit.lessons.toy_tools import make_server_registry
from toolkit.mcp import HTTPTransport, LatestRevisionServer, MCPClient, MCPError
from toolkit.mcp.auth import OAuth, parse_challenge, pkce_pair
from toolkit.mcp.course import course_server


class World:
    """One authorization server (AS) and one protected MCP endpoint (RS), recording each request."""

    def __init__(self, **knobs):
        self.knobs = {
            "iss": "correct",  # correct | wrong | omit | slash
            "iss_supported": True,
            "prm_resource": None,  # None: the RS's own URL
            "metadata_issuer": None,  # None: the AS's own URL
            "pkce": ["S256"],
            "cimd": False,
            "registration": True,
            "auth_methods": ["none"],
            "required_scope": None,  # 403 insufficient_scope unless the token has it
            "scopes_supported": None,
            "refresh": False,
            "grant": True,  # False: every token comes without the scopes asked for
            **knobs,
        }
        self.requests = {"authorize": [], "token": [], "register": []}
        self.issued = {}  # token -> scopes
        self.challenge = None
        self.mcp = course_server(LatestRevisionServer, make_server_registry())
        self.as_ = self._serve(self._as)
        self.rs = self._serve(self._rs)
        self.issuer = self.knobs.get("issuer_path", f"http://127.0.0.1:{self.as_.server_port}")
        self.url = f"http://127.0.0.1:{self.rs.server_port}/mcp"

    def _serve(self, handle):
        world = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                handle(self, "GET", None)

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                handle(self, "POST", body)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.world = world
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    def close(self):
        for server in (self.as_, self.rs):
            server.shutdown()
            server.server_close()

    @staticmethod
    def reply(handler, status, body=None, headers=None):
        data = json.dumps(body).encode() if body is not None else b""
        handler.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _as(self, h, method, body):
        path, _, query = h.path.partition("?")
        k = self.knobs
        if path == "/.well-known/oauth-authorization-server":
            meta = {
                "issuer": k["metadata_issuer"] or self.issuer,
                "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token",
                "response_types_supported": ["code"],
                "token_endpoint_auth_methods_supported": k["auth_methods"],
                "authorization_response_iss_parameter_supported": k["iss_supported"],
            }
            if k["pkce"] is not None:
                meta["code_challenge_methods_supported"] = k["pkce"]
            if k["registration"]:
                meta["registration_endpoint"] = f"{self.issuer}/register"
            if k["cimd"]:
                meta["client_id_metadata_document_supported"] = True
            if k["scopes_supported"]:
                meta["scopes_supported"] = k["scopes_supported"]
            return self.reply(h, 200, meta)
        if path == "/authorize":
            asked = dict(urllib.parse.parse_qsl(query))
            self.requests["authorize"].append(asked)
            back = {"code": f"code-{len(self.requests['authorize'])}", "state": asked.get("state", "")}
            iss = {"correct": self.issuer, "wrong": "http://evil.example", "slash": self.issuer + "/"}.get(k["iss"])
            if iss:
                back["iss"] = iss
            location = asked["redirect_uri"] + "?" + urllib.parse.urlencode(back)
            return self.reply(h, 302, headers={"Location": location})
        if path == "/token":
            form = dict(urllib.parse.parse_qsl(body))
            self.requests["token"].append({"form": form, "authorization": h.headers.get("Authorization")})
            if form["grant_type"] == "refresh_token" and form.get("refresh_token") != "refresh-secret":
                return self.reply(h, 400, {"error": "invalid_grant"})
            asked = self.requests["authorize"][-1] if self.requests["authorize"] else {}
            token = f"secret-token-{len(self.requests['token'])}"
            self.issued[token] = (asked.get("scope") or "").split() if k["grant"] else []
            reply = {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
            if k["refresh"]:
                reply["refresh_token"] = "refresh-secret"
            return self.reply(h, 200, reply)
        if path == "/register":
            self.requests["register"].append(json.loads(body))
            return self.reply(h, 201, {"client_id": "registered-client", "token_endpoint_auth_method": "none"})
        return self.reply(h, 404, {"error": "not found"})

    def _rs(self, h, method, body):
        prm_path = "/.well-known/oauth-protected-resource/mcp"
        if method == "GET" and h.path == prm_path:
            prm = {"resource": self.knobs["prm_resource"] or self.url, "authorization_servers": [self.issuer]}
            return self.reply(h, 200, prm)
        if method == "GET":
            return self.reply(h, 404, {"error": "not found"})
        bearer = (h.headers.get("Authorization") or "").removeprefix("Bearer ")
        metadata = f"http://127.0.0.1:{self.rs.server_port}{prm_path}"
        if bearer not in self.issued:
            www = f'Bearer error="invalid_token", resource_metadata="{metadata}"'
            return self.reply(h, 401, {"error": "unauthorized"}, {"WWW-Authenticate": www})
        need = self.knobs["required_scope"]
        if need and need not in self.issued[bearer]:
            www = f'Bearer error="insufficient_scope", scope="{need}", resource_metadata="{metadata}"'
            return self.reply(h, 403, {"error": "forbidden"}, {"WWW-Authenticate": www})
        answer = self.mcp.handle(json.loads(body))
        if answer is None:
            return self.reply(h, 202)
        return self.reply(h, 200, answer)


@pytest.fixture
def world(request):
    knobs = getattr(request, "param", {})
    made = World(**knobs)
    yield made
    made.close()


def session(world, **options):
    auth = OAuth(world.url, **options)
    client = MCPClient(HTTPTransport(world.url, auth=auth))
    return client, auth


def test_the_flow_reaches_the_tools_with_pkce_s256_and_the_resource(world):
    client, auth = session(world)
    client.initialize("2025-11-25")
    assert client.list_tools(), "the course server's tools, behind the token"
    [asked] = world.requests["authorize"]
    [token] = world.requests["token"]
    assert asked["code_challenge_method"] == "S256"
    verifier = token["form"]["code_verifier"]
    digest = hashlib.sha256(verifier.encode()).digest()
    assert asked["code_challenge"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert asked["resource"] == token["form"]["resource"] == world.url  # RFC 8707, both requests
    assert world.requests["register"], "no pre-registration, no metadata document support: DCR"


def test_no_token_appears_in_steps_repr_or_the_transports_logs(world):
    client, auth = session(world)
    client.initialize("2025-11-25")
    client.list_tools()
    shown = " ".join(auth.steps) + repr(auth) + repr(auth.servers) + " ".join(client.transport.http_log)
    shown += json.dumps(client.transport.log)
    assert world.issued and not any(token in shown for token in world.issued)
    assert "code-1" not in shown


@pytest.mark.parametrize(
    "world, refusal",
    [
        ({"iss": "wrong"}, "issuer"),
        ({"iss": "slash"}, "issuer"),  # RFC 9207: simple string comparison, no normalizing
        ({"iss": "omit"}, "promised an iss"),
        ({"iss": "wrong", "iss_supported": None}, "issuer"),  # a present iss is checked anyway
    ],
    indirect=["world"],
)
def test_an_authorization_response_from_another_issuer_is_refused(world, refusal):
    client, _ = session(world)
    with pytest.raises(MCPError, match=refusal):
        client.initialize("2025-11-25")
    assert world.requests["authorize"] and not world.requests["token"], "the code must not be redeemed"


@pytest.mark.parametrize("world", [{"iss": "wrong"}], indirect=True)
def test_a_refused_authorization_is_no_reason_to_try_the_handshake_era(world):
    """connect() falls back to initialize on an unknown error; a stopped authorization is not
    one (the same server would ask the user to authorize again, for nothing)."""
    client, _ = session(world)
    with pytest.raises(MCPError, match="Authorization failed"):
        client.connect()
    assert len(world.requests["authorize"]) == 1


@pytest.mark.parametrize("world", [{"iss": "omit", "iss_supported": None}], indirect=True)
def test_a_server_that_never_promised_iss_is_not_held_to_it(world):
    client, _ = session(world)
    client.initialize("2025-11-25")
    assert world.requests["token"]


@pytest.mark.parametrize(
    "world, refusal",
    [
        ({"prm_resource": "http://127.0.0.1:1/mcp"}, "not authorizing"),  # a token for another resource
        ({"metadata_issuer": "http://evil.example"}, "names issuer"),  # RFC 8414 §3.3
        ({"pkce": None}, "PKCE S256"),
        ({"pkce": ["plain"]}, "PKCE S256"),
    ],
    indirect=["world"],
)
def test_discovery_that_breaks_a_must_stops_before_authorization(world, refusal):
    client, _ = session(world)
    with pytest.raises(MCPError, match=refusal):
        client.initialize("2025-11-25")
    assert not world.requests["authorize"]


@pytest.mark.parametrize("world", [{"cimd": True}], indirect=True)
def test_a_client_id_metadata_document_comes_before_registration(world):
    client, _ = session(world, client_metadata_url="https://client.example/meta.json")
    client.initialize("2025-11-25")
    assert not world.requests["register"]
    assert world.requests["authorize"][0]["client_id"] == "https://client.example/meta.json"


@pytest.mark.parametrize("world", [{"auth_methods": ["client_secret_post"]}], indirect=True)
def test_a_pre_registered_client_authenticates_as_the_server_supports(world):
    client, _ = session(world, client_id="pre", client_secret="shh")
    client.initialize("2025-11-25")
    [token] = world.requests["token"]
    assert not world.requests["register"]
    assert token["form"]["client_id"] == "pre" and token["form"]["client_secret"] == "shh"
    assert token["authorization"] is None


@pytest.mark.parametrize("world", [{"auth_methods": ["client_secret_basic"]}], indirect=True)
def test_client_secret_basic_goes_in_the_authorization_header(world):
    client, _ = session(world, client_id="pre:id", client_secret="s&cret")
    client.initialize("2025-11-25")
    [token] = world.requests["token"]
    assert "client_secret" not in token["form"]
    pair = base64.b64decode(token["authorization"].removeprefix("Basic ")).decode()
    assert pair == "pre%3Aid:s%26cret"  # RFC 6749 §2.3.1: form-encoded, then joined


@pytest.mark.parametrize("world", [{"required_scope": "tools:write", "scopes_supported": None}], indirect=True)
def test_insufficient_scope_asks_again_for_the_union(world):
    world.knobs["required_scope"] = None
    client, auth = session(world)
    client.initialize("2025-11-25")
    auth.scopes = ["tools:read"]  # what an earlier authorization asked for
    world.knobs["required_scope"] = "tools:write"
    client.list_tools()
    assert world.requests["authorize"][-1]["scope"].split() == ["tools:read", "tools:write"]


@pytest.mark.parametrize("world", [{"grant": False}], indirect=True)
def test_a_scope_that_is_never_granted_ends_after_three_authorizations(world):
    client, _ = session(world)
    client.initialize("2025-11-25")
    before = len(world.requests["authorize"])
    world.knobs["required_scope"] = "never-granted"
    with pytest.raises(MCPError, match="403"):
        client.list_tools()
    assert 1 <= len(world.requests["authorize"]) - before <= 3


@pytest.mark.parametrize("world", [{"refresh": True}], indirect=True)
def test_an_expired_token_is_refreshed_before_asking_the_user_again(world):
    client, _ = session(world)
    client.initialize("2025-11-25")
    world.issued.clear()  # every token expires
    client.list_tools()
    assert [t["form"]["grant_type"] for t in world.requests["token"]] == ["authorization_code", "refresh_token"]
    assert len(world.requests["authorize"]) == 1


def test_credentials_are_kept_per_issuer_so_a_new_server_means_a_new_registration(world):
    client, auth = session(world)
    client.initialize("2025-11-25")
    other = World()
    try:
        world.issuer = other.issuer  # the PRM now names another authorization server
        world.issued.clear()
        other.issued = world.issued  # tokens it issues are good at this RS
        client.list_tools()
        assert other.requests["register"], "registered again at the new server"
        assert set(auth.servers) == {f"http://127.0.0.1:{world.as_.server_port}", other.issuer}
    finally:
        other.close()


def test_parse_challenge_reads_quoted_and_bare_parameters():
    header = 'Bearer realm="mcp", error=insufficient_scope, scope="a b", resource_metadata="http://x/y"'
    assert parse_challenge(header) == {
        "realm": "mcp",
        "error": "insufficient_scope",
        "scope": "a b",
        "resource_metadata": "http://x/y",
    }
    assert parse_challenge('Basic realm="x"') == {} and parse_challenge(None) == {}


def test_pkce_pairs_are_fresh_and_s256():
    (v1, c1), (v2, _) = pkce_pair(), pkce_pair()
    assert v1 != v2 and 43 <= len(v1) <= 128  # RFC 7636 §4.1
    assert c1 == base64.urlsafe_b64encode(hashlib.sha256(v1.encode()).digest()).rstrip(b"=").decode()


@pytest.fixture(scope="module")
def sdk_protected_url():
    """The official SDK's authorization server and bearer check (tests/servers/sdk_protected_server.py)."""
    script = Path(__file__).parent / "servers" / "sdk_protected_server.py"
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        wait_for(url.replace("/mcp", "/.well-known/oauth-authorization-server"))
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.mark.parametrize("revision", ["2025-11-25", "2026-07-28"])
def test_the_toolkit_client_completes_a_session_with_an_sdk_protected_server(sdk_protected_url, revision):
    """The SDK checks PKCE, the client's authentication, the scope it requires and (with
    validate_token_resource) that the token was issued for this resource."""
    auth = OAuth(sdk_protected_url)
    client = MCPClient(HTTPTransport(sdk_protected_url, auth=auth))
    if revision == "2026-07-28":
        client.connect()
        assert client.modern
    else:
        client.initialize(revision)
    assert [t["name"] for t in client.list_tools()] == ["add"]
    assert client.call_tool("add", {"a": 2, "b": 3})["content"][0]["text"] == "5"
    assert any("registered dynamically" in step for step in auth.steps)  # the SDK's AS has no CIMD
    assert any("token from the authorization_code grant" in step for step in auth.steps)


@pytest.fixture(scope="module")
def sdk_issuer():
    """The official SDK's authorization server alone, with token introspection beside it."""
    from toolkit.lessons.auth_server import LoopbackAuthorizationServer

    with LoopbackAuthorizationServer() as server:
        yield server.issuer


def wait_for(url):
    for _ in range(200):  # until uvicorn listens (the script prints its URL before it starts)
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except OSError:
            time.sleep(0.1)


def protected_course_server(issuer, scopes=("mcp",)):
    from toolkit.mcp import ModernServer, StreamableHTTPServer
    from toolkit.mcp.http.protect import ProtectedResource, introspect_at

    guard = ProtectedResource(issuer, introspect_at(issuer + "introspect"), scopes=scopes)
    return StreamableHTTPServer(lambda: course_server(ModernServer, make_server_registry()), port=0, protect=guard)


def test_the_toolkit_client_and_the_course_protected_server_with_the_sdk_authorization_server(sdk_issuer):
    with protected_course_server(sdk_issuer) as app:
        auth = OAuth(app.url)
        client = MCPClient(HTTPTransport(app.url, auth=auth))
        client.connect()
        assert client.modern and client.list_tools()
        assert auth.steps[0] == "401 from the MCP server"


def test_the_sdk_client_completes_a_session_with_the_course_protected_server(sdk_issuer):
    import anyio
    import httpx2
    from mcp import ClientSession
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

    class Memory:
        def __init__(self):
            self.tokens = self.client = None

        async def get_tokens(self):
            return self.tokens

        async def set_tokens(self, tokens):
            self.tokens = tokens

        async def get_client_info(self):
            return self.client

        async def set_client_info(self, info):
            self.client = info

    redirected = {}

    async def browser(url):  # consents at once: the SDK authorization server redirects back
        async with httpx2.AsyncClient(follow_redirects=False) as http:
            redirected["to"] = (await http.get(url)).headers["location"]

    async def callback():
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(redirected["to"]).query))
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    with protected_course_server(sdk_issuer) as app:
        metadata = OAuthClientMetadata(
            client_name="sdk-client",
            redirect_uris=["http://127.0.0.1:3000/callback"],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            scope="mcp",
        )
        provider = OAuthClientProvider(app.url, metadata, Memory(), browser, callback)

        async def session():
            async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
                async with streamable_http_client(app.url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as s:
                        await s.initialize()
                        return (await s.list_tools()).tools

        tools = anyio.run(session)
        assert tools and "to" in redirected


def guarded(answers):
    """The course server behind a ProtectedResource whose introspection answers from ``answers``."""
    from toolkit.mcp import ModernServer, StreamableHTTPServer
    from toolkit.mcp.http.protect import ProtectedResource

    guard = ProtectedResource("http://as.example", lambda token: answers(guard, token), scopes=("mcp",))
    return StreamableHTTPServer(lambda: course_server(ModernServer, make_server_registry()), port=0, protect=guard)


def post_with(app, token):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(app.url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers.get("WWW-Authenticate")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("WWW-Authenticate")


def test_the_protected_server_publishes_its_metadata_and_points_to_it():
    with guarded(lambda guard, token: {"active": False}) as app:
        status, challenge = post_with(app, None)
        where = parse_challenge(challenge)["resource_metadata"]
        with urllib.request.urlopen(where, timeout=10) as response:
            metadata = json.loads(response.read())
        assert status == 401 and metadata == {
            "resource": app.url,
            "authorization_servers": ["http://as.example"],
            "scopes_supported": ["mcp"],
        }


@pytest.mark.parametrize(
    "answer, status, error",
    [
        (lambda guard: {"active": False, "aud": guard.resource, "scope": "mcp"}, 401, "invalid_token"),
        (lambda guard: {"active": True, "aud": "http://127.0.0.1:1/mcp", "scope": "mcp"}, 401, "invalid_token"),
        (lambda guard: {"active": True, "scope": "mcp"}, 401, "invalid_token"),  # no audience: not for us
        (lambda guard: {"active": True, "aud": guard.resource, "scope": "read"}, 403, "insufficient_scope"),
    ],
)
def test_the_protected_server_refuses_tokens_not_meant_for_it(answer, status, error):
    """A token from another resource (a passthrough) is refused (RFC 8707; MCP's token
    passthrough rule); so are inactive ones; one without the scope gets 403 and the scope."""
    with guarded(lambda guard, token: answer(guard)) as app:
        got, challenge = post_with(app, "some-token")
        assert got == status and parse_challenge(challenge)["error"] == error


def test_the_protected_server_takes_a_token_for_itself_with_the_scope():
    with guarded(lambda guard, token: {"active": True, "aud": guard.resource, "scope": "mcp other"}) as app:
        client = MCPClient(HTTPTransport(app.url, token="some-token"))
        client.connect()
        assert client.modern and client.list_tools()
