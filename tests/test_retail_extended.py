"""The extended retail world (pack §2.9), the course's worked example behind notebook 10's
explorer and notebook 12's run F5, and the trial functions as building blocks for a world of
one's own (the assignment's Part C, pack §7)."""

import random

import pytest

import toolkit as T
from toolkit.lessons import retail
from toolkit.lessons.retail import (
    RETAIL_TASKS_EXTENDED,
    OrderedTaskAgent,
    RetailEnv,
    make_retail_agent,
    retail_outcomes,
    run_retail_trial,
    run_retail_trials,
)
from toolkit.schema import schema_from_function


def test_the_pack_tasks_are_untouched_and_the_extended_list_adds_an_ordered_task():
    assert [t["id"] for t in T.RETAIL_TASKS] == ["T1", "T2", "T3"]
    assert RETAIL_TASKS_EXTENDED[:3] == T.RETAIL_TASKS
    assert len(RETAIL_TASKS_EXTENDED) >= 5
    ordered = [t for t in RETAIL_TASKS_EXTENDED if t.get("steps")]
    assert ordered, "one task must need two calls in a fixed order"
    task = ordered[0]
    assert len(task["steps"]) == 2 and task["said"] != task["steps"]
    for t in RETAIL_TASKS_EXTENDED:  # every goal is a full database state
        assert set(t["goal"]) == set(RetailEnv().db)


def test_cached_tool_schemas_equal_freshly_built_ones_and_are_not_shared():
    env, other = RetailEnv(extended=True), RetailEnv(extended=True)
    assert env.registry.names() == ["get_order", "cancel_order", "return_order", "refund_order"]
    assert RetailEnv().registry.names() == ["get_order", "cancel_order"]
    for tool in env.registry:
        fresh = schema_from_function(tool.fn)
        assert tool.schema() == fresh
    env.registry.get("get_order").input_schema["properties"]["order_id"]["type"] = "integer"
    assert other.registry.get("get_order").input_schema["properties"]["order_id"]["type"] == "string"


def test_run_retail_trials_is_the_sum_of_single_trials_with_the_documented_random_stream():
    for seed in (0, 3):
        expected = [
            sum(run_retail_trial(t, random.Random(f"{seed}:{t['id']}:{i}"), 0.3, 0.1) for i in range(6))
            for t in RETAIL_TASKS_EXTENDED
        ]
        assert run_retail_trials(6, 0.3, 0.1, seed, RETAIL_TASKS_EXTENDED) == expected
    # the pack's three tasks give the same counts whether or not the extra tasks are run
    assert run_retail_trials(8, seed=0) == run_retail_trials(8, seed=0, tasks=RETAIL_TASKS_EXTENDED)[:3]


def test_more_trials_only_add_rows_at_the_end():
    short = retail_outcomes(5, 0.4, 0.1, 2, RETAIL_TASKS_EXTENDED)
    long = retail_outcomes(12, 0.4, 0.1, 2, RETAIL_TASKS_EXTENDED)
    assert [row[:5] for row in long] == short


def test_return_and_refund_tools_check_their_order():
    env = RetailEnv(extended=True)
    early = env.registry.run("refund_order", {"order_id": "C1"})
    assert early.kind == "tool_error" and "return_order first" in early.content
    assert env.db["C1"] == "delivered"
    assert env.registry.run("return_order", {"order_id": "C1"}).ok
    assert env.registry.run("refund_order", {"order_id": "C1"}).ok and env.db["C1"] == "refunded"
    pending = env.registry.run("return_order", {"order_id": "A1"})
    assert pending.kind == "tool_error" and env.db["A1"] == "pending"


def _t5():
    return next(t for t in RETAIL_TASKS_EXTENDED if t.get("steps"))


def test_careful_agent_does_the_ordered_task_in_order_and_hasty_one_breaks_it():
    task = _t5()
    env = RetailEnv(extended=True)
    result = T.run_agent(
        OrderedTaskAgent(task, random.Random(0), p_skip_check=0, p_typo=0),
        env.registry,
        task["instruction"],
        system=env.POLICY,
        call_timeout=None,
    )
    names = [m["tool_calls"][0]["name"] for m in result.messages if m.get("tool_calls")]
    assert names == ["get_order", "return_order", "refund_order"]
    assert env.db == task["goal"]

    env = RetailEnv(extended=True)
    hasty = OrderedTaskAgent(task, random.Random(0), p_skip_check=1, p_typo=0)
    T.run_agent(hasty, env.registry, task["instruction"], call_timeout=None, parallel=False)
    assert env.db != task["goal"] and env.db["C1"] == "returned"


def test_a_typo_stops_the_careful_agent_before_any_write():
    task = _t5()
    env = RetailEnv(extended=True)
    result = T.run_agent(
        OrderedTaskAgent(task, random.Random(0), 0, 1), env.registry, task["instruction"], call_timeout=None
    )
    assert env.db == RetailEnv().db and "could not finish" in result.final


@pytest.mark.parametrize("policy_in_tool", [False, True])
def test_a_careful_agent_passes_every_extended_task(policy_in_tool):
    counts = run_retail_trials(6, 0, 0, 1, RETAIL_TASKS_EXTENDED, policy_in_tool)
    assert counts == [6] * len(RETAIL_TASKS_EXTENDED)


def test_skipping_checks_hurts_and_the_policy_in_the_tool_protects_cancel_tasks():
    careless = run_retail_trials(16, 0.6, 0, 0, RETAIL_TASKS_EXTENDED)
    guarded = run_retail_trials(16, 0.6, 0, 0, RETAIL_TASKS_EXTENDED, policy_in_tool=True)
    ids = [t["id"] for t in RETAIL_TASKS_EXTENDED]
    assert careless[ids.index("T3")] < 16 and guarded[ids.index("T3")] == 16
    # the ordered task fails on its own order, which the cancel rule cannot help
    assert guarded[ids.index("T5")] == careless[ids.index("T5")] < 16
    assert T.pass_hat_k(guarded, 16, 4) > T.pass_hat_k(careless, 16, 4)


def test_make_retail_agent_picks_the_agent_by_task_kind():
    rng = random.Random(1)
    assert isinstance(make_retail_agent(_t5(), rng), OrderedTaskAgent)
    assert isinstance(make_retail_agent(T.RETAIL_TASKS[0], rng), retail.PolicyAgentModel)


def test_the_plan_memo_gives_exactly_the_unmemoized_outcomes():
    memo: dict = {}
    for args in [(24, 0.3, 0.05, 0, False), (24, 0.7, 0.2, 3, True), (9, 1.0, 0.5, 1, False), (16, 0.0, 0.0, 2, True)]:
        n, p_skip, p_typo, seed, in_tool = args
        plain = retail_outcomes(n, p_skip, p_typo, seed, RETAIL_TASKS_EXTENDED, in_tool)
        assert retail_outcomes(n, p_skip, p_typo, seed, RETAIL_TASKS_EXTENDED, in_tool, memo=memo) == plain
    # far fewer harness runs than trials: a plan is everything the dice decided
    assert 0 < len(memo) < sum(a[0] for a in [(24,), (24,), (9,), (16,)]) * len(RETAIL_TASKS_EXTENDED)


def test_agents_with_equal_signatures_make_the_same_calls():
    task = RETAIL_TASKS_EXTENDED[3]  # three orders
    seen: dict = {}
    for seed in range(40):
        agent = make_retail_agent(task, random.Random(seed), 0.5, 0.3)
        env = RetailEnv()
        result = T.run_agent(agent, env.registry, task["instruction"], call_timeout=None, parallel=False)
        calls = [(c["name"], c["arguments"]) for m in result.messages for c in m.get("tool_calls") or []]
        fresh = make_retail_agent(task, random.Random(seed), 0.5, 0.3).signature()
        assert seen.setdefault(fresh, calls) == calls
    assert len(seen) > 3


# ---- the building blocks carry a student's own world (notebook 12, Part C's "Reuse") ---------


def _pack_then_ship(env):
    """A student's own world: two new tools, a policy of its own, one more order."""
    db = env.db
    db["D1"] = "paid"

    def pack_order(order_id: str) -> dict:
        """Pack a paid order.

        Args:
            order_id: the order's id, such as D1
        """
        if db.get(order_id) != "paid":
            raise T.ToolError(f"Order {order_id} is {db.get(order_id)}; only paid orders can be packed.")
        db[order_id] = "packed"
        return {"order_id": order_id, "status": "packed"}

    def ship_order(order_id: str) -> dict:
        """Ship a packed order.

        Args:
            order_id: the order's id, such as D1
        """
        # The policy, not the tool, says to pack first: an unpacked order ships loose.
        db[order_id] = "shipped" if db.get(order_id) == "packed" else "shipped loose"
        return {"order_id": order_id, "status": db[order_id]}

    env.registry.add(pack_order, read_only=False)
    env.registry.add(ship_order, read_only=False)
    env.POLICY = "Pack an order before you ship it."


class _ShipAgent:
    """The student's mock: careful, it packs then ships; hasty, it ships first."""

    def __init__(self, task, rng, p_skip_check, p_typo):
        self.hasty = rng.random() < p_skip_check
        self.turn = 0

    def respond(self, messages, tools):
        self.turn += 1
        order = ["ship_order", "pack_order"] if self.hasty else ["pack_order", "ship_order"]
        if self.turn <= 2:
            return {"tool_calls": [T.call(f"c{self.turn}", order[self.turn - 1], order_id="D1")]}
        return {"content": "Done."}


SHIP_TASK = {
    "id": "S1",
    "orders": ["D1"],
    "instruction": "Please ship D1.",
    "goal": {**RetailEnv().db, "D1": "shipped"},
}


def test_a_world_task_and_mock_agent_of_ones_own_run_through_run_retail_trials():
    careful = run_retail_trials(16, 0.0, 0.0, 0, [SHIP_TASK], prepare=_pack_then_ship, agent=_ShipAgent)
    hasty = run_retail_trials(16, 1.0, 0.0, 0, [SHIP_TASK], prepare=_pack_then_ship, agent=_ShipAgent)
    assert careful == [16] and hasty == [0]
    some = retail_outcomes(16, 0.5, 0.0, 7, [SHIP_TASK], prepare=_pack_then_ship, agent=_ShipAgent)
    assert some == retail_outcomes(16, 0.5, 0.0, 7, [SHIP_TASK], prepare=_pack_then_ship, agent=_ShipAgent)
    assert 0 < sum(some[0]) < 16  # the dice decide, the same way for the same seed


def test_an_agent_that_is_not_a_factory_gets_a_clear_error():
    with pytest.raises(TypeError, match="agent must be a callable"):
        run_retail_trials(2, tasks=[SHIP_TASK], prepare=_pack_then_ship, agent="careful")
