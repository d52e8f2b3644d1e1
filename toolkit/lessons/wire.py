"""The course's tools and conversation in the two vendors' wire formats, and their replies back
in the mocks' shape. Pack §2.5 (function calling as the vendors define it), §2.2 (the model
only asks for a call). Pure functions on plain dicts, standard library only; endpoints.py
hands what they build to the vendors' SDKs, and notebook 02's "One call on the wire" shows the
same shapes by hand.

On the way out, tools get legal names (``math.hypot`` goes out as ``math_hypot``) and JSON
Schema types (BFCL's ``dict`` as ``object``). On the way back, a call gets its tool's own name
again, and its arguments are a dict when the model wrote a JSON object and otherwise the very
string it wrote, for the loop's validation to report. Reasoning a reply carries (the reasoning
fields of Chat Completions servers, Anthropic's ``thinking`` blocks) comes back under
``"reasoning"``, and goes out again, unmodified, on the assistant turn that holds it.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["wire_tools", "wire_schema", "legal_names", "LEGAL_NAME", "TOOL_CHOICES"]
__all__ += ["chat_completions_request", "chat_completions_reply", "messages_request", "messages_reply"]

LEGAL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
TOOL_CHOICES = ("auto", "none", "required")  # or a tool's name; None sends none
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_details")  # Chat Completions servers'
THINKING_BLOCKS = ("thinking", "redacted_thinking")  # Anthropic's
# BFCL's type names (Python's and Java's) -> JSON Schema's; "any" and unknown names -> string, as
# BFCL's own function-calling handlers send them. Values under _DATA keys are data, not schemas.
_JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}
_BFCL = {"object": "dict hashmap hashtable", "number": "float double", "boolean": "bool", "string": "char str any",
         "array": "tuple list arraylist queue stack", "integer": "int long short byte bigint"}  # fmt: skip
_BFCL_TYPES = {name: kind for kind, names in _BFCL.items() for name in names.split()}
_DATA = ("enum", "const", "default", "examples", "required", "description", "title")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


# --------------------------------------------------------------------------------------------
# tools a real endpoint accepts


def _json_type(kind: Any) -> Any:
    if isinstance(kind, list):
        return [_json_type(k) for k in kind]
    if not isinstance(kind, str):
        return "string"
    return kind if kind in _JSON_TYPES else _BFCL_TYPES.get(kind.lower(), "string")


def _convert(node: Any, names_schemas: bool = False) -> Any:
    """A copy of a schema with every ``type`` renamed, all the way down. Under ``properties``
    and the like every value is a schema, whatever its name (a parameter may be "title")."""
    if isinstance(node, list):
        return [_convert(v) for v in node]
    if not isinstance(node, Mapping):
        return node
    out = {}
    for key, value in node.items():
        if names_schemas:
            out[key] = _convert(value)
        elif key == "type" and not isinstance(value, Mapping):
            out[key] = _json_type(value)
        else:
            out[key] = copy.deepcopy(value) if key in _DATA else _convert(value, key in _SCHEMA_MAPS)
    return out


def wire_schema(parameters: Any) -> dict:
    """A tool's parameters as JSON Schema a real endpoint accepts (the input is not changed):
    an ``object`` at the top, every ``type`` renamed below it (BFCL's ``dict`` → ``object``,
    ``float`` → ``number``, ``tuple`` → ``array``, ``any`` and unknown names → ``string``).

    Used by: docs/real-models.md: Using a real model.
    """
    schema = _convert(parameters) if isinstance(parameters, Mapping) else {}
    schema["type"] = "object"
    if not isinstance(schema.get("properties"), Mapping):
        schema["properties"] = {}
    return schema


def legal_names(names: Iterable[str]) -> dict[str, str]:
    """``{original: alias}``, every alias matching ``^[a-zA-Z0-9_-]{1,64}$`` and all distinct.
    Legal names keep themselves (reserved first); others get ``_`` for each illegal character,
    cut to 64 characters, then ``_2``, ``_3`` … while taken: ``math.hypot`` → ``math_hypot``.

    Used by: docs/real-models.md: Using a real model.
    """
    names = list(dict.fromkeys(str(n) for n in names))
    out = {n: n for n in names if LEGAL_NAME.match(n)}
    taken = set(out)
    for name in (n for n in names if n not in out):
        base = re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64] or "tool"
        alias, i = base, 1
        while alias in taken:
            i += 1
            alias = base[: 64 - len(f"_{i}")] + f"_{i}"
        out[name] = alias
        taken.add(alias)
    return out


def _wire_name(name: Any, names: Mapping[str, str]) -> str:
    """The name a call goes out under: its tool's alias, or a legal spelling of a made-up one."""
    text = str(name)
    return names.get(text) or (text if LEGAL_NAME.match(text) else legal_names([text])[text])


def wire_tools(tools: Iterable[Mapping] | None) -> tuple[list[dict], dict[str, str]]:
    """Tool definitions (registry schemas with ``inputSchema``, or BFCL's functions with
    ``parameters``) as ``[{"name", "description", "parameters"}]`` with legal names and JSON
    Schema types, plus ``{original name: wire name}``. Pack §2.5.

    Used by: docs/real-models.md: Using a real model.
    """
    tools = [t for t in (tools or []) if isinstance(t, Mapping)]
    names = legal_names(t.get("name", "") for t in tools)
    schema = [t.get("parameters", t.get("inputSchema", t.get("input_schema"))) for t in tools]
    return [{"name": names[str(t.get("name", ""))], "description": str(t.get("description") or ""),
             "parameters": wire_schema(s)} for t, s in zip(tools, schema)], names  # fmt: skip


# --------------------------------------------------------------------------------------------
# arguments and replies, as the loop reads them


def _arguments(raw: Any) -> Any:
    """A dict when the model sent a JSON object (or nothing); else exactly what it sent."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if not isinstance(raw, str):
        return raw
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    return value if isinstance(value, dict) else raw


def _call_back(call_id: str, name: Any, raw_arguments: Any, original: Mapping[str, str]) -> dict:
    """A call from the wire in the mocks' shape, its name mapped back to the tool's own."""
    return {"id": call_id, "name": original.get(name, name), "arguments": _arguments(raw_arguments)}


def _reply(text: str | None, calls: list, stop: Any, refusal: str | None, usage: Any, reasoning: list) -> dict:
    if refusal:
        text = f"The model refused: {refusal}" if not text else f"{text}\n(The model refused: {refusal})"
    reply = {"content": text, "tool_calls": calls, "stop_reason": stop, "refusal": refusal or None,
             "usage": usage if isinstance(usage, dict) else {}}  # fmt: skip
    return {**reply, "reasoning": reasoning} if reasoning else reply


# --------------------------------------------------------------------------------------------
# OpenAI's Chat Completions (also served by Ollama, llama.cpp, vLLM, LM Studio)


def chat_completions_request(messages: list, specs: list[dict], names: Mapping[str, str],
                             choice: str | None) -> dict:  # fmt: skip
    """The ``messages``, ``tools`` and ``tool_choice`` of a request: run_agent's conversation
    with calls under their wire names and arguments as JSON text. ``specs`` and ``names``
    come from :func:`wire_tools`; ``choice`` is one of TOOL_CHOICES, a tool's name or None.

    Used by: docs/real-models.md: Using a real model.
    """
    out: list[dict] = []
    for m in messages:
        role, content = m.get("role"), m.get("content")
        if role == "tool":
            out.append({"role": "tool", "tool_call_id": str(m.get("tool_call_id")), "content": str(content or "")})
        elif role == "assistant" and m.get("tool_calls"):
            turn: dict = {"role": "assistant", "content": content or ""}  # "": llama.cpp refuses a null (HTTP 500)
            for block in m.get("reasoning") or []:  # opaque, sent back as it came
                if isinstance(block, Mapping) and block.get("type") in REASONING_FIELDS:
                    turn[block["type"]] = block.get(block["type"])
            turn["tool_calls"] = [{"id": str(c.get("id")), "type": "function", "function": {
                "name": _wire_name(c.get("name"), names), "arguments": _arguments_text(c.get("arguments"))}}
                for c in m["tool_calls"]]  # fmt: skip
            out.append(turn)
        else:
            out.append({"role": role, "content": content if content is not None else ""})
    if not specs:
        return {"messages": out}
    body: dict = {"messages": out, "tools": [{"type": "function", "function": s} for s in specs]}
    if choice is not None:
        body["tool_choice"] = choice if choice in TOOL_CHOICES else {
            "type": "function", "function": {"name": _wire_name(choice, names)}}  # fmt: skip
    return body


def _arguments_text(args: Any) -> str:
    """Arguments as the JSON string Chat Completions carries (a string the model sent, as is)."""
    return args if isinstance(args, str) else json.dumps(args if args is not None else {})


def chat_completions_reply(data: Mapping, original: Mapping[str, str]) -> dict:
    """A Chat Completions answer in the mocks' reply shape; ``original`` maps wire names back.
    A ValueError says what is missing when ``data`` is not such an answer.

    Used by: docs/real-models.md: Using a real model.
    """
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("has no choices; it is not a Chat Completions response")
    message, stop = choices[0].get("message") or {}, choices[0].get("finish_reason")
    calls = [_call_back(tc.get("id") or f"call_{i}", (tc.get("function") or {}).get("name"),
                        (tc.get("function") or {}).get("arguments"), original)
             for i, tc in enumerate(message.get("tool_calls") or [])]  # fmt: skip
    refusal = message.get("refusal")
    if stop == "content_filter" and not refusal:
        refusal = "the endpoint's content filter stopped the answer"
    reasoning = [{"type": f, f: message[f]} for f in REASONING_FIELDS if message.get(f) not in (None, "", [])]
    return _reply(message.get("content"), calls, stop, refusal, data.get("usage"), reasoning)


# --------------------------------------------------------------------------------------------
# Anthropic's Messages


def messages_request(messages: list, specs: list[dict], names: Mapping[str, str], choice: str | None,
                     thinking: bool = False) -> dict:  # fmt: skip
    """The ``system``, ``messages``, ``tools`` and ``tool_choice`` of a request: tool answers
    become ``tool_result`` blocks, turns of one role merge (the API wants user and assistant to
    alternate), thinking blocks go first. With ``thinking`` on, a forced choice goes out as
    ``auto``: manual thinking refuses one, and under adaptive thinking only some models accept
    it (notebook 02, section 4b).

    Used by: docs/real-models.md: Using a real model.
    """
    system: list[str] = []
    turns: list[dict] = []
    for m in messages:
        role, content = m.get("role"), m.get("content")
        if role == "system":
            system.append(str(content or ""))
            continue
        if role == "tool":
            result = {"type": "tool_result", "tool_use_id": str(m.get("tool_call_id")), "content": str(content or "")}  # fmt: skip
            role, content = "user", [{**result, "is_error": True} if m.get("is_error") else result]
        elif role == "assistant":
            blocks = [dict(b) for b in m.get("reasoning") or []
                      if isinstance(b, Mapping) and b.get("type") in THINKING_BLOCKS]  # fmt: skip
            uses = [{"type": "tool_use", "id": str(c.get("id")), "name": _wire_name(c.get("name"), names),
                     "input": _arguments_object(c.get("arguments"))} for c in m.get("tool_calls") or []]  # fmt: skip
            content = blocks + _blocks(content) + uses if uses or blocks else (content or "")
        else:
            role, content = "user", content if content is not None else ""
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] = _blocks(turns[-1]["content"]) + _blocks(content)
        else:
            turns.append({"role": role, "content": content})
    body: dict = {"messages": turns, **({"system": "\n\n".join(system)} if system else {})}
    if specs:
        body["tools"] = [{"name": s["name"], "description": s["description"], "input_schema": s["parameters"]}
                         for s in specs]  # fmt: skip
        if choice is not None:
            forced = choice not in ("auto", "none")
            body["tool_choice"] = ({"type": "auto"} if thinking and forced else {"type": choice} if not forced
                                   else {"type": "any"} if choice == "required"
                                   else {"type": "tool", "name": _wire_name(choice, names)})  # fmt: skip
    return body


def _blocks(content: Any) -> list:
    if isinstance(content, list):
        return list(content)
    return [{"type": "text", "text": str(content)}] if content not in (None, "") else []


def _arguments_object(args: Any) -> dict:
    """Arguments as the object Messages carries: a malformed string the model once sent goes back
    as ``{}`` (its tool result already told the model what was wrong)."""
    value = _arguments(args)
    return value if isinstance(value, dict) else {}


def messages_reply(data: Mapping, original: Mapping[str, str]) -> dict:
    """A Messages answer in the mocks' reply shape; ``original`` maps wire names back. Thinking
    blocks are kept whole, signature and all. A ValueError says what is missing when ``data``
    is not such an answer.

    Used by: docs/real-models.md: Using a real model.
    """
    blocks = data.get("content")
    if not isinstance(blocks, list):
        raise ValueError("has no content list; it is not a Messages response")
    blocks = [b for b in blocks if isinstance(b, dict)]
    reasoning = [b for b in blocks if b.get("type") in THINKING_BLOCKS]
    texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
    calls = [_call_back(b.get("id") or f"toolu_{i}", b.get("name"), b.get("input"), original)
             for i, b in enumerate(blocks) if b.get("type") == "tool_use"]  # fmt: skip
    stop, text, refusal = data.get("stop_reason"), ("".join(texts) if texts else None), None
    if stop == "refusal":
        details = data.get("stop_details")
        why = details.get("explanation") if isinstance(details, dict) else None
        refusal, text = text or why or "the model declined (stop_reason: refusal)", None
    return _reply(text, calls, stop, refusal, data.get("usage"), reasoning)
