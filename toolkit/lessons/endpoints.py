"""Real models behind the mocks' interface: two wire formats, standard library HTTP only.

Pack §2.2 (the model only asks for a call; the harness checks and runs it), §2.5 (function
calling as the vendors define it: JSON Schema tools, arguments as JSON) and §2.8 (retries with
back-off, timeouts). Every model in the lessons is a mock; the two classes here let a real one
take its place, unchanged, in :func:`toolkit.run_agent`, the retail world and the BFCL scorer:

* :class:`ChatCompletionsModel` speaks the OpenAI-compatible Chat Completions API
  (``POST {base_url}/chat/completions``), which OpenAI, Ollama, llama.cpp's server, vLLM and
  LM Studio all serve. ``base_url`` ends in ``/v1``, as the ``openai`` SDK expects.
* :class:`MessagesModel` speaks Anthropic's Messages API (``POST {base_url}/v1/messages``).

Both have the mocks' ``respond(messages, tools)``: ``messages`` is the OpenAI-style list that
``run_agent`` keeps, ``tools`` its registry's schemas (or BFCL's function list), and the reply
is ``{"content", "tool_calls": [{"id", "name", "arguments"}], "stop_reason", "refusal",
"usage"}``. Arguments that arrive as a JSON string are decoded; arguments that are not a JSON
object stay the string the model wrote, so the loop's validation reports them to the model
(pack §2.8, "Bad arguments") instead of this adapter guessing.

Tools are made acceptable on the way out (:func:`wire_tools`): names outside
``^[a-zA-Z0-9_-]{1,64}$`` get a legal alias (``math.hypot`` → ``math_hypot``), mapped back to the
original name on the way in; BFCL's types (``dict``, ``float``, ``tuple``, ``any``) become JSON
Schema types the way BFCL's own function-calling handlers convert them.

Every request that sends tools also sends ``tool_choice`` (``"auto"`` unless told otherwise:
llama.cpp's server reads a missing one as "none" and hides the tools from the model) and a
``max_tokens`` cap (1024 by default), so a small local model that rambles stops in seconds
rather than when its context is full. A server on this machine gets 300 s to answer by
default (it runs one request at a time, at the speed of this CPU), a hosted one 60 s. A
refusal that will not change on a retry (a 4xx, or a 5xx whose body is a validation error) is
reported once, in the server's own words.

Reasoning models (pack §2.2, beyond the pack's text): a reply's opaque reasoning comes back
under ``"reasoning"``, a list of blocks the caller keeps unmodified on the assistant turn it
appends (:func:`toolkit.run_agent` does). Anthropic's ``thinking`` and ``redacted_thinking``
blocks, signatures included, go back first in that assistant turn, as the extended-thinking
docs require with tool use; a Chat Completions server's ``reasoning_content`` (llama.cpp,
DeepSeek's thinking mode, which refuses a tool-call turn sent back without it) goes back on the
assistant turn that made the calls. Forced ``tool_choice`` is refused with Anthropic's extended
thinking, so with ``thinking`` on the request says ``"auto"``. Anthropic's older, manual thinking
mode (``{"type": "enabled", "budget_tokens": N}``, deprecated for adaptive thinking) counts the
budget inside ``max_tokens`` and refuses a ``max_tokens`` that does not exceed it, so
:class:`MessagesModel` raises the default cap above the budget and refuses a smaller explicit one.

The API key is sent in a header and nowhere else: it is not in ``repr``, in any error text or
in any reply this module returns.
"""

from __future__ import annotations

import copy
import email.utils
import http.client
import json
import re
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = [
    "ChatCompletionsModel",
    "MessagesModel",
    "EndpointError",
    "DEFAULT_MAX_TOKENS",
    "TOOL_CHOICES",
    "wire_tools",
    "wire_schema",
    "legal_names",
    "LEGAL_NAME",
    "USER_AGENT",
]

LEGAL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
USER_AGENT = "tooluse-course/0.1 (python urllib)"

# JSON Schema's own type names, kept as they are.
_JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}
# BFCL's names (Python's and Java's, as its data writes them) → JSON Schema. BFCL's handlers
# (bfcl_eval's GORILLA_TO_OPENAPI table) send "any" as a string and any name they do not know
# as a string too; this follows them, so a model is shown what BFCL shows it.
_BFCL_TYPES = {
    "dict": "object",
    "float": "number",
    "double": "number",
    "tuple": "array",
    "list": "array",
    "bool": "boolean",
    "int": "integer",
    "long": "integer",
    "short": "integer",
    "byte": "integer",
    "bigint": "integer",
    "char": "string",
    "str": "string",
    "any": "string",
    "hashmap": "object",
    "hashtable": "object",
    "arraylist": "array",
    "queue": "array",
    "stack": "array",
}
# Keywords whose value is one schema, a list of schemas, or a map of name → schema.
_ONE_SCHEMA = ("items", "additionalProperties", "not", "contains", "if", "then", "else")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")

RETRY_STATUS = (408, 409, 429)  # and every 5xx whose body is not a validation error
DEFAULT_MAX_TOKENS = 1024
DEFAULT_TIMEOUT = 60.0  # seconds for one answer from a hosted endpoint
LOCAL_TIMEOUT = 300.0  # ... and from a server on this machine (127.0.0.1, localhost, ::1)
TOOL_CHOICES = ("auto", "none", "required")  # or a tool's name; None sends no tool_choice
# A 5xx whose message says the request itself is malformed: every retry would get the same
# answer (llama-cpp-python answers a null assistant content with a 500 of this kind).
_VALIDATION = re.compile(
    r"validation error|validationerror|input should be|field required|is not a valid|"
    r"invalid (?:request|value|type|parameter)|unexpected keyword|unsupported|not supported",
    re.IGNORECASE,
)
# A refusal because the conversation no longer fits the model's context (llama.cpp, vLLM, OpenAI).
_CONTEXT_FULL = re.compile(
    r"maximum context length|context window|context_length_exceeded|prompt is too long", re.IGNORECASE
)
# Opaque reasoning fields of OpenAI-compatible servers, sent back as they came on a tool-call turn.
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_details")
THINKING_BLOCKS = ("thinking", "redacted_thinking")


class EndpointError(RuntimeError):
    """A request to a model endpoint failed; the message is one line that says what to fix.

    ``status`` is the HTTP status (None when no answer came); ``kind`` is ``"http"``,
    ``"refused"`` (a request the server will refuse every time: not retried), ``"context"``
    (refused because the conversation outgrew the model's context window), ``"timeout"``,
    ``"connection"`` (no server reached) or ``"protocol"`` (an answer that is not the API's).

    Used by: docs/real-models.md: Using a real model.
    """

    def __init__(self, message: str, status: int | None = None, kind: str = "http") -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


# --------------------------------------------------------------------------------------------
# tool definitions a real endpoint accepts (pack §2.5)


def _json_type(kind: Any) -> Any:
    if isinstance(kind, list):
        return [_json_type(k) for k in kind]
    if not isinstance(kind, str):
        return "string"
    if kind in _JSON_TYPES:
        return kind
    return _BFCL_TYPES.get(kind.lower(), "string")


def _convert(node: Any) -> Any:
    """One schema node with every type renamed, all the way down (a new object)."""
    if not isinstance(node, Mapping):
        return node
    out = {}
    for key, value in node.items():
        if key == "type":
            out[key] = _json_type(value)
        elif key in _ONE_SCHEMA and isinstance(value, Mapping):
            out[key] = _convert(value)
        elif key in _SCHEMA_LISTS + ("items",) and isinstance(value, list):
            out[key] = [_convert(v) for v in value]
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {k: _convert(v) for k, v in value.items()}
        else:
            out[key] = copy.deepcopy(value)
    return out


def wire_schema(parameters: Any) -> dict:
    """A tool's parameters as JSON Schema a real endpoint accepts (the input is not changed).

    The top level is an ``object`` with ``properties``; below it every ``type`` is renamed,
    through ``properties``, ``items``, ``anyOf`` and the like: BFCL's ``dict`` → ``object``,
    ``float`` → ``number``, ``tuple`` → ``array``, ``any`` → ``string`` (as BFCL's handlers
    send it). Unknown type names become ``string``, as BFCL does.

    Used by: docs/real-models.md: Using a real model.
    """
    schema = _convert(parameters) if isinstance(parameters, Mapping) else {}
    schema["type"] = "object"
    if not isinstance(schema.get("properties"), Mapping):
        schema["properties"] = {}
    return schema


def legal_names(names: Iterable[str]) -> dict[str, str]:
    """``{original: alias}`` with every alias matching ``^[a-zA-Z0-9_-]{1,64}$``, all distinct.

    Legal names keep themselves (and are reserved first, so an alias never takes one). Others
    get each illegal character replaced by ``_``, cut to 64 characters, and ``_2``, ``_3`` …
    when that alias is taken: ``math.hypot`` → ``math_hypot``.

    Used by: docs/real-models.md: Using a real model.
    """
    names = list(dict.fromkeys(str(n) for n in names))
    out = {n: n for n in names if LEGAL_NAME.match(n)}
    taken = set(out)
    for name in names:
        if name in out:
            continue
        base = re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64] or "tool"
        alias, i = base, 1
        while alias in taken:
            i += 1
            suffix = f"_{i}"
            alias = base[: 64 - len(suffix)] + suffix
        out[name] = alias
        taken.add(alias)
    return out


def _legal(name: Any) -> str:
    """A legal spelling of a name no tool declared (a call the model made up)."""
    text = str(name)
    return text if LEGAL_NAME.match(text) else legal_names([text])[text]


def wire_tools(tools: Iterable[Mapping] | None) -> tuple[list[dict], dict[str, str]]:
    """Tool definitions (registry schemas with ``inputSchema``, or BFCL's functions with
    ``parameters``) as ``[{"name", "description", "parameters"}]`` with legal names and JSON
    Schema types, plus ``{original name: wire name}``. Pack §2.5.

    Used by: docs/real-models.md: Using a real model.
    """
    tools = [t for t in (tools or []) if isinstance(t, Mapping)]
    names = legal_names(t.get("name", "") for t in tools)
    specs = []
    for t in tools:
        params = t.get("parameters", t.get("inputSchema", t.get("input_schema")))
        specs.append(
            {
                "name": names[str(t.get("name", ""))],
                "description": str(t.get("description") or ""),
                "parameters": wire_schema(params),
            }
        )
    return specs, names


# --------------------------------------------------------------------------------------------
# arguments as they come back


def _arguments(raw: Any) -> Any:
    """A dict when the model sent a JSON object (or nothing); otherwise exactly what it sent,
    so the loop's validation can tell the model what was wrong."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return raw
        return value if isinstance(value, dict) else raw
    return raw


def _call_back(call_id: str, name: Any, raw_arguments: Any, original: dict[str, str]) -> dict:
    """A call from the wire in the mocks' shape, its name mapped back to the tool's own."""
    return {"id": call_id, "name": original.get(name, name), "arguments": _arguments(raw_arguments)}


def _arguments_text(args: Any) -> str:
    """Arguments as the JSON string Chat Completions carries (a string the model sent as is)."""
    return args if isinstance(args, str) else json.dumps(args if args is not None else {})


def _arguments_object(args: Any) -> dict:
    """Arguments as the object Messages carries. A malformed string the model once sent cannot
    be an object: it goes back as ``{}``; the tool result already told the model what was wrong."""
    value = _arguments(args)
    return value if isinstance(value, dict) else {}


# --------------------------------------------------------------------------------------------
# HTTP: retries, back-off, one-line errors


def _retry_after(headers: Any, now: Callable[[], float] = time.time) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms``, ``Retry-After`` in seconds or
    as an HTTP date), or None."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    try:
        if ms is not None:
            return max(0.0, float(ms) / 1000)
    except ValueError:
        pass
    value = headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now())


def _server_message(body: bytes) -> tuple[str, str | None]:
    """The error text and the field (``param``) a server named, from OpenAI's or Anthropic's
    error shape; the body's first line when it is not JSON."""
    try:
        data = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        text = body.decode("utf-8", "replace").strip().splitlines()
        return (text[0] if text else ""), None
    err = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(err, dict):
        message = err.get("message") or err.get("detail") or err.get("type") or json.dumps(err)
        param = err.get("param")
        return str(message), (str(param) if param else None)
    return str(err), None


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Endpoint:
    """What both wire formats share: the key, the HTTP call with its retries, and counters."""

    api_name = "endpoint"
    key_env = "API_KEY"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float | None = None,
        max_retries: int = 4,
        temperature: float | None = 0,
        max_tokens: int | None = DEFAULT_MAX_TOKENS,
        tool_choice: str | None = "auto",
        extra_body: Mapping | None = None,
        api_key_env: str | None = None,
        max_wait: float = 120.0,
        sleep: Callable[[float], Any] = time.sleep,
    ) -> None:
        if not isinstance(base_url, str) or not re.match(r"^https?://", base_url):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if not isinstance(model, str) or not model:
            raise ValueError("model must be the model's name as the endpoint knows it, e.g. 'llama3.2'")
        if timeout is None:  # a server on this machine answers at the speed of its CPU, one at a time
            timeout = LOCAL_TIMEOUT if _loopback(base_url) else DEFAULT_TIMEOUT
        if max_retries < 0 or timeout <= 0:
            raise ValueError("timeout must be positive and max_retries 0 or more")
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
        ):
            raise ValueError(f"max_tokens must be a positive integer (or None to leave it out), got {max_tokens!r}")
        if tool_choice is not None and (not isinstance(tool_choice, str) or not tool_choice):
            raise ValueError(
                f"tool_choice must be {', '.join(TOOL_CHOICES)}, a tool's name or None, got {tool_choice!r}"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._api_key = api_key or None
        self.timeout = timeout
        self.max_retries = max_retries
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.tool_choice = tool_choice
        self.extra_body = dict(extra_body or {})
        self.key_env = api_key_env or self.key_env
        self.max_wait = max_wait
        self.sleep = sleep
        self.usage = {"requests": 0, "input_tokens": 0, "output_tokens": 0}
        self.last_response: dict | None = None  # the server's last JSON answer, as it came

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"{type(self).__name__}(base_url={self.base_url!r}, model={self.model!r}, api_key=<{key}>)"

    # subclasses: url, own headers, body, parse ----------------------------------------------
    def _url(self) -> str:
        raise NotImplementedError

    def _own_headers(self) -> dict:
        raise NotImplementedError

    def _body(self, messages: list, specs: list[dict], names: dict[str, str]) -> dict:
        raise NotImplementedError

    def _choice(self, choice: str, names: dict[str, str]) -> Any:
        """``tool_choice`` in this API's spelling."""
        raise NotImplementedError

    def _headers(self) -> dict:
        return {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
            **self._own_headers(),
        }

    def request_body(self, messages: list, tools: list | None) -> dict:
        """The JSON body this model sends for ``respond(messages, tools)``."""
        specs, names = wire_tools(tools)
        body = self._body(messages, specs, names)
        if specs and self.tool_choice is not None:
            body["tool_choice"] = self._choice(self.tool_choice, names)
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            body["temperature"] = self.temperature
        body.update(self.extra_body)
        return body

    def _parse(self, data: dict, names: dict[str, str]) -> dict:
        raise NotImplementedError

    # -----------------------------------------------------------------------------------------
    def respond(self, messages: list, tools: list | None = None) -> dict:
        """One model turn, in the mocks' reply shape (see the module docstring)."""
        names = wire_tools(tools)[1]
        data = self._post(self.request_body(messages, tools))
        self.last_response = data
        return self._parse(data, {wire: orig for orig, wire in names.items()})

    def _scrub(self, text: str) -> str:
        """``text`` with the key replaced, should a server echo it. Keys shorter than 8
        characters (``ollama``, ``none``: placeholders local servers accept) are no secret,
        and replacing them would mangle ordinary words."""
        key = self._api_key
        return text.replace(key, "[key hidden]") if key and len(key) >= 8 else text

    def _fail(self, message: str, status: int | None = None, kind: str = "protocol") -> EndpointError:
        return EndpointError(self._scrub(_one_line(message)), status, kind)

    def _http_error(self, status: int, body: bytes) -> EndpointError:
        return self._fail(self._http_message(status, body), status, "http")

    def _http_message(self, status: int, body: bytes) -> str:
        message, param = _server_message(body)
        said = f" The server said: {_one_line(message, 200)}" if message else ""
        where = f"{self.api_name} endpoint {self._url()}"
        if status == 400 and _CONTEXT_FULL.search(message or ""):
            return (
                f"400 from {where}: the conversation no longer fits the context window of "
                f"model {self.model!r} (a model that loops fills it); serve it with a longer context, or lower "
                f"--max-tokens.{said}"
            )
        if status == 400:
            field = f"the field {param!r}" if param else "the request (it named no field)"
            return (
                f"400 Bad Request from {where}: it rejected {field}; fix or leave out "
                f"that setting, and check that model {self.model!r} takes tools.{said}"
            )
        if status in (401, 403):
            return (
                f"{status} from {where}: the server refused the key; check the API key in "
                f"${self.key_env} (and that it may use model {self.model!r}).{said}"
            )
        if status == 404:
            return (
                f"404 Not Found from {where}: check --base-url (OpenAI-style URLs end in "
                f"/v1) and --model (now {self.model!r}).{said}"
            )
        if _deterministic(status, message):
            return (
                f"{status} from {where}: the server refused this request, and would refuse it "
                f"again (not retried); check model {self.model!r} and the settings sent.{said}"
            )
        if status == 429 or status >= 500:
            return (
                f"{status} from {where} after {self.max_retries + 1} tries: the server is "
                f"busy or failing; wait a while and run again.{said}"
            )
        return f"{status} from {where}.{said}"

    def _open(self, body: bytes) -> tuple[int, Any, bytes]:
        request = urllib.request.Request(self._url(), data=body, method="POST", headers=self._headers())
        context = ssl.create_default_context() if self._url().startswith("https:") else None
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=context) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, exc.headers, exc.read()

    def _post(self, body: dict) -> dict:
        payload = json.dumps(body).encode("utf-8")
        waited = 0.0
        for attempt in range(self.max_retries + 1):
            try:
                status, headers, raw = self._open(payload)
            except TimeoutError:
                raise self._timeout() from None
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, (TimeoutError, socket.timeout)):
                    raise self._timeout() from None
                raise self._fail(
                    f"could not reach {self._url()} ({exc.reason}): is the server running, and is --base-url right?",
                    kind="connection",
                ) from None
            except (OSError, http.client.HTTPException) as exc:  # reset, cut short, garbled
                raise self._fail(
                    f"the connection to {self._url()} broke ({type(exc).__name__}); is the server running?",
                    kind="connection",
                ) from None
            self.usage["requests"] += 1
            if status < 300:
                return self._decode(raw)
            said = _server_message(raw)[0]
            if _deterministic(status, said):
                kind = "context" if _CONTEXT_FULL.search(said or "") else "refused"
                raise self._fail(self._http_message(status, raw), status, kind) from None
            if attempt == self.max_retries:
                raise self._http_error(status, raw) from None
            wait = _retry_after(headers)
            if wait is None:
                wait = min(30.0, 0.5 * 2**attempt)  # 0.5, 1, 2, 4 … seconds, at most 30
            if waited + wait > self.max_wait:
                raise self._fail(
                    f"{status} from {self.api_name} endpoint {self._url()}: the server asks "
                    f"to wait {wait:g} s more, beyond this model's limit of {self.max_wait:g} s "
                    "of waiting; run again later.",
                    status,
                    "http",
                ) from None
            self.sleep(wait)
            waited += wait
        raise AssertionError("unreachable")

    def _timeout(self) -> EndpointError:
        return self._fail(
            f"no answer from {self._url()} within {self.timeout:g} s (timeout); a local "
            "model may need a longer timeout, a hosted one may be overloaded.",
            kind="timeout",
        )

    def _decode(self, raw: bytes) -> dict:
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise self._fail(
                f"the answer from {self._url()} is not JSON; is --base-url the API's address rather than a web page?"
            ) from None
        if not isinstance(data, dict):
            raise self._fail(f"the answer from {self._url()} is not a JSON object")
        return data

    def _count(self, data: dict, sent: str, received: str) -> dict:
        """Add an answer's token counts (``sent``, ``received``: its API's names for them) to
        :attr:`usage`; returns the answer's own usage."""
        usage = data.get("usage") or {}
        for key, value in (("input_tokens", usage.get(sent)), ("output_tokens", usage.get(received))):
            if isinstance(value, int) and not isinstance(value, bool):
                self.usage[key] += value
        return usage


def _loopback(base_url: str) -> bool:
    """True when ``base_url`` names this machine."""
    host = (urllib.parse.urlsplit(base_url).hostname or "").lower()
    return host == "localhost" or host == "::1" or host.startswith("127.")


def _deterministic(status: int, message: str) -> bool:
    """True for an answer a retry would repeat: a 4xx other than 408, 409 and 429, or a 5xx
    whose message is a validation error."""
    if status in RETRY_STATUS or status < 400:
        return False
    return status < 500 or bool(_VALIDATION.search(message or ""))


def _refused(text: str | None, refusal: str | None) -> str | None:
    if not refusal:
        return text
    return f"The model refused: {refusal}" if not text else f"{text}\n(The model refused: {refusal})"


# --------------------------------------------------------------------------------------------
# OpenAI-compatible Chat Completions


class ChatCompletionsModel(_Endpoint):
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint (OpenAI, Ollama,
    llama.cpp's server, vLLM, LM Studio, many university gateways). Pack §2.5.

    ``base_url`` is what the ``openai`` SDK takes, ending in ``/v1`` (Ollama:
    ``http://localhost:11434/v1``). ``temperature=None`` leaves the setting out, for models
    that accept only their default; ``max_tokens=None`` too (OpenAI's reasoning models want
    ``max_completion_tokens``: pass it in ``extra_body``, which is merged into every request).
    ``tool_choice`` is ``"auto"`` (default), ``"none"``, ``"required"``, a tool's name, or
    None to send none.
    ``respond(messages, tools)`` works like a mock's (see the module docstring).

    Used by: docs/real-models.md: Using a real model.
    """

    api_name = "OpenAI-compatible"
    key_env = "OPENAI_API_KEY"

    def _url(self) -> str:
        return self.base_url + "/chat/completions"

    def _own_headers(self) -> dict:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def _body(self, messages: list, specs: list[dict], names: dict[str, str]) -> dict:
        body: dict = {"model": self.model, "messages": _openai_messages(messages, names)}
        if specs:
            body["tools"] = [{"type": "function", "function": s} for s in specs]
        return body

    def _choice(self, choice: str, names: dict[str, str]) -> Any:
        if choice in TOOL_CHOICES:
            return choice
        return {"type": "function", "function": {"name": names.get(choice) or _legal(choice)}}

    def _parse(self, data: dict, original: dict[str, str]) -> dict:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._fail(
                f"the answer from {self._url()} has no choices; it does not look like a Chat Completions response"
            )
        choice = choices[0]
        message = choice.get("message") or {}
        calls = []
        for i, tc in enumerate(message.get("tool_calls") or []):
            fn = tc.get("function") or {}
            calls.append(_call_back(tc.get("id") or f"call_{i}", fn.get("name"), fn.get("arguments"), original))
        usage = self._count(data, "prompt_tokens", "completion_tokens")
        refusal = message.get("refusal")
        stop = choice.get("finish_reason")
        if stop == "content_filter" and not refusal:
            refusal = "the endpoint's content filter stopped the answer"
        reply = {
            "content": _refused(message.get("content"), refusal),
            "tool_calls": calls,
            "stop_reason": stop,
            "refusal": refusal or None,
            "usage": usage,
        }
        reasoning = [{"type": f, f: message[f]} for f in REASONING_FIELDS if message.get(f) not in (None, "", [])]
        if reasoning:
            reply["reasoning"] = reasoning
        return reply


def _openai_messages(messages: list, names: dict[str, str]) -> list[dict]:
    """run_agent's conversation in the Chat Completions wire format."""
    out: list[dict] = []
    for m in messages:
        role = m.get("role")
        if role == "tool":
            out.append(
                {"role": "tool", "tool_call_id": str(m.get("tool_call_id")), "content": str(m.get("content", ""))}
            )
        elif role == "assistant" and m.get("tool_calls"):
            turn: dict = {"role": "assistant"}
            for block in m.get("reasoning") or []:  # opaque, sent back as it came
                if isinstance(block, Mapping) and block.get("type") in REASONING_FIELDS:
                    turn[block["type"]] = block.get(block["type"])
            out.append(
                {
                    **turn,
                    # "" not null: llama.cpp's server refuses a null content (HTTP 500)
                    "content": m.get("content") or "",
                    "tool_calls": [
                        {
                            "id": str(c.get("id")),
                            "type": "function",
                            "function": {
                                "name": names.get(c.get("name")) or _legal(c.get("name")),
                                "arguments": _arguments_text(c.get("arguments")),
                            },
                        }
                        for c in m["tool_calls"]
                    ],
                }
            )
        else:
            out.append({"role": role, "content": m.get("content") if m.get("content") is not None else ""})
    return out


# --------------------------------------------------------------------------------------------
# Anthropic Messages


class MessagesModel(_Endpoint):
    """A model behind Anthropic's Messages API (``POST {base_url}/v1/messages``). Pack §2.5.

    ``base_url`` is what the ``anthropic`` SDK takes, without ``/v1``
    (``https://api.anthropic.com``). ``max_tokens`` is required by the API. ``temperature`` is
    left out unless given: the current ``anthropic`` SDK no longer offers it. ``tool_choice``
    as for :class:`ChatCompletionsModel` (``"required"`` is sent as ``{"type": "any"}``); with
    ``thinking`` on in ``extra_body`` it is always ``"auto"``: manual thinking refuses a forced
    choice, and under adaptive thinking only some models accept one (notebook 02, section 4b).
    The conversation is
    converted: system text goes to ``system``, tool answers become ``tool_result`` blocks in a
    user turn, and consecutive turns of one role are merged, as the API requires.

    Thinking: ``extra_body={"thinking": {"type": "adaptive"}}`` is the current mode, with no
    budget. The older manual mode, ``{"type": "enabled", "budget_tokens": N}`` (deprecated by
    Anthropic; the newest models refuse it), counts the N thinking tokens inside
    ``max_tokens``, and the API refuses a request whose ``max_tokens`` is not greater than N. So
    with a budget and ``max_tokens`` left at its default (1024, which cannot hold even the
    smallest budget, 1024), the request sends ``N + 1024``: the budget, then the default's room
    for the answer. Any other ``max_tokens`` that does not exceed the budget is a ``ValueError``
    here, before anything is sent.

    Used by: docs/real-models.md: Using a real model.
    """

    api_name = "Anthropic"
    key_env = "ANTHROPIC_API_KEY"

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *,
                 max_tokens: int = DEFAULT_MAX_TOKENS, anthropic_version: str = "2023-06-01",
                 **options: Any) -> None:  # fmt: skip
        options.setdefault("temperature", None)
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError("max_tokens must be a positive integer (the Messages API requires it)")
        super().__init__(base_url, model, api_key, max_tokens=max_tokens, **options)
        self.anthropic_version = anthropic_version
        self._cap_with_budget()  # a manual thinking budget that max_tokens cannot hold fails here

    def _thinking_budget(self) -> int | None:
        """N of a manual ``{"type": "enabled", "budget_tokens": N}`` in ``extra_body``, else None."""
        thinking = self.extra_body.get("thinking")
        if not isinstance(thinking, Mapping) or thinking.get("type") != "enabled":
            return None
        budget = thinking.get("budget_tokens")
        return budget if isinstance(budget, int) and not isinstance(budget, bool) else None

    def _cap_with_budget(self) -> int | None:
        """The ``max_tokens`` a request sends: above a manual thinking budget, or a clear error."""
        cap = self.extra_body.get("max_tokens", self.max_tokens)
        budget = self._thinking_budget()
        if budget is None or not isinstance(cap, int) or cap > budget:
            return cap
        if cap == DEFAULT_MAX_TOKENS and "max_tokens" not in self.extra_body:
            return budget + DEFAULT_MAX_TOKENS  # the budget, then the default's room for the answer
        raise ValueError(
            f"max_tokens ({cap}) must be greater than thinking.budget_tokens ({budget}): the thinking "
            f"tokens count inside max_tokens and the API refuses the request otherwise. Pass "
            f"max_tokens={budget + DEFAULT_MAX_TOKENS} (the budget plus {DEFAULT_MAX_TOKENS} for the "
            f"answer) or more, or use adaptive thinking, extra_body={{'thinking': {{'type': 'adaptive'}}}}."
        )

    def request_body(self, messages: list, tools: list | None) -> dict:
        """The JSON body this model sends for ``respond(messages, tools)``."""
        body = super().request_body(messages, tools)
        body["max_tokens"] = self._cap_with_budget()
        return body

    def _url(self) -> str:
        base = self.base_url[:-3] if self.base_url.endswith("/v1") else self.base_url
        return base + "/v1/messages"

    def _own_headers(self) -> dict:
        key = {"x-api-key": self._api_key} if self._api_key else {}
        return {"anthropic-version": self.anthropic_version, **key}

    def _body(self, messages: list, specs: list[dict], names: dict[str, str]) -> dict:
        system, turns = _anthropic_messages(messages, names)
        body: dict = {"model": self.model, "messages": turns}
        if system:
            body["system"] = system
        if specs:
            body["tools"] = [
                {"name": s["name"], "description": s["description"], "input_schema": s["parameters"]} for s in specs
            ]
        return body

    def _choice(self, choice: str, names: dict[str, str]) -> Any:
        thinking = self.extra_body.get("thinking")
        if isinstance(thinking, Mapping) and thinking.get("type") not in (None, "disabled") and choice != "none":
            return {"type": "auto"}  # forced tool use is refused with extended thinking
        if choice in ("auto", "none"):
            return {"type": choice}
        if choice == "required":
            return {"type": "any"}
        return {"type": "tool", "name": names.get(choice) or _legal(choice)}

    def _parse(self, data: dict, original: dict[str, str]) -> dict:
        blocks = data.get("content")
        if not isinstance(blocks, list):
            raise self._fail(
                f"the answer from {self._url()} has no content list; it does not look like a Messages response"
            )
        texts, calls, reasoning = [], [], []
        for i, b in enumerate(blocks):
            if not isinstance(b, dict):
                continue
            if b.get("type") in THINKING_BLOCKS:
                reasoning.append(b)  # kept whole, signature and all, to be sent back unmodified
            elif b.get("type") == "text":
                texts.append(str(b.get("text", "")))
            elif b.get("type") == "tool_use":
                calls.append(_call_back(b.get("id") or f"toolu_{i}", b.get("name"), b.get("input"), original))
        usage = self._count(data, "input_tokens", "output_tokens")
        stop = data.get("stop_reason")
        text = "".join(texts) if texts else None
        refusal = None
        if stop == "refusal":
            details = data.get("stop_details")
            if not isinstance(details, dict):
                details = {}
            refusal = text or details.get("explanation") or "the model declined (stop_reason: refusal)"
            text = None
        reply = {
            "content": _refused(text, refusal),
            "tool_calls": calls,
            "stop_reason": stop,
            "refusal": refusal,
            "usage": usage,
        }
        if reasoning:
            reply["reasoning"] = reasoning
        return reply


def _blocks(content: Any) -> list:
    if isinstance(content, list):
        return list(content)
    return [{"type": "text", "text": str(content)}] if content not in (None, "") else []


def _anthropic_messages(messages: list, names: dict[str, str]) -> tuple[str | None, list[dict]]:
    """run_agent's conversation as ``(system, messages)`` in the Messages wire format."""
    system: list[str] = []
    turns: list[dict] = []

    def add(role: str, content: Any) -> None:
        if turns and turns[-1]["role"] == role:  # the API wants user and assistant to alternate
            turns[-1]["content"] = _blocks(turns[-1]["content"]) + _blocks(content)
        else:
            turns.append({"role": role, "content": content})

    for m in messages:
        role = m.get("role")
        if role == "system":
            system.append(str(m.get("content") or ""))
        elif role == "tool":
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": str(m.get("tool_call_id")),
                "content": str(m.get("content", "")),
            }
            if m.get("is_error"):
                block["is_error"] = True
            add("user", [block])
        elif role == "assistant":
            thinking = [
                b for b in m.get("reasoning") or [] if isinstance(b, Mapping) and b.get("type") in THINKING_BLOCKS
            ]
            blocks = [dict(b) for b in thinking] + _blocks(m.get("content"))  # thinking first
            for c in m.get("tool_calls") or []:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": str(c.get("id")),
                        "name": names.get(c.get("name")) or _legal(c.get("name")),
                        "input": _arguments_object(c.get("arguments")),
                    }
                )
            add("assistant", blocks if m.get("tool_calls") or thinking else (m.get("content") or ""))
        else:
            add("user", m.get("content") if m.get("content") is not None else "")
    return ("\n\n".join(system) or None), turns
