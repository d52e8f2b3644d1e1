"""Failed runs to sort into the three groups of Figure 8: single call, many steps, conversation.

Pack §2.11 (common failure modes) and step 6 of §2.12 ("sort the failures into the groups").
Notebook 12 shows nine runs that went wrong and asks which group each belongs to; the group
points at the fix. Every run is made live by the course's own mocks, none of them a real
model:

* the mock retail agent of §2.9 (:mod:`toolkit.lessons.retail`) with a slip forced on;
* the mock function callers of §2.9 (:mod:`toolkit.lessons.mock_callers`), scored by
  :func:`toolkit.scoring.classify`;
* the injection demo of §2.10 (:func:`toolkit.injection_demo`), undefended;
* a scripted agent that repeats a failing call until the step limit.

``data/failure_runs.json`` says how to reproduce each run, which group we file it under and
why. :func:`failed_runs` makes the runs; :func:`normalise_group` reads a student's spelling of
a group name; :func:`schema_problems` says what a schema check would have caught in a run (pack
discussion question 12: "we have a schema, so tool calls are safe").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..data import load_json
from ..loop import AgentResult, call, run_agent
from ..schema import validate_args
from ..scoring import classify, format_calls, parse_calls
from .injection import injection_demo, make_injection_registry
from .mock_callers import CALLER_TYPES, scoring_cases
from .retail import RETAIL_TASKS_EXTENDED, RetailEnv, retail_trial_run

__all__ = ["GROUPS", "FailedRun", "failed_runs", "run_lines", "group_guide", "normalise_group", "schema_problems"]

GROUPS = ("single call", "many steps", "conversation")

_SPELLINGS = {
    "single call": "single call",
    "single": "single call",
    "single-call": "single call",
    "one call": "single call",
    "call": "single call",
    "many steps": "many steps",
    "many": "many steps",
    "many-steps": "many steps",
    "multi step": "many steps",
    "multi-step": "many steps",
    "multistep": "many steps",
    "steps": "many steps",
    "multiple steps": "many steps",
    "conversation": "conversation",
    "conv": "conversation",
    "dialog": "conversation",
    "dialogue": "conversation",
    "the conversation": "conversation",
}


def normalise_group(name) -> str | None:
    """The group a student meant (``"Single-call"`` → ``"single call"``), or None.

    Used by: toolkit/checks/failure_groups.py.
    """
    if not isinstance(name, str):
        return None
    key = " ".join(name.strip().lower().replace("_", " ").split())
    return _SPELLINGS.get(key) or _SPELLINGS.get(key.replace(" ", "-"))


@dataclass
class FailedRun:
    """One run that went wrong: what happened (``evidence``), and where we file it.

    Notebook 12, through failed_runs.
    """

    id: str
    title: str
    source: str  # which part of the toolkit made it
    evidence: list = field(default_factory=list)  # short lines: request, calls, results, outcome
    group: str = ""
    why: str = ""
    hint: str = ""
    result: AgentResult | None = None  # the whole run, for agent runs (None for scored replies)
    calls: list = field(default_factory=list)  # every call made, as (name, arguments), in order
    offered: dict = field(default_factory=dict)  # tool name -> input schema, for the tools offered

    def text(self) -> str:
        lines = [f"{self.id} · {self.title}  [{self.source}]"]
        lines += [f"    {line}" for line in self.evidence]
        return "\n".join(lines)


def _short(text, limit: int = 110) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_lines(result: AgentResult) -> list[str]:
    """The run as a few lines: the request, each call with its result, the final answer.

    Used by: toolkit/lessons/model_eval.py.
    """
    lines = []
    for m in result.messages:
        if m["role"] == "user":
            lines.append(f"user: {_short(m['content'])}")
        elif m["role"] == "assistant" and m.get("tool_calls"):
            lines.append("agent calls: " + "; ".join(format_calls([c]) for c in m["tool_calls"]))
        elif m["role"] == "tool":
            mark = "error" if m.get("is_error") else "ok"
            lines.append(f"  → {m['name']} {mark}: {_short(m['content'], 90)}")
    if result.stop_reason == "final":
        lines.append(f"agent answers: {_short(result.final)}")
    else:
        lines.append(f"harness: {result.events[-1]}")
    return lines


def _agent_calls(result: AgentResult) -> list[tuple[str, dict]]:
    return [
        (c.get("name"), c.get("arguments") or {})
        for m in result.messages
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
    ]


def _schemas(registry) -> dict:
    return {t.name: t.input_schema for t in registry.tools()}


def _retail(spec: dict) -> tuple:
    task = next(t for t in RETAIL_TASKS_EXTENDED if t["id"] == spec["task"])
    env, result = retail_trial_run(task, spec.get("seed", 0), spec.get("p_skip_check", 0.0), spec.get("p_typo", 0.0))
    wrong = {k: (v, task["goal"][k]) for k, v in env.db.items() if v != task["goal"][k]}
    lines = [f"policy in the prompt: {env.POLICY}"] + run_lines(result)
    lines.append(
        "database at the end vs the goal: "
        + "; ".join(f"{k} is {got}, goal {goal}" for k, (got, goal) in sorted(wrong.items()))
    )
    return f"mock retail agent, task {task['id']}", lines, result, _schemas(env.registry)


def _caller(spec: dict) -> tuple:
    functions, cases = scoring_cases("all")
    case = next(c for c in cases if c["id"] == spec["case"])
    cls = next(c for c in CALLER_TYPES if c.__name__ == spec["caller"])
    reply = cls(spec.get("slip", 1.0), spec.get("seed", 0)).answer(case)
    offered = {name: functions[name] for name in case["functions"]}
    lines = [
        f"user: {case['question']}",
        "tools offered: " + "; ".join(f"{name}({', '.join(_params(spec_))})" for name, spec_ in offered.items()),
        f"reply: {reply}",
        f"scorer (classify): {classify(case, reply, functions)}",
    ]
    schemas = {name: f.get("parameters") or f.get("inputSchema") or {} for name, f in offered.items()}
    return f"mock caller '{cls.name}', case {case['id']}", lines, None, schemas, parse_calls(reply)


def _params(function_spec) -> list[str]:
    """Parameter names, required ones first, optional ones marked with '?'."""
    schema = function_spec.get("parameters") or function_spec.get("inputSchema") or {}
    props = schema.get("properties", {})
    required = schema.get("required", [])
    return [p for p in props if p in required] + [f"{p}?" for p in props if p not in required]


def _injection(spec: dict) -> tuple:
    offered = _schemas(make_injection_registry())
    result, sent, _ = injection_demo(defended=bool(spec.get("defended", False)))
    lines = run_lines(result)
    lines.append("e-mails sent: " + (", ".join(f"to {to}: {body!r}" for to, body in sent) or "none"))
    return "injection demo, undefended", lines, result, offered


def _loop(spec: dict) -> tuple:
    env = RetailEnv()
    oid = spec["order_id"]

    def stubborn(messages, tools):  # a scripted agent: the same look-up every turn
        return {"tool_calls": [call(f"r{len(messages)}", "get_order", order_id=oid)]}

    result = run_agent(
        stubborn,
        env.registry,
        spec["user"],
        system=env.POLICY,
        max_steps=spec.get("max_steps", 4),
        call_timeout=None,
        parallel=False,
    )
    return "scripted agent that retries", run_lines(result), result, _schemas(env.registry)


_MAKERS = {"retail": _retail, "caller": _caller, "injection": _injection, "loop": _loop}


def failed_runs() -> list[FailedRun]:
    """The activity's runs, made afresh, in the order of ``data/failure_runs.json``.

    Notebook 12.
    """
    runs = []
    for entry in load_json("failure_runs.json")["runs"]:
        spec = entry["source"]
        source, lines, result, offered, *calls = _MAKERS[spec["kind"]](spec)
        calls = calls[0] if calls else _agent_calls(result)
        runs.append(
            FailedRun(
                entry["id"],
                entry["title"],
                source,
                lines,
                entry["group"],
                entry["why"],
                entry["hint"],
                result,
                calls,
                offered,
            )
        )
    return runs


def schema_problems(run: FailedRun) -> list[str]:
    """What checking each of the run's calls against the offered tools and schemas finds.

    An empty list means every call named an offered tool and fitted its schema: a schema check
    would have let the whole run through (pack discussion question 12).

    Used by: tests/test_failure_runs.py.
    """
    problems = []
    for name, args in run.calls:
        if name not in run.offered:
            problems.append(f"unknown tool {name!r}")
        else:
            problems += [f"{name}: {p}" for p in validate_args(args, run.offered[name])]
    return problems


def group_guide() -> dict:
    """For each group: what to look for, and what helps (from the data file).

    Used by: toolkit/checks/failure_groups.py.
    """
    return load_json("failure_runs.json")["groups"]


if __name__ == "__main__":  # pragma: no cover - a quick look from the command line
    for run in failed_runs():
        print(run.text(), "\n")
    print(json.dumps(group_guide(), indent=1))
