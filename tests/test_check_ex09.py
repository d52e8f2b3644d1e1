"""Exercise 9's check (toolkit/checks/ex09.py, notebook 09). What every check test holds: tests/conftest.py."""

import copy

import pytest
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
    check_edit(lambda cs: cs[5]["gold"][0]["args"].update(b=[5]), "mult.b", "contradicts the question")
    check_edit(lambda cs: cs[2]["gold"][0]["args"].update(destination=["Rome"]), "destination", "not in the question")
    check_edit(
        lambda cs: cs[0]["gold"][0]["args"].update(when=[{"date": ["2026-12-10"], "time": ["15:00"]}]),
        "when.date",
        "contradicts the question",
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


# ------------------------------ held-out style: gold values in their standard form, or not


def _convert(question, amount, source, target):
    """An edit that makes the solution's currency case ask ``question`` with that gold call."""

    def edit(cases):
        case = next(c for c in cases if c["id"] == "ex9_pm_1")
        case["question"] = question
        case["gold"][0]["args"] = {"amount": [amount], "from_currency": [source], "to_currency": [target]}

    return edit


def _dated(question, date):
    def edit(cases):
        case = next(c for c in cases if c["id"] == "ex9_nested_1")
        case["question"] = question
        case["gold"][0]["args"]["when"][0]["date"] = [date]

    return edit


STANDARD = {
    "yen and euros as codes": _convert(
        "Change 5000 yen into euros and give me the ACME share price.", 5000, "JPY", "EUR"
    ),
    "pounds and dollars as codes": _convert(
        "How many dollars for 30 pounds? Also ACME's share price.", 30, "GBP", "USD"
    ),
    "a date in words as ISO": _dated(
        "Put 'Team retro' in the calendar on December 9, 2026 at 15:00 and invite ana@example.test.", "2026-12-09"
    ),
    "a day-first date as ISO": _dated(
        "Put 'Team retro' in the calendar on 9th December 2026 at 15:00 and invite ana@example.test.", "2026-12-09"
    ),
}
CONTRADICTS = {
    "yen asked, euros in the gold": _convert(
        "Change 5000 yen into dollars and give me ACME's price.", 5000, "EUR", "USD"
    ),
    "a code for a currency not named": _convert(
        "Change 5000 yen into euros and give me ACME's price.", 5000, "JPY", "GBP"
    ),
    "day and month swapped": _dated(
        "Put 'Team retro' in the calendar on March 5, 2026 at 15:00 and invite ana@example.test.", "2026-05-03"
    ),
    "another year": _dated(
        "Put 'Team retro' in the calendar on December 9, 2026 at 15:00 and invite ana@example.test.", "2025-12-09"
    ),
}


def test_ex09_gold_values_in_their_standard_form_pass(nb09_solution):
    _, pair, strict = parts(nb09_solution)
    for name, edit in STANDARD.items():
        result = ex09.check(with_cases(nb09_solution, edit), pair, strict)
        assert result.ok, f"{name}:\n{result.text}"


def test_ex09_gold_values_that_contradict_the_question_still_fail(nb09_solution):
    _, pair, strict = parts(nb09_solution)
    for edit in CONTRADICTS.values():
        assert_fails_with_sentence(
            ex09.check(with_cases(nb09_solution, edit), pair, strict), "contradicts the question"
        )


# ------------- held-out style: each gold value judged as the kind of value it is (issue 19 audit F5, F6)


def _asked(question, name, args, functions=None):
    """An edit that turns the solution's first case into one asking ``question``, gold ``name(**args)``."""

    def edit(cases):
        case = cases[0]
        case.update(question=question, functions=functions or [name], category="simple")
        case["gold"] = [{"name": name, "args": args}]

    return edit


CONTRADICTING_KINDS = {
    "an ISO date with day and month swapped": _asked(
        "Find flights from Oslo to Rome on 2026-12-09.",
        "search_flights",
        {"origin": ["Oslo"], "destination": ["Rome"], "date": ["2026-09-12"]},
    ),
    "a day taken from the time": _asked(
        "Add 'Dentist' on March 5, 2026 at 3 pm.",
        "create_event",
        {"title": ["Dentist"], "when": [{"date": ["2026-03-03"], "time": ["15:00"]}]},
    ),
    "the year of a title": _asked(
        "Add '2025 budget wrap-up' on 2026-03-05 at 10:00.",
        "create_event",
        {"title": ["2025 budget wrap-up"], "when": [{"date": ["2025-03-05"], "time": ["10:00"]}]},
    ),
    "9 pm as 09:00": _asked("Remind me to lock up at 9 pm.", "set_reminder", {"text": ["lock up"], "time": ["09:00"]}),
    "11 am as 1 am": _asked("Remind me to stretch at 11 am.", "set_reminder", {"text": ["stretch"], "time": ["1 am"]}),
    "people and time swapped": _asked(
        "Book Nopa for 4 people at 7pm.", "book_table", {"restaurant": ["Nopa"], "people": [7], "time": ["4pm"]}
    ),
    "$1,200 as 200": _asked(
        "Convert $1,200 to euros.",
        "convert_currency",
        {"amount": [200], "from_currency": ["USD"], "to_currency": ["EUR"]},
    ),
    "Canadian dollars as USD": _asked(
        "Convert 50 Canadian dollars to yen.",
        "convert_currency",
        {"amount": [50], "from_currency": ["USD"], "to_currency": ["JPY"]},
    ),
    "the currencies swapped": _asked(
        "Convert 5000 yen to euros.",
        "convert_currency",
        {"amount": [5000], "from_currency": ["EUR"], "to_currency": ["JPY"]},
    ),
    "pounds of weight for money": _asked(
        "How much is 20 pounds in euros?",
        "convert_currency",
        {"amount": [20], "from_currency": ["LB"], "to_currency": ["EUR"]},
    ),
    "the languages swapped": _asked(
        "Translate 'hola' from Spanish into English.",
        "translate",
        {"text": ["hola"], "target_language": ["Spanish"], "source_language": ["English"]},
    ),
    "the cities swapped": _asked(
        "Find flights from Lima to Quito on 2026-07-01.",
        "search_flights",
        {"origin": ["Quito"], "destination": ["Lima"], "date": ["2026-07-01"]},
    ),
    "Fahrenheit asked, celsius among the optional values": _asked(
        "How warm is Denver in °F?", "get_weather", {"city": ["Denver"], "unit": ["", "celsius"]}
    ),
}
STANDARD_KINDS = {
    "3 pm as 15:00": _asked(
        "Remind me to call the bank at 3 pm.", "set_reminder", {"text": ["call the bank"], "time": ["15:00"]}
    ),
    "noon as 12:00": _asked(
        "Remind me to eat lunch at noon.", "set_reminder", {"text": ["eat lunch"], "time": ["12:00"]}
    ),
    "°C as celsius": _asked("How warm is it in Oslo in °C?", "get_weather", {"city": ["Oslo"], "unit": ["celsius"]}),
    "°F as fahrenheit": _asked(
        "Temperature in Denver in °F?", "get_weather", {"city": ["Denver"], "unit": ["fahrenheit"]}
    ),
    "Canadian dollars as CAD, yen written out": _asked(
        "Convert 50 Canadian dollars to JPY.",
        "convert_currency",
        {"amount": [50], "from_currency": ["CAD"], "to_currency": ["yen", "JPY"]},
    ),
    "a thousands separator and a sign": _asked(
        "Convert $1,200 to euros.",
        "convert_currency",
        {"amount": [1200], "from_currency": ["USD"], "to_currency": ["EUR"]},
    ),
    "an amount after the target": _asked(
        "How many euros are 20 pounds?",
        "convert_currency",
        {"amount": [20], "from_currency": ["GBP"], "to_currency": ["EUR"]},
    ),
    "languages as codes, by side": _asked(
        "Translate 'hola' from Spanish into English.",
        "translate",
        {"text": ["hola"], "target_language": ["en"], "source_language": ["es", "Spanish"]},
    ),
    "a US date with slashes": _asked(
        "Find flights from Lima to Quito on 3/5/2026.",
        "search_flights",
        {"origin": ["Lima"], "destination": ["Quito"], "date": ["2026-03-05"]},
    ),
    "a city with its airport code beside it": _asked(
        "Find flights from Madrid to Athens on 2026-12-20.",
        "search_flights",
        {"origin": ["Madrid", "MAD"], "destination": ["Athens", "ATH"], "date": ["2026-12-20"]},
    ),
}


@pytest.mark.parametrize("name", CONTRADICTING_KINDS)
def test_ex09_a_gold_value_that_contradicts_its_question_fails(nb09_solution, name):
    _, pair, strict = parts(nb09_solution)
    result = ex09.check(with_cases(nb09_solution, CONTRADICTING_KINDS[name]), pair, strict)
    assert_fails_with_sentence(result, "contradicts the question")


@pytest.mark.parametrize("name", STANDARD_KINDS)
def test_ex09_a_gold_value_in_a_standard_form_of_the_question_passes(nb09_solution, name):
    _, pair, strict = parts(nb09_solution)
    result = ex09.check(with_cases(nb09_solution, STANDARD_KINDS[name]), pair, strict)
    assert result.ok, result.text


def test_ex09_a_unit_the_question_never_names_asks_for_the_enum_word_not_a_symbol(nb09_solution):
    _, pair, strict = parts(nb09_solution)
    edit = _asked("How warm is Oslo today?", "get_weather", {"city": ["Oslo"], "unit": ["celsius"]})
    result = ex09.check(with_cases(nb09_solution, edit), pair, strict)
    assert_fails_with_sentence(result, "names none of get_weather.unit's values (celsius, fahrenheit)", 'list ""')


def test_ex09_a_name_replaced_by_a_code_is_named_in_the_rule(nb09_solution):
    _, pair, strict = parts(nb09_solution)
    edit = _asked("What are Apple shares trading at?", "get_stock_price", {"ticker": ["AAPL"]})
    result = ex09.check(with_cases(nb09_solution, edit), pair, strict)
    assert_fails_with_sentence(
        result, "get_stock_price.ticker is not in the question", "Names are kept as the user wrote"
    )


@pytest.mark.parametrize(
    "pair",
    [
        ("U.S.", "US"),
        ("e-mail", "email"),
        ("O'Brien", "OBrien"),
        ('"Paris"', "Paris"),
        ("Paris, France", "Paris France"),
    ],
)
def test_ex09_a_lenient_pair_that_differs_only_in_harmless_punctuation_fails(nb09_solution, pair):
    cases, _, strict = parts(nb09_solution)
    assert_fails_with_sentence(ex09.check(cases, lambda: pair, strict), "the notebook counts as harmless")
