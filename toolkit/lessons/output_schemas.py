"""Output schemas on top of the lesson server (notebook 06; pack §2.6).

The toolkit's :class:`~toolkit.mcp.MCPServer` lists no ``outputSchema``; this subclass adds
one per named tool without touching the core, and ``weather_results`` gives real
``tools/call`` results to check a schema against. Exercise 7 builds on both.
"""

from __future__ import annotations

import copy

from ..mcp import InMemoryTransport, MCPClient, MCPServer
from .toy_tools import make_weather_registry

__all__ = ["OutputSchemaServer", "weather_results"]


class OutputSchemaServer(MCPServer):
    """An :class:`~toolkit.mcp.server.MCPServer` that also lists an ``outputSchema`` for the
    tools named in ``output_schemas`` (a dict from tool name to JSON Schema).

    Notebook 06.
    """

    def __init__(self, registry, output_schemas: dict, **options) -> None:
        super().__init__(registry, **options)
        self.output_schemas = dict(output_schemas)

    def _tools_list(self, params: dict) -> dict:
        result = super()._tools_list(params)
        for tool in result["tools"]:
            if tool["name"] in self.output_schemas:
                tool["outputSchema"] = copy.deepcopy(self.output_schemas[tool["name"]])
        return result


def weather_results(calls=(("Oslo", "celsius"), ("Cairo", "fahrenheit"), ("Lima", "celsius"))) -> list[dict]:
    """Real ``tools/call`` results of the weather tool, taken through an in-memory session.

    Used by: toolkit/checks/ex07.py.
    """
    client = MCPClient(InMemoryTransport(MCPServer(make_weather_registry())))
    client.initialize()
    return [client.call_tool("get_weather", {"city": city, "unit": unit}) for city, unit in calls]
