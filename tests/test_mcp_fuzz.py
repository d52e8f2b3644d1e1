"""Property-based fuzzing of the MCP stdio loop and the HTTP endpoint (pack §2.6).

Hypothesis writes the input: well-formed requests and notifications, JSON-RPC-shaped
messages with wrong parts, batches, random JSON, random bytes, and valid lines with bytes
cut, flipped or inserted. Whatever arrives, the loop must not raise; each reply must be one
line of JSON-RPC 2.0 with exactly one of result or error; a notification gets no reply; a
well-formed request gets exactly one reply with its own id.
"""

import http.client
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolkit as T
from toolkit.lessons.toy_tools import make_server_registry
from toolkit.mcp import StreamableHTTPServer

VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "1999-01-01"]
METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "server/discover",
    "resources/list",
    "notifications/initialized",
    "notifications/cancelled",
    "",
]

json_scalars = (
    st.none() | st.booleans() | st.integers() | st.text(max_size=12) | st.floats(allow_nan=False, allow_infinity=False)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
good_ids = st.integers(min_value=-(2**53), max_value=2**53) | st.text(max_size=10)
any_ids = good_ids | st.none() | st.booleans() | st.floats(allow_nan=False) | st.lists(st.integers(), max_size=2)
meta = st.fixed_dictionaries({"io.modelcontextprotocol/protocolVersion": st.sampled_from(VERSIONS) | json_scalars})

params = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {
            "protocolVersion": st.sampled_from(VERSIONS) | json_scalars,
            "capabilities": st.just({}) | json_values,
            "clientInfo": st.just({"name": "fuzz", "version": "1"}) | json_values,
        }
    ),
    st.fixed_dictionaries(
        {
            "name": st.sampled_from(["add", "echo", "nope"]) | json_scalars,
            "arguments": st.fixed_dictionaries({"a": json_scalars, "b": json_scalars})
            | st.fixed_dictionaries({"text": json_scalars})
            | json_values,
        }
    ),
    st.fixed_dictionaries({"cursor": json_scalars | st.sampled_from(["b2Zmc2V0OjE=", "b2Zmc2V0Ojk5"])}),
    st.fixed_dictionaries({"_meta": meta}),
)


def request(id_strategy=good_ids):
    return st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0"), "id": id_strategy, "method": st.sampled_from(METHODS) | st.text(max_size=12)},
        optional={"params": params},
    )


notification = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "method": st.sampled_from(METHODS) | st.text(max_size=12)}, optional={"params": params}
)
# The same parts, each of them possibly wrong or missing.
loose = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.just("2.0") | json_scalars,
        "id": any_ids,
        "method": st.sampled_from(METHODS) | json_scalars,
        "params": params,
        "result": json_values,
        "error": json_values,
    },
)
valid_message = request() | notification


@st.composite
def mutated(draw, base=valid_message):
    """A valid message's bytes with one cut, flip, insertion or deletion."""
    data = bytearray(json.dumps(draw(base)).encode())
    where = draw(st.integers(0, len(data)))
    how = draw(st.sampled_from(["cut", "flip", "insert", "delete"]))
    if how == "cut":
        return bytes(data[:where])
    if how == "flip" and where < len(data):
        data[where] ^= draw(st.integers(1, 255))
    elif how == "insert":
        data[where:where] = draw(st.binary(min_size=1, max_size=4))
    elif where < len(data):
        del data[where : where + draw(st.integers(1, 5))]
    return bytes(data)


def encode(msg):
    return json.dumps(msg).encode()


# Each item is (kind, bytes). Kinds with a definite answer: "request" -> exactly one reply with
# its id; "notification" -> no reply. Everything else may or may not get a reply, but any reply
# must be well-formed.
line_items = st.one_of(
    request().map(lambda m: ("request", encode(m))),
    notification.map(lambda m: ("notification", encode(m))),
    loose.map(lambda m: ("other", encode(m))),
    st.lists(request() | notification | loose, max_size=4).map(lambda b: ("other", encode(b))),
    json_values.map(lambda v: ("other", encode(v))),
    mutated().map(lambda b: ("other", b)),
    st.binary(max_size=80).map(lambda b: ("other", b)),
)


def check_response(obj):
    assert isinstance(obj, dict), obj
    assert obj.get("jsonrpc") == "2.0"
    assert set(obj) <= {"jsonrpc", "id", "result", "error"}
    assert ("result" in obj) != ("error" in obj), obj
    assert "id" in obj
    assert (
        obj["id"] is None
        or isinstance(obj["id"], str)
        or (isinstance(obj["id"], int) and not isinstance(obj["id"], bool))
    )
    if "error" in obj:
        assert isinstance(obj["error"]["code"], int) and not isinstance(obj["error"]["code"], bool)
        assert isinstance(obj["error"]["message"], str)
    else:
        assert isinstance(obj["result"], dict)


def check_reply_line(text):
    assert text.endswith("\n") and text.count("\n") == 1, repr(text)
    reply = json.loads(text)
    if isinstance(reply, list):  # a batch reply, possible only after a 2025-03-26 initialize
        assert reply
        for item in reply:
            check_response(item)
    else:
        check_response(reply)
    return reply


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    items=st.lists(line_items, min_size=1, max_size=12),
    start_ready=st.booleans(),
    version=st.sampled_from(VERSIONS[:4]),
    kind=st.sampled_from([T.MCPServer, T.LatestRevisionServer]),
)
def test_the_stdio_loop_survives_anything_and_answers_by_the_rules(items, start_ready, version, kind):
    server = kind(make_server_registry(), page_size=1)
    if start_ready:
        server.handle(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "f", "version": "1"}},
            }
        )
    for kind, data in items:
        # On stdio a newline ends a line, so a mutation that adds one makes two lines.
        for line in data.split(b"\n"):
            out = []
            T.serve_lines(server, [line], out.append)  # must not raise
            replies = [check_reply_line(text) for text in out]
            assert len(replies) <= 1
            if kind == "request" and b"\n" not in data:
                assert len(replies) == 1 and isinstance(replies[0], dict)
                assert replies[0]["id"] == json.loads(line)["id"]
            if kind == "notification" and b"\n" not in data:
                assert replies == []
            if not line.strip():
                assert replies == []


def test_the_fuzzer_can_fail():
    """The checks above are not vacuous: they reject replies a broken server might send."""
    for bad in (
        '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}\n',
        '{"jsonrpc":"2.0","id":1}\n',
        '{"jsonrpc":"1.0","id":1,"result":{}}\n',
        '{"jsonrpc":"2.0","id":true,"result":{}}\n',
        '{"jsonrpc":"2.0","id":1,"result":{}}\n{}\n',
        "[]\n",
        '{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}\n',
    ):
        with pytest.raises(AssertionError):
            check_reply_line(bad)


# ---- the same over HTTP: bodies of any shape never break the endpoint --------------------------

http_bodies = st.one_of(
    request().map(encode),
    notification.map(encode),
    loose.map(encode),
    json_values.map(encode),
    mutated(),
    st.binary(max_size=80),
)


@pytest.fixture(scope="module")
def shared_app():
    with StreamableHTTPServer(lambda: T.MCPServer(make_server_registry()), port=0) as app:
        yield app


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(bodies=st.lists(http_bodies, min_size=1, max_size=4), use_session=st.booleans())
def test_the_http_endpoint_survives_any_body(shared_app, bodies, use_session):
    """One server for every example (as in real use); each example has its own connection
    and, half of the time, its own 2025-03-26 session (the revision that allows batches)."""
    app = shared_app
    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=10)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **app.auth_headers}
    try:
        if use_session:
            conn.request(
                "POST",
                "/mcp",
                body=encode(
                    {
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "initialize",
                        "params": {
                            "protocolVersion": "2025-03-26",
                            "capabilities": {},
                            "clientInfo": {"name": "f", "version": "1"},
                        },
                    }
                ),
                headers=headers,
            )
            response = conn.getresponse()
            response.read()
            headers["Mcp-Session-Id"] = response.headers["Mcp-Session-Id"]
        for body in bodies:
            conn.request("POST", "/mcp", body=body, headers=headers)
            response = conn.getresponse()
            payload = response.read()
            assert response.status in (200, 202, 400, 404)
            if response.status == 202:
                assert payload == b""
            else:
                check_reply_line(payload.decode("ascii"))
        conn.request("POST", "/mcp", body=b'{"jsonrpc":"2.0","id":"last","method":"ping"}', headers=headers)
        response = conn.getresponse()
        last = json.loads(response.read())
        if use_session:
            assert last == {"jsonrpc": "2.0", "id": "last", "result": {}}  # the session is unharmed
        else:
            assert response.status == 400 and last["id"] == "last"
    finally:
        conn.close()
