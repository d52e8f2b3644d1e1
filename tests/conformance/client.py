"""The client the official MCP conformance suite tests in its client mode (``make test-conformance``).

    MCP_CONFORMANCE_SCENARIO=initialize python tests/conformance/client.py URL

The suite starts a server of its own for each scenario and runs this with the server's URL.
Built only from ``toolkit.mcp``'s public API: ``MCPClient`` over ``HTTPTransport``. Whatever
the scenario, it does what a host does: initialize, list the tools, call each one with
arguments made from its schema, and answer what the server asks on the way: elicitation
(accepted with an empty form, so the defaults the toolkit fills in are what the server sees)
and sampling (a fixed reply, labelled as a mock). A stream the server closes early is
resumed by the transport (GET with Last-Event-ID after the ``retry`` the server gave).
The OAuth scenarios (``auth/*``) are out of scope.
"""

from __future__ import annotations

import os
import sys

from toolkit.mcp import HTTPTransport, MCPClient, MCPError

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


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: MCP_CONFORMANCE_SCENARIO=NAME python tests/conformance/client.py URL", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    client = MCPClient(
        HTTPTransport(argv[0], listen=True),
        name="toolkit-conformance-client",
        on_elicit=lambda message, schema: {"action": "accept", "content": {}},
        on_sample=mock_sample,
    )
    try:
        client.initialize("2025-11-25")
        for tool in client.list_tools():
            result = client.call_tool(tool["name"], arguments_for(tool.get("inputSchema") or {}))
            print(f"[{scenario}] {tool['name']}: {result.get('content')}", file=sys.stderr)
    except MCPError as exc:
        print(f"[{scenario}] {exc}", file=sys.stderr)
        return 1
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
