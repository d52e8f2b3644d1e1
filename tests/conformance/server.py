"""The server the official MCP conformance suite tests (``make test-conformance``).

Built only from ``toolkit.mcp``'s public API: the tools, resources and prompts the suite's
server scenarios call by name (the ones its "everything" reference servers provide, read from
@modelcontextprotocol/conformance 0.1.16, ``src/scenarios/server/*.ts``), on the toolkit's
Streamable HTTP server without a bearer token (the suite sends none).

    python tests/conformance/server.py --port 0

prints the URL on its first line, as ``python -m toolkit serve --http`` does, and serves until
stopped.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from toolkit.mcp import (
    LatestRevisionServer,
    ModernServer,
    Prompt,
    PromptArgument,
    Prompts,
    Resource,
    Resources,
    ResourceTemplate,
    ServerTool,
    StreamableHTTPServer,
)
from toolkit.mcp.content import audio, embedded, image, text
from toolkit.mcp.context import question
from toolkit.mcp.subscriptions import Subscriptions
from toolkit.registry import ToolRegistry

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="


def _with_logging(args, ctx):
    for step in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        ctx.log("info", step)
        time.sleep(0.05)
    return "Tool with logging executed successfully"


def _with_progress(args, ctx):
    for done in (0, 50, 100):
        ctx.progress(done, 100, f"Completed step {done} of 100")
        time.sleep(0.05)
    return str(ctx.progress_token)


def _fail(args, ctx):
    raise RuntimeError("This tool intentionally returns an error for testing")


def _reconnection(args, ctx):
    ctx.close_stream()  # SEP-1699: the client resumes with GET and Last-Event-ID
    time.sleep(0.1)
    return "Reconnection test completed successfully. If you received this, the client properly reconnected."


def _sampling(args, ctx):
    reply = ctx.sample(args.get("prompt", ""), max_tokens=100)
    return f"LLM response: {(reply.get('content') or {}).get('text', 'No response')}"


def _elicit(message, schema):
    def handler(args, ctx):
        answer = ctx.elicit(args.get("message", message), schema)
        return f"User response: action={answer.get('action')}, content={json.dumps(answer.get('content') or {})}"

    return handler


RESPONSE_FORM = {
    "type": "object",
    "properties": {"response": {"type": "string", "description": "User's response"}},
    "required": ["response"],
}
DEFAULTS_FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
    "required": [],
}
_TITLED = [
    {"const": f"value{i}", "title": t} for i, t in ((1, "First Option"), (2, "Second Option"), (3, "Third Option"))
]
ENUMS_FORM = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {"type": "string", "oneOf": _TITLED},
        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["One", "Two", "Three"]},
        "untitledMulti": {
            "type": "array",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"anyOf": _TITLED}},
    },
    "required": [],
}
SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}


def _string_args(*names):
    return {"type": "object", "properties": {n: {"type": "string"} for n in names}, "required": list(names)}


TOOLS = (
    ServerTool("test_simple_text", lambda a, c: "This is a simple text response for testing.", "Simple text"),
    ServerTool("test_image_content", lambda a, c: [image(PNG)], "Image content"),
    ServerTool("test_audio_content", lambda a, c: [audio(WAV)], "Audio content"),
    ServerTool(
        "test_embedded_resource",
        lambda a, c: [embedded("test://embedded-resource", "This is an embedded resource content.")],
        "Embedded resource content",
    ),
    ServerTool(
        "test_multiple_content_types",
        lambda a, c: [
            text("Multiple content types test:"),
            image(PNG),
            embedded(
                "test://mixed-content-resource",
                json.dumps({"test": "data", "value": 123}),
                mime_type="application/json",
            ),
        ],
        "Text, image and resource in one result",
    ),
    ServerTool("test_tool_with_logging", _with_logging, "Logs while it runs"),
    ServerTool("test_tool_with_progress", _with_progress, "Reports progress"),
    ServerTool("test_error_handling", _fail, "Always fails"),
    ServerTool("test_reconnection", _reconnection, "Closes its SSE stream mid-call (SEP-1699)"),
    ServerTool("test_sampling", _sampling, "Asks the client's model", _string_args("prompt")),
    ServerTool("test_elicitation", _elicit("", RESPONSE_FORM), "Asks the user", _string_args("message")),
    ServerTool(
        "test_elicitation_sep1034_defaults",
        _elicit("Please review and update the form fields with defaults", DEFAULTS_FORM),
        "Elicitation with defaults (SEP-1034)",
    ),
    ServerTool(
        "test_elicitation_sep1330_enums",
        _elicit("Please select options from the enum fields", ENUMS_FORM),
        "Elicitation with enum schemas (SEP-1330)",
    ),
    ServerTool(
        "json_schema_2020_12_tool",
        lambda a, c: f"JSON Schema 2020-12 tool called with: {json.dumps(a)}",
        "Tool with JSON Schema 2020-12 features (SEP-1613)",
        SCHEMA_2020_12,
    ),
)


def _named(key, prop, message):
    schema = {"type": "object", "properties": {prop: {"type": "string"}}, "required": [prop]}
    return key, question("elicitation/create", {"message": message, "requestedSchema": schema}, "elicitation")


def _content(answer):
    return (answer.get("content") or {}) if isinstance(answer, dict) else {}


def _ask_name(args, ctx):
    key, asked = _named("user_name", "name", "What is your name?")
    return f"Hello, {_content(ctx.ask(*asked, key=key)).get('name', 'stranger')}!"


def _ask_capital(args, ctx):
    reply = ctx.sample("What is the capital of France?", key="capital_question")
    return f"The model said: {(reply.get('content') or {}).get('text', '')}"


def _ask_roots(args, ctx):
    return "Roots: " + ", ".join(str(root.get("uri")) for root in ctx.list_roots(key="client_roots"))


def _ask_confirm(args, ctx):
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    ctx.elicit("Please confirm", schema, key="confirm")
    return "state-ok: the requestState came back intact"


def _ask_three(args, ctx):
    answers = ctx.ask_each(
        {
            "user_name": _named("user_name", "name", "What is your name?")[1],
            "greeting": question(
                "sampling/createMessage",
                {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}],
                    "maxTokens": 50,
                },
                "sampling",
            ),
            "client_roots": question("roots/list", {}, "roots"),
        }
    )
    return f"Got {', '.join(sorted(answers))}"


def _ask_twice(args, ctx):
    name = _content(ctx.ask(*_named("step1", "name", "Step 1: What is your name?")[1], key="step1")).get("name")
    color = _content(ctx.ask(*_named("step2", "color", "Step 2: What is your favorite color?")[1], key="step2"))
    return f"{name} likes {color.get('color')}"


def _ask_what_it_can(args, ctx):
    wanted = {}
    if "sampling" in ctx.capabilities:
        wanted["capital"] = question(
            "sampling/createMessage",
            {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Capital of France?"}}],
                "maxTokens": 20,
            },
            "sampling",
        )
    if "elicitation" in ctx.capabilities:
        wanted["user_name"] = _named("user_name", "name", "What is your name?")[1]
    return f"Answered: {', '.join(sorted(ctx.ask_each(wanted)))}"


def _logs(args, ctx):
    ctx.log("info", "test_logging_tool ran")
    return "logged (only if the request asked for logs)"


def _announce(kind):
    def handler(args, ctx):
        ctx.server.list_changed(kind)
        return f"{kind} list changed"

    return handler


# 2026-07-28 only (ModernServer's context): the tools the suite's server-stateless and
# input-required-result-* scenarios call, read from conformance 0.2.0-alpha.12.
MODERN_TOOLS = (
    ServerTool("test_input_required_result_elicitation", _ask_name, "Asks the user's name (input_required)"),
    ServerTool("test_input_required_result_sampling", _ask_capital, "Asks the client's model"),
    ServerTool("test_input_required_result_list_roots", _ask_roots, "Asks the client's roots"),
    ServerTool("test_input_required_result_request_state", _ask_confirm, "Round trip with requestState"),
    ServerTool("test_input_required_result_multiple_inputs", _ask_three, "Three questions at once"),
    ServerTool("test_input_required_result_multi_round", _ask_twice, "Two rounds of questions"),
    ServerTool("test_input_required_result_tampered_state", _ask_confirm, "Refuses a changed requestState"),
    ServerTool("test_input_required_result_capabilities", _ask_what_it_can, "Asks only what the client declared"),
    ServerTool("test_missing_capability", _sampling, "Needs sampling: -32021 without it"),
    ServerTool("test_streaming_elicitation", _elicit("Your answer?", RESPONSE_FORM), "Asks the user"),
    ServerTool("test_logging_tool", _logs, "Logs once"),
    ServerTool("test_trigger_tool_change", _announce("tools"), "Announces a tools list change"),
    ServerTool("test_trigger_prompt_change", _announce("prompts"), "Announces a prompts list change"),
)


def _ask_context(args, ctx):
    key, asked = _named("user_context", "context", "What context should the prompt use?")
    return [_user(text(f"Use this context: {_content(ctx.ask(*asked, key=key)).get('context')}"))]


def resources() -> Resources:
    fixed = (
        Resource("test://static-text", "static-text", lambda: "This is the content of the static text resource."),
        Resource("test://static-binary", "static-binary", lambda: PNG, mime_type="image/png", binary=True),
        Resource("test://watched-resource", "watched-resource", lambda: "Watched resource content"),
    )
    data = ResourceTemplate(
        "test://template/{id}/data",
        "template",
        lambda v: json.dumps({"id": v["id"], "templateTest": True, "data": f"Data for ID: {v['id']}"}),
        mime_type="application/json",
    )
    return Resources(fixed, (data,))


def _user(block):
    return {"role": "user", "content": block}


def prompts(modern: bool = False) -> Prompts:
    args = [PromptArgument("arg1", "First test argument", True), PromptArgument("arg2", "Second test argument", True)]
    return Prompts(
        (
            Prompt(
                "test_simple_prompt",
                lambda a, c: [_user(text("This is a simple prompt for testing."))],
                "A simple prompt without arguments",
            ),
            Prompt(
                "test_prompt_with_arguments",
                lambda a, c: [_user(text(f"Prompt with arguments: arg1='{a['arg1']}', arg2='{a['arg2']}'"))],
                "A prompt with required arguments",
                arguments=args,
            ),
            Prompt(
                "test_prompt_with_embedded_resource",
                lambda a, c: [
                    _user(embedded(a["resourceUri"], "Embedded resource content for testing.")),
                    _user(text("Please process the embedded resource above.")),
                ],
                "A prompt that includes an embedded resource",
                arguments=[PromptArgument("resourceUri", "URI of the resource to embed", True)],
            ),
            Prompt(
                "test_prompt_with_image",
                lambda a, c: [_user(image(PNG)), _user(text("Please analyze the image above."))],
                "A prompt that includes image content",
            ),
        )
        + ((Prompt("test_input_required_result_prompt", _ask_context, "Asks the user first"),) if modern else ())
    )


def make_server(revision: str = "2025-11-25") -> LatestRevisionServer:
    """The course's server for ``revision``: the handshake server up to 2025-11-25, the
    stateless one (:class:`ModernServer`) at 2026-07-28."""
    modern = revision == "2026-07-28"
    server = (ModernServer if modern else LatestRevisionServer)(
        ToolRegistry(),
        name="toolkit-conformance-server",
        tools=TOOLS + (MODERN_TOOLS if modern else ()),
        resources=resources(),
        prompts=prompts(modern),
        logging=True,
    )
    if isinstance(server, ModernServer):
        server.subscriptions = LISTENS
    return server


LISTENS = Subscriptions()  # the open listen streams, shared by the server HTTP makes per request


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--revision", default="2025-11-25", help="the revision the suite tests")
    args = parser.parse_args(argv)
    app = StreamableHTTPServer(lambda: make_server(args.revision), port=args.port, token=False)
    print(app.url, flush=True)
    return app.serve_until_interrupted()


if __name__ == "__main__":
    sys.exit(main())
