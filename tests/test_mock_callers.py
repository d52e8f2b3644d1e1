"""Mock callers and the course's scoring cases (pack §2.9, exercise 9, §7 Part B)."""

import random
from collections import Counter

import pytest

import toolkit as T
from toolkit.lessons.mock_callers import (
    CALLER_TYPES,
    NameInventor,
    OverEagerCaller,
    ValueDropper,
    course_cases,
    gold_text,
    invent_name,
    make_callers,
    scoring_cases,
)

FUNCS, CASES = scoring_cases("all")


def test_the_course_set_has_at_least_thirty_cases_in_every_category():
    functions, cases = course_cases()
    counts = Counter(c["category"] for c in cases)
    assert len(cases) >= 30
    assert set(counts) == {"simple", "multiple", "parallel", "irrelevance", "missing_parameter"}
    assert counts["missing_parameter"] >= 4
    assert len({c["id"] for c in CASES}) == len(CASES) == len(cases) + len(T.BFCL_CASES)


def test_every_case_is_well_formed_against_its_function_schemas():
    for case in CASES:
        assert case["functions"] and all(f in FUNCS for f in case["functions"]), case["id"]
        for gold in case["gold"]:
            schema = FUNCS[gold["name"]]["parameters"]
            assert gold["name"] in case["functions"], case["id"]
            assert set(gold["args"]) <= set(schema["properties"]), case["id"]
            for param in schema["required"]:  # a required parameter may not be optional
                assert param in gold["args"] and "" not in gold["args"][param], (case["id"], param)
        if case["category"] in ("irrelevance", "missing_parameter"):
            assert case["gold"] == [], case["id"]
            assert T.classify(case, case["tempting"]) == "should_abstain"
        if case["category"] == "missing_parameter":
            # the right move is to ask: a question is not a call, so it passes
            assert T.classify(case, case["ask"]) == "pass"


def test_the_gold_text_is_accepted_by_the_scorer_and_by_exact_match():
    for case in CASES:
        text = gold_text(case)
        assert T.classify(case, text) == "pass", (case["id"], text)
        assert T.exact_string_match(text, gold_text(case))


def test_the_callers_text_round_trips_through_parse_calls():
    calls = [
        ("create_event", {"title": "Lunch", "when": {"date": "2026-11-28", "time": "12:00"}}),
        ("book_table", {"restaurant": "Luigi's", "people": 4}),
    ]
    assert T.parse_calls(T.format_calls(calls)) == calls
    assert T.parse_calls(T.format_calls(calls[:1])) == calls[:1]
    assert T.format_calls([]) == ""


@pytest.mark.parametrize("cls", CALLER_TYPES)
def test_a_caller_that_never_slips_passes_every_case(cls):
    replies = cls(0.0, seed=4).answers(CASES)
    assert T.evaluate_calls(CASES, replies)["overall"] == 1.0


@pytest.mark.parametrize("cls", CALLER_TYPES)
def test_replies_are_deterministic_and_depend_on_the_seed(cls):
    assert cls(0.5, seed=1).answers(CASES) == cls(0.5, seed=1).answers(CASES)
    assert cls(0.5, seed=1).answers(CASES) != cls(0.5, seed=2).answers(CASES)


@pytest.mark.parametrize("cls", CALLER_TYPES)
def test_raising_the_slip_rate_only_adds_failures(cls):
    failed_before: set = set()
    for slip in (0.0, 0.2, 0.5, 0.8, 1.0):
        replies = cls(slip, seed=0).answers(CASES)
        failed = {c["id"] for c, r in zip(CASES, replies) if T.classify(c, r) != "pass"}
        assert failed_before <= failed
        failed_before = failed
    assert failed_before, "at slip 1 the habit must show"


def test_each_habit_shows_up_as_its_own_failure_type():
    reports = {cls: T.evaluate_calls(CASES, cls(1.0, seed=0).answers(CASES)) for cls in CALLER_TYPES}
    assert set(reports[NameInventor]["failures"]) == {"hallucinated_function"}
    assert set(reports[ValueDropper]["failures"]) == {"wrong_arguments"}
    assert set(reports[OverEagerCaller]["failures"]) == {"should_abstain"}
    eager = reports[OverEagerCaller]["by_category"]
    assert eager["irrelevance"] == eager["missing_parameter"] == 0.0 and eager["simple"] == 1.0
    # calling a tool when none fits never hurts the cases where a call is right, and vice versa
    inventor = reports[NameInventor]["by_category"]
    assert inventor["irrelevance"] == inventor["missing_parameter"] == 1.0


def test_the_value_dropper_never_writes_an_optional_value():
    for case, reply in zip(CASES, ValueDropper(0.0).answers(CASES)):
        for name, kwargs in T.parse_calls(reply) if case["gold"] else []:
            gold = next(g for g in case["gold"] if g["name"] == name)
            assert all("" not in gold["args"][k] for k in kwargs), (case["id"], reply)


def test_exact_match_and_ast_scoring_disagree_where_wording_differs():
    replies = ValueDropper(0.0, seed=0).answers(CASES)
    simple_2 = next(i for i, c in enumerate(CASES) if c["id"] == "simple_2")
    # the optional unit is left out: fine for the AST scorer, a mismatch for exact matching
    assert "unit" not in replies[simple_2]
    assert T.classify(CASES[simple_2], replies[simple_2]) == "pass"
    assert not T.exact_string_match(replies[simple_2], gold_text(CASES[simple_2]))


def test_invented_names_are_plausible_and_never_real():
    rng = random.Random(0)
    for name in ("mult", "get_weather", "add", "book_table", "x"):
        for _ in range(5):
            made_up = invent_name(name, FUNCS, rng)
            assert made_up not in FUNCS and made_up != name
    assert "multiply" in {invent_name("mult", FUNCS, random.Random(s)) for s in range(20)}


def test_make_callers_and_bad_slip_rates():
    callers = make_callers([0.1, 0.2, 0.3], seed=5)
    assert [type(c) for c in callers] == list(CALLER_TYPES)
    assert [c.slip for c in callers] == [0.1, 0.2, 0.3]
    with pytest.raises(ValueError):
        make_callers([0.1, 0.2])
    for bad in (-0.1, 1.5, "0.3", True):
        with pytest.raises(ValueError):
            NameInventor(bad)
    with pytest.raises(ValueError):
        scoring_cases("everything")
