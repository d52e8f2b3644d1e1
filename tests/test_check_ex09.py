"""Exercise 9's check (toolkit/checks/ex09.py, notebook 09). What every check test holds: tests/conftest.py."""

import copy

from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom, failed_lines

import toolkit as T
from toolkit.checks import ex04, ex09

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
    check_edit(lambda cs: cs[8].update(gold=[{"name": "get_weather", "args": {"city": ["Lima"]}}]), "no call is right")
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

    assert_fails_with_sentence(
        ex09.check(with_cases(nb09_solution, required_only), pair, strict), "no gold argument is optional"
    )


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
    weird = [
        {
            "id": f"w{i}",
            "category": "simple",
            "question": "q",
            "functions": ["add"],
            "gold": [{"name": "add", "args": {"a": [{"x": ["y"]}], "b": [1]}}],
        }
        for i in range(10)
    ]
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
    check_edit(
        lambda cs: cs[0]["gold"][0]["args"].update(when=[{"date": ["2026-12-10"], "time": ["15:00"]}]),
        "when.date",
        "not in the question",
    )
    check_edit(lambda cs: cs[4]["gold"][0]["args"].update(to=[{"name": ["Omar"]}]), "send_message.to", "not an object")


def test_ex09_overfitted_or_loose_answers_fail(nb09_solution):
    cases, pair, strict = parts(nb09_solution)
    printed = [
        ("re-sign the lease", "resign the lease"),
        ("C++", "C"),
        ("C#", "C"),
        ("-5", "5"),
        ("3.5", "35"),
        ("50%", "50"),
    ]

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
