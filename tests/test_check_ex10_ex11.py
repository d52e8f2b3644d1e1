"""The checks of exercises 10 and 11 (toolkit/checks/ex10.py, ex11.py; notebook 10). What every check test holds: tests/conftest.py."""

import json
import random
import re
from fractions import Fraction
from math import comb

import pytest
from exercise_helpers import NOTEBOOKS, assert_fails_with_sentence, assert_not_done, boom

import toolkit as T
from toolkit.checks import ex10, ex11
from toolkit.data import load_json

# --------------------------------------------------------------------------------- exercise 10


def ex10_check(ns, **overrides):
    args = dict(
        passk_table=ns["passk_table"],
        my_pass2_by_hand=ns["my_pass2_by_hand"],
        p_skip_check=ns["P_SKIP_CHECK"],
        p_typo=ns["P_TYPO"],
    )
    args.update(overrides)
    return ex10.check(
        args["passk_table"], args["my_pass2_by_hand"], args["p_skip_check"], args["p_typo"], seed=ns["SEED"]
    )


def test_ex10_solution_passes(nb10_solution):
    result = ex10_check(nb10_solution)
    assert result.ok, result.text
    assert "0.9^8 = 0.430" in result.text and "our own arithmetic" in result.text.lower()


def test_ex10_starter_is_not_done(nb10_starter, capsys):
    assert_not_done(ex10_check(nb10_starter), capsys)


def test_ex10_half_done_is_not_passed(nb10_solution, nb10_starter):
    result = ex10_check(nb10_solution, my_pass2_by_hand=nb10_starter["my_pass2_by_hand"])
    assert_fails_with_sentence(result, "my_pass2_by_hand is written")


def test_ex10_wrong_tables_fail(nb10_solution):
    def pass_at_instead(p_skip_check, p_typo):
        wins = T.run_retail_trials(n=8, p_skip_check=p_skip_check, p_typo=p_typo, seed=0)
        return [T.pass_at_k(wins, 8, k) for k in range(1, 9)]

    assert_fails_with_sentence(ex10_check(nb10_solution, passk_table=pass_at_instead), "T.pass_hat_k")

    def other_seed(p_skip_check, p_typo):
        wins = T.run_retail_trials(n=8, p_skip_check=p_skip_check, p_typo=p_typo, seed=7)
        return [T.pass_hat_k(wins, 8, k) for k in range(1, 9)]

    assert_fails_with_sentence(ex10_check(nb10_solution, passk_table=other_seed), "seed=SEED")

    def defaults_only(p_skip_check, p_typo):  # ignores its arguments
        return ex10.reference_table(0.2, 0.05)

    result = ex10_check(nb10_solution, passk_table=defaults_only)
    assert_fails_with_sentence(result, "settings you have not seen")
    assert_fails_with_sentence(ex10_check(nb10_solution, passk_table=lambda a, b: [0.5] * 7), "8 numbers")
    assert_fails_with_sentence(ex10_check(nb10_solution, passk_table=lambda a, b: {0: 1.0}), "k = 1 to 8")
    as_dict = ex10_check(nb10_solution, passk_table=lambda a, b: dict(enumerate(ex10.reference_table(a, b), 1)))
    assert as_dict.ok, as_dict.text


def test_ex10_settings_and_hand_arithmetic(nb10_solution):
    assert_fails_with_sentence(ex10_check(nb10_solution, p_skip_check=0.2, p_typo=0.05), "still the defaults")
    assert_fails_with_sentence(ex10_check(nb10_solution, p_skip_check=1.5), "from 0 to 1")
    c = T.run_retail_trials(n=8, p_skip_check=0.5, p_typo=0.1, seed=0)[2]

    def wrong_count():
        return {"task": "T3", "successes": c + 1, "pass2": comb(c + 1, 2) / 28}

    assert_fails_with_sentence(ex10_check(nb10_solution, my_pass2_by_hand=wrong_count), f"succeeded {c} times")

    def pass_at_by_hand():
        return {"task": "T3", "successes": c, "pass2": 1 - comb(8 - c, 2) / 28}

    assert_fails_with_sentence(ex10_check(nb10_solution, my_pass2_by_hand=pass_at_by_hand), "C(8, 2)")
    assert_fails_with_sentence(
        ex10_check(nb10_solution, my_pass2_by_hand=lambda: {"task": "T9", "successes": 1, "pass2": 0}), "not a task"
    )
    assert_fails_with_sentence(ex10_check(nb10_solution, my_pass2_by_hand=lambda: (1, 2)), "'successes'")
    rounded = ex10_check(
        nb10_solution, my_pass2_by_hand=lambda: {"task": "T3", "successes": c, "pass2": round(comb(c, 2) / 28, 2)}
    )
    assert rounded.status == "checked"  # rounding to 2 places may be off by more than the tolerance


def test_ex10_never_raises(nb10_solution):
    for fn in (boom, lambda a, b: None, lambda a, b: ["x"] * 8, lambda a, b: [True] * 8, 42):
        result = ex10_check(nb10_solution, passk_table=fn)
        assert result.status == "checked" and not result.ok
    for hand in (boom, lambda: None, lambda: {"task": "T1", "successes": 8, "pass2": "half"}):
        result = ex10_check(nb10_solution, my_pass2_by_hand=hand)
        assert result.status == "checked" and not result.ok
    assert ex10_check(nb10_solution, p_skip_check="lots", p_typo=None).status == "checked"


# --------------------------------------------------------------------------------- exercise 11


def test_ex11_a_prepared_world_runs_the_same_trials_as_the_builtin_switch():
    """The check compares a student's prepare(env) with policy_in_tool=True trial for trial."""
    for settings in [(0.2, 0.05), (0.5, 0.2), (1.0, 0.0)]:
        assert T.run_retail_trials(8, *settings, seed=3, prepare=lambda env: None) == T.run_retail_trials(
            8, *settings, seed=3
        )
    builtin = T.run_retail_trials(8, 0.5, 0.2, prepare=lambda env: setattr(env, "policy_in_tool", True))
    assert builtin == T.run_retail_trials(8, 0.5, 0.2, policy_in_tool=True)


def test_ex11_solution_passes(nb10_solution):
    result = ex11.check(nb10_solution["enforce_cancel_policy"], p_skip_check=0.5, p_typo=0.2)
    assert result.ok, result.text
    assert "policy only in the prompt" in result.text and "rule in the tool" in result.text


def test_ex11_starter_is_not_done(nb10_starter, capsys):
    assert_not_done(ex11.check(nb10_starter["enforce_cancel_policy"]), capsys)


def _wrap(env, rule, message="Order {oid} is {status}; only pending orders can be canceled."):
    tool = env.registry.get("cancel_order")
    plain = tool.fn

    def cancel_order(order_id):
        status = env.db.get(order_id)
        if status is not None and rule(status):
            raise T.ToolError(message.format(oid=order_id, status=status))
        return plain(order_id)

    tool.fn = cancel_order


def test_ex11_wrong_rules_fail():
    assert_fails_with_sentence(
        ex11.check(lambda env: _wrap(env, lambda s: s in ("shipped", "delivered"))),
        "a world you have not seen",
        "other than 'pending'",
    )
    assert_fails_with_sentence(ex11.check(lambda env: _wrap(env, lambda s: s == "shipped")), "delivered order")
    assert_fails_with_sentence(
        ex11.check(lambda env: _wrap(env, lambda s: True)), "pending orders must still", "Some trial ended differently"
    )
    assert_fails_with_sentence(ex11.check(lambda env: _wrap(env, lambda s: s != "pending", "Refused.")), "say why")
    assert_fails_with_sentence(ex11.check(lambda env: setattr(env, "policy_in_tool", True)), "built-in rule")

    def swallows_errors(env):
        tool = env.registry.get("cancel_order")

        def cancel_order(order_id):
            if env.db.get(order_id) != "pending":
                raise T.ToolError(f"Order {order_id} cannot be canceled: it is not pending.")
            env.db[order_id] = "canceled"
            return {"order_id": order_id}

        tool.fn = cancel_order

    assert_fails_with_sentence(ex11.check(swallows_errors), "'No order'")

    def changes_first(env):
        tool = env.registry.get("cancel_order")
        plain = tool.fn

        def cancel_order(order_id):
            before = env.db.get(order_id)
            out = plain(order_id)
            if before != "pending":
                raise T.ToolError(f"Order {order_id} was {before}; only pending orders can be canceled.")
            return out

        tool.fn = cancel_order

    assert_fails_with_sentence(ex11.check(changes_first), "before anything changes")
    assert_fails_with_sentence(ex11.check(lambda env: None), "kind 'ok'")


def test_ex11_never_raises():
    for fn in (boom, 42, lambda env: env.registry.register(env.registry.get("get_order"))):
        result = ex11.check(fn)
        assert result.status == "checked" and not result.ok


# ---------------------------------------------- exercise 10/11: cheap wrong answers, other right ones
#
# Issue 10, points 3 and 4: each wrong answer below is one a hurried student writes; each right
# answer is written differently from the notebook's solution.


def _table(p_skip_check, p_typo):
    wins = T.run_retail_trials(n=8, p_skip_check=p_skip_check, p_typo=p_typo, seed=0)
    return [T.pass_hat_k(wins, 8, k) for k in range(1, 9)]


def test_ex10_tables_that_ignore_one_argument_fail(nb10_solution):
    ignores_typo = lambda p_skip_check, p_typo: _table(p_skip_check, 0.05)  # noqa: E731
    ignores_skip = lambda p_skip_check, p_typo: _table(0.2, p_typo)  # noqa: E731
    for table in (ignores_typo, ignores_skip):
        assert_fails_with_sentence(ex10_check(nb10_solution, passk_table=table), "settings you have not seen")


def test_ex10_a_table_that_knows_only_the_printed_settings_fails(nb10_solution):
    known = {s: _table(*s) for s in (ex10.DEFAULTS, *ex10.UNSEEN_SETTINGS, (0.5, 0.1))}

    def lookup(p_skip_check, p_typo):  # right on every setting it can read, zeros elsewhere
        return known.get((p_skip_check, p_typo), [0.0] * 8)

    assert_fails_with_sentence(ex10_check(nb10_solution, passk_table=lookup), "settings you have not seen")


def test_ex10_unseen_settings_move_each_rate_on_its_own():
    drawn = ex10.unseen_settings(random.Random(1))[len(ex10.UNSEEN_SETTINGS) :]
    assert [s[1] for s in drawn][0] == ex10.DEFAULTS[1] and drawn[0][0] != ex10.DEFAULTS[0]
    assert drawn[1][0] == ex10.DEFAULTS[0] and drawn[1][1] != ex10.DEFAULTS[1]
    assert not hasattr(ex10, "HIDDEN_SETTINGS")  # what a student can print is not "hidden"


@pytest.mark.parametrize("task", ["T2"])
def test_ex10_hand_calculation_on_a_task_that_always_succeeds_is_rejected(nb10_solution, task):
    counts = T.run_retail_trials(n=8, p_skip_check=0.5, p_typo=0.1, seed=0)
    c = counts[int(task[1]) - 1]
    assert c == 8  # at the notebook's rates T2 never fails: C(8, 2) / C(8, 2) = 1, nothing to work out
    result = ex10_check(nb10_solution, my_pass2_by_hand=lambda: {"task": task, "successes": c, "pass2": 1.0})
    assert_fails_with_sentence(result, "nothing to work out", "between 2 and 7")


def test_ex10_hand_calculation_on_a_task_that_never_succeeds_is_rejected(nb10_solution):
    counts = T.run_retail_trials(n=8, p_skip_check=1.0, p_typo=0.0, seed=0)
    task = f"T{counts.index(0) + 1}"
    result = ex10_check(
        nb10_solution, p_skip_check=1.0, p_typo=0.0, my_pass2_by_hand=lambda: {"task": task, "successes": 0, "pass2": 0}
    )
    assert_fails_with_sentence(result, "nothing to work out")


def test_ex10_fractions_and_other_spellings_are_accepted(nb10_solution):
    c = T.run_retail_trials(n=8, p_skip_check=0.5, p_typo=0.1, seed=0)[2]

    def exact_hand():  # exact arithmetic, task id in lower case
        return {"task": "t3", "successes": c, "pass2": Fraction(comb(c, 2), comb(8, 2))}

    def exact_table(p_skip_check, p_typo):  # pass^k from the outcomes, as Fractions
        rows = T.retail_outcomes(n=8, p_skip_check=p_skip_check, p_typo=p_typo, seed=0)
        return [sum(Fraction(comb(sum(r), k), comb(8, k)) for r in rows) / len(rows) for k in range(1, 9)]

    result = ex10_check(
        nb10_solution,
        my_pass2_by_hand=exact_hand,
        passk_table=exact_table,
        p_skip_check=Fraction(1, 2),
        p_typo=Fraction(1, 10),
    )
    assert result.ok, result.text


def test_ex10_a_task_other_than_the_solutions_passes(nb10_solution):
    counts = T.run_retail_trials(n=8, p_skip_check=0.5, p_typo=0.1, seed=0)
    c = counts[0]

    def t1_hand():
        return {"task": "T1", "successes": c, "pass2": round(c * (c - 1) / (8 * 7), 3)}

    assert ex10_check(nb10_solution, my_pass2_by_hand=t1_hand).ok


def test_ex10_and_ex11_verdicts_do_not_depend_on_edited_course_data(nb10_solution, capsys):
    clean10 = ex10_check(nb10_solution)
    clean11 = ex11.check(nb10_solution["enforce_cancel_policy"], p_skip_check=0.5, p_typo=0.2)
    T.RETAIL_TASKS[0]["goal"] = {"A1": "shipped"}  # what a student might do while exploring Exercise 10
    T.RETAIL_TASKS.append(dict(T.RETAIL_TASKS[1], id="T9"))
    try:
        after10 = ex10_check(nb10_solution)
        T.RETAIL_TASKS.pop()
        after11 = ex11.check(nb10_solution["enforce_cancel_policy"], p_skip_check=0.5, p_typo=0.2)
    finally:
        T.RETAIL_TASKS[:] = load_json("retail.json")["tasks"]
    assert after10.ok and after11.ok, after10.text + after11.text
    assert clean10.lines[-1] == after10.lines[-1] and clean11.lines[-1] == after11.lines[-1]


def test_editing_the_pack_tasks_leaves_the_extended_list_alone():
    try:
        T.RETAIL_TASKS[0]["goal"] = {"A1": "shipped"}
        assert T.RETAIL_TASKS_EXTENDED[0]["goal"] == load_json("retail.json")["tasks"][0]["goal"]
    finally:
        T.RETAIL_TASKS[:] = load_json("retail.json")["tasks"]


def _snapshot_rule(env):
    tool, statuses = env.registry.get("cancel_order"), dict(env.db)  # a copy, taken once
    plain = tool.fn

    def cancel_order(order_id):
        status = statuses.get(order_id)
        if status is not None and status != "pending":
            raise T.ToolError(f"Order {order_id} is {status}; only pending orders can be canceled.")
        return plain(order_id)

    tool.fn = cancel_order


def _known_ids_rule(env):  # lets through every id notebook 10 prints, whatever its status
    plain_cancel = env.registry.get("cancel_order").fn
    _wrap(env, lambda status: True)
    guarded = env.registry.get("cancel_order").fn

    def cancel_order(order_id):
        return plain_cancel(order_id) if order_id in ex11.SHOWN_IDS else guarded(order_id)

    env.registry.get("cancel_order").fn = cancel_order


def test_ex11_a_rule_that_reads_a_snapshot_of_the_database_fails():
    assert_fails_with_sentence(ex11.check(_snapshot_rule), "not a copy taken when you set it up")


def test_ex11_a_rule_keyed_on_the_ids_it_has_seen_fails():
    assert_fails_with_sentence(ex11.check(_known_ids_rule), "a world you have not seen")


def test_ex11_a_rule_that_refuses_everything_fails():
    def refuses_all(env):
        _wrap(env, lambda status: True, "Order {oid} cannot be canceled: it is {status}, not pending.")

    assert_fails_with_sentence(ex11.check(refuses_all), "pending orders must still be canceled")


def _ids_notebook_10_prints() -> set[str]:
    """Order-like ids (a capital and one or two digits) in notebook 10's sources and text outputs."""
    notebook = json.loads((NOTEBOOKS / "10_reliability_pass_k.ipynb").read_text(encoding="utf-8"))
    texts = []
    for cell in notebook["cells"]:
        texts.append("".join(cell["source"]))
        for out in cell.get("outputs", []):
            texts.append("".join(out.get("text", "")))
            texts += ["".join(v) for k, v in out.get("data", {}).items() if k in ("text/plain", "text/markdown")]
    return set(re.findall(r"(?<![\w/+=])[A-Z][0-9]{1,2}(?![\w/+=])", "\n".join(texts)))


def test_ex11_unseen_worlds_never_draw_an_id_notebook_10_shows():
    printed = _ids_notebook_10_prints()
    assert {"A1", "B1", "C1", "T3"} <= printed  # the scan finds what the notebook prints
    assert printed <= ex11.SHOWN_IDS, (
        f"notebook 10 prints ids the check does not know it shows: {printed - ex11.SHOWN_IDS}"
    )
    drawn = {oid for i in range(3000) for oid in ex11.unseen_world(random.Random(i))["orders"]}
    assert len(drawn) > 1000 and not drawn & ex11.SHOWN_IDS


def test_ex11_unseen_world_is_drawn_afresh_and_nothing_is_called_hidden():
    worlds = [ex11.unseen_world(random.Random(i)) for i in range(5)]
    assert len({tuple(w["orders"]) for w in worlds}) > 1
    for w in worlds:
        assert w["orders"][w["pending"]] == "pending" and set(w["others"].values()) & {"shipped", "delivered"} == set()
    assert not [name for name in dir(ex11) if "HIDDEN" in name.upper()]


def test_ex11_right_rules_written_other_ways_pass():
    def replaces_the_tool(env):  # re-registers a new function under the same name, reading env.db
        tool = env.registry.get("cancel_order")
        plain = tool.fn

        def cancel_order(order_id: str) -> dict:
            if env.db.get(order_id, "pending") != "pending":
                raise T.ToolError(
                    f"Cannot cancel {order_id}: its status is {env.db[order_id]}, "
                    "and only pending orders may be canceled."
                )
            return plain(order_id)

        tool.fn = cancel_order

    class Guard:  # a callable object instead of a closure
        def __init__(self, env):
            self.env, self.plain = env, env.registry.get("cancel_order").fn

        def __call__(self, order_id):
            status = self.env.db.get(order_id)
            if status not in (None, "pending"):
                raise T.ToolError(f"{order_id} is {status.upper()}; only PENDING orders can be canceled.")
            return self.plain(order_id)

    def with_guard(env):
        env.registry.get("cancel_order").fn = Guard(env)

    for rule in (replaces_the_tool, with_guard):
        result = ex11.check(rule, p_skip_check=0.5, p_typo=0.2)
        assert result.ok, result.text


def test_ex10_tables_rounded_or_as_an_array_pass(nb10_solution):
    rounded = lambda p_skip_check, p_typo: [round(v, 3) for v in _table(p_skip_check, p_typo)]  # noqa: E731
    as_array = lambda p_skip_check, p_typo: _Array(_table(p_skip_check, p_typo))  # noqa: E731
    for table in (rounded, as_array):
        result = ex10_check(nb10_solution, passk_table=table)
        assert result.ok, result.text


class _Array:
    """Stands in for a numpy array: not a list, but has .tolist()."""

    def __init__(self, values):
        self.values = list(values)

    def tolist(self):
        return list(self.values)


def test_ex10_a_table_that_edits_the_course_tasks_fails(nb10_solution):
    def drops_the_hard_task(p_skip_check, p_typo):
        T.RETAIL_TASKS[:] = [t for t in T.RETAIL_TASKS if t["id"] != "T3"]  # "T3 is unfair"
        return _table(p_skip_check, p_typo)

    try:
        assert_fails_with_sentence(ex10_check(nb10_solution, passk_table=drops_the_hard_task), "the trials give")
    finally:
        T.RETAIL_TASKS[:] = load_json("retail.json")["tasks"]


def test_ex11_a_refusal_that_names_the_wrong_status_fails():
    def always_says_shipped(env):
        _wrap(env, lambda status: status != "pending", "Order {oid} has already shipped, so it cannot be canceled.")

    assert_fails_with_sentence(ex11.check(always_says_shipped), "which is delivered", "say why")


def test_ex11_one_message_for_unknown_and_not_pending_fails():
    def blurs_the_two(env):
        plain = env.registry.get("cancel_order").fn

        def cancel_order(order_id):
            if env.db.get(order_id) != "pending":
                raise T.ToolError(f"Order {order_id} not found or not pending; it cannot be canceled.")
            return plain(order_id)

        env.registry.get("cancel_order").fn = cancel_order

    assert_fails_with_sentence(ex11.check(blurs_the_two), "'No order' error")


def test_ex11_a_rule_that_patches_the_class_or_borrows_the_switch_fails():
    """Held-out style: guarding every RetailEnv by patching the class (the trials' 'before' too),
    and turning the built-in switch on only while the tool runs, are not a rule of one's own."""
    original = T.RetailEnv.__init__

    def guard_everything(env):
        def init(self, *args, **kwargs):
            original(self, *args, **kwargs)
            self.policy_in_tool = True

        T.RetailEnv.__init__ = init

    try:
        result = ex11.check(guard_everything)
    finally:
        T.RetailEnv.__init__ = original
    assert_fails_with_sentence(result, "changed the RetailEnv class itself (its __init__)")
    assert T.RetailEnv.__init__ is original

    def borrow_the_switch(env):
        tool = env.registry.get("cancel_order")
        unguarded = tool.fn

        def cancel_order(order_id: str) -> dict:
            env.policy_in_tool = True
            try:
                return unguarded(order_id)
            finally:
                env.policy_in_tool = False

        tool.fn = cancel_order

    assert_fails_with_sentence(ex11.check(borrow_the_switch), "if only while cancel_order runs")
