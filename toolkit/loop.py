"""The function-calling loop: the harness between a model and its tools.

Pack §2.2 (Figure 1: the model only asks; the harness checks, runs and answers) and §2.8
(parallel calls, timeouts, retries with back-off, step limits). The conversation is kept in
the OpenAI style: each turn that asks for tools adds the assistant's ``tool_calls`` and then
the answers, one ``tool`` message for each call, in the order the calls were made.

Each call goes through the harness as one record (:class:`_Call`); each job of §2.2 is a
function from record to record (:func:`_checked`, :func:`_gated`, :func:`_retried`, :func:`_capped`)
and :func:`_answer` writes the ``tool`` message. The step limit is :func:`run_agent`'s ``for`` line.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from .gate import PermissionGate, wrap_untrusted
from .registry import Tool, ToolRegistry, ToolResult, to_text
from .schema import clip, short_repr

__all__ = ["ScriptedModel", "call", "run_agent", "AgentResult"]

_BACKOFF_START = 0.1  # seconds before the first retry; doubles for each further one
_CRASHED = (
    "Running tool {} failed inside the harness ({}). This is a fault in the tool or its setup, "
    "not in your call; do not repeat it, try another way or tell the user."
)


def call(id: str, name: str, **arguments: Any) -> dict:
    """A tool call as a model writes it: ``{"id", "name", "arguments"}``.

    Notebooks 02, 05, 06, 08, 11.
    """
    return {"id": id, "name": name, "arguments": arguments}


class ScriptedModel:
    """A mock model that replays a fixed list of replies, one per turn.

    A step is a reply dict (``{"content": ...}`` or ``{"tool_calls": [...]}``) or a function of
    the messages that returns one; then it answers ``"(script ended)"``. A stand-in for an LLM.

    Notebooks 02, 06, 08.
    """

    def __init__(self, steps: list) -> None:
        self.steps = list(steps)
        self.turn = 0

    def respond(self, messages: list, tools: list) -> dict:
        if self.turn >= len(self.steps):
            return {"content": "(script ended)"}
        step = self.steps[self.turn]
        self.turn += 1
        return step(messages) if callable(step) else step


@dataclass
class AgentResult:
    """How a run ended: the final text (None at the step limit), the whole conversation, the
    number of model turns (``steps``), why it stopped (``"final"`` or ``"max_steps"``), the
    harness's ``events`` log and each call with its result; ``calls`` counts the calls.

    Notebooks 01, 02, 06, 07, 08, 10, 11, through run_agent.
    """

    final: str | None
    messages: list
    steps: int
    stop_reason: str
    events: list = field(default_factory=list)
    results: list = field(default_factory=list)  # (call, ToolResult) pairs, in order

    @property
    def calls(self) -> int:
        """How many tool calls the model made: each has one result."""
        return len(self.results)


@dataclass(frozen=True)
class _Call:
    """One tool call on its way through the harness; each job returns a new record. ``sent`` is
    the call as the model wrote it (the conversation keeps it), ``args`` the arguments that run.
    ``result`` is None until the call is settled: it failed its check, the gate refused it, or
    it ``ran``. ``text`` is what the model reads."""

    sent: dict
    args: Any
    tool: Tool | None
    notes: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    result: ToolResult | None = None
    ran: bool = False
    text: str = ""

    @property
    def name(self) -> Any:
        return self.sent.get("name")

    def logged(self, event: str, **changes: Any) -> _Call:
        """This record with ``changes`` made and ``event`` added to its events."""
        return replace(self, events=(*self.events, event), **changes)


def _checked(registry: ToolRegistry, sent: dict) -> _Call:
    """Job 1: decode, repair and validate the call (:meth:`ToolRegistry.prepare`). One that
    fails is settled with the registry's message: it never runs, nor reaches the gate."""
    name, raw = sent.get("name"), sent.get("arguments")
    args, notes, failed = registry.prepare(name, _decode(raw))
    events = [f"repaired {name}: " + "; ".join(notes)] if notes else []
    if notes and failed is None:
        events.append(f"repaired {name} arguments: {_shown(args)} (the model sent {_shown(raw)})")
    return _Call(sent, args, registry.get(name), tuple(notes), tuple(events), failed)


def _gated(c: _Call, gate: PermissionGate | None) -> _Call:
    """Job 2: the gate judges the call that will run (the model's id and name, the repaired
    arguments), so a gate that reads arguments cannot be slipped past with ``{"Amount": "150"}``."""
    if gate is None or c.result is not None:
        return c
    ok, reason = gate.check({"id": c.sent["id"], "name": c.name, "arguments": c.args}, c.tool)
    if ok:
        return c
    text = f"Blocked by policy: {reason}. Tell the user what you wanted to do and ask."
    return c.logged(f"blocked {c.name}: {reason}", result=ToolResult(False, text, kind="blocked", notes=list(c.notes)))


def _retried(c: _Call, registry: ToolRegistry, timeout: float | None, max_retries: int, sleep: Callable) -> _Call:
    """Jobs 3 and 4: run an allowed call (:func:`_run_once`); retry it after doubling waits while
    it fails in a way a retry may fix and that is safe to repeat: a transient error, or a
    timeout of a read-only tool (one that changes state may have acted before it overran)."""
    if c.result is not None:
        return c
    attempt = 0
    while True:
        result = _run_once(registry, c, timeout)
        retry = result.kind == "transient" or (result.kind == "timeout" and c.tool is not None and c.tool.read_only)
        if not retry or attempt >= max_retries:
            break
        attempt += 1
        c = c.logged(f"retry {attempt}/{max_retries} for {c.name} ({result.kind})")
        sleep(_BACKOFF_START * 2 ** (attempt - 1))
    if retry and attempt:
        result = replace(result, content=f"{result.content} Gave up after {attempt + 1} tries.")
    return replace(c, result=replace(result, notes=list(c.notes)), ran=True)


def _run_once(registry: ToolRegistry, c: _Call, timeout: float | None) -> ToolResult:
    """Job 3: run exactly the checked arguments, with no second repair, for at most ``timeout``
    seconds (``None``: inline, no limit). A thread cannot be stopped: one that overruns is
    left to finish as a daemon, which does not keep Python alive."""

    def attempt() -> ToolResult:
        try:
            return registry.run(c.name, c.args, repair=False)
        except Exception as exc:  # ToolRegistry.run never raises; a subclass that does crashed, not timed out
            return ToolResult(False, _CRASHED.format(short_repr(c.name), type(exc).__name__), kind="crash")

    if timeout is None:
        return attempt()
    box: list[ToolResult] = []
    worker = threading.Thread(target=lambda: box.append(attempt()), daemon=True, name=f"tool:{c.name}")
    worker.start()
    worker.join(timeout)
    if worker.is_alive() or not box:
        return ToolResult(False, f"Tool {c.name!r} timed out after {timeout:g} s.", kind="timeout")
    return box[0]


def _capped(c: _Call, limit: int | None) -> _Call:
    """Job 5: at most ``limit`` characters reach the model, with a marker; the result keeps all."""
    assert c.result is not None  # settled by jobs 1 to 4
    text = c.result.content
    if limit is None or len(text) <= limit:
        return replace(c, text=text)
    cut = len(text) - limit
    return c.logged(f"truncated {c.name}: {cut} characters cut", text=f"{text[:limit]} [truncated {cut} characters]")


def _answer(c: _Call, wrap: bool) -> dict:
    """The ``tool`` message that answers the call; when ``wrap``, a result that worked is wrapped."""
    ok = c.result is not None and c.result.ok
    content = wrap_untrusted(c.text) if wrap and ok else c.text
    return {"role": "tool", "tool_call_id": c.sent["id"], "name": c.name, "content": content, "is_error": not ok}


def _each(job: Callable[[_Call], _Call], turn: list[_Call], parallel: bool) -> list[_Call]:
    """``[job(c) for c in turn]``, side by side in threads when ``parallel``; in call order."""
    if not parallel or len(turn) < 2:
        return [job(c) for c in turn]
    with ThreadPoolExecutor(max_workers=len(turn), thread_name_prefix="call") as pool:
        return list(pool.map(job, turn))


def _decode(args: Any) -> Any:
    """Arguments as a dict when a vendor sent them as a JSON string; else as they came."""
    if isinstance(args, str):
        try:
            return json.loads(args) if args.strip() else {}
        except (ValueError, RecursionError):
            return args  # validation will say the arguments are not an object
    return args


def _shown(value: Any, limit: int = 200) -> str:
    """Arguments for the events log: JSON (a string as it came), cut to ``limit`` characters."""
    return short_repr(value, limit) if isinstance(value, str) else clip(to_text(value), limit)


def _reply_calls(reply: Any, step: int) -> list[dict]:
    """The tool calls of a reply, each a dict with an ``id`` and ``arguments``."""
    calls = reply.get("tool_calls") if isinstance(reply, dict) else None
    shaped = [c if isinstance(c, dict) else {"name": None, "arguments": c} for c in calls or []]
    return [
        {**c, "id": c.get("id", f"call_{step}_{i}"), "arguments": c.get("arguments", {})} for i, c in enumerate(shaped)
    ]


def _assistant(reply: Any, calls: list[dict]) -> dict:
    """The assistant's turn as the conversation keeps it. Opaque reasoning blocks (``"reasoning"``,
    such as signed thinking blocks) ride along unmodified, for an adapter to send back."""
    if calls:
        message = {"role": "assistant", "content": reply.get("content"), "tool_calls": calls}
    else:
        content = reply.get("content") if isinstance(reply, dict) else reply
        message = {"role": "assistant", "content": "" if content is None else str(content)}
    if isinstance(reply, dict) and "reasoning" in reply:
        message["reasoning"] = reply["reasoning"]
    return message


def run_agent(model: Any, registry: ToolRegistry, user: str, *,
              system: str | None = None, max_steps: int = 8, call_timeout: float | None = 2.0,
              max_retries: int = 2, parallel: bool = True, gate: PermissionGate | None = None,
              sleep: Callable[[float], Any] = time.sleep, wrap_outputs: bool = False,
              max_result_chars: int | None = None) -> AgentResult:  # fmt: skip
    """Run the tool-call loop until the model answers in text or ``max_steps`` turns pass.

    Each turn asks the model (``model.respond(messages, tools)``, or ``model`` itself if it is a
    function), then takes every call through the jobs of pack §2.2: check it, ask the ``gate``,
    run it under ``call_timeout`` (side by side when ``parallel``; ``None`` runs it inline),
    retry up to ``max_retries`` times when safe, cap it at ``max_result_chars`` and answer it.
    Nothing a tool does escapes as an exception. ``sleep`` receives the back-off waits.

    Notebooks 01, 02, 06, 07, 08, 10, 11.
    """
    respond = model.respond if hasattr(model, "respond") else model
    messages: list[dict] = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": user})
    events: list[str] = []
    results: list = []
    run = partial(_retried, registry=registry, timeout=call_timeout, max_retries=max_retries, sleep=sleep)
    for step in range(1, max_steps + 1):  # 6. at most max_steps turns
        reply = respond(messages, registry.list_schemas())
        sent = _reply_calls(reply, step)
        messages.append(_assistant(reply, sent))
        if not sent:
            return AgentResult(messages[-1]["content"], messages, step, "final", events, results)
        turn = [_checked(registry, c) for c in sent]  # 1. check the arguments
        turn = [_gated(c, gate) for c in turn]  # 2. is the call allowed now?
        turn = _each(run, turn, parallel)  # 3, 4. run under a time limit, retry when safe
        turn = [_capped(c, max_result_chars) for c in turn]  # 5. cap what reaches the model
        for c in turn:  # answer every call, in the order the model wrote them
            messages.append(_answer(c, wrap_outputs))
            events.extend(c.events)
            results.append((c.sent, c.result))
            if gate is not None and c.ran:
                gate.note_result(c.tool)  # taint: the gate hears which tools ran
    events.append(f"stopped: reached max_steps={max_steps}")
    return AgentResult(None, messages, max_steps, "max_steps", events, results)
