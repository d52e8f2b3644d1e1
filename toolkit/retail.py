"""A tiny τ-bench-style world: orders, a written policy, and a mock agent that slips.

Pack §2.9 (τ-bench: judge the final database state, not the words) and §2.11 (two failures
shown on purpose). The policy lives in the prompt, and by default the tools do not enforce it,
so an agent that cancels without looking can break it. ``PolicyAgentModel`` is a mock with
two slip rates chosen by us, not measured from any real model.
"""

from __future__ import annotations

import json
import random
from typing import Any, Sequence

from .data import load_json
from .loop import call, run_agent
from .registry import ToolError, ToolRegistry

__all__ = ["RetailEnv", "RETAIL_TASKS", "POLICY", "PolicyAgentModel", "run_retail_trial",
           "run_retail_trials", "mangle_id"]

_WORLD = load_json("retail.json")
POLICY: str = _WORLD["policy"]
RETAIL_TASKS: list[dict] = _WORLD["tasks"]


class RetailEnv:
    """Four orders and two tools.

    ``db`` maps order id to status. ``get_order`` only reads; ``cancel_order`` changes state
    and is destructive. With ``policy_in_tool=True`` (exercise 11), ``cancel_order`` itself
    refuses orders that are not pending, so the rule no longer depends on the agent.
    """

    POLICY = POLICY

    def __init__(self, policy_in_tool: bool = False, orders: dict | None = None) -> None:
        self.db: dict[str, str] = dict(orders if orders is not None else _WORLD["orders"])
        self.policy_in_tool = policy_in_tool
        self.registry = ToolRegistry()
        db = self.db

        def _known(order_id: str) -> None:
            if order_id not in db:
                raise ToolError(f"No order {order_id!r}. Order ids look like "
                                f"{', '.join(sorted(db)[:2])}; check the id with the user.")

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
            _known(order_id)
            if self.policy_in_tool and db[order_id] != "pending":
                raise ToolError(f"Order {order_id} is {db[order_id]}; only pending orders can be "
                                "canceled. Tell the user it cannot be canceled.")
            db[order_id] = "canceled"
            return {"order_id": order_id, "status": "canceled"}

        self.registry.add(get_order, read_only=True)
        self.registry.add(cancel_order, read_only=False, destructive=True)


def mangle_id(order_id: str) -> str:
    """The mock agent's typo: the last character becomes 9 (A1 → A9)."""
    return order_id[:-1] + "9"


class PolicyAgentModel:
    """A mock support agent for one task, with two slip rates.

    For each order it rolls once to decide whether to cancel without looking first
    (``p_skip_check``) and once whether to mangle the id (``p_typo``). Turn 1: look up the
    careful orders and cancel the others blindly. Turn 2: cancel each order the look-ups
    showed as pending. Then it answers "Done.".
    """

    def __init__(self, task: dict, rng: random.Random, p_skip_check: float = 0.2, p_typo: float = 0.05) -> None:
        self.task = task
        self.plan = []
        for order_id in task["orders"]:
            skip = rng.random() < p_skip_check
            typo = rng.random() < p_typo
            self.plan.append((mangle_id(order_id) if typo else order_id, skip))
        self.turn = 0

    def respond(self, messages: list, tools: list) -> dict:
        self.turn += 1
        if self.turn == 1 and self.plan:
            return {"tool_calls": [
                call(f"c{i}", "cancel_order" if skip else "get_order", order_id=oid)
                for i, (oid, skip) in enumerate(self.plan)]}
        if self.turn == 2:
            pending = [_status(m) for m in messages if m.get("role") == "tool"
                       and m.get("name") == "get_order" and not m.get("is_error")]
            todo = [s["order_id"] for s in pending if s and s.get("status") == "pending"]
            if todo:
                return {"tool_calls": [call(f"k{i}", "cancel_order", order_id=oid)
                                       for i, oid in enumerate(todo)]}
        return {"content": "Done."}


def _status(message: dict) -> dict | None:
    try:
        data = json.loads(message["content"])
    except (ValueError, TypeError):
        return None
    return data if isinstance(data, dict) else None


def _trial_rng(seed: int, task_id: str, trial: int) -> random.Random:
    return random.Random(f"{seed}:{task_id}:{trial}")


def run_retail_trial(task: dict, seed: Any, p_skip_check: float = 0.2, p_typo: float = 0.05,
                     policy_in_tool: bool = False) -> bool:
    """One trial: a fresh world, the mock agent, then compare the database with the goal."""
    env = RetailEnv(policy_in_tool=policy_in_tool)
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    model = PolicyAgentModel(task, rng, p_skip_check, p_typo)
    run_agent(model, env.registry, task["instruction"], system=env.POLICY,
              call_timeout=None, parallel=False)
    return env.db == task["goal"]


def run_retail_trials(n: int = 8, p_skip_check: float = 0.2, p_typo: float = 0.05, seed: int = 0,
                      tasks: Sequence[dict] | None = None, policy_in_tool: bool = False) -> list[int]:
    """Successes per task out of ``n`` trials; the same seed always gives the same counts."""
    tasks = RETAIL_TASKS if tasks is None else tasks
    return [sum(run_retail_trial(t, _trial_rng(seed, t["id"], i), p_skip_check, p_typo, policy_in_tool)
                for i in range(n))
            for t in tasks]
