"""The function-calling loop: the harness between a model and its tools.

Pack §2.2 (Figure 1: the model only asks; the harness checks, runs and answers) and §2.8
(parallel calls, timeouts, retries with back-off, step limits). The conversation is kept in
the OpenAI style: each turn that asks for tools adds the assistant's ``tool_calls`` and then
the answers, one ``tool`` message for each call, in the order the calls were made.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .gate import PermissionGate, wrap_untrusted
from .registry import ToolRegistry, ToolResult
from .schema import clip, short_repr

__all__ = ["ScriptedModel", "call", "run_agent", "AgentResult", "BACKOFF_START"]

BACKOFF_START = 0.1  # seconds before the first retry; doubles for each further one


class ChatModel(Protocol):
    """What run_agent talks to: an object whose ``respond(messages, tools)`` returns the
    model's reply (a plain function of the same two arguments works too)."""

    def respond(self, messages: list, tools: list) -> Any: ...


def call(id: str, name: str, **arguments: Any) -> dict:
    """A tool call as a model writes it: ``{"id", "name", "arguments"}``.

    Notebooks 02, 05, 06, 08, 11.
    """
    return {"id": id, "name": name, "arguments": arguments}


class ScriptedModel:
    """A mock model that replays a fixed list of replies, one per turn.

    A step may be a reply dict (``{"content": ...}`` or ``{"tool_calls": [...]}``) or a
    function of the messages so far that returns one. After the last step it answers
    ``"(script ended)"``. It is a stand-in for an LLM, and the lessons say so.

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
    """How a run ended: the final text (None if it hit the step limit), the whole
    conversation, the number of model turns (``steps``) and tool calls (``calls``), why it
    stopped (``"final"`` or ``"max_steps"``), and the harness's ``events`` log.

    Notebooks 01, 02, 06, 07, 08, 10, 11, through run_agent.
    """

    final: str | None
    messages: list
    steps: int
    calls: int
    stop_reason: str
    events: list = field(default_factory=list)
    results: list = field(default_factory=list)  # (call, ToolResult) pairs, in order


def _crashed(name: Any, exc: BaseException) -> ToolResult:
    """The answer when the registry itself fails: a fault, reported, never a timeout."""
    return ToolResult(
        False,
        f"Running tool {short_repr(name)} failed inside the harness "
        f"({type(exc).__name__}). This is a fault in the tool or its setup, not in "
        "your call; do not repeat it, try another way or tell the user.",
        kind="crash",
    )


def _run_once(registry: ToolRegistry, name: str, args: dict) -> ToolResult:
    """Run exactly ``args`` (already repaired and validated): no second repair."""
    try:
        return registry.run(name, args, repair=False)
    except Exception as exc:  # ToolRegistry.run never raises; a subclass or stand-in might
        return _crashed(name, exc)


def _run_with_timeout(registry: ToolRegistry, name: str, args: dict, timeout: float | None) -> ToolResult:
    if timeout is None:
        return _run_once(registry, name, args)
    box: dict = {}

    def work() -> None:
        box["result"] = _run_once(registry, name, args)

    worker = threading.Thread(target=work, daemon=True, name=f"tool:{name}")
    worker.start()
    worker.join(timeout)
    if worker.is_alive() or "result" not in box:
        # The thread cannot be stopped; it is a daemon, so it will not keep Python alive.
        return ToolResult(False, f"Tool {name!r} timed out after {timeout:g} s.", kind="timeout")
    return box["result"]


def _execute(
    registry: ToolRegistry, call_: dict, call_timeout: float | None, max_retries: int, sleep: Callable[[float], Any]
) -> tuple[ToolResult, list[str]]:
    """Run one prepared, allowed call with its retries; returns the result and its events."""
    name, args = call_["name"], call_["arguments"]
    tool = registry.get(name)
    events: list[str] = []
    attempt = 0
    while True:
        result = _run_with_timeout(registry, name, args, call_timeout)
        retryable = result.kind == "transient" or (result.kind == "timeout" and tool is not None and tool.read_only)
        if retryable and attempt < max_retries:
            attempt += 1
            events.append(f"retry {attempt}/{max_retries} for {name} ({result.kind})")
            sleep(BACKOFF_START * 2 ** (attempt - 1))
            continue
        if retryable and attempt > 0:
            result.content += f" Gave up after {attempt + 1} tries."
        return result, events


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
    if isinstance(value, str):
        return short_repr(value, limit)
    try:
        text = json.dumps(value, default=str)
    except Exception:
        return short_repr(value, limit)
    return clip(text, limit)


def _prepare(registry: ToolRegistry, call_: dict) -> tuple[dict, list[str], ToolResult | None, list[str]]:
    """Decode, repair and validate one call before the gate sees it (pack §2.2).

    Returns the call that would run (same id and name, the repaired arguments), the repair
    notes, a failed result to answer instead (or None), and the events to log.
    """
    name, sent = call_.get("name"), call_.get("arguments")
    try:
        args, notes, failed = registry.prepare(name, _decode(sent))
    except Exception as exc:  # ToolRegistry.prepare never raises; a stand-in might
        args, notes, failed = sent, [], _crashed(name, exc)
    events = [f"repaired {name}: " + "; ".join(notes)] if notes else []
    if notes and failed is None:
        events.append(f"repaired {name} arguments: {_shown(args)} (the model sent {_shown(sent)})")
    return {"id": call_.get("id"), "name": name, "arguments": args}, notes, failed, events


def _reply_calls(reply: Any, step: int) -> list[dict]:
    calls = reply.get("tool_calls") if isinstance(reply, dict) else None
    if not calls:
        return []
    out = []
    for i, c in enumerate(calls):
        c = dict(c) if isinstance(c, dict) else {"name": None, "arguments": c}
        c.setdefault("id", f"call_{step}_{i}")
        c.setdefault("arguments", {})
        out.append(c)
    return out


def _vet_calls(
    registry: ToolRegistry, calls: list[dict], gate: PermissionGate | None
) -> tuple[list, dict[int, tuple[dict, list[str]]], list[list[str]]]:
    """Jobs 1 and 2 of the harness (pack §2.2): prepare each call, then ask the gate about it.

    Check what you execute: each call is decoded, repaired and validated first (:func:`_prepare`),
    and the gate is shown the call that will run (the model's id and name, the repaired
    arguments), so a gate that reads arguments cannot be slipped past with ``{"Amount": "150"}``.
    A call that fails validation (or names no known tool) is answered with the registry's message
    and never runs, so the gate is not asked about it. Returns the answers settled so far (None
    for calls still to run), the calls to run ``{i: (call, repair notes)}`` in call order, and
    each call's events.
    """
    outcome: list = [None] * len(calls)
    ready: dict[int, tuple[dict, list[str]]] = {}
    per_call_events: list[list[str]] = [[] for _ in calls]
    for i, c in enumerate(calls):
        run_call, notes, failed, per_call_events[i] = _prepare(registry, c)
        if failed is not None:
            outcome[i] = failed
            continue
        if gate is not None:
            ok, reason = gate.check(run_call, registry.get(run_call["name"]))
            if not ok:
                outcome[i] = ToolResult(
                    False,
                    f"Blocked by policy: {reason}. Tell the user what you wanted to do and ask.",
                    kind="blocked",
                    notes=notes,
                )
                per_call_events[i].append(f"blocked {run_call['name']}: {reason}")
                continue
        ready[i] = (run_call, notes)
    return outcome, ready, per_call_events


def _run_ready(
    registry: ToolRegistry,
    ready: dict[int, tuple[dict, list[str]]],
    outcome: list,
    per_call_events: list[list[str]],
    call_timeout: float | None,
    max_retries: int,
    sleep: Callable[[float], Any],
    parallel: bool,
) -> None:
    """Jobs 3 and 4: run exactly the allowed calls (:func:`_execute`), together or in turn."""

    def work(i: int) -> None:
        run_call, notes = ready[i]
        outcome[i], evs = _execute(registry, run_call, call_timeout, max_retries, sleep)
        outcome[i].notes = list(notes)
        per_call_events[i].extend(evs)

    if parallel and len(ready) > 1:
        threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in ready]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        for i in ready:
            work(i)


def _capped(content: str, name: Any, max_result_chars: int | None, events: list[str]) -> str:
    """Job 5: at most ``max_result_chars`` of a result reach the model, with a visible marker."""
    if max_result_chars is None or len(content) <= max_result_chars:
        return content
    cut = len(content) - max_result_chars
    events.append(f"truncated {name}: {cut} characters cut")
    return content[:max_result_chars] + f" [truncated {cut} characters]"


def _final_text(reply: Any) -> str:
    content = reply.get("content") if isinstance(reply, dict) else reply
    return content if isinstance(content, str) else ("" if content is None else str(content))


def run_agent(model: ChatModel | Callable[[list, list], Any], registry: ToolRegistry, user: str, *,
              system: str | None = None, max_steps: int = 8, call_timeout: float | None = 2.0,
              max_retries: int = 2, parallel: bool = True, gate: PermissionGate | None = None,
              sleep: Callable[[float], Any] = time.sleep, wrap_outputs: bool = False,
              max_result_chars: int | None = None) -> AgentResult:  # fmt: skip
    """Run the tool-call loop until the model answers in text or ``max_steps`` turns pass.

    Each turn: ask the model; prepare and gate its calls (:func:`_vet_calls`), run the allowed
    ones, at the same time when ``parallel``, under ``call_timeout`` with up to ``max_retries``
    retries (:func:`_run_ready`), and answer each call with one ``tool`` message, cut to
    ``max_result_chars``. Nothing a tool does escapes as an exception. ``sleep`` receives the
    back-off waits, so tests can record them; ``call_timeout=None`` runs calls inline.

    Notebooks 01, 02, 06, 07, 08, 10, 11.
    """
    respond = model.respond if hasattr(model, "respond") else model
    messages: list[dict] = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": user})
    events: list[str] = []
    results: list = []
    n_calls = 0
    for step in range(1, max_steps + 1):  # job 6: a cap on the number of turns
        reply = respond(messages, registry.list_schemas())
        calls = _reply_calls(reply, step)
        if not calls:
            messages.append({"role": "assistant", "content": _final_text(reply)})
            return AgentResult(messages[-1]["content"], messages, step, n_calls, "final", events, results)
        messages.append({"role": "assistant", "content": reply.get("content"), "tool_calls": calls})
        n_calls += len(calls)
        outcome, ready, per_call_events = _vet_calls(registry, calls, gate)  # jobs 1 and 2
        _run_ready(registry, ready, outcome, per_call_events, call_timeout, max_retries, sleep, parallel)
        for i, c in enumerate(calls):  # answer each call, in order
            events.extend(per_call_events[i])
            ok = outcome[i].ok
            content = _capped(outcome[i].content, c.get("name"), max_result_chars, events)
            if wrap_outputs and ok:
                content = wrap_untrusted(content)
            messages.append(
                dict(role="tool", tool_call_id=c["id"], name=c.get("name"), content=content, is_error=not ok)
            )
            results.append((c, outcome[i]))
        if gate is not None:  # the taint rule needs to know what ran
            for run_call, _ in ready.values():
                gate.note_result(registry.get(run_call["name"]))
    events.append(f"stopped: reached max_steps={max_steps}")
    return AgentResult(None, messages, max_steps, n_calls, "max_steps", events, results)
