"""Exercise 5's check (toolkit/checks/ex05.py, notebook 08). What every check test holds: tests/conftest.py."""

import concurrent.futures
import time

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

import toolkit as T
from toolkit.checks import ex05, scaled
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
        ex05.check(lambda parallel, n=4, delay=0.2: delay if parallel else n * delay, chained), "ran 0 tool calls"
    )  # made-up numbers, and no tool ran at all
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
    # a fixed sleep that ignores `delay`, short enough that four in a row stay well inside the
    # check's call limit on a busy machine (0.2 s took 0.8 s against 1 s at the tests' scale)
    assert_fails_with_sentence(ex05.check(_timer(lambda n: n, lambda d: scaled(0.5)), chained), "delay")


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


def test_ex05_a_right_answer_passes_when_the_machine_starts_threads_late(nb08_solution, monkeypatch):
    """A busy machine can start a parallel call's thread later than another call's whole
    sleep (six calls of 0.02 s at the tests' scale): simulated here by a pause before each
    thread is handed its call. Before the calls met at a barrier, the right answer failed as
    "ran one after another" (seen in a fresh-clone make test). The calls wait for each other at
    most a quarter of the check's call limit (0.25 s here), so this pause fits inside it."""
    submit = concurrent.futures.ThreadPoolExecutor.submit

    def late_submit(pool, *args, **kwargs):
        handed = getattr(pool, "handed", 0)
        if handed == 1:
            time.sleep(0.1)  # the second call's thread comes after the first call (0.03 s) is over
        pool.handed = handed + 1
        return submit(pool, *args, **kwargs)

    monkeypatch.setattr(concurrent.futures.ThreadPoolExecutor, "submit", late_submit)
    result = ex05.check(nb08_solution["time_one_turn"], nb08_solution["chained_model"])
    assert result.ok, result.text


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


# ------------------------------------------- held-out style: times not measured from the run


def _sleepy(delay):
    def lookup(city: str) -> str:
        """Look a city up, slowly.

        Args:
            city: any city
        """
        time.sleep(delay)
        return "ok"

    return lookup


def _run_turn(parallel, n_calls, delay, per_turn=None):
    """Really run ``n_calls`` sleepy tools (``per_turn`` calls in each model turn); return nothing."""
    registry = T.ToolRegistry()
    for i in range(n_calls):
        registry.add(_sleepy(delay), name=f"t{i}")
    calls = [T.call(f"c{i}", f"t{i}", city="Oslo") for i in range(n_calls)]
    per_turn = per_turn or n_calls
    steps = [{"tool_calls": calls[i : i + per_turn]} for i in range(0, n_calls, per_turn)]
    T.run_agent(T.ScriptedModel(steps + [{"content": "done"}]), registry, "Go.", parallel=parallel)


def _arithmetic(parallel, n_calls=4, delay=0.2):
    _run_turn(parallel, n_calls, delay)  # the run happens, but the answer is worked out
    return delay if parallel else n_calls * delay


def _arithmetic_from_the_calls(parallel, n_calls=4, delay=0.2):
    _run_turn(parallel, n_calls, delay)
    return max([delay] * n_calls) if parallel else sum([delay] * n_calls)


def _timed_after_the_run(parallel, n_calls=4, delay=0.2):
    _run_turn(parallel, n_calls, delay)
    start = time.perf_counter()  # the stopwatch starts once the run is over
    return time.perf_counter() - start + (delay if parallel else n_calls * delay)


def _cpu_time(parallel, n_calls=4, delay=0.2):
    # A sleeping thread uses no CPU. thread_time, not process_time: in a test worker, threads
    # left spinning by earlier tests' endless student loops add their CPU to process_time.
    start = time.thread_time()
    _run_turn(parallel, n_calls, delay)
    return time.thread_time() - start


def _always_parallel(parallel, n_calls=4, delay=0.2):
    start = time.perf_counter()
    _run_turn(True, n_calls, delay)
    return time.perf_counter() - start


def _two_turns(parallel, n_calls=4, delay=0.2):
    start = time.perf_counter()
    _run_turn(parallel, n_calls, delay, per_turn=max(1, n_calls // 2))
    return time.perf_counter() - start


def _fixed_long_sleep(parallel, n_calls=4, delay=0.2):
    start = time.perf_counter()
    _run_turn(parallel, n_calls, scaled(0.35))  # longer than every delay the check asks for
    return time.perf_counter() - start


WRONG_TIMERS = {
    "arithmetic after a real run": (_arithmetic, "Measure the run"),
    "arithmetic from a list of delays": (_arithmetic_from_the_calls, "Measure the run"),
    "stopwatch started after the run": (_timed_after_the_run, "Measure the run"),
    "CPU time, not elapsed time": (_cpu_time, "Measure the run"),
    "parallel ignored": (_always_parallel, "parallel=False"),
    "calls spread over two turns": (_two_turns, "one model turn"),
    "a fixed sleep longer than delay": (_fixed_long_sleep, "sleep `delay`"),
}


@pytest.mark.parametrize("name", WRONG_TIMERS)
def test_ex05_held_out_wrong_timers_fail(name, nb08_solution):
    timer, fragment = WRONG_TIMERS[name]
    assert_fails_with_sentence(ex05.check(timer, nb08_solution["chained_model"]), fragment)


def _whole_function_timed(parallel, n_calls=4, delay=0.2):
    began = time.time()  # another clock, and the registry's set-up inside the measurement
    _run_turn(parallel, n_calls, delay)
    return time.time() - began


def test_ex05_a_timer_of_the_whole_function_on_another_clock_passes(nb08_solution):
    assert ex05.check(_whole_function_timed, nb08_solution["chained_model"]).ok


def test_ex05_recorded_calls_are_put_back_and_record_each_call():
    original = T.ToolRegistry.run
    with ex05.recorded_calls() as spans:
        _run_turn(True, 3, 0.01)
    assert T.ToolRegistry.run is original and len(spans) == 3
    assert all(end - start >= 0.01 + ex05.PAUSE and asked == 0.01 for start, end, asked in spans)
