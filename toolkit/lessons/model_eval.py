"""A real model through the course's own experiments: BFCL scoring and pass^k.

Pack §2.9 (BFCL checks the call itself; τ-bench judges the final state and reports pass^k).
The lessons measure mocks, so their numbers are the same for everyone. This module runs a
real model (see :mod:`toolkit.lessons.endpoints`) through the same harness:

* :func:`run_bfcl` sends each shipped BFCL case (its question as the conversation, its
  functions as tools), turns the reply into the scorer's input (the tool calls, mapped back to
  BFCL's names, or the text when the model made no call) and scores it with
  :func:`toolkit.scoring.classify`;
* :func:`run_passk` runs the retail world's tasks with the model as the agent, ``trials``
  times each, and computes pass^k and pass@k from the per-task counts.

``python -m toolkit bfcl …`` and ``python -m toolkit passk …`` (:mod:`toolkit.cli.model_eval`)
print both as tables, and notebooks 02, 09 and 10 call :func:`notebook_loop`, :func:`notebook_bfcl` and
:func:`notebook_passk`, which do nothing but print how to configure a model until the
``TOOLKIT_MODEL_*`` variables are set. Every number printed carries the model's name and the
date: it is a measurement of that model, on that endpoint, on that day.

Settings come from the command line, else from the environment (:data:`SETTINGS_ENV`:
``TOOLKIT_MODEL_TIMEOUT``, ``TOOLKIT_MODEL_MAX_TOKENS``, ``TOOLKIT_MODEL_TOOL_CHOICE`` and
``TOOLKIT_MODEL_EXTRA_BODY``, a JSON object merged into every request); the notebooks' sections
take the same as ``options``. A run that stops early (the endpoint failing) still writes its
``--out`` lines and a ``--summary`` marked ``"partial": true`` with the reason.
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..reliability import pass_at_k, pass_hat_k
from ..scoring import FAILURE_TYPES, case_category, classify, load_bfcl
from .endpoints import DEFAULT_MAX_TOKENS, ChatCompletionsModel, EndpointError, MessagesModel
from .retail import POLICY, POLICY_EXTENDED, RETAIL_TASKS, RETAIL_TASKS_EXTENDED, retail_trial_run
from .wire import wire_tools

__all__ = [
    "make_model",
    "real_model_from_env",
    "settings_from_env",
    "SETTINGS_ENV",
    "reply_to_output",
    "select_cases",
    "run_bfcl",
    "bfcl_summary",
    "format_bfcl",
    "run_passk",
    "format_passk",
    "estimate_bfcl_cost",
    "estimate_passk_cost",
    "notebook_loop",
    "notebook_bfcl",
    "notebook_passk",
    "APIS",
    "KEY_ENV",
    "NOT_CONFIGURED",
    "BFCL_CATEGORIES",
]

APIS = {"openai": ChatCompletionsModel, "anthropic": MessagesModel}
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BFCL_CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")
ENDPOINT_ERROR = "endpoint_error"  # a case the endpoint did not answer; counted as a failure

# Optional settings read from the environment: variable -> make_model's keyword.
SETTINGS_ENV = {
    "TOOLKIT_MODEL_TIMEOUT": "timeout",
    "TOOLKIT_MODEL_MAX_TOKENS": "max_tokens",
    "TOOLKIT_MODEL_TOOL_CHOICE": "tool_choice",
    "TOOLKIT_MODEL_EXTRA_BODY": "extra_body",
}

NOT_CONFIGURED = (
    "No real model configured (optional): set TOOLKIT_MODEL_API=openai or anthropic, "
    "TOOLKIT_MODEL_BASE_URL, TOOLKIT_MODEL and the key in OPENAI_API_KEY or "
    "ANTHROPIC_API_KEY (or in the variable TOOLKIT_MODEL_KEY_ENV names), then restart "
    "the kernel; docs/real-models.md, 'Using a real model'."
)


# --------------------------------------------------------------------------------------------
# making a model


def make_model(
    api: str,
    base_url: str,
    model: str,
    api_key_env: str | None = None,
    environ: Mapping[str, str] | None = None,
    **options: Any,
):
    """An endpoint model whose key is read from the variable ``api_key_env`` (default
    ``OPENAI_API_KEY`` or ``ANTHROPIC_API_KEY``). A missing key is fine: local servers need none.

    Notebook 09, through notebook_bfcl.
    """
    if api not in APIS:
        raise ValueError(f"api must be one of {', '.join(APIS)}, got {api!r}")
    environ = os.environ if environ is None else environ
    key_env = api_key_env or KEY_ENV[api]
    return APIS[api](base_url, model, environ.get(key_env) or None, api_key_env=key_env, **options)


def _setting(var: str, text: str) -> Any:
    """One :data:`SETTINGS_ENV` value, from its text; ``ValueError`` names the variable."""
    text = text.strip()
    try:
        if var == "TOOLKIT_MODEL_TIMEOUT":
            value: Any = float(text)
            if value <= 0:
                raise ValueError
            return value
        if var == "TOOLKIT_MODEL_MAX_TOKENS":
            return None if text.lower() == "none" else int(text)
        if var == "TOOLKIT_MODEL_TOOL_CHOICE":
            return None if text.lower() == "omit" else text
        value = json.loads(text)
        if not isinstance(value, dict):
            raise ValueError
        return value
    except ValueError:
        wanted = {
            "TOOLKIT_MODEL_TIMEOUT": "seconds, a positive number",
            "TOOLKIT_MODEL_MAX_TOKENS": "a positive integer, or none",
            "TOOLKIT_MODEL_EXTRA_BODY": 'a JSON object such as {"top_k": 1}',
        }
        raise ValueError(f"{var}={text!r} is not {wanted[var]}") from None


def settings_from_env(environ: Mapping[str, str] | None = None) -> dict:
    """The optional settings of :data:`SETTINGS_ENV` that are set, as ``make_model`` keywords
    (``TOOLKIT_MODEL_MAX_TOKENS=none`` leaves max_tokens out; ``TOOLKIT_MODEL_TOOL_CHOICE=omit``
    sends no tool_choice). ``ValueError`` names a variable whose value is not what it takes.

    Notebook 09, through notebook_bfcl.
    """
    environ = os.environ if environ is None else environ
    return {key: _setting(var, environ[var]) for var, key in SETTINGS_ENV.items() if environ.get(var, "").strip()}


def real_model_from_env(environ: Mapping[str, str] | None = None, **options: Any):
    """The model named by ``TOOLKIT_MODEL_API``, ``TOOLKIT_MODEL_BASE_URL`` and ``TOOLKIT_MODEL``
    (key in ``TOOLKIT_MODEL_KEY_ENV``'s variable, else the API's usual one), with the settings
    of :func:`settings_from_env` and then ``options`` (``timeout``, ``max_tokens``,
    ``tool_choice``, ``extra_body``, ...); ``None`` when none of the three is set. Raises
    ``ValueError`` naming what is missing when only some are set.

    Notebook 09, through notebook_bfcl.
    """
    environ = os.environ if environ is None else environ
    wanted = ("TOOLKIT_MODEL_API", "TOOLKIT_MODEL_BASE_URL", "TOOLKIT_MODEL")
    given = {v: environ.get(v, "").strip() for v in wanted}
    if not any(given.values()):
        return None
    missing = [v for v, value in given.items() if not value]
    if missing:
        raise ValueError(f"set {', '.join(missing)} too (or unset all three to use the mocks only)")
    settings = {**settings_from_env(environ), **options}
    return make_model(
        given["TOOLKIT_MODEL_API"].lower(),
        given["TOOLKIT_MODEL_BASE_URL"],
        given["TOOLKIT_MODEL"],
        environ.get("TOOLKIT_MODEL_KEY_ENV") or None,
        environ,
        **settings,
    )


def _label(model) -> str:
    return f"[{model.model}, {datetime.date.today().isoformat()}]"


# --------------------------------------------------------------------------------------------
# BFCL


def reply_to_output(reply: Mapping) -> Any:
    """What the scorer reads from a reply: its tool calls as ``[(name, arguments)]`` (arguments
    the model sent as malformed JSON stay the string it wrote), or, when it made no call, its
    text (``""`` if none), which on an irrelevance case is the abstention BFCL wants.

    Notebook 09, through notebook_bfcl.
    """
    calls = reply.get("tool_calls") or []
    if calls:
        return [(c.get("name"), c.get("arguments")) for c in calls]
    content = reply.get("content")
    return content if isinstance(content, str) else ""


def select_cases(categories: Iterable[str] | None = None, limit: int | None = None) -> list[dict]:
    """The shipped BFCL cases of ``categories`` (all five by default), in category order.
    ``limit`` keeps the first ``limit`` cases of each category, as lm-evaluation-harness's
    ``--limit`` does per task, so every category stays in a small sample.

    Notebook 09, through notebook_bfcl.
    """
    categories = list(dict.fromkeys(categories or BFCL_CATEGORIES))
    unknown = [c for c in categories if c not in BFCL_CATEGORIES]
    if unknown:
        raise ValueError(f"unknown BFCL categories {unknown}; choose from {', '.join(BFCL_CATEGORIES)}")
    if limit is not None and limit < 1:
        raise ValueError("limit must be 1 or more")
    return [case for c in categories for case in load_bfcl(c)[:limit]]


def _fatal(exc: EndpointError) -> bool:
    """Errors that every later request would repeat: a refused key, a wrong URL or model, no server,
    no SDK."""
    return exc.status in (401, 403, 404) or exc.kind in ("connection", "setup")


def run_bfcl(
    model,
    cases: Sequence[Mapping],
    *,
    progress: Callable[[int, int, str], Any] | None = None,
    on_result: Callable[[dict], Any] | None = None,
    max_errors_in_a_row: int = 3,
) -> list[dict]:
    """Send each case to ``model`` and score its reply with :func:`classify` (pack §2.9).

    Returns one record per case: ``{"id", "category", "label", "output", "reply",
    "response"}`` (``output`` is what the scorer read, ``response`` the server's JSON).
    A case the endpoint fails to answer (a 400 for that case, a timeout, a 5xx that outlasted
    the retries) is labelled ``endpoint_error`` and counts as failed; a refused key, a wrong URL
    or model, or ``max_errors_in_a_row`` such failures in a row (a case too long for the
    model's context window does not count) stop the run with that error.

    Notebook 09, through notebook_bfcl.
    """
    records = []
    in_a_row = 0
    for i, case in enumerate(cases):
        if progress:
            progress(i, len(cases), str(case.get("id")))
        messages = [dict(m) for m in case["question"][0]]
        try:
            reply = model.respond(messages, case["function"])
        except EndpointError as exc:
            in_a_row += exc.kind != "context"  # a conversation too long for the model is no outage
            if _fatal(exc) or in_a_row >= max_errors_in_a_row:
                raise
            record = {
                "id": case.get("id"),
                "category": case_category(case),
                "label": ENDPOINT_ERROR,
                "output": None,
                "reply": None,
                "response": None,
                "error": str(exc),
            }
        else:
            in_a_row = 0
            output = reply_to_output(reply)
            record = {
                "id": case.get("id"),
                "category": case_category(case),
                "label": classify(case, output),
                "output": output,
                "reply": reply,
                "response": getattr(model, "last_response", None),
            }
        records.append(record)
        if on_result:
            on_result(record)
    if progress:
        progress(len(cases), len(cases), "done")
    return records


def bfcl_summary(model_name: str, records: Sequence[Mapping]) -> dict:
    """``{"model", "cases", "overall", "by_category", "failures"}``: the shape of
    :func:`toolkit.evaluate_calls` plus the model's name and the number of cases.

    Notebook 09, through notebook_bfcl.
    """
    if not records:
        raise ValueError("no cases were scored")
    totals: dict[str, list[int]] = {}
    failures: dict[str, int] = {}
    for r in records:
        cat = totals.setdefault(r["category"], [0, 0])
        cat[1] += 1
        if r["label"] == "pass":
            cat[0] += 1
        else:
            failures[r["label"]] = failures.get(r["label"], 0) + 1
    passed = sum(ok for ok, _ in totals.values())
    return {
        "model": model_name,
        "cases": len(records),
        "overall": passed / len(records),
        "by_category": {c: ok / n for c, (ok, n) in totals.items()},
        "failures": failures,
    }


def format_bfcl(summary: Mapping, records: Sequence[Mapping], model) -> str:
    """The per-category table, each figure labelled as a measurement of that model that day.

    Notebook 09, through notebook_bfcl.
    """
    label = _label(model)
    counts: dict[str, list[int]] = {}
    for r in records:
        c = counts.setdefault(r["category"], [0, 0])
        c[0] += r["label"] == "pass"
        c[1] += 1
    lines = [
        f"BFCL on {summary['cases']} shipped cases: {model.model} at {model.base_url}, measured "
        f"{datetime.date.today().isoformat()}",
        f"{'category':20} {'cases':>5} {'passed':>6} {'accuracy':>9}",
    ]
    for cat, (ok, n) in counts.items():
        lines.append(f"{cat:20} {n:>5} {ok:>6} {summary['by_category'][cat]:>9.3f}")
    passed = sum(ok for ok, _ in counts.values())
    lines.append(f"{'overall':20} {summary['cases']:>5} {passed:>6} {summary['overall']:>9.3f}")
    order = [t for t in FAILURE_TYPES + (ENDPOINT_ERROR,) if t in summary["failures"]]
    if order:
        lines.append("failures: " + ", ".join(f"{t} {summary['failures'][t]}" for t in order))
    lines.append(_usage_line(model))
    lines.append(
        f"{label} These numbers measure {model.model} on this endpoint on this day, on "
        f"{summary['cases']} of BFCL's cases scored by the course's scorer; not a leaderboard score."
    )
    return "\n".join(lines)


def _usage_line(model) -> str:
    u = model.usage
    return (
        f"requests {u['requests']}, tokens in {u['input_tokens']:,} / out {u['output_tokens']:,} "
        "(as the endpoint counted them; 0 if it does not report usage)"
    )


def _tokens(text: str) -> int:
    return len(text) // 4 + 1  # the usual rough rule for English and JSON: four characters a token


def estimate_bfcl_cost(cases: Sequence[Mapping], max_tokens: int | None = DEFAULT_MAX_TOKENS) -> dict:
    """Requests (one per case) and rough tokens: the question and tool definitions in, a short
    call (about 60 tokens) out; at most ``max_tokens`` out each. A rough guide (four characters
    a token), not a bill; ``assumes`` says so in words.

    Notebook 09, through notebook_bfcl.
    """
    tokens_in = sum(
        _tokens(json.dumps(c["question"][0]) + json.dumps(wire_tools(c["function"])[0])) + 20 for c in cases
    )
    assumes = "one request a case, about 60 tokens out each"
    return _cost(len(cases), tokens_in, 60 * len(cases), max_tokens, assumes)


def _cost(requests: int, tokens_in: int, tokens_out: int, max_tokens: int | None, assumes: str) -> dict:
    cap = f"at most {max_tokens} out a request" if max_tokens else "no max_tokens cap"
    assumes = f"{assumes} ({cap}), four characters a token; a local server costs nothing but time"
    limit = requests * max_tokens if max_tokens else None
    return {
        "requests": requests,
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "output_tokens_at_most": limit,
        "assumes": assumes,
    }


def _retail(extended: bool) -> tuple[list[dict], str]:
    return (RETAIL_TASKS_EXTENDED, POLICY_EXTENDED) if extended else (RETAIL_TASKS, POLICY)


def estimate_passk_cost(trials: int, extended: bool = False, max_tokens: int | None = DEFAULT_MAX_TOKENS) -> dict:
    """About three model turns a trial (look up, act, answer), each resending the policy, the
    tool definitions and the conversation so far. Rough, as :func:`estimate_bfcl_cost`.

    Notebook 10, through notebook_passk.
    """
    from .retail import RetailEnv

    tasks, policy = _retail(extended)
    tools = json.dumps(wire_tools(RetailEnv(extended=extended).registry.list_schemas())[0])
    per_turn = _tokens(policy + tools) + 60
    requests = 3 * trials * len(tasks)
    assumes = "three model turns a trial (look up, act, answer), each resending the policy and tools, ~50 tokens out"
    return _cost(requests, requests * (per_turn + 100), requests * 50, max_tokens, assumes)


def _cost_line(cost: Mapping) -> str:
    return (
        f"about {cost['requests']} requests, roughly {cost['input_tokens']:,} input and "
        f"{cost['output_tokens']:,} output tokens; assuming {cost['assumes']}"
    )


# --------------------------------------------------------------------------------------------
# pass^k on the retail world


def _ks(n: int) -> list[int]:
    ks, k = [], 1
    while k <= n:
        ks.append(k)
        k *= 2
    return ks


def _trial_record(task: Mapping, trial: int, env: Any, result: Any) -> dict:
    """One retail trial as a JSON line: did the world end as the goal says, and the conversation."""
    return {
        "task": task["id"],
        "trial": trial,
        "success": env.db == task["goal"],
        "steps": result.steps,
        "calls": result.calls,
        "stop_reason": result.stop_reason,
        "messages": result.messages,
    }


def run_passk(
    model,
    trials: int = 8,
    *,
    extended: bool = False,
    progress: Callable[[int, int, str], Any] | None = None,
    on_trial: Callable[[dict], Any] | None = None,
    max_errors_in_a_row: int = 3,
) -> dict:
    """Each retail task ``trials`` times with ``model`` as the agent (pack §2.9, τ-bench).

    Returns ``{"model", "trials", "tasks": {task id: successes}, "pass_hat_k": {k: value},
    "pass_at_k": {k: value}, "endpoint_errors"}`` for k = 1, 2, 4, … up to ``trials``. Every
    trial is a fresh world and a fresh conversation; the model's own randomness (if any) is
    all that varies. ``on_trial`` gets each trial's record (:func:`_trial_record`, or one with
    ``"error"`` for a trial the endpoint failed: counted as failed); errors as in
    :func:`run_bfcl` stop the run, except a conversation that outgrew the model's context
    window (a small local server's 2,048 tokens fill up when a model loops), which fails that
    trial only.

    Notebook 10, through notebook_passk.
    """
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError("trials must be a positive integer")
    tasks, _ = _retail(extended)
    total = trials * len(tasks)
    counts = {t["id"]: 0 for t in tasks}
    errors = in_a_row = 0
    for n, (task, trial) in enumerate((t, i) for t in tasks for i in range(trials)):
        if progress:
            progress(n, total, f"{task['id']} trial {trial + 1}")
        try:
            env, result = retail_trial_run(task, trial, agent=lambda *_: model)
        except EndpointError as exc:
            errors, in_a_row = errors + 1, in_a_row + (exc.kind != "context")
            if _fatal(exc) or in_a_row >= max_errors_in_a_row:
                raise
            record = {"task": task["id"], "trial": trial, "success": False, "error": str(exc)}
        else:
            in_a_row = 0
            record = _trial_record(task, trial, env, result)
        counts[task["id"]] += record["success"]
        if on_trial:
            on_trial(record)
    if progress:
        progress(total, total, "done")
    values = list(counts.values())
    return {
        "model": model.model,
        "trials": trials,
        "tasks": counts,
        "pass_hat_k": {k: pass_hat_k(values, trials, k) for k in _ks(trials)},
        "pass_at_k": {k: pass_at_k(values, trials, k) for k in _ks(trials)},
        "endpoint_errors": errors,
    }


def format_passk(result: Mapping, model) -> str:
    """A real model's pass^k run as text: successes per task, then pass^k and pass@k by k.

    Notebook 10, through notebook_passk.
    """
    label = _label(model)
    n = result["trials"]
    lines = [
        f"Retail world, {len(result['tasks'])} tasks x {n} trials: {model.model} at {model.base_url}, "
        f"measured {datetime.date.today().isoformat()}",
        "successes per task: " + ", ".join(f"{t} {c}/{n}" for t, c in result["tasks"].items()),
        f"{'k':>3} {'pass^k':>8} {'pass@k':>8}",
    ]
    for k in result["pass_hat_k"]:
        lines.append(f"{k:>3} {result['pass_hat_k'][k]:>8.3f} {result['pass_at_k'][k]:>8.3f}")
    if result.get("endpoint_errors"):
        lines.append(f"trials the endpoint failed (counted as failed): {result['endpoint_errors']}")
    lines.append(_usage_line(model))
    lines.append(
        f"{label} A measurement of {model.model} on the course's retail world on this day; "
        f"with {n} trials a task, each pass^k is itself uncertain."
    )
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# the notebooks' optional sections


def _configured(environ: Mapping[str, str] | None, options: Mapping[str, Any] | None = None):
    try:
        model = real_model_from_env(environ, **dict(options or {}))
    except ValueError as exc:
        print(f"Real model not set up: {exc}.")
        return None
    if model is None:
        print(NOT_CONFIGURED)
    return model


def _with_model(environ: Mapping[str, str] | None, run: Callable[[Any], Any], options: Mapping | None = None) -> Any:
    """An optional real-model section: one fixed line when no model is configured, else
    ``run(model)``, with a failing endpoint said in one line."""
    model = _configured(environ, options)
    if model is None:
        return None
    try:
        return run(model)
    except EndpointError as exc:
        print(f"The endpoint failed: {exc}")
        return None


def notebook_loop(
    user: str = "Is it warmer in Paris or Oslo?",
    environ: Mapping[str, str] | None = None,
    options: Mapping[str, Any] | None = None,
):
    """Notebook 02: the happy-path question through the same loop and weather tools, with
    the configured model in place of the script. Prints the transcript; returns the result.
    ``options`` (``timeout``, ``max_tokens``, ``tool_choice``, ``extra_body``) override the
    ``TOOLKIT_MODEL_*`` settings, here and in the two sections below.

    Notebook 02.
    """
    from ..loop import run_agent
    from .failure_runs import run_lines
    from .toy_tools import make_weather_registry

    def go(model):
        print(f"{_label(model)} one question, up to 8 requests; roughly 400 tokens in and 50 out per request.")
        result = run_agent(model, make_weather_registry(), user)
        print("\n".join(run_lines(result)))
        print(
            f"{_label(model)} {result.steps} model turns, {result.calls} tool calls, stop: "
            f"{result.stop_reason}. {_usage_line(model)}"
        )
        return result

    return _with_model(environ, go, options)


def notebook_bfcl(
    per_category: int = 2, environ: Mapping[str, str] | None = None, options: Mapping[str, Any] | None = None
):
    """Notebook 09: the first ``per_category`` shipped BFCL cases of each of the five
    categories sent to the configured model and scored as the mocks were. Prints the table;
    returns the summary.

    Notebook 09.
    """

    def go(model):
        cases = select_cases(limit=per_category)
        cost = estimate_bfcl_cost(cases, model.max_tokens)
        print(f"{_label(model)} BFCL, {len(cases)} cases: {_cost_line(cost)}.")
        records = run_bfcl(model, cases)
        summary = bfcl_summary(model.model, records)
        print(format_bfcl(summary, records, model))
        return summary

    return _with_model(environ, go, options)


def notebook_passk(trials: int = 4, environ: Mapping[str, str] | None = None, options: Mapping[str, Any] | None = None):
    """Notebook 10: the retail tasks ``trials`` times each with the configured model as the
    agent; prints pass^k and pass@k with the per-task counts; returns the result.

    Notebook 10.
    """

    def go(model):
        cost = estimate_passk_cost(trials, max_tokens=model.max_tokens)
        print(f"{_label(model)} retail pass^k, {trials} trials a task: {_cost_line(cost)}.")
        result = run_passk(model, trials)
        print(format_passk(result, model))
        return result

    return _with_model(environ, go, options)
