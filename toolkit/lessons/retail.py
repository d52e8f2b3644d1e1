"""A tiny τ-bench-style world: orders, a written policy, and a mock agent that slips.

Pack §2.9 (τ-bench: judge the final database state, not the words) and §2.11 (two failures
shown on purpose). The policy lives in the prompt, and by default the tools do not enforce it,
so an agent that cancels without looking can break it. ``PolicyAgentModel`` is a mock with
two slip rates chosen by us, not measured from any real model.

The extended world adds two tools, ``return_order`` and ``refund_order``, and two tasks
(:data:`RETAIL_TASKS_EXTENDED`). Task T5 needs two writes in a fixed order: record the return,
then refund. Its user names the refund first, so the mock agent's hasty habit (acting in the
order the user spoke, without looking) breaks it. It is the course's worked example, for
notebook 10's pass^k explorer and run F5 of notebook 12's activity; it is not an answer to the
assignment's Part C, whose world, tasks and ordered task students write themselves. For that
the trial functions are building blocks: they take the student's ``tasks``, a ``prepare`` hook
that changes each fresh world (new orders, tools, policy) and an ``agent`` factory for the
student's own mock agent.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from ..data import load_json
from ..loop import call, run_agent
from ..registry import Tool, ToolError, ToolRegistry
from ..schema import schema_from_function

__all__ = [
    "RetailEnv",
    "RETAIL_TASKS",
    "RETAIL_TASKS_EXTENDED",
    "POLICY",
    "POLICY_EXTENDED",
    "PolicyAgentModel",
    "OrderedTaskAgent",
    "make_retail_agent",
    "run_retail_trial",
    "retail_trial_run",
    "run_retail_trials",
    "retail_outcomes",
    "mangle_id",
]

_WORLD = load_json("retail.json")
POLICY: str = _WORLD["policy"]
POLICY_EXTENDED: str = _WORLD["extended_policy"]
RETAIL_TASKS: list[dict] = _WORLD["tasks"]
# Its own copies of T1-T3: editing one list (a student exploring Exercise 10) leaves the other alone.
RETAIL_TASKS_EXTENDED: list[dict] = load_json("retail.json")["tasks"] + _WORLD["extended_tasks"]

# schema_from_function reads type hints and docstrings, which costs far more than a trial's
# tool calls. The tools below are rebuilt for every fresh world, always from the same source,
# so their schemas are computed once, kept as JSON text, and decoded afresh for each world
# (decoding is a cheap deep copy: no world can change another's schema).
_SCHEMAS: dict[str, tuple[str, str, str]] = {}


def _add(registry: ToolRegistry, fn: Callable, **flags: bool) -> None:
    key = fn.__qualname__
    if key not in _SCHEMAS:
        schema = schema_from_function(fn)
        _SCHEMAS[key] = (schema["name"], schema["description"], json.dumps(schema["inputSchema"]))
    name, description, input_schema = _SCHEMAS[key]
    registry.register(Tool(name, description, fn, json.loads(input_schema), **flags))


# What each state-changing tool answers when the order is not in the state it needs (pack
# §2.9: the tool, not only the policy text, can refuse).
_REFUSALS = {
    "canceled": "Order {id} is {status}; only pending orders can be canceled. Tell the user it cannot be canceled.",
    "returned": "Order {id} is {status}, so there is nothing to return yet; only delivered orders can be returned.",
    "refunded": "Order {id} has no recorded return (status: {status}). Call return_order first, then refund.",
}


class RetailEnv:
    """Four orders and two tools (four with ``extended=True``).

    ``db`` maps order id to status. ``get_order`` only reads; ``cancel_order`` changes state
    and is destructive. With ``policy_in_tool=True`` (exercise 11), ``cancel_order`` itself
    refuses orders that are not pending, so the rule no longer depends on the agent.

    ``extended=True`` adds ``return_order`` (delivered → returned) and ``refund_order``
    (returned → refunded) and uses :data:`POLICY_EXTENDED` as the prompt. Those two check
    their preconditions always: they model a ledger that cannot refund goods that never came
    back, not a rule of the policy.

    Notebooks 02, 06, 08, 10.
    """

    POLICY = POLICY

    def __init__(self, policy_in_tool: bool = False, orders: dict | None = None, extended: bool = False) -> None:
        self.db: dict[str, str] = dict(orders if orders is not None else _WORLD["orders"])
        self.policy_in_tool = policy_in_tool
        self.extended = extended
        if extended:
            self.POLICY = POLICY_EXTENDED
        self.registry = ToolRegistry()
        db = self.db

        def _known(order_id: str) -> None:
            if order_id not in db:
                same = [known for known in db if known.casefold() == str(order_id).strip().casefold()]
                if same:  # notebook 07's rule: an error that can name the fix, names it
                    raise ToolError(f"No order {order_id!r}. Did you mean {same[0]!r}? Order ids are upper case.")
                raise ToolError(
                    f"No order {order_id!r}. Order ids look like "
                    f"{', '.join(sorted(db)[:2])}; check the id with the user, and call again with the id they confirm."
                )

        def _move(order_id: str, status: str, needs: str | None = None) -> dict:
            """Set an order's status; with ``needs``, only from that status, else the tool error
            that says why (``_REFUSALS``, with ``{id}`` and ``{status}`` filled in)."""
            _known(order_id)
            if needs is not None and db[order_id] != needs:
                raise ToolError(_REFUSALS[status].format(id=order_id, status=db[order_id]))
            db[order_id] = status
            return {"order_id": order_id, "status": status}

        def get_order(order_id: str) -> dict:
            """Look up one order by id and return its status. Changes nothing.

            Args:
                order_id: the order's id, such as A1
            """
            _known(order_id)
            return {"order_id": order_id, "status": db[order_id]}

        def cancel_order(order_id: str) -> dict:
            """Cancel one order. Check its status with get_order first: the policy allows
            canceling pending orders only.

            Args:
                order_id: the order's id, such as A1
            """
            return _move(order_id, "canceled", "pending" if self.policy_in_tool else None)

        def return_order(order_id: str) -> dict:
            """Record that a delivered order came back. Do this before refund_order.

            Args:
                order_id: the order's id, such as C1
            """
            return _move(order_id, "returned", "delivered")

        def refund_order(order_id: str) -> dict:
            """Pay back a returned order. Works only after return_order has recorded the return.

            Args:
                order_id: the order's id, such as C1
            """
            return _move(order_id, "refunded", "returned")

        _add(self.registry, get_order, read_only=True)
        _add(self.registry, cancel_order, read_only=False, destructive=True)
        if extended:
            _add(self.registry, return_order, read_only=False)
            _add(self.registry, refund_order, read_only=False, destructive=True)


def mangle_id(order_id: str) -> str:
    """The mock agent's typo: the last character becomes 9 (A1 → A9).

    Notebook 10, through PolicyAgentModel.
    """
    return order_id[:-1] + "9"


class PolicyAgentModel:
    """A mock support agent for one task, with two slip rates.

    For each order it rolls once to decide whether to cancel without looking first
    (``p_skip_check``) and once whether to mangle the id (``p_typo``). Turn 1: look up the
    careful orders and cancel the others blindly. Turn 2: cancel each order the look-ups
    showed as pending. Then it answers "Done.".

    Notebook 10.
    """

    def __init__(self, task: dict, rng: random.Random, p_skip_check: float = 0.2, p_typo: float = 0.05) -> None:
        self.task = task
        self.plan = []
        for order_id in task["orders"]:
            skip = rng.random() < p_skip_check
            typo = rng.random() < p_typo
            self.plan.append((mangle_id(order_id) if typo else order_id, skip))
        self.turn = 0

    def signature(self) -> tuple:
        """Everything the dice decided; equal signatures behave identically in a fresh world."""
        return ("cancel", tuple(self.plan))

    def respond(self, messages: list, tools: list) -> dict:
        self.turn += 1
        if self.turn == 1 and self.plan:
            return {
                "tool_calls": [
                    call(f"c{i}", "cancel_order" if skip else "get_order", order_id=oid)
                    for i, (oid, skip) in enumerate(self.plan)
                ]
            }
        if self.turn == 2:
            pending = [
                _status(m)
                for m in messages
                if m.get("role") == "tool" and m.get("name") == "get_order" and not m.get("is_error")
            ]
            todo = [s["order_id"] for s in pending if s and s.get("status") == "pending"]
            if todo:
                return {"tool_calls": [call(f"k{i}", "cancel_order", order_id=oid) for i, oid in enumerate(todo)]}
        return {"content": "Done."}


class OrderedTaskAgent:
    """A mock agent for a task whose writes must come in a fixed order (task T5).

    It rolls the same two slips as :class:`PolicyAgentModel`, once for the task's order.
    Careful: look the order up, then make each write in ``task["steps"]`` order, one per turn,
    and stop at the first error. Hasty (``p_skip_check``): make every write at once in the
    order the user mentioned them (``task["said"]``), without looking. A mock, not an LLM.

    Notebook 10, through run_retail_trials.
    """

    def __init__(self, task: dict, rng: random.Random, p_skip_check: float = 0.2, p_typo: float = 0.05) -> None:
        self.task = task
        order_id = task["orders"][0]
        self.hasty = rng.random() < p_skip_check
        typo = rng.random() < p_typo
        self.order_id = mangle_id(order_id) if typo else order_id
        self.turn = 0

    def signature(self) -> tuple:
        """Everything the dice decided; equal signatures behave identically in a fresh world."""
        return ("ordered", self.hasty, self.order_id)

    def respond(self, messages: list, tools: list) -> dict:
        self.turn += 1
        oid = self.order_id
        if self.hasty:
            if self.turn == 1:
                return {"tool_calls": [call(f"h{i}", name, order_id=oid) for i, name in enumerate(self.task["said"])]}
            return {"content": "Done."}
        if self.turn == 1:
            return {"tool_calls": [call("c0", "get_order", order_id=oid)]}
        last = next((m for m in reversed(messages) if m.get("role") == "tool"), None)
        if last is None or last.get("is_error"):
            return {"content": "I could not finish: " + (last or {}).get("content", "no result")}
        steps = self.task["steps"]
        done = self.turn - 2  # writes already made
        if done == 0 and (_status(last) or {}).get("status") != "delivered":
            return {"content": "That order has not been delivered, so it cannot be returned yet."}
        if done < len(steps):
            return {"tool_calls": [call(f"s{done}", steps[done], order_id=oid)]}
        return {"content": "Done."}


def make_retail_agent(task: dict, rng: random.Random, p_skip_check: float = 0.2, p_typo: float = 0.05):
    """The mock agent that suits the task: ordered writes or cancellations.

    Notebook 10, through run_retail_trials.
    """
    cls = OrderedTaskAgent if task.get("steps") else PolicyAgentModel
    return cls(task, rng, p_skip_check, p_typo)


def _status(message: dict) -> dict | None:
    try:
        data = json.loads(message["content"])
    except (ValueError, TypeError):
        return None
    return data if isinstance(data, dict) else None


def _trial_rng(seed: int, task_id: str, trial: int) -> random.Random:
    return random.Random(f"{seed}:{task_id}:{trial}")


AgentFactory = Callable[[dict, random.Random, float, float], Any]


def _check_agent(agent: AgentFactory | None) -> None:
    if agent is not None and not callable(agent):
        raise TypeError(
            f"agent must be a callable agent(task, rng, p_skip_check, p_typo) that returns a "
            f"mock model (a class such as PolicyAgentModel works), got {agent!r}"
        )


def run_retail_trial(
    task: dict,
    seed: Any,
    p_skip_check: float = 0.2,
    p_typo: float = 0.05,
    policy_in_tool: bool = False,
    prepare: Callable[[RetailEnv], object] | None = None,
    agent: AgentFactory | None = None,
) -> bool:
    """One trial: a fresh world, the mock agent, then compare the database with the goal.

    A task with ``steps`` (T5) gets the extended world and :class:`OrderedTaskAgent`.
    ``prepare(env)``, if given, changes the fresh world first (exercise 11 wraps a tool there;
    a world of your own adds orders to ``env.db``, tools to ``env.registry`` and sets
    ``env.POLICY``, the prompt). ``agent(task, rng, p_skip_check, p_typo)``, if given, builds
    the mock agent in place of :func:`make_retail_agent` (pack §2.9, assignment Part C).

    Notebook 10, through run_retail_trials.
    """
    env, _ = retail_trial_run(task, seed, p_skip_check, p_typo, policy_in_tool, prepare, agent)
    return env.db == task["goal"]


def retail_trial_run(task, seed, p_skip_check=0.2, p_typo=0.05, policy_in_tool=False, prepare=None, agent=None):
    """The trial :func:`run_retail_trial` scores, returned whole as ``(env, result)``: the
    :class:`RetailEnv` as the run left it and the :class:`AgentResult` (the failure gallery of
    notebook 12 shows both). The arguments are :func:`run_retail_trial`'s.

    Used by: toolkit/lessons/failure_runs.py.
    """
    _check_agent(agent)
    env = RetailEnv(policy_in_tool=policy_in_tool, extended=bool(task.get("steps")))
    if prepare is not None:
        prepare(env)
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    model = (agent or make_retail_agent)(task, rng, p_skip_check, p_typo)
    result = run_agent(model, env.registry, task["instruction"], system=env.POLICY, call_timeout=None, parallel=False)
    return env, result


def retail_outcomes(
    n: int = 8,
    p_skip_check: float = 0.2,
    p_typo: float = 0.05,
    seed: int = 0,
    tasks: Sequence[dict] | None = None,
    policy_in_tool: bool = False,
    memo: dict | None = None,
    prepare: Callable[[RetailEnv], object] | None = None,
    agent: AgentFactory | None = None,
) -> list[list[bool]]:
    """Each trial's pass or fail, per task: ``[[True, False, ...], ...]``.

    Trial ``i`` of a task always uses the same random stream for a seed, so raising ``n``
    only adds trials at the end and never changes the earlier ones.

    ``memo`` (a dict the caller keeps) makes repeated runs fast without changing a result.
    The mock agent rolls all its dice when it is built, and a fresh world is the same every
    time, so a trial's outcome depends only on the task, the policy switch and the agent's
    rolled plan (its ``signature()``). With a memo, each distinct plan runs through the
    harness once; later trials with the same plan reuse that outcome. A task has at most 64
    plans, so the live pass^k explorer redraws in milliseconds. ``prepare`` and ``agent`` (see
    :func:`run_retail_trial`) can change what a world or an agent does, so they turn the memo
    off.

    Notebook 10, through run_retail_trials.
    """
    _check_agent(agent)
    tasks = RETAIL_TASKS if tasks is None else tasks
    if memo is None or prepare is not None or agent is not None:
        return [
            [
                run_retail_trial(t, _trial_rng(seed, t["id"], i), p_skip_check, p_typo, policy_in_tool, prepare, agent)
                for i in range(n)
            ]
            for t in tasks
        ]
    rows = []
    for t in tasks:
        task_key = (json.dumps(t, sort_keys=True), bool(policy_in_tool))
        row = []
        for i in range(n):
            plan = make_retail_agent(t, _trial_rng(seed, t["id"], i), p_skip_check, p_typo).signature()
            key = (task_key, plan)
            if key not in memo:
                memo[key] = run_retail_trial(t, _trial_rng(seed, t["id"], i), p_skip_check, p_typo, policy_in_tool)
            row.append(memo[key])
        rows.append(row)
    return rows


def run_retail_trials(n: int = 8, p_skip_check: float = 0.2, p_typo: float = 0.05, seed: int = 0,
                      tasks: Sequence[dict] | None = None, policy_in_tool: bool = False,
                      prepare: Callable[[RetailEnv], object] | None = None,
                      agent: AgentFactory | None = None) -> list[int]:  # fmt: skip
    """Successes per task out of ``n`` trials; the same seed always gives the same counts.

    ``tasks``, ``prepare`` and ``agent`` let a world, tasks and mock agent of your own run
    through the same trials (see :func:`run_retail_trial`).

    Notebook 10.
    """
    return [
        sum(row)
        for row in retail_outcomes(n, p_skip_check, p_typo, seed, tasks, policy_in_tool, prepare=prepare, agent=agent)
    ]
