"""Real models in the mocks' place: wire.py converts the request, the vendors' SDKs carry it.
Pack §2.2 (the model only asks for a call), §2.5 (function calling as the vendors define it),
§2.8 (bad arguments, retries).

:class:`ChatCompletionsModel` speaks OpenAI's Chat Completions (served by OpenAI, Ollama,
llama.cpp, vLLM, LM Studio), :class:`MessagesModel` Anthropic's Messages API. Both answer
``respond(messages, tools)`` as a mock does: ``{"content", "tool_calls": [{"id", "name",
"arguments"}], "stop_reason", "refusal", "usage"}``, plus ``"reasoning"``, opaque blocks the
caller keeps on the assistant turn so they go back unmodified (run_agent does). HTTP, retries,
timeouts and keys are the ``openai`` and ``anthropic`` SDKs' (``pip install
'tooluse-course[models]'``), imported at the first request; what they raise comes back as one
:class:`EndpointError` sentence that says what to fix, never with the key.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from .wire import chat_completions_reply, chat_completions_request, messages_reply, messages_request, wire_tools

__all__ = ["ChatCompletionsModel", "MessagesModel", "EndpointError", "DEFAULT_MAX_TOKENS"]

DEFAULT_MAX_TOKENS = 1024  # a small local model that rambles stops in seconds
DEFAULT_TIMEOUT, LOCAL_TIMEOUT = 60.0, 300.0  # seconds for one answer: hosted, or on this machine
# retries after a 408, 409, 429, 5xx, timeout or dropped connection: hosted, or on this machine, where
# one covers a server still loading its model and more would only repeat a too-slow answer
DEFAULT_RETRIES, LOCAL_RETRIES = 4, 1
NO_KEY = "no-key"  # sent when no key is given: local servers want none, the SDKs want one
_LOOPBACK = re.compile(r"^https?://(localhost|127\.[\d.]+|\[::1\])(:\d+)?(/|$)", re.IGNORECASE)
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


class _Endpoint:
    """What both APIs share: the settings, the SDK's call, its errors as one sentence."""

    api_name = key_env = sdk = client = path = ""  # its name in messages, its key's variable, SDK, client, path
    token_fields: tuple[str, str] = ("", "")  # where its answers count the tokens sent and received
    # each API's own (the classes below): its wire.py conversions, and the SDK call that sends
    _convert: Callable[[list, list[dict], dict[str, str]], dict]
    _reply: Callable[[Mapping, Mapping[str, str]], dict]
    _create: Callable[..., Any]

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *, timeout: float | None = None,
                 max_retries: int | None = None, temperature: float | None = 0,
                 max_tokens: int | None = DEFAULT_MAX_TOKENS, tool_choice: str | None = "auto",
                 extra_body: Mapping | None = None, api_key_env: str | None = None) -> None:  # fmt: skip
        if not isinstance(base_url, str) or not re.match(r"^https?://", base_url):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if not isinstance(model, str) or not model:
            raise ValueError("model must be the model's name as the endpoint knows it, e.g. 'llama3.2'")
        local = bool(_LOOPBACK.match(base_url))  # a server on this machine answers at its CPU's speed
        timeout = timeout if timeout is not None else LOCAL_TIMEOUT if local else DEFAULT_TIMEOUT
        max_retries = max_retries if max_retries is not None else LOCAL_RETRIES if local else DEFAULT_RETRIES
        if max_retries < 0 or timeout <= 0:
            raise ValueError("timeout must be positive and max_retries 0 or more")
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):  # fmt: skip
            raise ValueError(f"max_tokens must be a positive integer (or None to leave it out), got {max_tokens!r}")
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
        return self._request(messages, tools)[0]

    def _request(self, messages: list, tools: list | None) -> tuple[dict, dict[str, str]]:
        """The body, and ``{original name: wire name}`` to read the answer's calls back."""
        specs, names = wire_tools(tools)
        settings = {"max_tokens": self.max_tokens, "temperature": self.temperature}
        body = {"model": self.model, **self._convert(messages, specs, names),
                **{k: v for k, v in settings.items() if v is not None}, **self.extra_body}  # fmt: skip
        return body, names

    def respond(self, messages: list, tools: list | None = None) -> dict:
        """One model turn, in the mocks' reply shape (see the module docstring)."""
        body, names = self._request(messages, tools)
        self.last_response = data = self._send(body)
        try:
            reply = self._reply(data, {wire: orig for orig, wire in names.items()})
        except ValueError as exc:
            raise self._fail(f"the answer from {self.base_url + self.path} {exc}") from None
        for key, field in zip(("input_tokens", "output_tokens"), self.token_fields):
            value = reply["usage"].get(field)
            self.usage[key] += value if isinstance(value, int) and not isinstance(value, bool) else 0
        return reply

    def _send(self, body: dict) -> dict:
        """``body`` through the SDK (its retries, timeout and key); the answer's JSON object."""
        try:
            sdk = importlib.import_module(self.sdk)
        except ImportError:
            raise self._fail(f"a real model needs the {self.sdk} package: pip install 'tooluse-course[models]'",
                             kind="setup") from None  # fmt: skip
        url = self.base_url + self.path
        self._client = self._client or getattr(sdk, self.client)(
            base_url=self.base_url, api_key=self._api_key or NO_KEY, timeout=self.timeout, max_retries=self.max_retries
        )
        rest = dict(body)  # what the SDK's create() has no parameter for goes in extra_body, as it is
        try:
            raw = self._create(model=rest.pop("model"), messages=rest.pop("messages"), extra_body=rest)
        except sdk.APIStatusError as exc:
            self.usage["requests"] += _tries(exc.response)
            raise self._refused(exc) from None
        except sdk.APITimeoutError:
            raise self._fail(f"no answer from {url} within {self.timeout:g} s (timeout, {self.max_retries + 1} tries); "
                             "a local model may need a longer timeout, a hosted one may be overloaded.",
                             kind="timeout") from None  # fmt: skip
        except sdk.APIConnectionError as exc:
            raise self._fail(f"could not reach {url}, or the connection broke ({type(exc.__cause__).__name__}): "
                             "is the server running, and is --base-url right?", kind="connection") from None  # fmt: skip
        self.usage["requests"] += raw.retries_taken + 1
        try:
            data = json.loads(raw.http_response.text)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise self._fail(f"the answer from {url} is not a JSON object; is --base-url the API's address?")
        return data

    def _scrub(self, text: str) -> str:
        """``text`` with the key hidden, should a server echo it. Keys under 8 characters
        (``ollama``: placeholders local servers accept) are no secret and stay."""
        key = self._api_key
        return text.replace(key, "[key hidden]") if key and len(key) >= 8 else text

    def _fail(self, message: str, status: int | None = None, kind: str = "protocol") -> EndpointError:
        text = " ".join(message.split())
        return EndpointError(self._scrub(text if len(text) <= 300 else text[:297] + "..."), status, kind)

    def _refused(self, exc: Any) -> EndpointError:
        """A refusal the SDK gave up on: at once for most 4xx, after its retries for 408, 409, 429, 5xx."""
        response, status, model = exc.response, exc.status_code, repr(self.model)
        said, param = _said(exc.body)
        kind = "http" if status >= 500 or status in (408, 409, 429) else "refused"
        key = f"the server refused the key; check the API key in ${self.key_env} (and that it may use model {model})"
        field = f"the field {param!r}" if param else "the request (it named no field)"
        advice = {400: f"it rejected {field}; fix or leave out that setting, and check that model {model} takes tools",
                  401: key, 403: key, 404: f"check --base-url (OpenAI-style URLs end in /v1) and --model (now {model})",
                  }.get(status, f"the server refused this request, and would refuse it again; check model {model} "
                                "and the settings")  # fmt: skip
        if status == 400 and _CONTEXT_FULL.search(said):
            kind, advice = "context", (f"the conversation no longer fits the context window of model {model} (a "
                                       "model that loops fills it); serve it with a longer context, or lower --max-tokens")  # fmt: skip
        elif kind == "http":
            wait = response.headers.get("retry-after")
            asked = f" (it asked to wait {wait} s)" if wait else ""
            advice = f"after {_tries(response)} tries the server is busy or failing{asked}; wait a while and run again"
        said = f" The server said: {said[:200]}" if said else ""
        where = f"{self.api_name} endpoint {self.base_url + self.path}"
        return self._fail(f"{status} {response.reason_phrase} from {where}: {advice}.{said}", status, kind)


def _said(body: Any) -> tuple[str, str | None]:
    """The error text and the field (``param``) an error body names, in either API's shape (the
    SDK hands over the body as JSON, or as its text when it was not)."""
    err = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(err, dict):
        message = err.get("message") or err.get("detail") or err.get("type") or json.dumps(err)
        return str(message), (str(err["param"]) if err.get("param") else None)
    return (str(err or "").strip().splitlines() or [""])[0], None


def _tries(response: Any) -> int:
    """How many requests the SDK sent for this answer (it numbers its retries in a header)."""
    return int(response.request.headers.get("x-stainless-retry-count") or 0) + 1


class ChatCompletionsModel(_Endpoint):
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint (OpenAI, Ollama,
    llama.cpp's server, vLLM, LM Studio, university gateways), through the ``openai`` SDK.
    ``base_url`` ends in ``/v1`` (Ollama: ``http://localhost:11434/v1``). ``temperature`` and
    ``max_tokens`` set to None are left out; ``extra_body`` is merged into every request.
    ``tool_choice``: ``"auto"``, ``"none"``, ``"required"``, a tool's name, or None.
    ``timeout`` and ``max_retries`` default to 60 s and 4 retries for a hosted endpoint, 300 s
    and 1 retry for one on this machine. Pack §2.5.

    Used by: docs/real-models.md: Using a real model.
    """

    api_name, key_env, sdk, client, path = (
        "OpenAI-compatible",
        "OPENAI_API_KEY",
        "openai",
        "OpenAI",
        "/chat/completions",
    )
    token_fields = ("prompt_tokens", "completion_tokens")

    def _convert(self, messages: list, specs: list[dict], names: dict[str, str]) -> dict:
        return chat_completions_request(messages, specs, names, self.tool_choice)

    def _create(self, **request: Any) -> Any:
        return self._client.chat.completions.with_raw_response.create(**request)

    _reply = staticmethod(chat_completions_reply)


class MessagesModel(_Endpoint):
    """A model behind Anthropic's Messages API, through the ``anthropic`` SDK. Pack §2.5.
    ``base_url`` is the host alone (``https://api.anthropic.com``); ``max_tokens`` is required;
    ``temperature`` is left out unless given (API version 2026-10-21, which the SDK sends,
    refuses it with a 400); the other options are ChatCompletionsModel's.
    ``tool_choice="required"`` goes out as ``{"type": "any"}``, and a forced choice as
    ``"auto"`` when thinking is on. Thinking: ``extra_body={"thinking": {"type": "adaptive"}}``
    (the older manual mode counts its ``budget_tokens`` inside ``max_tokens``, which must then
    be greater; the API says so when it is not).

    Used by: docs/real-models.md: Using a real model.
    """

    api_name, key_env, sdk, client, path = "Anthropic", "ANTHROPIC_API_KEY", "anthropic", "Anthropic", "/v1/messages"
    token_fields = ("input_tokens", "output_tokens")

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *,
                 max_tokens: int = DEFAULT_MAX_TOKENS, temperature: float | None = None, **options: Any) -> None:  # fmt: skip
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError("max_tokens must be a positive integer (the Messages API requires it)")
        super().__init__(base_url.rstrip("/").removesuffix("/v1"), model, api_key, max_tokens=max_tokens,
                         temperature=temperature, **options)  # fmt: skip

    def _convert(self, messages: list, specs: list[dict], names: dict[str, str]) -> dict:
        thinking = self.extra_body.get("thinking")
        on = isinstance(thinking, Mapping) and thinking.get("type") not in (None, "disabled")
        return messages_request(messages, specs, names, self.tool_choice, thinking=on)

    def _create(self, **request: Any) -> Any:
        rest = request.pop("extra_body")
        return self._client.messages.with_raw_response.create(**request, max_tokens=rest.pop("max_tokens"),
                                                               extra_body=rest)  # fmt: skip

    _reply = staticmethod(messages_reply)
