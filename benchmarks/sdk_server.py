"""The toolkit's two demo tools, ``echo`` and ``add``, served with the official MCP SDK.

The counterpart of ``python -m toolkit serve`` in ``bench_mcp.py``: same tool names, same
parameters, same descriptions, same results (text content only: ``structured_output=False``
keeps the SDK from adding ``structuredContent``, which the toolkit server does not send), so
the two servers differ only in what serves them. Run: ``python benchmarks/sdk_server.py`` (stdio).
"""

from mcp.server.mcpserver import MCPServer

app = MCPServer("sdk-bench-server")


@app.tool(structured_output=False)
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@app.tool(structured_output=False)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    app.run()
