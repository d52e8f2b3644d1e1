"""pass^k, pass@k, and the τ-bench-style retail world (pack §2.9, §2.11; API.md §5)."""

import random
from math import comb

import pytest

import toolkit as T


def test_the_pack_hand_example():
    """n = 4 runs, c = 3 successes, k = 2 (the pack's own arithmetic)."""
    assert T.pass_hat_k([3], 4, 2) == 0.5
    assert T.pass_at_k([3], 4, 2) == 1.0


def test_pass_hat_k_and_pass_at_k_formulas_and_edges():
    counts, n = [8, 4, 0, 7], 8
    for k in range(1, n + 1):
        hat = sum(comb(c, k) / comb(n, k) for c in counts) / 4
        at = sum(1 - comb(n - c, k) / comb(n, k) for c in counts) / 4
        assert T.pass_hat_k(counts, n, k) == pytest.approx(hat)
        assert T.pass_at_k(counts, n, k) == pytest.approx(at)
    assert T.pass_hat_k(counts, n, 1) == T.pass_at_k(counts, n, 1) == pytest.approx(19 / 32)
    # pass^k never rises with k; pass@k never falls
    hats = [T.pass_hat_k(counts, n, k) for k in range(1, n + 1)]
    ats = [T.pass_at_k(counts, n, k) for k in range(1, n + 1)]
    assert hats == sorted(hats, reverse=True) and ats == sorted(ats)


@pytest.mark.parametrize(
    "args",
    [([3], 4, 5), ([3], 4, 0), ([5], 4, 2), ([-1], 4, 1), ([], 4, 1), ([1], 0, 1), ([1.5], 4, 1), ([True], 4, 1)],
)
def test_bad_inputs_raise_value_error(args):
    with pytest.raises(ValueError):
        T.pass_hat_k(*args)
    with pytest.raises(ValueError):
        T.pass_at_k(*args)


def test_tau_bench_leaderboard_row_is_reproduced_from_per_task_counts():
    """gpt-4o on τ-airline, 4 trials × 50 tasks [5]: the published pass^1..4 come back."""
    data = T.load_taubench()
    assert len(data["successes"]) == 50 and data["trials_per_task"] == 4
    for k in (1, 2, 3, 4):
        got = T.pass_hat_k(data["successes"], 4, k)
        assert round(got, 3) == pytest.approx(data["leaderboard_row"][f"pass^{k}"], abs=0.0015)


def test_retail_world_and_its_tools():
    env = T.RetailEnv()
    assert env.db == {"A1": "pending", "A2": "shipped", "B1": "pending", "C1": "delivered"}
    assert (
        T.RetailEnv.POLICY
        == T.POLICY
        == ("Cancel an order only if its status is 'pending'. Never cancel a shipped order.")
    )
    get, cancel = env.registry.get("get_order"), env.registry.get("cancel_order")
    assert get.read_only and not cancel.read_only and cancel.destructive
    assert env.registry.run("get_order", {"order_id": "A2"}).data == {"order_id": "A2", "status": "shipped"}
    missing = env.registry.run("get_order", {"order_id": "A9"})
    assert missing.kind == "tool_error" and "A9" in missing.content
    # the tools do not enforce the policy: a shipped order can be canceled
    assert env.registry.run("cancel_order", {"order_id": "A2"}).ok and env.db["A2"] == "canceled"
    strict = T.RetailEnv(policy_in_tool=True)
    refused = strict.registry.run("cancel_order", {"order_id": "A2"})
    assert refused.kind == "tool_error" and strict.db["A2"] == "shipped"


def test_retail_tasks_match_the_pack():
    assert [t["id"] for t in T.RETAIL_TASKS] == ["T1", "T2", "T3"]
    t1, t2, t3 = T.RETAIL_TASKS
    base = {"A1": "pending", "A2": "shipped", "B1": "pending", "C1": "delivered"}
    assert t1["goal"] == {**base, "A1": "canceled"}
    assert t2["goal"] == {**base, "B1": "canceled"}
    assert t3["goal"] == base


def test_policy_agent_turns():
    task = T.RETAIL_TASKS[0]
    careful = T.PolicyAgentModel(task, random.Random(0), p_skip_check=0.0, p_typo=0.0)
    first = careful.respond([], [])
    assert [(c["name"], c["arguments"]) for c in first["tool_calls"]] == [
        ("get_order", {"order_id": "A1"}),
        ("get_order", {"order_id": "A2"}),
    ]
    careless = T.PolicyAgentModel(task, random.Random(0), p_skip_check=1.0, p_typo=0.0)
    assert [c["name"] for c in careless.respond([], [])["tool_calls"]] == ["cancel_order", "cancel_order"]
    typo = T.PolicyAgentModel(task, random.Random(0), p_skip_check=0.0, p_typo=1.0)
    assert [c["arguments"]["order_id"] for c in typo.respond([], [])["tool_calls"]] == ["A9", "A9"]


def test_careful_agent_always_passes_and_careless_always_fails_t3():
    assert T.run_retail_trials(n=6, p_skip_check=0.0, p_typo=0.0) == [6, 6, 6]
    careless = T.run_retail_trials(n=6, p_skip_check=1.0, p_typo=0.0)
    assert careless[2] == 0 and careless[1] == 6
    for seed in range(5):
        assert T.run_retail_trial(T.RETAIL_TASKS[2], seed, p_skip_check=1.0, p_typo=0.0) is False
        assert T.run_retail_trial(T.RETAIL_TASKS[1], seed, p_skip_check=0.0, p_typo=0.0) is True


def test_a_mangled_id_makes_the_run_miss_its_goal():
    """Pack §2.11: the look-up fails, no cancel follows, the goal is missed."""
    assert T.run_retail_trials(n=4, p_skip_check=0.0, p_typo=1.0) == [0, 0, 4]


def test_trials_are_reproducible_for_a_seed_and_differ_across_seeds():
    a = T.run_retail_trials(n=8, seed=0)
    assert a == T.run_retail_trials(n=8, seed=0)
    assert len(a) == 3 and all(0 <= c <= 8 for c in a)
    runs = {tuple(T.run_retail_trials(n=8, seed=s)) for s in range(6)}
    assert len(runs) > 1


def test_moving_the_policy_into_the_tool_raises_pass_k():
    """Exercise 11: with the rule in cancel_order, blind cancels of shipped orders fail safely."""
    n = 16
    prompt_only = T.run_retail_trials(n=n, p_skip_check=0.5, p_typo=0.0, seed=1)
    in_tool = T.run_retail_trials(n=n, p_skip_check=0.5, p_typo=0.0, seed=1, policy_in_tool=True)
    assert in_tool == [n, n, n]
    assert T.pass_hat_k(in_tool, n, 4) > T.pass_hat_k(prompt_only, n, 4)
