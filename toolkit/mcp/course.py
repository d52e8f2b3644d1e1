"""The primitives ``python -m toolkit serve`` offers beside its tools (pack §2.6; notebook 06).

One of each kind, on the course's made-up weather data (``toolkit/data/weather.json``):

- a resource the model can be given, ``weather://cities`` (the cities with data), and a
  template, ``weather://forecast/{city}``, for one city's reading;
- a prompt the user picks, ``plan_outing``, whose ``city`` argument completes from the
  cities; when the user leaves the city out, the server asks for it with an
  elicitation (if the client declared that capability), and logs what it did;
- two tools written for MCP, :func:`course_tools`: ``forecast``, which elicits the city when
  the model left it out and answers with ``structuredContent``, and ``outing_tip``, which
  asks the client's own model for a sentence (sampling, deprecated from 2026-07-28).

``python -m toolkit serve`` keeps the tools ``echo`` and ``add`` alone, so clients written for
the earlier server see the same tool list; notebook 06 adds :func:`course_tools` in memory.
"""

from __future__ import annotations

import json

from ..data import load_json
from ..registry import ToolRegistry
from .content import resource_link, text
from .context import RequestContext
from .prompts import Prompt, PromptArgument, Prompts
from .resources import Resource, Resources, ResourceTemplate
from .server import MCPServer
from .tools import ServerTool

__all__ = ["course_resources", "course_prompts", "course_tools", "course_server", "CITY_FORM", "FORECAST_OUTPUT"]


def _temps() -> dict:
    return load_json("weather.json")["celsius"]


def course_resources() -> Resources:
    """``weather://cities`` and the template ``weather://forecast/{city}``.

    Shown in section 5, "A resource the application reads for the model".
    Notebook 06, through mcp.course.course_server.
    """
    cities = Resource("weather://cities", "cities", lambda: "\n".join(_temps()), title="Cities with weather data")
    forecast = ResourceTemplate(
        "weather://forecast/{city}",
        "forecast",
        lambda v: json.dumps({"city": v["city"], "celsius": _temps().get(v["city"])}),
        mime_type="application/json",
        description="Today's made-up temperature for one city (null when the city has no data)",
    )
    return Resources((cities,), (forecast,))


# What the server asks for when the user picked plan_outing without a city: a flat form,
# as elicitation allows (one string with the known cities to choose from, a default).
CITY_FORM = {
    "type": "object",
    "properties": {"city": {"type": "string", "title": "City", "enum": list(_temps()), "default": "Paris"}},
    "required": ["city"],
}


def _ask_city(context: RequestContext, asker: str) -> str | None:
    """The city the user names in the form (elicitation), or None if they decline or cancel."""
    answer = context.elicit("Which city is the outing in?", CITY_FORM)
    context.log("info", {"elicited": answer.get("action"), "content": answer.get("content")}, asker)
    if answer.get("action") != "accept":
        return None
    return (answer.get("content") or {}).get("city") or None


def _plan_outing(args: dict, context: RequestContext) -> list:
    """The prompt's messages; a missing city is asked for (elicitation) before it is written."""
    city = args.get("city") or _ask_city(context, "plan_outing")
    if not city:
        return [{"role": "user", "content": text("Plan an outing; I did not say where.")}]
    link = resource_link(f"weather://forecast/{city}", f"forecast for {city}", "application/json")
    return [
        {"role": "user", "content": text(f"Plan an outdoor outing in {city} today, suited to its weather.")},
        {"role": "user", "content": link},
    ]


def course_prompts() -> Prompts:
    """``plan_outing(city?)``.

    Shown in section 5, "A prompt the user picks".
    Notebook 06, through mcp.course.course_server.
    """
    city = PromptArgument("city", "where the outing is (left out: the server asks)", choices=tuple(_temps()))
    return Prompts((Prompt("plan_outing", _plan_outing, "Plan an outing that suits the weather", arguments=[city]),))


FORECAST_OUTPUT = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": ["number", "null"]}},
    "required": ["city", "celsius"],
}


def _forecast(args: dict, context: RequestContext) -> dict:
    """The tool's answer; a city the model left out is asked for (elicitation) first."""
    city = args.get("city") or _ask_city(context, "forecast")
    if not city:
        return {"content": [text("The user named no city, so there is no forecast.")], "isError": True}
    return {"city": city, "celsius": _temps().get(city)}


def _outing_tip(args: dict, context: RequestContext) -> str:
    """One sentence from the client's own model (sampling), for the city's temperature."""
    city = args["city"]
    reply = context.sample(f"In one sentence, suggest an outing in {city} at {_temps().get(city)} degrees C.", 60)
    content: dict = reply["content"] if isinstance(reply.get("content"), dict) else {}
    return f"{content.get('text', '')} (sampled from {reply.get('model', 'the client')})"


def course_tools() -> tuple[ServerTool, ...]:
    """``forecast(city?)``, which elicits a missing city, and ``outing_tip(city)``, which samples.

    Shown in section 5, "A tool that asks for the missing city", and "Sampling".
    Notebook 06.
    """
    city = {"type": "string", "enum": list(_temps()), "description": "a city with weather data"}
    forecast = ServerTool(
        "forecast",
        _forecast,
        "Today's made-up temperature for a city; if the city is left out, the user is asked",
        input_schema={"type": "object", "properties": {"city": city}},
        output_schema=FORECAST_OUTPUT,
        annotations={"readOnlyHint": True, "openWorldHint": False},
    )
    tip = ServerTool(
        "outing_tip",
        _outing_tip,
        "An idea for an outing in a city, written by the client's own model",
        input_schema={"type": "object", "properties": {"city": city}, "required": ["city"]},
    )
    return forecast, tip


def course_server(
    kind: type[MCPServer], registry: ToolRegistry, page_size: int | None = None, tools: tuple[ServerTool, ...] = ()
) -> MCPServer:
    """The server ``python -m toolkit serve`` runs: ``registry``'s tools plus the primitives above,
    and any ``tools`` written for MCP (such as :func:`course_tools`).

    Shown in section 5, "The other primitives, on the course's own server".
    Notebook 06.
    """
    resources, prompts = course_resources(), course_prompts()
    return kind(registry, page_size=page_size, tools=tools, resources=resources, prompts=prompts, logging=True)
