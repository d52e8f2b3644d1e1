"""Exercise 5's check (toolkit/checks/ex05.py, notebook 08). What every check test holds: tests/conftest.py."""

import time

from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

import toolkit as T
from toolkit.checks import ex05
from toolkit.lessons.order_shop import order_registry

# ---------------------------------------------------------------------------------- exercise 5


def test_ex05_solution_passes(nb08_solution, capsys):
    assert ex05.check(nb08_solution["time_one_turn"], nb08_solution["chained_model"]).ok
    assert "By your own clock" in capsys.readouterr().out


def test_ex05_starter_is_not_done(nb08_starter, capsys):
    assert_not_done(ex05.check(nb08_starter["time_one_turn"], nb08_starter["chained_model"]), capsys)


def test_ex05_wrong_timings_fail(nb08_solution):
    chained = nb08_solution["chained_model"]
    assert_fails_with_sentence(
        ex05.check(lambda parallel, n=4, delay=0.2: delay if parallel else n * delay, chained), "took"
    )  # made-up numbers: the check's own clock disagrees
    real = nb08_solution["time_one_turn"]
    assert_fails_with_sentence(
        ex05.check(lambda parallel, n=4, delay=0.2: real(False, n, delay), chained), "parallel=True"
    )
    assert_fails_with_sentence(ex05.check(lambda parallel, n=4, delay=0.2: "fast", chained), "as a number")


def test_ex05_hard_coded_or_eager_chains_fail(nb08_solution):
    timer = nb08_solution["time_one_turn"]

    def hard_coded():
        return T.ScriptedModel(
            [
                {"tool_calls": [T.call("c1", "find_order", customer="Dana")]},
                {"tool_calls": [T.call("c2", "cancel_order", order_id="K2")]},
                {"content": "done"},
            ]
        )

    assert_fails_with_sentence(ex05.check(timer, hard_coded), "find_order returned")

    def both_at_once():
        return T.ScriptedModel(
            [
                {
                    "tool_calls": [
                        T.call("c1", "find_order", customer="Dana"),
                        T.call("c2", "cancel_order", order_id="K2"),
                    ]
                },
                {"content": "done"},
            ]
        )

    assert_fails_with_sentence(ex05.check(timer, both_at_once), "find_order alone")
    assert_fails_with_sentence(ex05.check(timer, lambda: 42), "should return a model")


def test_ex05_order_registry():
    registry, db = order_registry("X3")
    assert registry.run("find_order", {"customer": "dana"}).data == {"order_id": "X3", "status": "pending"}
    assert registry.run("cancel_order", {"order_id": "X3"}).ok and db["X3"] == "canceled"
    assert not registry.get("cancel_order").read_only
    assert "Use the id find_order returned" in registry.run("cancel_order", {"order_id": "K2"}).content


def test_ex05_never_raises():
    assert_fails_with_sentence(ex05.check(boom, boom), "KeyError")


def _timer(tools_for, sleep_for):
    """A timer for the tests: ``tools_for(n_calls)`` tools that each sleep ``sleep_for(delay)``."""

    def time_one_turn(parallel, n_calls=4, delay=0.2):
        registry = T.ToolRegistry()
        names = [f"wait_{i}" for i in range(tools_for(n_calls))]
        for name in names:

            def wait(city: str) -> str:
                """Wait a while.

                Args:
                    city: any city
                """
                time.sleep(sleep_for(delay))
                return "ok"

            registry.add(wait, name=name)
        model = T.ScriptedModel(
            [{"tool_calls": [T.call(f"c{i}", n, city="Oslo") for i, n in enumerate(names)]}, {"content": "done"}]
        )
        start = time.perf_counter()
        T.run_agent(model, registry, "Go.", parallel=parallel)
        return time.perf_counter() - start

    return time_one_turn


def test_ex05_timers_that_ignore_a_parameter_fail(nb08_solution):
    chained = nb08_solution["chained_model"]
    assert_fails_with_sentence(ex05.check(_timer(lambda n: 4, lambda d: d), chained), "n_calls")
    assert_fails_with_sentence(ex05.check(_timer(lambda n: n, lambda d: 0.2), chained), "delay")


def test_ex05_ids_from_the_labels_fail(nb08_solution):
    """The ids of the unseen order books are not printed nor importable: a script of them fails."""
    runs = iter(["M5", "Q27"])

    def cycles_ids():
        order_id = next(runs, "K2")
        return T.ScriptedModel(
            [
                {"tool_calls": [T.call("c1", "find_order", customer="Dana")]},
                {"tool_calls": [T.call("c2", "cancel_order", order_id=order_id)]},
                {"content": "done"},
            ]
        )

    assert_fails_with_sentence(ex05.check(nb08_solution["time_one_turn"], cycles_ids), "this time")
    assert "hidden" not in " ".join(dir(ex05)).lower()


def test_ex05_right_answers_written_differently_pass(nb08_solution):
    import re

    def chained_model():
        def respond(messages, tools):
            last = messages[-1]
            if last["role"] == "user":
                return {"tool_calls": [T.call("a", "find_order", customer="Dana")]}
            if "canceled" in last["content"]:
                return {"content": "Done: your latest order is cancelled."}
            found = re.search(r'"order_id":\s*"([^"]+)"', last["content"]).group(1)
            return {"tool_calls": [T.call("b", "cancel_order", order_id=found)]}

        return respond

    def time_one_turn(parallel, n_calls=4, delay=0.2):
        registry = T.ToolRegistry()
        calls = []
        for i in range(n_calls):
            registry.add(nb08_solution["sleepy_tool"](delay), name=f"city_{i}")
            calls.append(T.call(f"id{i}", f"city_{i}", city="Lima"))
        began = time.monotonic()
        T.run_agent(
            T.ScriptedModel([{"tool_calls": calls}, {"content": "ok"}]), registry, "Weather?", parallel=parallel
        )
        return time.monotonic() - began

    assert ex05.check(time_one_turn, chained_model).ok
    assert ex05.check(_timer(lambda n: n, lambda d: d), nb08_solution["chained_model"]).ok
