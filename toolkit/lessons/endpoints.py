"""Real models in the mocks' place: the vendors' SDKs carry the request, this module converts
it. Pack §2.2 (the model only asks for a call), §2.5 (function calling as the vendors define
it), §2.8 (bad arguments, retries).

:class:`ChatCompletionsModel` speaks OpenAI's Chat Completions (served by OpenAI, Ollama,
llama.cpp, vLLM, LM Studio), :class:`MessagesModel` Anthropic's Messages API. Both answer
``respond(messages, tools)`` as a mock does: ``{"content", "tool_calls": [{"id", "name",
"arguments"}], "stop_reason", "refusal", "usage"}``, plus ``"reasoning"``, opaque blocks the
caller keeps on the assistant turn so they go back unmodified (run_agent does). The conversion
is the lesson: illegal tool names get legal aliases, mapped back on the way in; BFCL's types
become JSON Schema's; arguments that are not a JSON object stay the string the model wrote, for
the loop's validation to report. HTTP, retries, timeouts and keys are the ``openai`` and
``anthropic`` SDKs' (``pip install 'tooluse-course[models]'``), imported at the first request;
their errors come back as one :class:`EndpointError` sentence, never with the key.
"""

from __future__ import annotations

import copy
import importlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["ChatCompletionsModel", "MessagesModel", "EndpointError", "DEFAULT_MAX_TOKENS", "TOOL_CHOICES"]
__all__ += ["wire_tools", "wire_schema", "legal_names", "LEGAL_NAME"]

LEGAL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
DEFAULT_MAX_TOKENS = 1024  # a small local model that rambles stops in seconds
DEFAULT_TIMEOUT, LOCAL_TIMEOUT = 60.0, 300.0  # seconds for one answer: hosted, or on this machine
TOOL_CHOICES = ("auto", "none", "required")  # or a tool's name; None sends none
NO_KEY = "no-key"  # sent when no key is given: local servers want none, the SDKs want one
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_details")  # Chat Completions servers'
THINKING_BLOCKS = ("thinking", "redacted_thinking")  # Anthropic's
_LOOPBACK = re.compile(r"^https?://(localhost|127\.[\d.]+|\[::1\])(:\d+)?(/|$)", re.IGNORECASE)
# BFCL's type names (Python's and Java's) -> JSON Schema's; "any" and unknown names -> string, as
# BFCL's own function-calling handlers send them. Values under _DATA keys are data, not schemas.
_JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}
_BFCL = {"object": "dict hashmap hashtable", "number": "float double", "boolean": "bool", "string": "char str any",
         "array": "tuple list arraylist queue stack", "integer": "int long short byte bigint"}  # fmt: skip
_BFCL_TYPES = {name: kind for kind, names in _BFCL.items() for name in names.split()}
_DATA = ("enum", "const", "default", "examples", "required", "description", "title")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
# A 5xx whose text says the request is malformed (llama-cpp-python on a null content) would be
# refused again; a 400 of this kind means the conversation outgrew the model's context.
_VALIDATION = re.compile(r"validation error|validationerror|input should be|field required|is not a valid|"
                         r"invalid (?:request|value|type|parameter)|unexpected keyword|unsupported|not supported", re.I)  # fmt: skip
_CONTEXT_FULL = re.compile(r"maximum context length|context window|context_length_exceeded|prompt is too long", re.I)


class EndpointError(RuntimeError):
    """A request to a model endpoint failed; the message is one line that says what to fix.
    ``status``: the HTTP status, or None. ``kind``: ``"http"``, ``"refused"`` (and would be
    again), ``"context"`` (the conversation outgrew the context window), ``"timeout"``,
    ``"connection"``, ``"protocol"`` (not the API's answer) or ``"setup"`` (no SDK).

    Used by: docs/real-models.md: Using a real model.
    """

    def __init__(self, message: str, status: int | None = None, kind: str = "http") -> None:
        super().__init__(message)
        self.status, self.kind = status, kind


# --------------------------------------------------------------------------------------------
# tools a real endpoint accepts, and calls as they come back (pack §2.5)


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


def _call_back(call_id: str, name: Any, raw_arguments: Any, original: dict[str, str]) -> dict:
    """A call from the wire in the mocks' shape, its name mapped back to the tool's own."""
    return {"id": call_id, "name": original.get(name, name), "arguments": _arguments(raw_arguments)}


def _reply(text: str | None, calls: list, stop: Any, refusal: str | None, usage: dict, reasoning: list) -> dict:
    if refusal:
        text = f"The model refused: {refusal}" if not text else f"{text}\n(The model refused: {refusal})"
    reply = {"content": text, "tool_calls": calls, "stop_reason": stop, "refusal": refusal or None, "usage": usage}
    return {**reply, "reasoning": reasoning} if reasoning else reply


def _server_message(body: bytes) -> tuple[str, str | None]:
    """The error text and the field (``param``) an error body names, in either API's shape."""
    try:
        data = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        return (body.decode("utf-8", "replace").strip().splitlines() or [""])[0], None
    err = data.get("error", data) if isinstance(data, dict) else data
    if not isinstance(err, dict):
        return str(err), None
    message = err.get("message") or err.get("detail") or err.get("type") or json.dumps(err)
    return str(message), (str(err["param"]) if err.get("param") else None)


# --------------------------------------------------------------------------------------------
# what both APIs share: settings, the SDK call, its errors as one sentence


class _Endpoint:
    api_name = key_env = sdk = ""  # the API's name in messages, its key's variable, its SDK
    # each API's own: URL, SDK call, body, tool_choice and answer (the classes below)
    _url: Callable[[], str]
    _call: Callable[[Any, dict], Any]
    _body: Callable[[list, list, dict], dict]
    _choice: Callable[[str, dict], Any]
    _parse: Callable[[dict, dict], dict]

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *, timeout: float | None = None,
                 max_retries: int = 4, temperature: float | None = 0, max_tokens: int | None = DEFAULT_MAX_TOKENS,
                 tool_choice: str | None = "auto", extra_body: Mapping | None = None,
                 api_key_env: str | None = None) -> None:  # fmt: skip
        if not isinstance(base_url, str) or not re.match(r"^https?://", base_url):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if not isinstance(model, str) or not model:
            raise ValueError("model must be the model's name as the endpoint knows it, e.g. 'llama3.2'")
        if timeout is None:  # a server on this machine answers at the speed of its CPU, one at a time
            timeout = LOCAL_TIMEOUT if _LOOPBACK.match(base_url) else DEFAULT_TIMEOUT
        if max_retries < 0 or timeout <= 0:
            raise ValueError("timeout must be positive and max_retries 0 or more")
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
        ):
            raise ValueError(f"max_tokens must be a positive integer (or None to leave it out), got {max_tokens!r}")
        if tool_choice is not None and (not isinstance(tool_choice, str) or not tool_choice):
            raise ValueError(f"tool_choice must be {', '.join(TOOL_CHOICES)}, a tool's name or None, got {tool_choice!r}")  # fmt: skip
        self.base_url, self.model, self._api_key = base_url.rstrip("/"), model, api_key or None
        self.timeout, self.max_retries, self.temperature = timeout, max_retries, temperature
        self.max_tokens, self.tool_choice, self.extra_body = max_tokens, tool_choice, dict(extra_body or {})
        self.key_env = api_key_env or self.key_env
        self.usage = {"requests": 0, "input_tokens": 0, "output_tokens": 0}
        self.last_response: dict | None = None  # the server's last JSON answer, as it came
        self._client: Any = None  # the SDK's client, made at the first request

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"{type(self).__name__}(base_url={self.base_url!r}, model={self.model!r}, api_key=<{key}>)"

    def request_body(self, messages: list, tools: list | None) -> dict:
        """The JSON body this model sends for ``respond(messages, tools)``."""
        specs, names = wire_tools(tools)
        body = self._body(messages, specs, names)
        if specs and self.tool_choice is not None:  # llama.cpp's server reads none as "none"
            body["tool_choice"] = self._choice(self.tool_choice, names)
        settings = {"max_tokens": self.max_tokens, "temperature": self.temperature}
        return {**body, **{k: v for k, v in settings.items() if v is not None}, **self.extra_body}

    def respond(self, messages: list, tools: list | None = None) -> dict:
        """One model turn, in the mocks' reply shape (see the module docstring)."""
        names = wire_tools(tools)[1]
        self.last_response = data = self._send(self.request_body(messages, tools))
        return self._parse(data, {wire: orig for orig, wire in names.items()})

    def _send(self, body: dict) -> dict:
        """``body`` through the SDK (its retries, timeout and key); the answer's JSON object."""
        try:
            sdk = importlib.import_module(self.sdk)
        except ImportError:
            raise self._fail(f"a real model needs the {self.sdk} package: pip install 'tooluse-course[models]'",
                             kind="setup") from None  # fmt: skip
        try:
            raw = self._call(sdk, body)
        except sdk.APIStatusError as exc:
            self.usage["requests"] += _tries(exc.response)
            raise self._status_error(exc.response) from None
        except sdk.APITimeoutError:
            raise self._fail(f"no answer from {self._url()} within {self.timeout:g} s (timeout, {self.max_retries + 1} "
                             "tries); a local model may need a longer timeout, a hosted one may be overloaded.",
                             kind="timeout") from None  # fmt: skip
        except sdk.APIConnectionError as exc:
            raise self._fail(f"could not reach {self._url()}, or the connection broke ({type(exc.__cause__).__name__}): "
                             "is the server running, and is --base-url right?", kind="connection") from None  # fmt: skip
        self.usage["requests"] += raw.retries_taken + 1
        try:
            data = json.loads(raw.http_response.text)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise self._fail(f"the answer from {self._url()} is not a JSON object; is --base-url the API's address?")
        return data

    def _scrub(self, text: str) -> str:
        """``text`` with the key hidden, should a server echo it. Keys under 8 characters
        (``ollama``: placeholders local servers accept) are no secret and stay."""
        key = self._api_key
        return text.replace(key, "[key hidden]") if key and len(key) >= 8 else text

    def _fail(self, message: str, status: int | None = None, kind: str = "protocol") -> EndpointError:
        text = " ".join(message.split())
        return EndpointError(self._scrub(text if len(text) <= 300 else text[:297] + "..."), status, kind)

    def _status_error(self, response: Any) -> EndpointError:
        """A refusal the SDK gave up on: at once for most 4xx, after its retries for 429 and 5xx."""
        status, (said, param), model = response.status_code, _server_message(response.content), repr(self.model)
        final = (status not in (408, 409, 429) and status < 500) or bool(_VALIDATION.search(said))
        key = f"the server refused the key; check the API key in ${self.key_env} (and that it may use model {model})"
        field = f"the field {param!r}" if param else "the request (it named no field)"
        kind, advice = ("refused" if final else "http"), {
            400: f"it rejected {field}; fix or leave out that setting, and check that model {model} takes tools",
            401: key, 403: key, 404: f"check --base-url (OpenAI-style URLs end in /v1) and --model (now {model})",
        }.get(status)  # fmt: skip
        if status == 400 and _CONTEXT_FULL.search(said):
            kind, advice = "context", (f"the conversation no longer fits the context window of model {model} (a "
                                       "model that loops fills it); serve it with a longer context, or lower --max-tokens")  # fmt: skip
        elif advice is None and final:
            advice = f"the server refused this request, and would refuse it again; check model {model} and the settings"
        elif advice is None:
            asked = (
                f" (it asked to wait {response.headers['retry-after']} s)" if "retry-after" in response.headers else ""
            )
            advice = f"after {_tries(response)} tries the server is busy or failing{asked}; wait a while and run again"
        said = f" The server said: {said[:200]}" if said else ""
        where = f"{self.api_name} endpoint {self._url()}"
        return self._fail(f"{status} {response.reason_phrase} from {where}: {advice}.{said}", status, kind)

    def _count(self, data: dict, sent: str, received: str) -> dict:
        """Add an answer's token counts (``sent``, ``received``: its API's names) to :attr:`usage`."""
        usage = data.get("usage") or {}
        for key, value in (("input_tokens", usage.get(sent)), ("output_tokens", usage.get(received))):
            if isinstance(value, int) and not isinstance(value, bool):
                self.usage[key] += value
        return usage


def _tries(response: Any) -> int:
    """How many requests the SDK sent for this answer (it numbers its retries in a header)."""
    return int(response.request.headers.get("x-stainless-retry-count") or 0) + 1


# --------------------------------------------------------------------------------------------
# OpenAI-compatible Chat Completions


class ChatCompletionsModel(_Endpoint):
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint (OpenAI, Ollama,
    llama.cpp's server, vLLM, LM Studio, university gateways), through the ``openai`` SDK.
    ``base_url`` ends in ``/v1`` (Ollama: ``http://localhost:11434/v1``). ``temperature`` and
    ``max_tokens`` set to None are left out; ``extra_body`` is merged into every request.
    ``tool_choice``: ``"auto"``, ``"none"``, ``"required"``, a tool's name, or None. Pack §2.5.

    Used by: docs/real-models.md: Using a real model.
    """

    api_name, key_env, sdk = "OpenAI-compatible", "OPENAI_API_KEY", "openai"

    def _url(self) -> str:
        return self.base_url + "/chat/completions"

    def _call(self, sdk: Any, body: dict) -> Any:
        self._client = self._client or sdk.OpenAI(base_url=self.base_url, api_key=self._api_key or NO_KEY,
                                                  timeout=self.timeout, max_retries=self.max_retries)  # fmt: skip
        rest = dict(body)  # what the SDK has no parameter for goes in extra_body, as it is
        create = self._client.chat.completions.with_raw_response.create
        return create(model=rest.pop("model"), messages=rest.pop("messages"), extra_body=rest)

    def _body(self, messages: list, specs: list[dict], names: dict[str, str]) -> dict:
        tools = {"tools": [{"type": "function", "function": s} for s in specs]} if specs else {}
        return {"model": self.model, "messages": _openai_messages(messages, names), **tools}

    def _choice(self, choice: str, names: dict[str, str]) -> Any:
        if choice in TOOL_CHOICES:
            return choice
        return {"type": "function", "function": {"name": _wire_name(choice, names)}}

    def _parse(self, data: dict, original: dict[str, str]) -> dict:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._fail(f"the answer from {self._url()} has no choices; it is not a Chat Completions response")
        message, stop = choices[0].get("message") or {}, choices[0].get("finish_reason")
        calls = [_call_back(tc.get("id") or f"call_{i}", (tc.get("function") or {}).get("name"),
                            (tc.get("function") or {}).get("arguments"), original)
                 for i, tc in enumerate(message.get("tool_calls") or [])]  # fmt: skip
        refusal = message.get("refusal")
        if stop == "content_filter" and not refusal:
            refusal = "the endpoint's content filter stopped the answer"
        reasoning = [{"type": f, f: message[f]} for f in REASONING_FIELDS if message.get(f) not in (None, "", [])]
        usage = self._count(data, "prompt_tokens", "completion_tokens")
        return _reply(message.get("content"), calls, stop, refusal, usage, reasoning)


def _openai_messages(messages: list, names: dict[str, str]) -> list[dict]:
    """run_agent's conversation in the Chat Completions wire format."""
    out: list[dict] = []
    for m in messages:
        role, content = m.get("role"), m.get("content")
        if role == "tool":
            out.append(
                {"role": "tool", "tool_call_id": str(m.get("tool_call_id")), "content": str(m.get("content", ""))}
            )
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
    return out


def _arguments_text(args: Any) -> str:
    """Arguments as the JSON string Chat Completions carries (a string the model sent, as is)."""
    return args if isinstance(args, str) else json.dumps(args if args is not None else {})


# --------------------------------------------------------------------------------------------
# Anthropic Messages


class MessagesModel(_Endpoint):
    """A model behind Anthropic's Messages API, through the ``anthropic`` SDK. Pack §2.5.
    ``base_url`` is the host alone (``https://api.anthropic.com``); ``max_tokens`` is required;
    ``temperature`` is left out unless given. ``tool_choice`` as for ChatCompletionsModel
    (``"required"`` goes out as ``{"type": "any"}``), but ``"auto"`` when thinking is on: manual
    thinking refuses a forced choice, and under adaptive thinking only some models accept one
    (notebook 02, section 4b). Thinking: ``extra_body={"thinking": {"type": "adaptive"}}``. The
    older manual mode, ``{"type": "enabled", "budget_tokens": N}`` (deprecated; the newest models
    refuse it), counts N inside ``max_tokens``, which must exceed N: the default cap becomes
    ``N + 1024``, any other cap not above N is a ValueError before anything is sent.

    Used by: docs/real-models.md: Using a real model.
    """

    api_name, key_env, sdk = "Anthropic", "ANTHROPIC_API_KEY", "anthropic"

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *,
                 max_tokens: int = DEFAULT_MAX_TOKENS, anthropic_version: str = "2023-06-01",
                 **options: Any) -> None:  # fmt: skip
        options.setdefault("temperature", None)
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError("max_tokens must be a positive integer (the Messages API requires it)")
        super().__init__(base_url, model, api_key, max_tokens=max_tokens, **options)
        self.anthropic_version = anthropic_version
        self._cap()  # a manual thinking budget that max_tokens cannot hold fails here

    def _cap(self) -> Any:
        """The ``max_tokens`` a request sends: above a manual thinking budget, or a clear error."""
        cap, thinking = self.extra_body.get("max_tokens", self.max_tokens), self.extra_body.get("thinking")
        budget = thinking.get("budget_tokens") if isinstance(thinking, Mapping) and thinking.get("type") == "enabled" else None  # fmt: skip
        if not isinstance(budget, int) or isinstance(budget, bool) or not isinstance(cap, int) or cap > budget:
            return cap
        if cap == DEFAULT_MAX_TOKENS and "max_tokens" not in self.extra_body:
            return budget + DEFAULT_MAX_TOKENS  # the budget, then the default's room for the answer
        raise ValueError(
            f"max_tokens ({cap}) must be greater than thinking.budget_tokens ({budget}): the thinking tokens count "
            f"inside max_tokens and the API refuses the request otherwise. Pass max_tokens={budget + DEFAULT_MAX_TOKENS}"
            " or more, or use adaptive thinking, extra_body={'thinking': {'type': 'adaptive'}}."
        )

    def request_body(self, messages: list, tools: list | None) -> dict:
        """The JSON body this model sends for ``respond(messages, tools)``."""
        return {**super().request_body(messages, tools), "max_tokens": self._cap()}

    def _url(self) -> str:
        return self.base_url.removesuffix("/v1") + "/v1/messages"

    def _call(self, sdk: Any, body: dict) -> Any:
        self._client = self._client or sdk.Anthropic(
            base_url=self.base_url.removesuffix("/v1"), api_key=self._api_key or NO_KEY, timeout=self.timeout,
            max_retries=self.max_retries, default_headers={"anthropic-version": self.anthropic_version})  # fmt: skip
        rest = dict(body)  # what the SDK has no parameter for goes in extra_body, as it is
        create = self._client.messages.with_raw_response.create
        return create(model=rest.pop("model"), messages=rest.pop("messages"), max_tokens=rest.pop("max_tokens"),
                      extra_body=rest)  # fmt: skip

    def _body(self, messages: list, specs: list[dict], names: dict[str, str]) -> dict:
        system, turns = _anthropic_messages(messages, names)
        tools = [{"name": s["name"], "description": s["description"], "input_schema": s["parameters"]} for s in specs]
        return {"model": self.model, "messages": turns, **({"system": system} if system else {}),
                **({"tools": tools} if tools else {})}  # fmt: skip

    def _choice(self, choice: str, names: dict[str, str]) -> Any:
        thinking = self.extra_body.get("thinking")
        if isinstance(thinking, Mapping) and thinking.get("type") not in (None, "disabled") and choice != "none":
            return {"type": "auto"}  # forced tool use is refused with extended thinking
        if choice in ("auto", "none"):
            return {"type": choice}
        return {"type": "any"} if choice == "required" else {"type": "tool", "name": _wire_name(choice, names)}

    def _parse(self, data: dict, original: dict[str, str]) -> dict:
        blocks = data.get("content")
        if not isinstance(blocks, list):
            raise self._fail(f"the answer from {self._url()} has no content list; it is not a Messages response")
        blocks = [b for b in blocks if isinstance(b, dict)]
        reasoning = [b for b in blocks if b.get("type") in THINKING_BLOCKS]  # whole, signature and all
        texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
        calls = [_call_back(b.get("id") or f"toolu_{i}", b.get("name"), b.get("input"), original)
                 for i, b in enumerate(blocks) if b.get("type") == "tool_use"]  # fmt: skip
        stop, text, refusal = data.get("stop_reason"), ("".join(texts) if texts else None), None
        if stop == "refusal":
            details = data.get("stop_details")
            why = details.get("explanation") if isinstance(details, dict) else None
            refusal, text = text or why or "the model declined (stop_reason: refusal)", None
        return _reply(text, calls, stop, refusal, self._count(data, "input_tokens", "output_tokens"), reasoning)


def _blocks(content: Any) -> list:
    if isinstance(content, list):
        return list(content)
    return [{"type": "text", "text": str(content)}] if content not in (None, "") else []


def _anthropic_messages(messages: list, names: dict[str, str]) -> tuple[str | None, list[dict]]:
    """run_agent's conversation as ``(system, messages)`` in the Messages wire format: tool
    answers become ``tool_result`` blocks, turns of one role merge, thinking goes first."""
    system: list[str] = []
    turns: list[dict] = []
    for m in messages:
        role, content = m.get("role"), m.get("content")
        if role == "system":
            system.append(str(content or ""))
            continue
        if role == "tool":
            result = {"type": "tool_result", "tool_use_id": str(m.get("tool_call_id")), "content": str(m.get("content", ""))}  # fmt: skip
            role, content = "user", [{**result, "is_error": True} if m.get("is_error") else result]
        elif role == "assistant":
            thinking = [dict(b) for b in m.get("reasoning") or []
                        if isinstance(b, Mapping) and b.get("type") in THINKING_BLOCKS]  # fmt: skip
            uses = [{"type": "tool_use", "id": str(c.get("id")), "name": _wire_name(c.get("name"), names),
                     "input": _arguments_object(c.get("arguments"))} for c in m.get("tool_calls") or []]  # fmt: skip
            content = thinking + _blocks(content) + uses if uses or thinking else (content or "")
        else:
            role, content = "user", content if content is not None else ""
        if turns and turns[-1]["role"] == role:  # the API wants user and assistant to alternate
            turns[-1]["content"] = _blocks(turns[-1]["content"]) + _blocks(content)
        else:
            turns.append({"role": role, "content": content})
    return ("\n\n".join(system) or None), turns


def _arguments_object(args: Any) -> dict:
    """Arguments as the object Messages carries: a malformed string the model once sent goes back
    as ``{}`` (its tool result already told the model what was wrong)."""
    value = _arguments(args)
    return value if isinstance(value, dict) else {}
