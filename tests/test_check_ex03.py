"""Exercise 3's check (toolkit/checks/ex03.py, notebook 08). What every check test holds: tests/conftest.py."""

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom, failed_lines

from toolkit.checks import ex03
from toolkit.lessons.repair_rules import repair_with

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
    schema = {
        "type": "object",
        "properties": {"mode": {"type": "string", "enum": ["eco", "off"]}, "level": {"type": "integer"}},
    }
    args = {"mode": " Eco", "level": "3"}
    fixed, notes = repair_with(ex03.reference_rule, args, schema)
    assert fixed == {"mode": "eco", "level": 3} and len(notes) == 2
    assert args == {"mode": " Eco", "level": "3"}  # the input is not changed


# ------------------------- held-out style: rules that change more than stray white space


def _matching(text, enum):
    """The one allowed value ``text`` names, ignoring case (None if none or several)."""
    if text in enum:
        return text
    same = [e for e in enum if isinstance(e, str) and e.lower() == text.lower()]
    return same[0] if text and len(same) == 1 else None


def _rule(clean, before=lambda spec, value: None):
    """A rule that turns the value into ``clean(value)`` and matches that (``before`` may edit the spec)."""

    def trim_enum_value(value, spec):
        enum = spec.get("enum") if isinstance(spec, dict) else None
        if not isinstance(value, str) or not enum or value in enum:
            return value, None
        before(spec, value)
        found = _matching(clean(value), spec["enum"])
        return (found, f"fixed {value!r}") if found is not None else (value, None)

    return trim_enum_value


def _sort_enum(spec, value):
    spec["enum"].sort()


def _mark_when_tabbed(spec, value):
    if "\t" in value or "\n" in value:
        spec["x-trimmed"] = True


def _lower_enum(spec, value):
    spec["enum"] = sorted({e.lower() for e in spec["enum"]}, key=spec["enum"].index)


WRONG_RULES = {
    "strips quotes too": (_rule(lambda v: v.strip().strip("'\"")), "quotes are not white space"),
    "removes every space": (_rule(lambda v: "".join(v.split())), "inside the value"),
    "turns inner spaces into underscores": (_rule(lambda v: v.strip().replace(" ", "_")), "inside the value"),
    "strips punctuation": (_rule(lambda v: v.strip(" \t\n.,;:")), "punctuation"),
    "sorts the schema's enum in place": (_rule(str.strip, _sort_enum), "changed the schema"),
    "marks the schema when a tab was trimmed": (_rule(str.strip, _mark_when_tabbed), "changed the schema"),
    "lower-cases the schema's enum": (_rule(str.strip, _lower_enum), "changed the schema"),
}


@pytest.mark.parametrize("name", WRONG_RULES)
def test_ex03_held_out_rules_that_change_more_than_white_space_fail(name, nb08_solution):
    rule, fragment = WRONG_RULES[name]
    assert_fails_with_sentence(ex03.check(rule, nb08_solution["test_rule"]), fragment)


def test_ex03_right_rules_written_other_ways_pass(nb08_solution):
    import re

    def by_regex(value, spec):
        options = (spec or {}).get("enum") or []
        if type(value) is not str or not options or value in options:
            return value, None
        core = re.fullmatch(r"\s*(.*?)\s*", value, flags=re.S).group(1)
        hits = [o for o in options if isinstance(o, str) and o.casefold() == core.casefold()]
        if core in options:
            return core, "white space removed"
        return (hits[0], "white space removed") if core and len(hits) == 1 else (value, None)

    assert ex03.check(by_regex, nb08_solution["test_rule"]).ok
    assert ex03.check(_rule(str.strip), nb08_solution["test_rule"]).ok


def test_ex03_a_rule_that_turns_an_integer_enum_into_strings_in_place_fails(nb08_solution):
    def trim_enum_value(value, spec):
        allowed = spec.get("enum") or []
        if isinstance(value, str) and allowed:
            allowed[:] = [str(a) for a in allowed]  # to compare strings with strings
            for a in allowed:
                if value.strip().casefold() == a.casefold() and value != a:
                    return a, f"trimmed {value!r} to {a!r}"
        return value, None

    result = ex03.check(trim_enum_value, nb08_solution["test_rule"])
    assert_fails_with_sentence(result, "the rule changed the schema it was given")
