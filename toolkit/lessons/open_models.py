"""How an open model writes a tool call (notebook 03 §8; pack §2.3, beyond the pack).

An open-weights model has no tool-calling API of its own: the server around it turns the tool
list and the conversation into one prompt with the model's chat template (Jinja), the model
writes text, and a parser reads calls back out of that text. This module renders the course's
own template, ``data/local_model/qwen2.5-coder-tools.jinja`` (the one ``make local-model-serve``
gives llama.cpp, docs/real-models.md), with jinja2, and derives from a tool's JSON Schema the
kind of grammar (llama.cpp's GBNF) a server can hold the model's sampling to. No model runs here.

The grammar converter is a teaching one: it covers the schemas of the course's tools (objects
with at least one required property, strings, numbers, integers, booleans, enums, arrays) and
raises ``ValueError`` for anything else; llama.cpp's own converter covers much more [65].
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from ..data import data_path

__all__ = ["TEMPLATE_FILE", "chat_tools", "render_prompt", "call_grammar", "grammar_admits"]

TEMPLATE_FILE = "local_model/qwen2.5-coder-tools.jinja"  # under the course's data folder


def chat_tools(schemas: list[dict]) -> list[dict]:
    """The registry's tool schemas (``list_schemas()``, MCP style) in the shape chat templates
    read: ``{"type": "function", "function": {"name", "description", "parameters"}}``.

    Notebook 03.
    """
    return [
        {
            "type": "function",
            "function": {
                "name": s["name"],
                "description": s.get("description", ""),
                "parameters": s.get("inputSchema", {"type": "object", "properties": {}}),
            },
        }
        for s in schemas
    ]


def _tojson(value: Any, indent: int | None = None) -> str:
    # As Hugging Face's apply_chat_template defines it: plain json.dumps, no HTML escaping (the
    # filter jinja2 ships escapes <, >, & and ').
    return json.dumps(value, ensure_ascii=False, indent=indent)


def render_prompt(
    messages: list[dict],
    tools: list[dict] | None = None,
    add_generation_prompt: bool = True,
    template: str | None = None,
) -> str:
    """The exact text the model reads: ``messages`` and ``tools`` rendered with the course's
    chat template (or ``template``, Jinja source). Assistant calls are written
    ``{"role": "assistant", "tool_calls": [{"function": {"name": ..., "arguments": {...}}}]}``,
    with the arguments as a dict.

    Rendered the way Hugging Face's ``apply_chat_template`` does it (a sandboxed jinja2
    environment, ``trim_blocks`` and ``lstrip_blocks``, ``tojson`` without HTML escaping);
    llama.cpp uses its own Jinja engine on the same template.

    Notebook 03.
    """
    return _compiled(template).render(messages=messages, tools=tools or [], add_generation_prompt=add_generation_prompt)


@functools.lru_cache(maxsize=8)
def _compiled(template: str | None) -> Any:
    """The template compiled once (None: the course's file, read once): a notebook renders the
    same template many times."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    if template is None:
        template = data_path(TEMPLATE_FILE).read_text(encoding="utf-8")
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = _tojson
    return env.from_string(template)


# ---- grammar: the call block as GBNF, and the same language as a regular expression -------------
#
# Each schema node becomes a pair (GBNF expression, Python regex) built by the same recursion, so
# what the notebook shows (GBNF) and what it tests offline (the regex) cannot drift apart.

_SPACE = ("space", r"[ ]?")  # one optional space between tokens (llama.cpp allows a little more)
_CHAR_GBNF = r'[^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})'
_STRING_RE = r'"(?:[^"\\\x00-\x1f\x7f]|\\(?:["\\bfnrt]|u[0-9a-fA-F]{4}))*"'
_INTEGER_RE = r"-?(?:0|[1-9][0-9]{0,15})"
_NUMBER_RE = _INTEGER_RE + r"(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
_BASE = {  # type -> (GBNF expression, regex)
    "string": ('"\\"" char* "\\""', _STRING_RE),
    "integer": ('"-"? ([0] | [1-9] [0-9]{0,15})', _INTEGER_RE),
    "number": ('"-"? ([0] | [1-9] [0-9]{0,15}) ("." [0-9]+)? ([eE] [-+]? [0-9]+)?', _NUMBER_RE),
    "boolean": ('("true" | "false")', "(?:true|false)"),
}


def _literal(text: str) -> tuple[str, str]:
    """A fixed piece of output: a GBNF string literal and its regex."""
    return json.dumps(text), re.escape(text)


def _node(schema: dict, name: str, rules: dict[str, str]) -> tuple[str, str]:
    if "enum" in schema:
        values = [json.dumps(v) for v in schema["enum"]]
        return "(" + " | ".join(json.dumps(v) for v in values) + ")", "(?:" + "|".join(map(re.escape, values)) + ")"
    kind = schema.get("type")
    if kind in _BASE:
        return _BASE[kind]
    if kind == "array":
        item_g, item_r = _node(schema.get("items", {"type": "string"}), name + "-item", rules)
        sp = _SPACE[1]
        return (
            f'"[" space ({item_g} ("," space {item_g})*)? "]"',
            rf"\[{sp}(?:{item_r}(?:,{sp}{item_r})*)?\]",
        )
    if kind == "object":
        return _object(schema, name, rules)
    raise ValueError(f"{name}: the teaching converter has no rule for {json.dumps(schema)[:60]}")


def _object(schema: dict, name: str, rules: dict[str, str]) -> tuple[str, str]:
    props = schema.get("properties", {})
    required = [p for p in props if p in schema.get("required", [])]
    optional = [p for p in props if p not in required]
    if props and not required:
        raise ValueError(f"{name}: the teaching converter needs at least one required property")
    sp = _SPACE[1]
    parts_g, parts_r = [], []
    for i, prop in enumerate(required + optional):
        key_g, key_r = _literal(json.dumps(prop))
        val_g, val_r = _node(props[prop], f"{name}-{prop}", rules)
        rule = f"{name}-{prop}-kv".replace("_", "-")
        rules[rule] = f'{key_g} space ":" space {val_g}'
        kv_r = rf"{key_r}{sp}:{sp}{val_r}"
        if i == 0:
            parts_g.append(rule)
            parts_r.append(kv_r)
        elif prop in required:
            parts_g.append(f'"," space {rule}')
            parts_r.append(rf",{sp}{kv_r}")
        else:
            parts_g.append(f'("," space {rule})?')
            parts_r.append(rf"(?:,{sp}{kv_r})?")
    return '"{" space ' + " ".join(parts_g) + ' "}"', rf"\{{{sp}" + "".join(parts_r) + r"\}"


def _grammar(tools: list[dict]) -> tuple[str, str]:
    rules: dict[str, str] = {}
    calls_g, calls_r = [], []
    sp = _SPACE[1]
    for tool in tools:
        fn = tool.get("function", tool)
        stem = re.sub(r"[^A-Za-z0-9-]", "-", fn["name"])
        args_g, args_r = _node(fn.get("parameters", fn.get("inputSchema", {})), stem + "-args", rules)
        rules[stem + "-args"] = args_g
        name_g, name_r = _literal(json.dumps(fn["name"]))
        rules[stem + "-call"] = (
            f'"{{" space "\\"name\\"" space ":" space {name_g} "," space "\\"arguments\\"" space ":" space '
            f'{stem}-args "}}"'
        )
        calls_g.append(stem + "-call")
        calls_r.append(rf"\{{{sp}\"name\"{sp}:{sp}{name_r},{sp}\"arguments\"{sp}:{sp}{args_r}\}}")
    head, tail = "```json\n", "\n```"
    root = f"{json.dumps(head)} ({' | '.join(calls_g)}) {json.dumps(tail)}"
    lines = [f"root ::= {root}"] + [f"{k} ::= {v}" for k, v in rules.items()]
    lines += [f"char ::= {_CHAR_GBNF}", f'{_SPACE[0]} ::= " "?']
    regex = re.escape(head) + "(?:" + "|".join(calls_r) + ")" + re.escape(tail)
    return "\n".join(lines), regex


def call_grammar(tools: list[dict]) -> str:
    """A GBNF grammar whose only sentences are one call block of the course's template, a
    ```` ```json ```` fence around ``{"name": ..., "arguments": ...}``, for one of ``tools``
    (chat-template shape, or the registry's MCP-style schemas) with arguments that fit its schema.

    Properties are written in the schema's order, required ones first, as llama.cpp's converter
    also fixes an order [65].

    Notebook 03.
    """
    return _grammar(tools)[0]


def grammar_admits(tools: list[dict], text: str) -> bool:
    """Whether ``text`` is a sentence of :func:`call_grammar` for ``tools``: the only texts a
    sampler held to that grammar could produce. Checked with a regular expression built from the
    same rules (no model, no llama.cpp).

    Notebook 03.
    """
    return re.fullmatch(_grammar(tools)[1], text) is not None
