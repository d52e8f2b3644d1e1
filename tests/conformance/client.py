"""The client the official MCP conformance suite tests in its client mode (``make test-conformance``).

    MCP_CONFORMANCE_SCENARIO=initialize MCP_CONFORMANCE_PROTOCOL_VERSION=2025-11-25 \
        python tests/conformance/client.py URL

The suite starts a server of its own for each scenario and runs this with the server's URL.
Built only from ``toolkit.mcp``'s public API: ``MCPClient`` over ``HTTPTransport``. It speaks
the revision the suite names (``--spec-version``, passed as ``MCP_CONFORMANCE_PROTOCOL_VERSION``;
0.1.16 names none, so 2025-11-25): ``initialize`` with it up to 2025-11-25, ``server/discover``
at 2026-07-28. Whatever the scenario, it then does what a host does: list the tools, call the
ones the scenario's ``MCP_CONFORMANCE_CONTEXT`` names with its arguments (else each listed tool
with arguments made from its schema), show a call the server refuses and go on, and answer
what the server asks on the way: elicitation (accepted with an empty form, so the defaults the
toolkit fills in are what the server sees) and sampling (a fixed reply, labelled as a mock). A
stream the server closes early is resumed by the transport (GET with Last-Event-ID after the
``retry`` the server gave). In the OAuth scenarios (``auth/*``) the transport authorizes with
``toolkit.mcp.auth.OAuth`` when the server answers 401 or 403; what it did is printed, with
no token in it.
"""

from __future__ import annotations

import json
import os
import sys

from toolkit.mcp import STATELESS_VERSIONS, HTTPTransport, MCPClient, MCPError
from toolkit.mcp.auth import OAuth

# The suite's authorization servers take an HTTPS client_id as a client ID metadata document
# without fetching it; this is the URL its own example client uses.
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"

SAMPLES = {"number": 2, "integer": 3, "string": "conformance", "boolean": True}


def arguments_for(schema: dict) -> dict:
    """A value of the right JSON type for each required parameter (numbers 2 and 3 alike)."""
    props = schema.get("properties") or {}
    return {name: SAMPLES.get(props.get(name, {}).get("type"), "x") for name in schema.get("required", [])}


def mock_sample(params: dict) -> dict:
    """Not a model: a fixed reply, so the scenario can see sampling answered."""
    return {
        "role": "assistant",
        "content": {"type": "text", "text": "mock reply"},
        "model": "mock",
        "stopReason": "endTurn",
    }


def scenario_context() -> dict:
    """``MCP_CONFORMANCE_CONTEXT``: what the scenario hands the client (tool calls, credentials)."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    return context if isinstance(context, dict) else {}


def planned_calls(tools: list[dict]) -> list[tuple[str, dict]]:
    """The calls to make: the ones the scenario's ``MCP_CONFORMANCE_CONTEXT`` names (the suite
    picks arguments that test header encoding), else every listed tool with sample arguments."""
    named = scenario_context().get("toolCalls")
    if named:
        return [(call["name"], call.get("arguments") or {}) for call in named]
    return [(tool["name"], arguments_for(tool.get("inputSchema") or {})) for tool in tools]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: MCP_CONFORMANCE_SCENARIO=NAME python tests/conformance/client.py URL", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    auth = None
    if scenario.startswith("auth/"):  # a pre-registered client when the scenario gives one
        context = scenario_context()
        auth = OAuth(
            argv[0],
            client_id=context.get("client_id"),
            client_secret=context.get("client_secret"),
            client_metadata_url=CLIENT_METADATA_URL,
            client_name="toolkit-conformance-client",
        )
    client = MCPClient(
        HTTPTransport(argv[0], listen=True, auth=auth),
        name="toolkit-conformance-client",
        on_elicit=lambda message, schema: {"action": "accept", "content": {}},
        on_sample=mock_sample,
    )
    revision = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25")  # --spec-version
    try:
        if revision in STATELESS_VERSIONS:
            client.connect()  # server/discover at 2026-07-28 (basic/versioning)
        else:
            client.initialize(revision)
        for name, arguments in planned_calls(client.list_tools()):
            try:
                result = client.call_tool(name, arguments)
            except MCPError as exc:  # as a host does: show the failed call, go on with the next
                print(f"[{scenario}] {name}: {exc}", file=sys.stderr)
                continue
            print(f"[{scenario}] {name}: {result.get('content')}", file=sys.stderr)
    except MCPError as exc:
        print(f"[{scenario}] {exc}", file=sys.stderr)
        return 1
    finally:
        client.close()
        for step in auth.steps if auth else ():
            print(f"[{scenario}] auth: {step}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
