"""Exercise 11 (notebook 10, pack §2.9 and §2.11): move the rule into the tool.

The student writes ``enforce_cancel_policy(env)``: it changes one :class:`~toolkit.RetailEnv`
so that its ``cancel_order`` raises :class:`~toolkit.ToolError` for any order that is not
pending. (``RetailEnv(policy_in_tool=True)`` has this built in; the exercise is to write the
rule yourself, so the check asks that the switch stays off.)

The check tries the guarded tool on the pack's orders and on a world it has not shown (new ids,
statuses the policy never names, drawn at check time), on orders whose status changes after
the rule is set up, then reruns the mock agent's trials in guarded worlds and
compares pass^k before and after. The trials are seeded exactly as
:func:`toolkit.run_retail_trials` seeds them, so "after" must equal the built-in switch's
result.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from types import MappingProxyType

from ..data import load_json
from ..lessons.retail import RetailEnv, run_retail_trials
from ..reliability import pass_hat_k
from . import Checker, CheckResult, StudentError, not_done, probe_parts, restore_course_data

__all__ = ["check", "unseen_world", "KS"]

TITLE = "Exercise 11: move the rule into the tool"
KS = (1, 2, 4, 8)
N_TRIALS = 8
_UNKNOWN_WORDS = ("no order", "unknown", "not found", "does not exist", "no such")


_ODD_STATUSES = ("on hold", "returned", "refunded", "lost in transit", "awaiting payment")


def _shown_ids() -> frozenset[str]:
    world = load_json("retail.json")
    tasks = world["tasks"] + world["extended_tasks"]
    return frozenset(world["orders"]) | {t["id"] for t in tasks} | {oid for t in tasks for oid in t["orders"]}


SHOWN_IDS = _shown_ids()
"""Every order and task id notebook 10 prints (A1, B1, T3, ...); an unseen world draws none of them."""
_UNSEEN_IDS = tuple(
    oid for oid in (f"{letter}{n}" for letter in "EFGHJKLMNPQRSTUVWXY" for n in range(2, 99)) if oid not in SHOWN_IDS
)


def unseen_world(rng: random.Random | None = None) -> dict:
    """Orders the notebook never shows, drawn afresh for each check: three ids not in
    :data:`SHOWN_IDS`, one pending order and two with statuses the policy never names. Returns
    {"orders": ..., "pending": id, "others": {id: status}}, so a rule keyed on the ids or
    statuses it has seen always fails.

    Notebook 10, through check.
    """
    rng = rng or random.Random()
    ids = rng.sample(_UNSEEN_IDS, 3)
    others = dict(zip(ids[1:], rng.sample(_ODD_STATUSES, 2)))
    return {"orders": {ids[0]: "pending", **others}, "pending": ids[0], "others": others}


_AS_SHIPPED = MappingProxyType(dict(vars(RetailEnv)))  # RetailEnv's own attributes, as the toolkit defines them
_PATCHED = (
    "enforce_cancel_policy changed the RetailEnv class itself (its {names}), so every world is guarded, "
    "even the ones it is not given, such as the trials' 'before'; change only the env it is given"
)


def _class_changes() -> list[str]:
    """The attributes of RetailEnv that a cell or the rule changed; each is put back at once."""
    now = vars(RetailEnv)
    changed = [k for k, v in _AS_SHIPPED.items() if now.get(k) is not v] + [k for k in now if k not in _AS_SHIPPED]
    for name in changed:
        if name in _AS_SHIPPED:
            setattr(RetailEnv, name, _AS_SHIPPED[name])
        else:
            delattr(RetailEnv, name)
    return changed


def _prepared(c: Checker, enforce: Callable, env: RetailEnv) -> None:
    c.call(enforce, env)
    changed = _class_changes()
    if changed:
        raise StudentError(_PATCHED.format(names=", ".join(changed)))


def _guarded(c: Checker, enforce: Callable, orders: dict | None = None) -> RetailEnv:
    env = RetailEnv(orders=orders)
    _prepared(c, enforce, env)
    return env


class _Watched(RetailEnv):
    """A RetailEnv that notes whenever its built-in switch is turned on after it was made."""

    switched_on = False

    def __setattr__(self, name: str, value: object) -> None:
        if name == "policy_in_tool" and value and "db" in vars(self):
            object.__setattr__(self, "switched_on", True)
        object.__setattr__(self, name, value)


def _cancel(env: RetailEnv, order_id: str):
    return env.registry.run("cancel_order", {"order_id": order_id})


def _row(counts: list[int]) -> str:
    return ", ".join(f"pass^{k} {pass_hat_k(counts, N_TRIALS, k):.3f}" for k in KS)


def _refuses(c: Checker, enforce: Callable, order_id: str, status: str, orders: dict | None = None) -> bool:
    env = _guarded(c, enforce, orders)
    result = _cancel(env, order_id)
    assert result.kind == "tool_error", (
        f"cancel_order({order_id!r}) on an order that is {status!r} gave kind {result.kind!r} "
        f"({result.content[:80]!r}); raise T.ToolError for every status other than 'pending', "
        "including ones you have not seen"
    )
    assert env.db[order_id] == status, (
        f"the tool reported an error but {order_id} is now {env.db[order_id]!r}; check the status before anything changes"
    )
    return True


def _allows(c: Checker, enforce: Callable, order_id: str, orders: dict | None = None) -> bool:
    env = _guarded(c, enforce, orders)
    result = _cancel(env, order_id)
    assert result.ok and env.db[order_id] == "canceled", (
        f"cancel_order({order_id!r}) on a pending order gave {result.kind!r}: "
        f"{result.content[:100]!r}; pending orders must still be canceled"
    )
    return True


def _unseen_orders(c: Checker, enforce: Callable, world: dict) -> bool:
    refused = all(_refuses(c, enforce, oid, status, world["orders"]) for oid, status in world["others"].items())
    return refused and _allows(c, enforce, world["pending"], world["orders"])


def _reads_current_state(c: Checker, enforce: Callable) -> bool:
    env = _guarded(c, enforce)
    env.db["A1"], env.db["A2"] = "shipped", "pending"  # the world changes after the tool was set up
    shipped, pending = _cancel(env, "A1"), _cancel(env, "A2")
    assert shipped.kind == "tool_error" and env.db["A1"] == "shipped", (
        "A1 was shipped after your rule was set up, and cancel_order('A1') still canceled it; "
        "read env.db when the tool is called, not a copy taken when you set it up"
    )
    assert pending.ok and env.db["A2"] == "canceled", (
        f"A2 became pending after your rule was set up, and cancel_order('A2') gave "
        f"{pending.kind!r}: {pending.content[:80]!r}; read env.db when the tool is called, "
        "not a copy taken when you set it up"
    )
    assert _cancel(env, "A2").kind == "tool_error", (
        "canceling A2 a second time succeeded; once canceled it is no longer pending, so "
        "read its status from env.db at each call"
    )
    return True


def _unknown_id(c: Checker, enforce: Callable) -> bool:
    result = _cancel(_guarded(c, enforce), "Z9")
    text = result.content.lower()
    says_unknown = any(w in text for w in _UNKNOWN_WORDS) and "pending" not in text
    assert result.kind == "tool_error" and "Z9" in result.content and says_unknown, (
        f"cancel_order('Z9') (no such order) gave {result.kind!r}: {result.content[:100]!r}; "
        "an unknown id should still get the tool's own 'No order' error, which tells the "
        "model to check the id rather than that the order has the wrong status"
    )
    return True


def _teaches(c: Checker, enforce: Callable, world: dict) -> bool:
    cases = [(None, "A2", "shipped"), (None, "C1", "delivered")]
    cases += [(world["orders"], oid, status) for oid, status in world["others"].items()]
    for orders, order_id, status in cases:
        text = _cancel(_guarded(c, enforce, orders), order_id).content.lower()
        assert status in text or "pending" in text, (
            f"for {order_id}, which is {status}, the model reads {text[:100]!r}; say why (the "
            f"order is {status}, only pending orders can be canceled) so it can tell the user"
        )
    return True


def _own_rule(c: Checker, enforce: Callable) -> bool:
    env = _Watched()
    _prepared(c, enforce, env)
    _cancel(env, "A2"), _cancel(env, "A1")  # the switch may be turned on only while the tool runs
    assert not env.policy_in_tool and not env.switched_on, (
        "you switched on RetailEnv's built-in rule (policy_in_tool=True), if only while cancel_order runs; "
        "write the check in cancel_order yourself, by wrapping or replacing the tool"
    )
    return True


def _trials(c: Checker, enforce: Callable, odds: tuple, state: dict) -> bool:
    p_skip_check, p_typo, seed = odds
    tasks = load_json("retail.json")["tasks"]  # as the data file has them, whatever a cell changed
    before = run_retail_trials(N_TRIALS, p_skip_check, p_typo, seed, tasks)
    after = run_retail_trials(
        N_TRIALS, p_skip_check, p_typo, seed, tasks, prepare=lambda env: _prepared(c, enforce, env)
    )
    builtin = run_retail_trials(N_TRIALS, p_skip_check, p_typo, seed, tasks, policy_in_tool=True)
    state.update(before=before, after=after)
    assert after == builtin, (
        f"successes per task with your rule: {after}; with the rule in the tool they should be "
        f"{builtin}. Some trial ended differently: compare your tool's behaviour with the items above"
    )
    assert all(pass_hat_k(after, N_TRIALS, k) >= pass_hat_k(before, N_TRIALS, k) for k in KS), (
        f"pass^k fell with your rule ({after} against {before} successes); a rule in the tool "
        "should only turn failed trials into passes"
    )
    return True


def _trials_line(state: dict, p_skip_check: float, p_typo: float) -> str:
    return (
        f"Successes per task (mock, p_skip_check={p_skip_check}, p_typo={p_typo}):\n"
        f"  policy only in the prompt {state['before']}: {_row(state['before'])}\n"
        f"  rule in the tool          {state['after']}: {_row(state['after'])}"
    )


def check(
    enforce_cancel_policy: Callable[[RetailEnv], object], p_skip_check: float = 0.2, p_typo: float = 0.05, seed: int = 0
) -> CheckResult:
    """Try the guarded ``cancel_order`` on known and unseen orders, then rerun the trials.

    Notebook 10.
    """
    c = Checker(TITLE)
    restore_course_data(c, "T.RETAIL_TASKS")
    if _class_changes():
        c.note("RetailEnv had been changed in this kernel; the check put the toolkit's own class back.")
    if probe_parts(c, {"enforce_cancel_policy": (enforce_cancel_policy, (RetailEnv(),))})[1]:
        return not_done(TITLE)
    rule, world = enforce_cancel_policy, unseen_world()
    state: dict = {}
    c.run(
        "a shipped order (A2) is refused with a ToolError and stays shipped", lambda: _refuses(c, rule, "A2", "shipped")
    )
    c.run("a delivered order (C1) is refused too", lambda: _refuses(c, rule, "C1", "delivered"))
    c.run("a pending order (A1) is still canceled", lambda: _allows(c, rule, "A1"))
    c.run(
        "in a world you have not seen (new ids, statuses the policy never names), only the pending order can be canceled",
        lambda: _unseen_orders(c, rule, world),
    )
    c.run(
        "the rule reads each order's status when the tool is called (an order that changes "
        "later, or is canceled twice, is judged by its status now)",
        lambda: _reads_current_state(c, rule),
    )
    c.run("an unknown id still gets the tool's own error", lambda: _unknown_id(c, rule))
    c.run(
        "each refusal tells the model why (it names the order's status, or says only pending orders qualify)",
        lambda: _teaches(c, rule, world),
    )
    c.run("the rule is yours: RetailEnv's built-in switch stays off", lambda: _own_rule(c, rule))
    c.run(
        f"rerun with your tool, pass^k is at least as high for every k and matches a correct rule "
        f"({N_TRIALS} trials × 3 tasks, mock agent)",
        lambda: _trials(c, rule, (p_skip_check, p_typo, seed), state),
    )
    result = c.done()
    if "after" in state and result.status == "checked":
        line = _trials_line(state, p_skip_check, p_typo)
        print(line)
        result.lines.append(line)
    return result
