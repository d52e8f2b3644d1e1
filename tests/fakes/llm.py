"""Local fakes of two model APIs, for tests that must run without a network or a key.

Pack §2.5 ("Function calling in model APIs"): OpenAI and Anthropic name the same ideas
differently. These fakes speak each vendor's wire format, so an adapter that works against
them works against the real service (tests/test_fake_endpoints.py drives both with the
official SDKs to prove it):

* :class:`FakeChatCompletions`: ``POST /v1/chat/completions`` (OpenAI, and what Ollama,
  llama.cpp's server, vLLM and LM Studio serve). ``base_url`` ends in ``/v1``.
* :class:`FakeMessages`: ``POST /v1/messages`` (Anthropic). ``base_url`` is the bare host.

A test says what the "model" means to answer with ``respond(body) -> intent``, where the
intent is ``{"text": str|None, "calls": [(name, arguments)], "refusal": str|None,
"stop": "stop"|"length"|"content_filter"|None}``; the fake renders it in its own format.
``arguments`` is a dict, or a str the OpenAI fake sends unchanged (malformed JSON included).

Like the real services, the fakes refuse what a real endpoint refuses: tool names outside
``^[a-zA-Z0-9_-]{1,64}$``, schema types that are not JSON Schema (BFCL's ``dict``, ``float``,
``tuple``, ``any``), missing required fields, a wrong key (401), tool results that do not
answer the previous turn's calls, an unknown model (404, when ``model_names`` is given).
The first chat request that passes the key check gets a 429 with ``Retry-After``
(``rate_limit_first``). Standard library only; binds 127.0.0.1 on a free port.

``FakeChatCompletions(local=True)`` behaves as llama-cpp-python's server does (issue 24):
with no ``tool_choice`` (or ``"none"``) the tools are left out of the prompt, so the model
cannot call them; an assistant turn with ``"content": null`` gets an HTTP 500 whose body is a
validation error; with no ``max_tokens`` the model rambles for ``ramble`` seconds first.

Reasoning models (issue 21): an intent's ``"reasoning"`` text comes back as the OpenAI fake's
``reasoning_content`` (DeepSeek's thinking mode, llama.cpp) or, when the request enables
``thinking``, as the Anthropic fake's signed ``thinking`` block (plus a ``redacted_thinking``
block with ``"redacted": True``). Like those services, the fakes then refuse (400) a later
request whose assistant turn for those tool calls lacks the reasoning, changed or reordered;
the Anthropic fake also refuses a forced ``tool_choice`` with thinking on. It takes
``{"type": "adaptive"}`` and the older manual ``{"type": "enabled", "budget_tokens": N}``, and
refuses, as the Messages API does, a budget under 1024 or a ``max_tokens`` that is not greater
than the budget. (The API lets the budget pass ``max_tokens`` with the interleaved-thinking beta
header; the fake reads no beta header and does not model that.)
"""

import hashlib
import itertools
import json
import re
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
VERSION_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")
JSON_SCHEMA_TYPES = frozenset({"object", "string", "number", "integer", "boolean", "array", "null"})
# Keywords whose value is one schema, a list of schemas, or a map of name -> schema.
_ONE_SCHEMA = ("items", "additionalProperties", "not", "contains", "if", "then", "else")
_SCHEMA_LISTS = ("items", "prefixItems", "anyOf", "oneOf", "allOf")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")


class ApiError(Exception):
    """A refusal the fake sends in the API's own error shape."""

    def __init__(self, status, kind, message, *, param=None, code=None, headers=None):
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message
        self.param, self.code, self.headers = param, code, headers or {}


def schema_type_problem(schema, where=()):
    """First ``(path, type)`` in ``schema`` whose type is not a JSON Schema type, else None.

    Walks properties, items and the other sub-schema keywords, as a real endpoint's
    validator does. BFCL writes ``dict``, ``float``, ``tuple`` and ``any``: all refused.
    """
    if not isinstance(schema, dict):
        return None
    declared = schema.get("type")
    for kind in declared if isinstance(declared, list) else [declared]:
        if kind is not None and kind not in JSON_SCHEMA_TYPES:
            return where, kind
    children = []
    for key in _ONE_SCHEMA:
        if isinstance(schema.get(key), dict):
            children.append(((key,), schema[key]))
    for key in _SCHEMA_LISTS:
        if isinstance(schema.get(key), list):
            children += [((key, i), sub) for i, sub in enumerate(schema[key])]
    for key in _SCHEMA_MAPS:
        if isinstance(schema.get(key), dict):
            children += [((key, name), sub) for name, sub in schema[key].items()]
    for step, sub in children:
        found = schema_type_problem(sub, where + step)
        if found:
            return found
    return None


def _intent(raw):
    """The scenario's answer, checked and filled in: text, calls, refusal, stop."""
    raw = dict(raw or {})
    unknown = set(raw) - {"text", "calls", "refusal", "stop", "reasoning", "redacted"}
    if unknown:
        raise ValueError(f"intent has unknown keys {sorted(unknown)}; use text, calls, refusal, stop, reasoning")
    calls = []
    for call in raw.get("calls") or []:
        name, arguments = (call["name"], call["arguments"]) if isinstance(call, dict) else call
        calls.append((name, arguments))
    if raw.get("stop") not in (None, "stop", "length", "content_filter"):
        raise ValueError(f"intent stop {raw['stop']!r}: use 'stop', 'length', 'content_filter' or None")
    return {
        "text": raw.get("text"),
        "calls": calls,
        "refusal": raw.get("refusal"),
        "stop": raw.get("stop"),
        "reasoning": raw.get("reasoning"),
        "redacted": bool(raw.get("redacted")),
    }


def _default_respond(body):
    return {"text": "ok", "calls": []}


def _tokens(value):
    """A rough, deterministic token count (about four characters a token)."""
    return max(1, len(json.dumps(value, separators=(",", ":"))) // 4)


class _FakeEndpoint:
    """What both fakes share: the HTTP server, the record, the order of checks."""

    PATH = ""  # the one path that answers
    ID_PREFIXES = ("", "")  # (response id, tool call id)

    def __init__(self, respond=None, *, api_key=None, rate_limit_first=True, retry_after="0", model_names=None):
        self.respond = respond or _default_respond
        self.api_key = api_key
        self.rate_limit_first = rate_limit_first
        self.retry_after = str(retry_after)
        self.model_names = None if model_names is None else set(model_names)
        self.requests, self.answered, self.errors = [], [], []
        self._lock = threading.Lock()
        self._response_ids = itertools.count(1)
        self._call_ids = itertools.count(1)
        self._rate_limited = False
        self._server = self._thread = None
        self.issued_reasoning = {}  # tool call id -> the reasoning sent with it, to be sent back

    # -- life cycle ---------------------------------------------------------------------
    def start(self):
        if self._server is None:
            self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
            self._server.daemon_threads = True
            self._server.block_on_close = False
            self._thread = threading.Thread(
                target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
            )
            self._thread.start()
        return self

    def stop(self):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)
            self._server = self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def port(self):
        if self._server is None:
            raise RuntimeError("the fake is not running: use `with Fake...() as fake:` or call start()")
        return self._server.server_address[1]

    # -- one request --------------------------------------------------------------------
    def handle(self, method, path, headers, raw):
        """Answer one request: ``(status, body, extra headers)``; records it first."""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        with self._lock:
            self.requests.append({"method": method, "path": path, "headers": headers, "body": body})
        try:
            reply = self._answer(method, path.split("?", 1)[0], headers, raw, body)
        except ApiError as err:
            return err.status, self.error_body(err), err.headers
        except Exception as err:  # the scenario itself failed: say so, as a 500
            self.errors.append(traceback.format_exc())
            failure = ApiError(500, self.SERVER_ERROR, f"fake scenario failed: {err!r}")
            return 500, self.error_body(failure), {}
        with self._lock:
            self.answered.append(reply)
        return 200, reply, {}

    def _answer(self, method, path, headers, raw, body):
        if method != "POST" or path != self.PATH:
            raise self.not_found_path(method, path)
        self.check_headers(headers)
        with self._lock:
            limited = self.rate_limit_first and not self._rate_limited
            self._rate_limited = True
        if limited:
            raise self.rate_limited()
        if not isinstance(body, dict):
            raise self.bad_request("the request body is not a JSON object", code=None)
        self.check_body(body)
        if self.model_names is not None and body["model"] not in self.model_names:
            raise self.unknown_model(body["model"])
        intent = self.heard(body, _intent(self.respond(body)))
        with self._lock:
            reply_id = next(self._response_ids)
            call_ids = [next(self._call_ids) for _ in intent["calls"]]
        return self.render(body, intent, reply_id, call_ids)

    def heard(self, body, intent):
        """The intent as this server lets the model act on it (the local fake hides tools)."""
        return intent

    def check_tool_schema(self, schema, where):
        """Refuse a schema that is not an object, or uses a type JSON Schema does not have."""
        found = schema_type_problem(schema)
        if found:
            path, kind = found
            inside = ".".join(str(step) for step in path) or "(root)"
            raise self.bad_schema(
                where,
                f"at {inside}: {kind!r} is not a JSON Schema type (use one of {', '.join(sorted(JSON_SCHEMA_TYPES))})",
            )
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise self.bad_schema(where, "the schema must be a JSON Schema object with type 'object'")


class FakeChatCompletions(_FakeEndpoint):
    """An OpenAI-compatible Chat Completions endpoint (``POST /v1/chat/completions``)."""

    PATH = "/v1/chat/completions"
    SERVER_ERROR = "server_error"

    def __init__(self, respond=None, *, local=False, ramble=0.0, **options):
        super().__init__(respond, **options)
        self.local, self.ramble = local, ramble

    def heard(self, body, intent):
        if not self.local:
            return intent
        if body.get("tools") and body.get("tool_choice") in (None, "none"):
            # llama-cpp-python renders the prompt without the tools: no call can come back
            intent = {**intent, "calls": [], "text": intent["text"] or "I would look that up for you."}
        if "max_tokens" not in body and self.ramble:
            time.sleep(self.ramble)  # generating until the context is full
        return intent

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}/v1"

    # -- errors, in OpenAI's shape ------------------------------------------------------
    @staticmethod
    def error_body(err):
        return {"error": {"message": err.message, "type": err.kind, "param": err.param, "code": err.code}}

    @staticmethod
    def bad_request(message, param=None, code="invalid_value"):
        return ApiError(400, "invalid_request_error", message, param=param, code=code)

    def not_found_path(self, method, path):
        return ApiError(404, "invalid_request_error", f"Invalid URL ({method} {path})")

    def unknown_model(self, model):
        return ApiError(
            404,
            "invalid_request_error",
            f"The model `{model}` does not exist or you do not have access to it.",
            code="model_not_found",
        )

    def rate_limited(self):
        return ApiError(
            429,
            "requests",
            "Rate limit reached for requests. Please try again later.",
            code="rate_limit_exceeded",
            headers={"retry-after": self.retry_after},
        )

    def bad_schema(self, where, detail):
        index, name = where
        return self.bad_request(
            f"Invalid schema for function '{name}': {detail}.",
            param=f"tools[{index}].function.parameters",
            code="invalid_function_parameters",
        )

    # -- checks ---------------------------------------------------------------------------
    def check_headers(self, headers):
        if self.api_key is None:
            return
        given = headers.get("authorization", "")
        if not given.startswith("Bearer "):
            raise ApiError(
                401, "invalid_request_error", "You didn't provide an API key. Send it as 'Authorization: Bearer <key>'."
            )
        if given[len("Bearer ") :] != self.api_key:
            raise ApiError(401, "invalid_request_error", "Incorrect API key provided.", code="invalid_api_key")

    def check_body(self, body):
        if not body.get("model"):
            raise self.bad_request("you must provide a model parameter", code=None)
        if "messages" not in body:
            raise self.bad_request(
                "Missing required parameter: 'messages'.", param="messages", code="missing_required_parameter"
            )
        if not isinstance(body["messages"], list) or not body["messages"]:
            raise self.bad_request("Invalid 'messages': expected a non-empty array.", param="messages")
        if body.get("stream"):
            raise self.bad_request("this fake does not stream; send stream=false", param="stream")
        if "tool_choice" in body and not body.get("tools"):
            raise self.bad_request(
                "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
                param="tool_choice",
            )
        for index, tool in enumerate(body.get("tools") or []):
            self.check_tool(index, tool)
        if "tool_choice" in body:
            self.check_tool_choice(body["tool_choice"], body["tools"])
        if "max_tokens" in body and (not isinstance(body["max_tokens"], int) or body["max_tokens"] < 1):
            raise self.bad_request("Invalid 'max_tokens': expected an integer of at least 1.", param="max_tokens")
        if self.local:
            self.check_local_content(body["messages"])
        self.check_tool_turns(body["messages"])
        self.check_reasoning_sent_back(body["messages"])

    def check_tool_choice(self, choice, tools):
        names = {t["function"]["name"] for t in tools}
        if choice in ("none", "auto", "required"):
            return
        if isinstance(choice, dict) and choice.get("type") == "function":
            name = (choice.get("function") or {}).get("name")
            if name in names:
                return
            raise self.bad_request(f"Invalid 'tool_choice': no tool named {name!r} was given.", param="tool_choice")
        raise self.bad_request(
            "Invalid 'tool_choice': expected 'none', 'auto', 'required' or a named function.", param="tool_choice"
        )

    @staticmethod
    def check_local_content(messages):
        """llama-cpp-python's answer to a null content: a 500 whose body is a validation error."""
        for index, message in enumerate(messages):
            if isinstance(message, dict) and message.get("role") == "assistant" and message.get("content") is None:
                raise ApiError(
                    500,
                    "internal_server_error",
                    f"1 validation error for ChatCompletionRequestAssistantMessage\nmessages.{index}.content\n"
                    "  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]",
                )

    def check_reasoning_sent_back(self, messages):
        """DeepSeek's thinking mode: a tool-call turn goes back with its reasoning_content."""
        for message in messages:
            if not isinstance(message, dict) or message.get("role") != "assistant":
                continue
            for call in message.get("tool_calls") or []:
                sent = self.issued_reasoning.get(call.get("id"))
                if sent is not None and message.get("reasoning_content") != sent:
                    raise self.bad_request(
                        "The `reasoning_content` in the thinking mode must be passed back to the API.", code=None
                    )

    def check_tool(self, index, tool):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or tool.get("type") != "function":
            raise self.bad_request(
                f'Invalid \'tools[{index}]\': expected {{"type": "function", "function": {{...}}}}.',
                param=f"tools[{index}]",
            )
        name = function.get("name")
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise self.bad_request(
                f"Invalid 'tools[{index}].function.name': string does not match pattern. "
                f"Expected a string that matches the pattern '{NAME_PATTERN.pattern}'.",
                param=f"tools[{index}].function.name",
            )
        if "parameters" in function:
            self.check_tool_schema(function["parameters"], (index, name))

    def check_tool_turns(self, messages):
        """Every assistant tool call is answered by a tool message, and no tool message is stray."""
        waiting = set()
        for index, message in enumerate(messages):
            role = message.get("role") if isinstance(message, dict) else None
            if role == "tool":
                if message.get("tool_call_id") not in waiting:
                    raise self.bad_request(
                        f"Invalid parameter: messages with role 'tool' must be a response "
                        f"to a preceding message with 'tool_calls' (messages[{index}]).",
                        param=f"messages.[{index}].role",
                        code=None,
                    )
                waiting.discard(message["tool_call_id"])
                continue
            if waiting:
                raise self.bad_request(
                    "An assistant message with 'tool_calls' must be followed by tool "
                    "messages responding to each 'tool_call_id'. The following "
                    f"tool_call_ids did not have response messages: {', '.join(sorted(waiting))}",
                    param=f"messages.[{index}].role",
                    code=None,
                )
            if role == "assistant":
                waiting = {call.get("id") for call in message.get("tool_calls") or []}
        if waiting:  # the conversation ends on calls nobody answered
            raise self.bad_request(
                "An assistant message with 'tool_calls' must be followed by tool "
                "messages responding to each 'tool_call_id'. The following "
                f"tool_call_ids did not have response messages: {', '.join(sorted(waiting))}",
                param="messages",
                code=None,
            )

    # -- the reply ------------------------------------------------------------------------
    def render(self, body, intent, reply_id, call_ids):
        calls = [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
            }
            for n, (name, args) in zip(call_ids, intent["calls"])
        ]
        message = {"role": "assistant", "content": intent["text"], "refusal": intent["refusal"], "annotations": []}
        if intent["refusal"] is not None:
            message["content"] = None  # a refusal replaces the content
        if calls:
            message["tool_calls"] = calls
        if intent["reasoning"] is not None:
            message["reasoning_content"] = intent["reasoning"]
            with self._lock:
                self.issued_reasoning.update({c["id"]: intent["reasoning"] for c in calls})
        finish = intent["stop"] or ("tool_calls" if calls else "stop")
        prompt, completion = _tokens(body["messages"]), _tokens(message)
        return {
            "id": f"chatcmpl-{reply_id}",
            "object": "chat.completion",
            "created": 1767225600,
            "model": body["model"],
            "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }


class FakeMessages(_FakeEndpoint):
    """Anthropic's Messages API (``POST /v1/messages``, ``x-api-key``, ``anthropic-version``).
    From API version 2026-10-21 (the one the anthropic SDK 2.x sends) the sampling parameters
    ``temperature``, ``top_p`` and ``top_k`` are refused with a 400, as the API refuses them."""

    PATH = "/v1/messages"
    SERVER_ERROR = "api_error"
    STOP_REASONS = {"stop": "end_turn", "length": "max_tokens", "content_filter": "refusal"}

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}"

    # -- errors, in Anthropic's shape -----------------------------------------------------
    @staticmethod
    def error_body(err):
        return {"type": "error", "error": {"type": err.kind, "message": err.message}, "request_id": "req_fake"}

    @staticmethod
    def bad_request(message, param=None, code=None):
        return ApiError(400, "invalid_request_error", message)

    def not_found_path(self, method, path):
        return ApiError(404, "not_found_error", f"Not Found ({method} {path})")

    def unknown_model(self, model):
        return ApiError(404, "not_found_error", f"model: {model}")

    def rate_limited(self):
        return ApiError(
            429,
            "rate_limit_error",
            "This request would exceed the rate limit; retry after the time in the retry-after header.",
            headers={"retry-after": self.retry_after},
        )

    def bad_schema(self, where, detail):
        index, _ = where
        return self.bad_request(
            f"tools.{index}.custom.input_schema: JSON schema is invalid ({detail}). "
            "It must match JSON Schema draft 2020-12."
        )

    SAMPLING_REMOVED = "2026-10-21"  # the API version that refuses temperature, top_p and top_k

    def _answer(self, method, path, headers, raw, body):
        if method == "POST" and path == self.PATH and isinstance(body, dict):
            self.check_headers(headers)  # a wrong key is a 401 first
            if headers.get("anthropic-version", "") >= self.SAMPLING_REMOVED:
                for name in ("temperature", "top_p", "top_k"):
                    if name in body:
                        raise self.bad_request(f"{name}: Extra inputs are not permitted")
        return super()._answer(method, path, headers, raw, body)

    # -- checks ---------------------------------------------------------------------------
    def check_headers(self, headers):
        """The key comes as ``x-api-key`` (the documented header, and what SDKs before 2.0 send)
        or as ``Authorization: Bearer`` (what the 2.x SDKs send); the version header is required."""
        if self.api_key is not None:
            bearer = headers.get("authorization", "")
            given = headers.get("x-api-key") or (bearer[len("Bearer ") :] if bearer.startswith("Bearer ") else None)
            if given != self.api_key:
                raise ApiError(401, "authentication_error", "invalid x-api-key")
        version = headers.get("anthropic-version")
        if not version:
            raise self.bad_request("anthropic-version: header is required")
        if not VERSION_PATTERN.match(version):
            raise self.bad_request(f"anthropic-version: {version!r} is not a valid version (a date such as 2023-06-01)")

    def check_body(self, body):
        for field in ("model", "max_tokens", "messages"):
            if field not in body:
                raise self.bad_request(f"{field}: Field required")
        if not isinstance(body["max_tokens"], int) or body["max_tokens"] < 1:
            raise self.bad_request("max_tokens: Input should be an integer of at least 1")
        if not isinstance(body["messages"], list):
            raise self.bad_request("messages: Input should be a valid list")
        if body.get("stream"):
            raise self.bad_request("stream: this fake does not stream; send stream=false")
        self.check_thinking_budget(body)
        for index, tool in enumerate(body.get("tools") or []):
            self.check_tool(index, tool)
        if "tool_choice" in body:
            self.check_tool_choice(body["tool_choice"], body.get("tools") or [], self.thinking_on(body))
        self.check_tool_turns(body["messages"])
        self.check_thinking_sent_back(body["messages"])

    def check_thinking_budget(self, body):
        """Manual thinking: a budget of at least 1024 tokens, inside max_tokens."""
        thinking = body.get("thinking")
        if not isinstance(thinking, dict) or thinking.get("type") != "enabled":
            return
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1024:
            raise self.bad_request("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
        if body["max_tokens"] <= budget:
            raise self.bad_request(
                "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation "
                "at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
            )

    @staticmethod
    def thinking_on(body):
        thinking = body.get("thinking")
        return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")

    def check_tool_choice(self, choice, tools, thinking):
        kind = choice.get("type") if isinstance(choice, dict) else None
        if kind not in ("auto", "any", "tool", "none"):
            raise self.bad_request("tool_choice: Input tag does not match any of 'auto', 'any', 'tool', 'none'")
        if kind == "tool" and choice.get("name") not in {t.get("name") for t in tools}:
            raise self.bad_request(f"tool_choice.tool.name: no tool named {choice.get('name')!r} was given")
        if thinking and kind in ("any", "tool"):
            raise self.bad_request("Thinking may not be enabled when tool_choice forces tool use.")

    def check_thinking_sent_back(self, messages):
        """With tool use, the assistant turn goes back with its thinking blocks first, unmodified."""
        for index, message in enumerate(messages):
            blocks = message.get("content") if message.get("role") == "assistant" else None
            if not isinstance(blocks, list):
                continue
            for block in blocks:
                issued = self.issued_reasoning.get(block.get("id")) if isinstance(block, dict) else None
                if issued is not None and blocks[: len(issued)] != issued:
                    raise self.bad_request(
                        f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                        f"{blocks[0].get('type')!r}. When `thinking` is enabled, a final `assistant` message "
                        "must start with a thinking block, unmodified, as it was returned."
                    )

    def check_tool(self, index, tool):
        if not isinstance(tool, dict):
            raise self.bad_request(f"tools.{index}: Input should be a valid dictionary")
        name = tool.get("name")
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise self.bad_request(f"tools.{index}.custom.name: String should match pattern '{NAME_PATTERN.pattern}'")
        if tool.get("type", "custom") != "custom":
            return  # a server tool (web search and the like): no input_schema
        if "input_schema" not in tool:
            raise self.bad_request(f"tools.{index}.custom.input_schema: Field required")
        self.check_tool_schema(tool["input_schema"], (index, name))

    def check_tool_turns(self, messages):
        """Roles are user/assistant only; each tool_use is answered in the very next message."""
        waiting = set()
        for index, message in enumerate(messages):
            role = message.get("role") if isinstance(message, dict) else None
            if role not in ("user", "assistant"):
                raise self.bad_request(
                    f"messages.{index}.role: Unexpected role {role!r}. The Messages API "
                    'accepts a top-level `system` parameter, not "system" as an input '
                    "message role; tool results go in a user message."
                )
            blocks = message.get("content")
            blocks = blocks if isinstance(blocks, list) else []
            answered = {b.get("tool_use_id") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"}
            if waiting - answered:
                raise self.bad_request(
                    f"messages.{index}: `tool_use` ids were found without `tool_result` "
                    f"blocks immediately after: {', '.join(sorted(waiting - answered))}. "
                    "Each `tool_use` block must have a corresponding `tool_result` block "
                    "in the next message."
                )
            if answered - waiting:
                raise self.bad_request(
                    f"messages.{index}.content: unexpected `tool_use_id` found in "
                    f"`tool_result` blocks: {', '.join(sorted(answered - waiting))}. Each "
                    "`tool_result` block must have a corresponding `tool_use` block in the "
                    "previous message."
                )
            waiting = {
                b.get("id")
                for b in blocks
                if role == "assistant" and isinstance(b, dict) and b.get("type") == "tool_use"
            }

    # -- the reply ------------------------------------------------------------------------
    def render(self, body, intent, reply_id, call_ids):
        thinking = []
        if intent["reasoning"] is not None and self.thinking_on(body):
            signature = hashlib.sha256(intent["reasoning"].encode()).hexdigest()
            thinking.append({"type": "thinking", "thinking": intent["reasoning"], "signature": signature})
            if intent["redacted"]:
                thinking.append({"type": "redacted_thinking", "data": "EnC" + signature[:24]})
        content = list(thinking)
        if intent["text"] is not None:
            content.append({"type": "text", "text": intent["text"]})
        for n, (name, args) in zip(call_ids, intent["calls"]):
            if isinstance(args, str):
                args = json.loads(args)  # Anthropic sends input as an object, never as text
            if not isinstance(args, dict):
                raise ValueError(f"tool_use input for {name!r} must be a JSON object, got {args!r}")
            content.append({"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": args})
            if thinking:
                with self._lock:
                    self.issued_reasoning[f"toolu_{n}"] = thinking
        if intent["refusal"] is not None:
            stop = "refusal"
        elif intent["stop"]:
            stop = self.STOP_REASONS[intent["stop"]]
        else:
            stop = "tool_use" if intent["calls"] else "end_turn"
        reply = {
            "id": f"msg_{reply_id}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": _tokens(body["messages"]),
                "output_tokens": _tokens(content),
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
        if stop == "refusal":
            reply["stop_details"] = {"type": "refusal", "category": None, "explanation": intent["refusal"]}
        return reply


def _handler_for(fake):
    """A request handler class bound to one fake."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs' HTTP clients expect
        timeout = 10  # an idle kept-alive connection frees its thread

        def _serve(self):
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {name.lower(): value for name, value in self.headers.items()}
            status, body, extra = fake.handle(self.command, self.path, headers, raw)
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header(
                "x-request-id" if isinstance(fake, FakeChatCompletions) else "request-id",
                f"req_fake_{len(fake.requests)}",
            )
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve

        def log_message(self, *args):  # keep test output clean
            pass

    return Handler


def sdk_request_body(api, **call):
    """The JSON body the official SDK sends for ``call`` (``api``: "openai" or "anthropic").

    Runs the SDK once against a fresh fake and returns what the fake received, so an adapter's
    own request can be compared with it field by field. ``call`` holds the SDK's keyword
    arguments, e.g. ``model=..., messages=[...], tools=[...]`` (plus ``max_tokens`` for Anthropic).
    """
    if api == "openai":
        import openai

        with FakeChatCompletions(rate_limit_first=False) as fake:
            openai.OpenAI(base_url=fake.base_url, api_key="sk-fake", max_retries=0).chat.completions.create(**call)
    elif api == "anthropic":
        import anthropic

        with FakeMessages(rate_limit_first=False) as fake:
            anthropic.Anthropic(base_url=fake.base_url, api_key="sk-fake", max_retries=0).messages.create(**call)
    else:
        raise ValueError(f"api must be 'openai' or 'anthropic', not {api!r}")
    return fake.requests[-1]["body"]
