# %% [markdown] slideshow={"slide_type": "slide"}
# # 05 · Describing a tool: REST, JSON Schema and function calling
#
# *Pack §2.5. Exercises 1 and 2; discussion question 12.*
#
# Terms in these notes are defined in the course [glossary](../docs/glossary.md).
#
# Before a model can use a tool, somebody has to tell it the tool exists, what it is for and
# what arguments it takes. This notebook follows that description through three stages:
#
# 1. a REST API written down for programmers (OpenAPI);
# 2. a JSON Schema for one function, built here from a Python signature, and the checks and
#    small repairs a harness runs on every call against it;
# 3. the same definition in the tool formats of two model vendors, which you write yourself in
#    Exercise 1, and a call that satisfies the schema and is still wrong (Exercise 2).
#
# Nothing here calls a real model. Where a model's reply appears, it is typed in by hand.

# %%
import copy
import html
import json
import random
from typing import Literal

from IPython.display import HTML

import toolkit as T
from toolkit.checks import ex01, ex02
from toolkit.figures import show as show_figure
from toolkit.widgets.source import show_source

SEED = 0  # nothing here draws random numbers; seeded anyway, so that stays true
random.seed(SEED)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Three ways to describe a tool
#
# The pack sorts tool interfaces into three generations (Figure 4). They differ in who the
# reader is:
#
# * **REST + OpenAPI**: written for a programmer, who reads the docs once and writes client
#   code [25].
# * **Function calling**: a list of JSON Schema definitions sent with every request to one
#   vendor's model API; the model answers with a tool name and arguments [22] [23] [24].
# * **MCP**: one server that any MCP-speaking application can connect to (notebook 06) [3].

# %%
show_figure(4)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. REST and OpenAPI: written for programmers
#
# An OpenAPI document lists an API's paths, the parameters of each and what comes back, in a
# form a program can read [25]. That is the right level for a developer. A model is a different
# kind of reader: it sees the tool text again on every single request, and every endpoint it
# sees is one more thing it can pick by mistake. So the usual move is to wrap a few endpoints
# behind one action named after what the user wants, and describe only that action.
#
# The fragment below is **made up** for this notebook: three endpoints of an imaginary shop,
# in the rough shape of an OpenAPI `paths` section.

# %%
shop_api = {  # made up: an imaginary shop's REST API, OpenAPI-style
    "/orders/{order_id}": {
        "get": {
            "summary": "Read one order",
            "parameters": [{"name": "order_id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "The order"}, "404": {"description": "No such order"}},
        }
    },
    "/orders/{order_id}/status": {
        "patch": {
            "summary": "Change an order's status",
            "requestBody": {
                "content": {
                    "application/json": {"schema": {"type": "object", "properties": {"status": {"type": "string"}}}}
                }
            },
            "responses": {"200": {"description": "Updated"}},
        }
    },
    "/orders/{order_id}/events": {
        "post": {"summary": "Append an audit event", "responses": {"201": {"description": "Created"}}}
    },
}


def cancel_order(order_id: str, reason: Literal["changed_mind", "too_slow", "duplicate"]) -> dict:
    """Cancel one pending order. Reads the order first and refuses if it has shipped.

    Args:
        order_id: the order's id, such as A1
        reason: why the customer is canceling
    """
    # A real version would GET /orders/{id}, check the status, PATCH it and POST an event.
    return {"order_id": order_id, "status": "canceled", "reason": reason}


intent_tool = T.schema_from_function(cancel_order)
print("REST endpoints a model would have to combine:", len(shop_api))
print("tools the model sees after wrapping:          ", 1)
print("rough size of the REST fragment:", len(json.dumps(shop_api)) // 4, "tokens (characters / 4)")
print("rough size of the one tool:     ", T.schema_size_estimate([intent_tool]), "tokens (characters / 4)")

# %% [markdown]
# The two sizes are our own rough estimate (characters divided by 4, the rule the pack uses
# in §2.4), not a tokenizer's count. The bigger gain is not the size: the model now makes one
# decision ("cancel this order, for this reason") instead of planning three HTTP requests.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. JSON Schema, built from a Python signature
#
# Function calling describes a tool's arguments with JSON Schema [24]: which fields exist,
# what type each has, which must be present and which values are allowed.
# `T.schema_from_function` reads a function's type hints and its docstring and writes that
# schema for you, in the shape the toolkit uses everywhere (the MCP shape: `name`,
# `description`, `inputSchema`).

# %%
MADE_UP_CELSIUS = {"Paris": 21, "Rome": 21, "Oslo": 9}  # made-up numbers, not real weather


def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict:
    """Get the current weather for a city.

    Args:
        city: city name, such as Paris
        unit: temperature unit
    """
    if city not in MADE_UP_CELSIUS:
        raise T.ToolError(f"No weather for {city!r}. Known cities: {', '.join(MADE_UP_CELSIUS)}.")
    celsius = MADE_UP_CELSIUS[city]
    return {"city": city, "temp": celsius if unit == "celsius" else round(celsius * 9 / 5 + 32), "unit": unit}


weather_tool = T.schema_from_function(get_weather)
print(json.dumps(weather_tool, indent=1))

# %% [markdown] slideshow={"slide_type": "fragment"}
# Three keywords carry most of the weight:
#
# * `enum` turns a free string into a short menu (`celsius` or `fahrenheit`);
# * `required` lists what a call must contain (`city`; `unit` has a default, so it may be left out);
# * `"additionalProperties": false` means a field the model invented is an error, not something
#   to ignore quietly.
#
# The descriptions are the part the model reads most carefully, which is why notebook 07 spends
# a whole section on them.
#
# Each Python type hint becomes one JSON Schema type. The next cell shows the whole mapping on
# one made-up function, then what happens when a parameter has no type hint at all.


# %%
def mapping_tour(
    count: int,
    ratio: float,
    label: str,
    dry_run: bool,
    tags: list[str],
    extra: dict,
    level: Literal[1, 2, 3],
    note: str | None = None,
) -> None:
    """Show how each Python type hint becomes JSON Schema."""


for name, spec in T.schema_from_function(mapping_tour)["inputSchema"]["properties"].items():
    print(f"{name:8} -> {spec}")
print("required:", T.schema_from_function(mapping_tour)["inputSchema"]["required"])


def no_hint(city, days: int = 1):
    """A tool whose author forgot a type hint."""


try:
    T.schema_from_function(no_hint)
except TypeError as err:
    print("\nTypeError:", err)

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Read the converter
#
# `schema_from_function` is short enough to read whole. Look for the loop over the
# signature's parameters: a missing hint stops it with the error you just saw, each hint goes
# through `_schema_for_hint` (the mapping printed above), the docstring's `Args:` lines become
# descriptions, and a parameter without a default joins `required`. The last lines write the
# `"additionalProperties": false` that makes an invented field an error.

# %%
show_source(T.schema_from_function)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Checking a call, and repairing with care
#
# A schema is only useful if the harness holds every call up against it before the tool runs.
# `T.validate_args` lists every problem it finds; an empty list means the call is valid.
# `T.repair_args` then tries a short list of small fixes and writes down each change it makes:
# the letter case of an enum value, digits sent as a string where a number belongs, a
# misspelled parameter name, an unknown parameter dropped, a number where a string belongs. It
# never fills in a value the caller did not send.
#
# Not every fix on that list is as safe as the others. Fixing `"Celsius"` to `"celsius"` cannot
# change what the caller meant; turning a number into a string can, as the third call shows.
# Below, six calls a careless model might write (typed by hand, not produced by a model).

# %%
schema = weather_tool["inputSchema"]
bad_calls = [
    {"city": "Paris", "unit": "Celsius"},
    {"town": "Paris"},
    {"city": 5},
    {"citty": "Rome"},
    {"city": "Rome", "unit": "kelvin"},
    {"city": "Oslo", "unit": "fahrenheit", "days": "two"},
]
for args in bad_calls:
    fixed, notes = T.repair_args(args, schema)
    still = T.validate_args(fixed, schema)
    print(
        f"{json.dumps(args)}\n   problems: {T.validate_args(args, schema)}\n"
        f"   repaired: {json.dumps(fixed)}  notes: {notes}\n   after repair: {still or 'valid'}\n"
    )

# %% [markdown] slideshow={"slide_type": "subslide"}
# The check behind those `problems` lines is `validate_args`. It answers a call that is not an
# object at once, and otherwise hands the walk to `_check_object`, which adds one sentence per
# problem to a list (so you see every problem, not just the first); an empty list means valid.

# %%
show_source(T.validate_args)

# %% [markdown]
# Two calls stay broken after repair, and that is the point. `{"town": "Paris"}` loses its
# unknown key and is then missing `city`: repair could guess that a town is a city, but a guess
# about meaning is exactly what it must not make. `"kelvin"` is not a spelling slip of either
# allowed unit, so it is left for the model to fix.
#
# Now look at `{"city": 5}`. Repair turned 5 into `"5"`, and validation says *valid*. The schema
# is satisfied, but nobody knows what the model meant: no city is called "5". Number to string
# is a fix whose meaning can be in doubt. It is harmless for a field that holds digits anyway
# (a postcode, an order number typed as a number) and empty for a city, and the schema cannot
# tell the two apart. Dropping `"days": "two"` is a judgement too: the call now asks for today's
# weather, whatever the model wanted two days of. Repair at least leaves a note each time, so
# the harness can log it or pass it on.
#
# What happens next? The registry repairs and validates every call itself, then runs the tool or
# answers with text that names each problem and what it expected. For the "valid" `"5"` it is
# the tool's own check that finally objects:

# %%
registry = T.ToolRegistry()
registry.add(get_weather)
for args in ({"city": "Rome", "unit": "kelvin"}, {"city": 5}):
    result = registry.run("get_weather", args)
    print(f"{json.dumps(args)} -> {result.kind} | {result.content}\n   repairs: {result.notes}\n")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Function calling in two vendors' APIs
#
# With function calling, your request to the model carries a list of tool definitions. When the
# model wants a tool, its reply holds a tool name and a JSON object of arguments instead of (or
# next to) text. Your code runs the tool and sends the result back in the next request. OpenAI
# and Anthropic both work this way, under different names. The pack's comparison, in short:
#
# | | OpenAI [23] | Anthropic [22] |
# |---|---|---|
# | defining a tool | an entry in `tools` holding a function schema, its arguments under `parameters`; add `strict: true` if you want it | an entry with `name`, `description` and `input_schema` |
# | the reply that wants a tool | carries `tool_calls` (in the Responses API: `function_call` items) | holds `tool_use` blocks, and its `stop_reason` says `"tool_use"` |
# | returning the result | a message with role `tool` and the matching call id (Responses API: a `function_call_output` with that `call_id`) | a `tool_result` block that points at its `tool_use` |
# | forcing or narrowing the pick | `tool_choice`: `auto`, `required`, a specific function, or a restricted set | `tool_choice`, with similar options |
# | several calls in one turn | allowed unless you pass `parallel_tool_calls=false` | allowed unless `tool_choice` carries `"disable_parallel_tool_use": true` (it is a field inside `tool_choice`, not a top-level parameter [36]) |
#
# Both offer a strict mode that forces the model's output to fit your schema [22] [23]. That
# removes broken JSON and most type errors; it says nothing about whether the values are the
# ones the user meant (Exercise 2). **These APIs change often and support different subsets
# of JSON Schema: check the current documentation before relying on any detail above.**
#
# *Beyond the pack, dated 1 December 2026.* OpenAI now has two request shapes: Chat Completions
# (the table's left column) and the Responses API, whose reply is a list of typed items
# (`function_call` items with a `call_id`, answered by `function_call_output` items) [23].
# Notebook 02 shows one call on the wire in both, and in Anthropic's Messages API.
#
# For the toolkit, a model's call is a plain dict, whatever vendor it came from:

# %%
print(T.call("call_1", "get_weather", city="Oslo", unit="fahrenheit"))
print(registry.run("get_weather", {"city": "Oslo", "unit": "fahrenheit"}).content)

# %% [markdown] slideshow={"slide_type": "subslide"}
# An open alternative exists too: the Gorilla team's OpenFunctions model, a 7B model meant to
# stand in for vendor function calling. Its blog post (13 November 2023) reports 87.39% on a
# 116-pair test set the authors built with GPT-3.5 [27]. That is a small, self-made test
# reported by the builders, so read it as a demonstration rather than a comparison.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercise 1: one tool, three shapes
#
# 1. Write a tool of your own with at least one `Literal` parameter and one list parameter, and
#    print its schema (the starter has an example you may replace).
# 2. Write `to_openai(tool, strict=False)`: it takes a definition in the toolkit's MCP shape and
#    returns an OpenAI function tool: `{"type": "function", "function": {"name", "description",
#    "parameters"}}`, with `"strict": true` next to `parameters` only when `strict=True`. (The
#    Responses API puts those keys at the top level instead of under `"function"`; the check
#    accepts either nesting.)
# 3. Write `to_anthropic(tool)`: it returns `{"name", "description", "input_schema"}`.
#
# The input may carry MCP-only keys such as `annotations` or `title`; neither vendor shape has a
# place for them. Do not change the dict you are given. The check runs both functions on four
# tools you have not seen.


# %% tags=["starter"]
def my_tool(size: Literal["small", "medium", "large"], toppings: list[str], note: str = "") -> str:
    """Order one pizza. (An example: replace it with a tool of your own.)

    Args:
        size: pizza size
        toppings: toppings, in the order they go on
        note: anything the kitchen should know
    """
    return f"{size} pizza with {', '.join(toppings) or 'nothing'}"


my_schema = T.schema_from_function(my_tool)
print(json.dumps(my_schema, indent=1))


def to_openai(tool: dict, strict: bool = False) -> dict:
    """Turn an MCP-shaped tool definition into an OpenAI function tool."""
    raise NotImplementedError("Exercise 1: build the OpenAI function tool")


def to_anthropic(tool: dict) -> dict:
    """Turn an MCP-shaped tool definition into an Anthropic tool."""
    raise NotImplementedError("Exercise 1: build the Anthropic tool")


# %% tags=["solution"]
def to_openai(tool: dict, strict: bool = False) -> dict:
    """Turn an MCP-shaped tool definition into an OpenAI function tool."""
    function = {
        "name": tool["name"],
        "description": tool["description"],
        "parameters": copy.deepcopy(tool["inputSchema"]),
    }
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def to_anthropic(tool: dict) -> dict:
    """Turn an MCP-shaped tool definition into an Anthropic tool."""
    return {
        "name": tool["name"],
        "description": tool["description"],
        "input_schema": copy.deepcopy(tool["inputSchema"]),
    }


# %% tags=["check"]
ex01.check(to_openai, to_anthropic)

# %% [markdown] slideshow={"slide_type": "subslide"}
# **Strict mode asks more of the schema than a flag.** `"strict": true` is only the switch.
# OpenAI accepts it only for a schema inside a subset of JSON Schema, and its structured-output
# rules set three conditions our weather schema does not meet [23]:
#
# * every property of every object is listed in `required`, so an optional parameter is written
#   as required but allowed to be `null` (a union with `null`);
# * every object, nested ones too, sets `"additionalProperties": false`;
# * only supported keywords appear; `default` is not among them.
#
# The helper below is our own: it rewrites a schema to those rules. A free-form object (a `dict`
# parameter with no named keys) cannot be written that way, so it says so instead of guessing.
# Rules like these change; check the current documentation before relying on them.
#
# **Why the helper drops `default`.** Under strict mode every property is required, so the model
# always sends a value (or `null`) and a `default` can never take effect. Some endpoints have
# also refused it outright (OpenAI's Chat Completions in March 2025 [47]) while others accept it
# (the Responses API in August 2026 [48]); the dated history is in the
# [instructor's notes](../docs/teaching.md#instructors-notes). Dropping `default` and saying "null means the default" in the description
# works on every provider and loses nothing.


# %%
def strict_parameters(schema: dict, where: str = "parameters") -> dict:
    """A copy of `schema` rewritten for OpenAI's strict mode [23] (our own helper, not the vendor's)."""
    node = {key: value for key, value in schema.items() if key != "default"}
    if node.get("type") == "object":
        if "properties" not in node:
            raise ValueError(
                f"strict mode needs every key of an object named, and {where} names none: "
                "list its properties, or leave this tool out of strict mode"
            )
        optional = set(node["properties"]) - set(node.get("required", []))
        node["properties"] = {
            name: (or_null if name in optional else strict_parameters)(spec, f"{where}.{name}")
            for name, spec in node["properties"].items()
        }
        node["required"] = list(node["properties"])
        node["additionalProperties"] = False
    if isinstance(node.get("items"), dict):
        node["items"] = strict_parameters(node["items"], f"{where}[]")
    return node


def or_null(spec: dict, where: str) -> dict:
    """An optional parameter in strict form: its type or null; null stands for the default."""
    inner = strict_parameters({key: value for key, value in spec.items() if key != "description"}, where)
    note = spec.get("description", "")
    if spec.get("default") is not None:
        note += f" (null means {json.dumps(spec['default'])})"
    return {"anyOf": [inner, {"type": "null"}], "description": note.strip()}


print(json.dumps(strict_parameters(weather_tool["inputSchema"])["properties"]["unit"], indent=1))

# %% [markdown]
# The price of the rewrite lands in the harness. A strict model must now send `unit` every
# time, as `null` when the user did not say. Our own schema, which the registry checks, has no
# `null` in it, so a harness that takes strict calls turns `null` back into "not given" first
# and lets the default apply:

# %%
strict_call = {"city": "Oslo", "unit": None}
print("as sent:        ", T.validate_args(strict_call, weather_tool["inputSchema"]))
print(
    "nulls dropped:  ",
    T.validate_args({k: v for k, v in strict_call.items() if v is not None}, weather_tool["inputSchema"]) or "valid",
)

# %% [markdown]
# Once both converters pass, the next cell puts the three shapes of the weather tool next to each
# other. The MCP form includes the annotations, which only MCP has a slot for; the OpenAI one is
# your `to_openai(..., strict=True)` applied after `strict_parameters`.


# %%
def side_by_side(shapes: dict) -> HTML:
    cols = "".join(
        f"<div><b>{html.escape(title)}</b><pre style='font-size:11px'>"
        f"{html.escape(json.dumps(shape, indent=1))}</pre></div>"
        for title, shape in shapes.items()
    )
    return HTML(f"<div style='display:grid;grid-template-columns:repeat({len(shapes)},1fr);gap:12px'>{cols}</div>")


mcp_shape = T.Tool("get_weather", weather_tool["description"], get_weather, weather_tool["inputSchema"]).to_mcp()
strict_shape = {**mcp_shape, "inputSchema": strict_parameters(mcp_shape["inputSchema"])}
try:
    shapes = {
        "MCP (toolkit)": mcp_shape,
        "OpenAI, strict [23]": to_openai(strict_shape, strict=True),
        "Anthropic [22]": to_anthropic(mcp_shape),
    }
except NotImplementedError:
    shapes = {"MCP (toolkit)": mcp_shape}
    print("Finish Exercise 1 to see the two vendor shapes here.")
side_by_side(shapes)

# %% [markdown]
# **Question.** Apart from `inputSchema` becoming `parameters` or `input_schema`, what changed
# between the three shapes? What did you have to drop, and where does that information have to
# live instead?

# %% [markdown] tags=["solution"]
# *A model answer.* The OpenAI definition gains a wrapper (`"type": "function"`, and in Chat
# Completions a nested `"function"` object), so the tool list can hold other kinds of tool; the
# Anthropic one stays flat. The MCP `annotations` (read-only, destructive, open world) have no
# slot in either vendor shape: once a tool goes to a vendor API, those facts must stay in your
# own harness, where the permission gate (notebook 11) reads them. Without strict mode the
# schema passes through untouched. With it, the schema itself changes: `unit` becomes required
# but nullable, its `default` moves into prose, and the harness has to map `null` back to the
# default, because strict mode accepts only a subset of JSON Schema [23]. Which keywords each
# vendor accepts is vendor specific and changes over time [22] [23], so a converter for real
# use checks the schema against the current docs rather than trusting a flag.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercise 2: valid but wrong
#
# Strict mode and `validate_args` both answer one question: does the call fit the schema? They
# cannot answer a second one: is it the call the user wanted? Anthropic's documentation also
# warns that a model may fill in a required value by guessing rather than asking [22].
#
# The request and the call a careful model would make are below. Write `valid_but_wrong()`: it
# returns the arguments of a `get_weather` call that **passes** `validate_args` and still does
# not answer the request. The check validates your call against its own copy of the schema,
# fills in defaults, compares values the way the scorer does in notebook 09 (ignoring letter
# case, so `"oslo"` is not a different city, nor is `"Oslo, Norway"`), and runs the tool on it.

# %% tags=["starter"]
print("user:", ex02.REQUEST)
print("intended call: get_weather", ex02.INTENDED)


def valid_but_wrong() -> dict:
    """Arguments for get_weather that pass validation but do not answer the request."""
    raise NotImplementedError("Exercise 2: return schema-valid arguments that miss the request")


# %% tags=["solution"]
def valid_but_wrong() -> dict:
    """Arguments for get_weather that pass validation but do not answer the request."""
    # `unit` is optional, so leaving it out is valid; the default answers in Celsius,
    # and the user asked for Fahrenheit.
    return {"city": "Oslo"}


# %% tags=["check"]
ex02.check(valid_but_wrong)

# %% [markdown]
# **Question.** Why can no schema reject your call? What could catch it?

# %% [markdown] tags=["solution"]
# *A model answer.* A schema describes the set of calls that are well formed; "Oslo in Celsius"
# and "Oslo in Fahrenheit" are both in that set, and which one is right depends on the user's
# sentence, which the schema never sees. Making `unit` required would force the model to choose,
# but not to choose correctly. What can catch it works on the meaning, not the shape: a test set
# of requests with gold calls scored by AST matching (notebook 09), a check of the final state or
# answer against the request, a tool design that echoes its interpretation back ("9 °C in Oslo")
# so the model or the user can notice, and for changes that matter, a person confirming the call
# before it runs (notebook 11).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Structured outputs for the final answer (beyond the pack)
#
# Strict mode holds a model's *tool arguments* to a schema. The same idea now applies to its
# *final reply*: you send a JSON Schema with the request and the reply must be one JSON object
# that fits it, which is what a program reading the answer needs. OpenAI calls this Structured
# Outputs: a format of type `json_schema` holds the reply to the schema (`response_format` in
# Chat Completions, `text.format` in the Responses API), next to strict function calling for
# the arguments [23] [51]. Anthropic offers the same pair, JSON outputs
# (`output_config.format`) and strict tool use, both enforced by constrained decoding [52].
# Below, `WEATHER_ANSWER` is such a schema, and `check_answer` holds a reply to it with the same
# validator the registry uses for arguments. The model is a mock (`AnsweringMock`) that looks up
# the weather, then answers in one of four styles; `answer_report` runs it and judges the answer
# twice, against the schema and against what the tool returned.

# %%
from toolkit.lessons.structured_output import WEATHER_ANSWER, AnsweringMock, answer_report

print("schema:", json.dumps(WEATHER_ANSWER["properties"]))
for style in AnsweringMock.STYLES:
    report = answer_report(style)
    verdict = "fits" if not report["schema problems"] else "; ".join(report["schema problems"])
    print(
        f"\n{style} (mock): {report['answer']}\n   schema: {verdict}\n   values match the tool: {report['values match the tool']}"
    )

# %% [markdown]
# Three of the four replies are valid JSON that fits the schema, and two of those are wrong: one
# turned Celsius into Fahrenheit but kept the unit `celsius`, one names another city. A schema
# checks shape and types; "valid JSON" is not "right values". Constrained decoding makes the
# first kind of failure (prose, a missing field, a string for a number) impossible, so what is
# left is exactly the second kind, and only a check against the source (here, the tool's own
# result; in notebook 09, a ground truth) can find it. This is Exercise 2's lesson, one level up.

# %% [markdown]
# **Your turn (optional, about 15 minutes).** A user asks for the weather in several cities, and
# the program reading the reply wants one object: `{"readings": [{"city", "temperature",
# "unit"}, ...]}`. Write `readings_schema()`, the output schema you would send for structured
# outputs, and `answer_problems(reply, tool_results)`, which returns a list of sentences saying
# what is wrong with a reply (`[]` when nothing is): first its shape, with `check_answer` and your
# schema, then its values against the `get_weather` results the tools returned (a list of
# `{"city", "temp", "unit"}` dicts). The check uses cities and replies you have not seen.

# %% tags=["starter"]
from toolkit.checks import opt05_final_answer
from toolkit.lessons.structured_output import check_answer


def readings_schema() -> dict:
    """The JSON Schema of the final answer: a list of readings, one per city."""
    raise NotImplementedError("Your turn: write the output schema")


def answer_problems(reply: str, tool_results: list) -> list:
    """What is wrong with ``reply``, as sentences; [] when its shape and values are right."""
    raise NotImplementedError("Your turn: check the shape, then the values")


# %% tags=["solution"]
import copy

from toolkit.checks import opt05_final_answer
from toolkit.lessons.structured_output import WEATHER_ANSWER, check_answer


def readings_schema() -> dict:
    """The JSON Schema of the final answer: a list of readings, one per city."""
    reading = copy.deepcopy(WEATHER_ANSWER)  # one city's reading, the schema section 6 showed
    return {
        "type": "object",
        "properties": {"readings": {"type": "array", "items": reading}},
        "required": ["readings"],
        "additionalProperties": False,
    }


def answer_problems(reply: str, tool_results: list) -> list:
    """What is wrong with ``reply``, as sentences; [] when its shape and values are right."""
    problems = check_answer(reply, readings_schema())
    if problems:
        return problems
    said = sorted((r["city"], r["temperature"], r["unit"]) for r in json.loads(reply)["readings"])
    seen = sorted((r["city"], r["temp"], r["unit"]) for r in tool_results)
    return [] if said == seen else [f"the reply says {said}, the tools returned {seen}"]


# %% tags=["check"]
opt05_final_answer.check(readings_schema, answer_problems)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Is a schema enough?
#
# **For discussion.** *(Pack discussion question 12, in our words.)* A colleague argues that
# because every tool has a JSON Schema, the agent's tool calls are safe. Using your answer to
# Exercise 2, and the three failure groups of Figure 8 (notebook 12), name three things that go
# wrong with a call that the schema happily accepts.

# %% [markdown] tags=["solution"]
# *Instructor's note.* A schema answers one question, whether a call is well formed; safety
# needs more. Good answers name failures from more than one group of Figure 8:
#
# * **Single call, right shape, wrong value.** Exercise 2's Oslo in Celsius, or the `"5"` that
#   repair turned into a "valid" city in section 4. A typed-in id that is one character off
#   fits `"type": "string"` as well as the real one.
# * **Many steps.** Every call fits its schema and the order is wrong: a refund before the
#   return is recorded, a write before the read that should have stopped it, the same failing
#   call sent again and again. The schema sees one call at a time, never the sequence.
# * **Conversation.** The call is exactly what someone asked for, but the wrong someone: the user
#   over the written policy (τ-bench's setting [5]), a planted instruction in a fetched page over
#   the user [18], or a value the model guessed instead of asking [22].
#
# Notebook 12 makes it concrete: of its nine failed runs, a check of each call against the
# offered tools and their schemas stops two (the invented function name and the message without
# text); the other seven pass it. A follow-up for the group: which of the seven would a
# permission gate, a policy check inside the tool, or pass^k over repeated runs have caught?
# The fair concession to the colleague: schemas (and strict mode [23]) do remove a whole class
# of malformed calls cheaply, which is why they are the first line, not the only one.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What to take away
#
# * A tool's description is written for a reader that rereads it on every request; wrap REST
#   endpoints into a few intent-level actions before you show them to a model.
# * A JSON Schema with `enum`, `required` and `"additionalProperties": false` stops malformed
#   calls; validation should name every problem. Repair should stay with slips whose meaning is
#   plain and log every change; some conversions, such as a number into a string, can make a
#   call valid without making it mean anything.
# * Strict mode is a switch plus a rewritten schema: every key required, optional ones nullable,
#   objects closed, only supported keywords.
# * The vendor formats carry the same schema in different wrappers, and they keep changing.
# * Valid is not the same as right. Notebook 06 takes the same tool definitions onto the wire
#   with the Model Context Protocol.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Reading guide
#
# **Optional reading** for this notebook, with questions to read it by:
#
# - Yan et al., *Gorilla OpenFunctions* [27]. An open model offered as a replacement for
#   vendors' function calling. *Read it for:* How large is the model, and how was its test set
#   built? What would you want to know before comparing its reported score with a vendor's
#   model?

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# The sources this notebook cites, under the course pack's numbers (all of them, with
# venues, are in `data/references.json`).
# Sources marked (Beyond the pack.) go past the course pack; each was checked against the
# source itself on the date `data/references.json` gives.
#
# - [3] Model Context Protocol, *Model Context Protocol Specification*, 2025.
#   <https://modelcontextprotocol.io/specification/2025-06-18>
# - [5] Yao et al., *τ-bench: A Benchmark for Tool-Agent-User Interaction in Real-World
#   Domains*, 2024. <https://arxiv.org/abs/2406.12045> Published: ICLR 2025.
# - [18] Greshake et al., *Not what you've signed up for: Compromising Real-World LLM-Integrated
#   Applications with Indirect Prompt Injection*, 2023. <https://arxiv.org/abs/2302.12173>
#   Published: AISec '23 (16th ACM Workshop on Artificial Intelligence and Security), pages
#   79-90.
# - [22] Anthropic, *Tool use with Claude: overview*, undated.
#   <https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview>
# - [23] OpenAI, *Function calling*, undated.
#   <https://developers.openai.com/api/docs/guides/function-calling>
# - [24] JSON Schema, *JSON Schema Specification*, undated.
#   <https://json-schema.org/specification>
# - [25] OpenAPI Initiative, *OpenAPI Specification (latest)*, undated.
#   <https://spec.openapis.org/oas/latest.html>
# - [27] Yan et al., *Gorilla OpenFunctions*, 2023.
#   <https://gorilla.cs.berkeley.edu/blogs/4_open_functions.html>
# - [36] Anthropic, *Parallel tool use*, undated.
#   <https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use> (Beyond
#   the pack.)
# - [47] dotnet/extensions contributors, *Issue #6196: Error with MEAI 9.4.0-preview.1.25175.4*,
#   2025. <https://github.com/dotnet/extensions/issues/6196> (Beyond the pack.)
# - [48] openai-agents-python contributors, *Issue #4390: strict_mode: non-null default values
#   are left in the schema and rejected on Azure*, 2026.
#   <https://github.com/openai/openai-agents-python/issues/4390> (Beyond the pack.)
# - [51] OpenAI, *Structured model outputs*, undated.
#   <https://developers.openai.com/api/docs/guides/structured-outputs> (Beyond the pack.)
# - [52] Anthropic, *Structured outputs*, undated.
#   <https://platform.claude.com/docs/en/build-with-claude/structured-outputs> (Beyond the
#   pack.)
