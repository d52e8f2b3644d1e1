"""An MCP server built with the official Python SDK (``mcp``), for interop tests (pack §2.6).

The toolkit's own client must be able to talk to servers it did not write. This one offers
``add`` (integers, like the toolkit's demo server), ``weather`` (returns a dict, so the SDK
sends structured content) and ``chatty`` (sends two log notifications and a progress
notification before its reply, as real servers do). ``--page-size N`` is not available here:
the SDK's high-level server does not page tools/list, which is itself worth knowing.

Run: ``python tests/servers/sdk_server.py`` (stdio).
"""

import warnings

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

warnings.simplefilter("ignore")  # the SDK marks logging as deprecated in 2026-07-28; we still use it

app = MCPServer("sdk-test-server", instructions="A server built with the official SDK.")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.tool()
def weather(city: str) -> dict:
    """Temperature for a city; only Paris has data."""
    if city != "Paris":
        raise ToolError(f"No weather for {city!r}; try Paris.")
    return {"city": "Paris", "temp": 21}


@app.tool()
async def chatty(text: str, ctx: Context) -> str:
    """Log twice and report progress, then echo the text."""
    await ctx.info(f"starting on {text!r}")
    await ctx.report_progress(1, 2, "half way")
    await ctx.info("done")
    return text.upper()


if __name__ == "__main__":
    app.run()
