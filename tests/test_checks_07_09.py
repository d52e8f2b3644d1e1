"""The exercise checks of notebooks 08 and 09 (exercises 3, 4, 5 and 9). Notebook 07 has none.

For each check: the notebook's own solution passes; the notebook's own starter stub gives
"not done yet"; wrong answers fail with a sentence that says what to change; and nothing a
student writes makes a check raise. Starter and solution code are read from the notebooks'
jupytext sources, so the tests follow the cells students actually get.
"""

import copy
import time

import jupytext
import pytest
from exercise_helpers import NOTEBOOKS, assert_fails_with_sentence, assert_not_done, boom, cell_namespace, failed_lines

import toolkit as T
from toolkit.checks import ex03, ex04, ex05, ex09
from toolkit.lessons.order_shop import order_registry
from toolkit.lessons.repair_rules import repair_with


@pytest.fixture(scope="module")
def nb08_solution():
    return cell_namespace("08_parallel_chained_retried", "solution")


@pytest.fixture(scope="module")
def nb08_starter():
    return cell_namespace("08_parallel_chained_retried", "starter")


@pytest.fixture(scope="module")
def nb09_solution():
    return cell_namespace("09_scoring_calls", "solution")


@pytest.fixture(scope="module")
def nb09_starter():
    return cell_namespace("09_scoring_calls", "starter")


def test_notebook_07_has_no_exercise_cells():
    nb = jupytext.read(NOTEBOOKS / "07_designing_tools.py")
    # a markdown `solution` cell (the instructor's answer to a discussion question) is fine
    tags = {t for c in nb.cells if c.cell_type == "code" for t in c.metadata.get("tags", [])}
    assert not tags & {"starter", "solution", "check"}


# ---------------------------------------------------------------------------------- exercise 3

def test_ex03_solution_passes(nb08_solution):
    assert ex03.check(nb08_solution["trim_enum_value"], nb08_solution["test_rule"]).ok


def test_ex03_starter_is_not_done(nb08_starter, capsys):
    assert_not_done(ex03.check(nb08_starter["trim_enum_value"], nb08_starter["test_rule"]), capsys)


def test_ex03_the_checks_own_rule_is_not_an_answer(nb08_solution):
    for borrowed in (ex03.reference_rule, ex03.reworded_rule):
        result = ex03.check(borrowed, nb08_solution["test_rule"])
        assert not result.ok and "write the rule yourself" in result.text


def test_ex03_reference_rule_agrees_with_its_own_cases():
    for value, spec, want in ex03.FIRES:
        got, note = ex03.reference_rule(value, spec)
        assert got == want and note
    for value, spec, _ in ex03.QUIET:
        assert ex03.reference_rule(value, spec) == (value, None)


def test_ex03_drawn_cases_agree_with_the_reference_rule():
    import random
    for seed in range(200):
        (value, spec, want), (quiet, quiet_spec, _) = ex03.drawn_cases(random.Random(seed))
        assert ex03.reference_rule(value, spec)[0] == want and value != want
        assert ex03.reference_rule(quiet, quiet_spec) == (quiet, None)


def test_ex03_the_broken_rules_are_broken():
    unit = ex03.FIRES[0][1]
    assert ex03.never_fires(" celsius", unit) == (" celsius", None)
    assert ex03.over_eager("maybe", unit)[1] is not None


def test_ex03_wrong_rules_fail(nb08_solution):
    tests = nb08_solution["test_rule"]
    assert_fails_with_sentence(ex03.check(ex03.over_eager, tests), "'maybe'")
    assert_fails_with_sentence(ex03.check(ex03.never_fires, tests), "should become 'celsius'")

    def strips_free_text_too(value, spec):
        if isinstance(value, str) and not spec.get("enum") and value != value.strip():
            return value.strip(), "stripped"
        return ex03.reference_rule(value, spec)

    assert_fails_with_sentence(ex03.check(strips_free_text_too, tests), "without an enum")

    def silent(value, spec):
        return ex03.reference_rule(value, spec)[0], None

    assert_fails_with_sentence(ex03.check(silent, tests), "gave no note")

    def picks_first_of_two(value, spec):
        enum = spec.get("enum") or []
        if isinstance(value, str) and value not in enum:
            same = [e for e in enum if isinstance(e, str) and e.lower() == value.strip().lower()]
            if same:
                return same[0], "trimmed"
        return value, None

    assert_fails_with_sentence(ex03.check(picks_first_of_two, tests), "must not pick one")

    def edits_spec(value, spec):
        spec["enum"] = []
        return value, None

    assert_fails_with_sentence(ex03.check(edits_spec, tests), "changed the schema")


def test_ex03_weak_tests_fail(nb08_solution):
    rule = nb08_solution["trim_enum_value"]

    def tests_nothing(rule):
        pass

    assert_fails_with_sentence(ex03.check(rule, tests_nothing), "never fires", "'maybe'")

    def only_positive(rule):
        assert rule(" celsius", {"type": "string", "enum": ["celsius"]})[0] == "celsius"

    result = ex03.check(rule, only_positive)
    assert_fails_with_sentence(result, "such as 'maybe'")
    assert not any("never fires" in line for line in failed_lines(result))

    def too_strict(rule):
        assert rule(" celsius", {"type": "string", "enum": ["celsius"]}) == ("celsius", "trimmed!")

    assert_fails_with_sentence(ex03.check(rule, too_strict), "reject a correct rule")


def test_ex03_never_raises(nb08_solution):
    tests = nb08_solution["test_rule"]
    assert_fails_with_sentence(ex03.check(boom, tests), "KeyError")
    assert_fails_with_sentence(ex03.check(lambda v, s: "not a pair", tests), "a pair (value, note)")
    assert_fails_with_sentence(ex03.check(lambda v, s: None, boom), "a pair (value, note)")
    assert_fails_with_sentence(ex03.check("not a function", tests), "expected a function")


def test_ex03_a_table_of_the_cases_fails(nb08_solution):
    """A rule that looks the check's own cases up (they can be imported) fails on values drawn at check time."""
    fires, _ = ex03.cases()
    table = {(value, tuple(spec["enum"])): want for value, spec, want in fires}

    def looks_up(value, spec):
        key = (value, tuple(spec.get("enum") or ()))
        return (table[key], "fixed") if isinstance(value, str) and key in table else (value, None)

    assert_fails_with_sentence(ex03.check(looks_up, nb08_solution["test_rule"]), "should become")
    assert "hidden" not in " ".join(dir(ex03)).lower()


def test_ex03_right_answers_written_differently_pass(nb08_solution):
    def trim_enum_value(value, spec):
        options = spec.get("enum", []) if isinstance(spec, dict) else []
        if not isinstance(value, str) or value in options or not value.strip():
            return value, None
        key = value.strip().casefold()
        exact = [o for o in options if o == value.strip()]
        folded = [o for o in options if isinstance(o, str) and o.casefold() == key]
        pick = exact or (folded if len(folded) == 1 else [])
        return [pick[0], f"{value!r} -> {pick[0]!r}"] if pick else [value, None]  # a list pair is fine too

    def test_rule(rule):
        cabin = {"type": "string", "enum": ["economy", "business"]}
        fixed, note = rule("\tEconomy  ", cabin)
        assert (fixed, bool(note)) == ("economy", True)
        for value in ("maybe", "econ", "economy"):
            fixed, note = rule(value, cabin)
            assert fixed == value and note is None

    assert ex03.check(trim_enum_value, test_rule).ok
    assert ex03.check(trim_enum_value, nb08_solution["test_rule"]).ok
    assert ex03.check(nb08_solution["trim_enum_value"], test_rule).ok


def test_ex03_tests_tied_to_one_note_wording_fail(nb08_solution):
    """The exercise asks for a note, not a wording: tests that demand the solution's exact note reject
    other correct rules."""
    def wording_test(rule):
        unit = {"type": "string", "enum": ["celsius", "fahrenheit"]}
        assert rule(" Celsius ", unit) == ("celsius", "trimmed ' Celsius ' to 'celsius'")
        assert rule("maybe", unit) == ("maybe", None)

    assert_fails_with_sentence(ex03.check(nb08_solution["trim_enum_value"], wording_test), "reject a correct rule")


def test_ex03_half_done_is_not_passed(nb08_solution, nb08_starter):
    result = ex03.check(nb08_solution["trim_enum_value"], nb08_starter["test_rule"])
    assert_fails_with_sentence(result, "test_rule is written")


def test_repair_with_applies_the_rule_after_the_toolkit():
    schema = {"type": "object", "properties": {"mode": {"type": "string", "enum": ["eco", "off"]},
                                               "level": {"type": "integer"}}}
    args = {"mode": " Eco", "level": "3"}
    fixed, notes = repair_with(ex03.reference_rule, args, schema)
    assert fixed == {"mode": "eco", "level": 3} and len(notes) == 2
    assert args == {"mode": " Eco", "level": "3"}  # the input is not changed


# ---------------------------------------------------------------------------------- exercise 4

def test_ex04_solution_passes(nb08_solution):
    assert ex04.check(nb08_solution["make_flaky_tool"], nb08_solution["slow_writer_registry"]).ok


def test_ex04_starter_is_not_done(nb08_starter, capsys):
    assert_not_done(ex04.check(nb08_starter["make_flaky_tool"], nb08_starter["slow_writer_registry"]), capsys)


def test_ex04_backoff_matches_the_pack():
    assert ex04.backoff(3) == [0.1, 0.2, 0.4]


def test_ex04_wrong_flaky_tools_fail(nb08_solution):
    writer = nb08_solution["slow_writer_registry"]

    def plain_error(failures):
        count = {"n": 0}

        def quote(symbol: str) -> str:
            """Quote.

            Args:
                symbol: ticker
            """
            count["n"] += 1
            if count["n"] <= failures:
                raise T.ToolError("busy")
            return "ok"
        return quote

    assert_fails_with_sentence(ex04.check(plain_error, writer), "raise T.TransientToolError")

    shared = {"n": 0}

    def shared_counter(failures):
        def quote(symbol: str) -> str:
            """Quote.

            Args:
                symbol: ticker
            """
            shared["n"] += 1
            if shared["n"] <= failures:
                raise T.TransientToolError("busy")
            return "ok"
        return quote

    assert_fails_with_sentence(ex04.check(shared_counter, writer), "share")

    def no_hints(failures):
        def quote(symbol):
            return "ok"
        return quote

    assert_fails_with_sentence(ex04.check(no_hints, writer), "type hint")


def test_ex04_wrong_writers_fail(nb08_solution):
    flaky = nb08_solution["make_flaky_tool"]

    def read_only_writer(seconds, saved):
        def save_note(text: str) -> str:
            """Save.

            Args:
                text: the note
            """
            time.sleep(seconds)
            saved.append(text)
            return "saved"

        registry = T.ToolRegistry()
        registry.add(save_note)
        return registry

    assert_fails_with_sentence(ex04.check(flaky, read_only_writer), "read_only=False")

    def fast_writer(seconds, saved):
        def save_note(text: str) -> str:
            """Save.

            Args:
                text: the note
            """
            saved.append(text)
            return "saved"

        registry = T.ToolRegistry()
        registry.add(save_note, read_only=False)
        return registry

    assert_fails_with_sentence(ex04.check(flaky, fast_writer), "should time out")
    assert_fails_with_sentence(ex04.check(flaky, lambda s, saved: "nope"), "should return a T.ToolRegistry")


def test_ex04_never_raises(nb08_solution):
    assert_fails_with_sentence(ex04.check(boom, boom), "KeyError")
    assert_fails_with_sentence(ex04.check(lambda n: 42, nb08_solution["slow_writer_registry"]),
                               "should return a function")


def _writer(sleep_for, save_what="input", before=False):
    """A slow writer for the tests: sleeps ``sleep_for(seconds)``, saves its input (or a constant)."""
    def slow_writer_registry(seconds, saved):
        def save_note(text: str) -> str:
            """Save a note.

            Args:
                text: the note
            """
            if before:
                saved.append(text)
            time.sleep(sleep_for(seconds))
            if not before:
                saved.append(text if save_what == "input" else save_what)
            return "saved"

        registry = T.ToolRegistry()
        registry.add(save_note, read_only=False)
        return registry
    return slow_writer_registry


def test_ex04_writers_that_ignore_their_inputs_fail(nb08_solution):
    """Cheap wrong writers: a fixed sleep, saving before the sleep, saving a constant."""
    flaky = nb08_solution["make_flaky_tool"]
    assert_fails_with_sentence(ex04.check(flaky, _writer(lambda s: 0.25)), "seconds=0")
    assert_fails_with_sentence(ex04.check(flaky, _writer(lambda s: 1.0)), "seconds=0")
    assert_fails_with_sentence(ex04.check(flaky, _writer(lambda s: s, before=True)), "then append")
    assert_fails_with_sentence(ex04.check(flaky, _writer(lambda s: s, save_what="note")), "the text it was given")


def test_ex04_a_counter_reset_by_each_new_tool_fails(nb08_solution):
    """One module-level count, set back to 0 whenever a tool is made: tools used one after another
    look independent, but two tools used in turn share it."""
    count = {"calls": 0}

    def make_flaky_tool(failures: int):
        count["calls"] = 0

        def quote(symbol: str) -> str:
            """Quote a symbol.

            Args:
                symbol: ticker such as ACME
            """
            count["calls"] += 1
            if count["calls"] <= failures:
                raise T.TransientToolError("busy")
            return "42"
        return quote

    result = ex04.check(make_flaky_tool, nb08_solution["slow_writer_registry"])
    assert_fails_with_sentence(result, "in turn", "share a counter")


def test_ex04_right_answers_written_differently_pass(nb08_solution):
    def make_flaky_tool(failures):
        left = [failures]

        def get_price(ticker: str, currency: str = "EUR") -> float:
            """Price of a share (invented).

            Args:
                ticker: the share's symbol
                currency: the currency to quote in
            """
            if left[0] > 0:
                left[0] -= 1
                raise T.TransientToolError("the price feed is busy; try again")
            return 12.5
        return get_price

    class Writer:
        def __init__(self, seconds, saved):
            self.seconds, self.saved = seconds, saved

        def write(self, note: str) -> str:
            """Write a note down.

            Args:
                note: what to write
            """
            time.sleep(self.seconds)
            self.saved.append(note)
            return "written"

    def slow_writer_registry(seconds, saved):
        registry = T.ToolRegistry()
        registry.add(Writer(seconds, saved).write, name="write_note", read_only=False)
        return registry

    assert ex04.check(make_flaky_tool, slow_writer_registry).ok
    assert ex04.check(nb08_solution["make_flaky_tool"], _writer(lambda s: s)).ok


# ---------------------------------------------------------------------------------- exercise 5

def test_ex05_solution_passes(nb08_solution, capsys):
    assert ex05.check(nb08_solution["time_one_turn"], nb08_solution["chained_model"]).ok
    assert "By your own clock" in capsys.readouterr().out


def test_ex05_starter_is_not_done(nb08_starter, capsys):
    assert_not_done(ex05.check(nb08_starter["time_one_turn"], nb08_starter["chained_model"]), capsys)


def test_ex05_wrong_timings_fail(nb08_solution):
    chained = nb08_solution["chained_model"]
    assert_fails_with_sentence(ex05.check(lambda parallel, n=4, delay=0.2: delay if parallel else n * delay, chained),
                               "took")  # made-up numbers: the check's own clock disagrees
    real = nb08_solution["time_one_turn"]
    assert_fails_with_sentence(ex05.check(lambda parallel, n=4, delay=0.2: real(False, n, delay), chained),
                               "parallel=True")
    assert_fails_with_sentence(ex05.check(lambda parallel, n=4, delay=0.2: "fast", chained), "as a number")


def test_ex05_hard_coded_or_eager_chains_fail(nb08_solution):
    timer = nb08_solution["time_one_turn"]

    def hard_coded():
        return T.ScriptedModel([{"tool_calls": [T.call("c1", "find_order", customer="Dana")]},
                                {"tool_calls": [T.call("c2", "cancel_order", order_id="K2")]},
                                {"content": "done"}])

    assert_fails_with_sentence(ex05.check(timer, hard_coded), "find_order returned")

    def both_at_once():
        return T.ScriptedModel([{"tool_calls": [T.call("c1", "find_order", customer="Dana"),
                                                T.call("c2", "cancel_order", order_id="K2")]},
                                {"content": "done"}])

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
        model = T.ScriptedModel([{"tool_calls": [T.call(f"c{i}", n, city="Oslo") for i, n in enumerate(names)]},
                                 {"content": "done"}])
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
        return T.ScriptedModel([{"tool_calls": [T.call("c1", "find_order", customer="Dana")]},
                                {"tool_calls": [T.call("c2", "cancel_order", order_id=order_id)]},
                                {"content": "done"}])

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
        T.run_agent(T.ScriptedModel([{"tool_calls": calls}, {"content": "ok"}]), registry, "Weather?",
                    parallel=parallel)
        return time.monotonic() - began

    assert ex05.check(time_one_turn, chained_model).ok
    assert ex05.check(_timer(lambda n: n, lambda d: d), nb08_solution["chained_model"]).ok


# ---------------------------------------------------------------------------------- exercise 9

def test_ex09_solution_passes(nb09_solution, capsys):
    s = nb09_solution
    assert ex09.check(s["harder_cases"], s["lenient_pair"], s["stricter_equal"]).ok
    assert "(mock)" in capsys.readouterr().out


def test_ex09_starter_is_not_done(nb09_starter, capsys):
    s = nb09_starter
    assert_not_done(ex09.check(s["harder_cases"], s["lenient_pair"], s["stricter_equal"]), capsys)


def parts(ns):
    return ns["harder_cases"], ns["lenient_pair"], ns["stricter_equal"]


def with_cases(ns, edit):
    cases = copy.deepcopy(ns["harder_cases"]())
    edit(cases)
    return lambda: cases


def test_ex09_bad_cases_fail(nb09_solution):
    _, pair, strict = parts(nb09_solution)

    def check_edit(edit, *fragments):
        assert_fails_with_sentence(ex09.check(with_cases(nb09_solution, edit), pair, strict), *fragments)

    check_edit(lambda cs: cs.pop(), "at least 10")
    check_edit(lambda cs: cs[1].update(id=cs[0]["id"]), "two cases have the id")
    check_edit(lambda cs: cs[0].update(id="course_simple_1"), "already a case id")
    check_edit(lambda cs: cs[0].update(functions=["create_meeting"]), "no function 'create_meeting'")
    check_edit(lambda cs: cs[0]["gold"][0]["args"].update(where=["Rome"]), "has no parameter 'where'")
    check_edit(lambda cs: cs[2]["gold"][0]["args"].pop("date"), "needs 'date'")
    check_edit(lambda cs: cs[8].update(gold=[{"name": "get_weather", "args": {"city": ["Lima"]}}]),
               "no call is right")
    check_edit(lambda cs: cs[1].update(gold=cs[1]["gold"][:1]), "two or more gold calls")
    check_edit(lambda cs: cs[0].update(category="easy"), "'category' should be one of")
    check_edit(lambda cs: cs[0]["gold"][0]["args"].update(title="Team retro"), "should list its acceptable")


def test_ex09_missing_nested_or_optional_fail(nb09_solution):
    _, pair, strict = parts(nb09_solution)

    def flat(cases):
        for case in cases:
            if any(g["name"] == "create_event" for g in case["gold"]):
                case["functions"] = ["set_reminder"]
                case["question"] = "Remind me to go to the Gym at 07:00."
                for g in case["gold"]:
                    g["name"], g["args"] = "set_reminder", {"text": ["Gym"], "time": ["07:00"]}

    assert_fails_with_sentence(ex09.check(with_cases(nb09_solution, flat), pair, strict), "nested form")

    def required_only(cases):
        for case in cases:
            for g in case["gold"]:
                for param in list(g["args"]):
                    if "" in g["args"][param]:
                        del g["args"][param]

    assert_fails_with_sentence(ex09.check(with_cases(nb09_solution, required_only), pair, strict),
                               "no gold argument is optional")


def test_ex09_gold_that_cannot_pass_fails(nb09_solution):
    _, pair, strict = parts(nb09_solution)

    def unknown_key(cases):
        cases[0]["gold"][0]["args"]["when"] = [{"date": ["2026-12-09"], "hour": ["15:00"]}]

    assert_fails_with_sentence(ex09.check(with_cases(nb09_solution, unknown_key), pair, strict), "no key 'hour'")

    def missing_key(cases):
        cases[0]["gold"][0]["args"]["when"] = [{"date": ["2026-12-09"]}]

    assert_fails_with_sentence(ex09.check(with_cases(nb09_solution, missing_key), pair, strict), "needs the key 'time'")


def test_ex09_bad_pairs_and_comparisons_fail(nb09_solution):
    cases, pair, strict = parts(nb09_solution)
    assert_fails_with_sentence(ex09.check(cases, lambda: ("Paris", "PARIS "), strict), "differ only in letter case")
    assert_fails_with_sentence(ex09.check(cases, lambda: ("Paris", "Rome"), strict), "already tells them apart")
    assert_fails_with_sentence(ex09.check(cases, lambda: "Paris", strict), "two strings")
    assert_fails_with_sentence(ex09.check(cases, pair, T.values_equal), "still calls your own pair")
    assert_fails_with_sentence(ex09.check(cases, pair, lambda a, b: a == b), "case or spacing")

    def strings_only(a, b):
        return " ".join(str(a).split()).casefold() == " ".join(str(b).split()).casefold()

    assert_fails_with_sentence(ex09.check(cases, pair, strings_only), "should stay True")
    assert_fails_with_sentence(ex09.check(cases, pair, lambda a, b: "yes"), "True or False")


def test_ex09_never_raises(nb09_solution):
    result = ex09.check(boom, boom, boom)
    assert_fails_with_sentence(result, "KeyError")
    result = ex09.check(lambda: [1, "two", None] * 4, lambda: ("a", "b"), lambda a, b: True)
    assert_fails_with_sentence(result, "should be a dict")
    weird = [{"id": f"w{i}", "category": "simple", "question": "q", "functions": ["add"],
              "gold": [{"name": "add", "args": {"a": [{"x": ["y"]}], "b": [1]}}]} for i in range(10)]
    result = ex09.check(lambda: weird, lambda: ("a", "b"), lambda a, b: True)
    assert result.status == "checked" and not result.ok


def test_ex09_helpers():
    assert ex09.squash(" New  York ") == "newyork"
    assert ex09.EXAMPLE["id"] == "course_simple_7"
    for _ in range(20):
        for a, b in ex09.unseen_lenient_pairs():
            assert T.values_equal(a, b) and ex09.squash(a) != ex09.squash(b)
    assert not hasattr(ex09, "HIDDEN_LENIENT")


def test_ex09_wrong_categories_and_contradicting_gold_fail(nb09_solution):
    """Cases whose category does not fit their calls, or whose gold answer is not what the
    question asks, are caught by looking at the calls and the question (issue 10, point 3)."""
    _, pair, strict = parts(nb09_solution)

    def check_edit(edit, *fragments):
        assert_fails_with_sentence(ex09.check(with_cases(nb09_solution, edit), pair, strict), *fragments)

    check_edit(lambda cs: cs[6].update(category="simple"), "'simple' case has exactly one gold call")
    check_edit(lambda cs: cs[6].update(category="parallel"), "calls one function several times")
    check_edit(lambda cs: cs[4].update(category="simple"), "offers exactly one function")
    check_edit(lambda cs: cs[2].update(functions=["search_flights", "add"]), "offers exactly one function")
    check_edit(lambda cs: cs[5]["gold"][0]["args"].update(b=[5]), "mult.b", "not in the question")
    check_edit(lambda cs: cs[2]["gold"][0]["args"].update(destination=["Rome"]), "destination", "not in the question")
    check_edit(lambda cs: cs[0]["gold"][0]["args"].update(when=[{"date": ["2026-12-10"], "time": ["15:00"]}]),
               "when.date", "not in the question")
    check_edit(lambda cs: cs[4]["gold"][0]["args"].update(to=[{"name": ["Omar"]}]), "send_message.to", "not an object")


def test_ex09_overfitted_or_loose_answers_fail(nb09_solution):
    cases, pair, strict = parts(nb09_solution)
    printed = [("re-sign the lease", "resign the lease"), ("C++", "C"), ("C#", "C"), ("-5", "5"),
               ("3.5", "35"), ("50%", "50")]

    def knows_the_list(a, b):
        if isinstance(a, str) and isinstance(b, str):
            return (a, b) not in printed and (b, a) not in printed and T.values_equal(a, b)
        return T.values_equal(a, b)

    assert_fails_with_sentence(ex09.check(cases, pair, knows_the_list), "to a user these differ")
    assert_fails_with_sentence(ex09.check(cases, lambda: ("Paris.", "Paris"), strict), "full stop")


def test_ex09_other_right_answers_pass(nb09_solution):
    cases, _, strict = parts(nb09_solution)

    def keeps_symbols(a, b):  # compares letters, digits and symbols; only case and spacing are free
        if type(a) is str and type(b) is str:
            return a.lower().split() == b.lower().split()
        return T.values_equal(a, b)

    def other_cases():
        out = copy.deepcopy(cases())
        out[5]["question"] = "Multiply fifteen by 4, please."
        out[3]["question"] = "Book Nopa for 2 at 8 pm; a window seat would be nice."
        return out

    assert ex09.check(other_cases, lambda: ("C++", "C"), keeps_symbols).ok
    assert ex09.check(cases, lambda: ("-3", "3"), strict).ok


def test_ex04_an_off_by_one_is_not_called_a_shared_counter(nb08_solution):
    """A tool that works on its first call has its count wrong; nothing is shared."""
    def make_flaky_tool(failures: int):
        count = {"calls": 0}

        def quote(symbol: str) -> str:
            """Quote a symbol.

            Args:
                symbol: ticker such as ACME
            """
            count["calls"] += 1
            if count["calls"] < failures:  # off by one: fails failures - 1 times
                raise T.TransientToolError("busy")
            return "42"
        return quote

    result = ex04.check(make_flaky_tool, nb08_solution["slow_writer_registry"])
    first = failed_lines(result)[0]
    assert "should fail on its first 2 calls, then work; it failed 1 times" in first and "share" not in first
