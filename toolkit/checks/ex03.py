"""Exercise 3 (notebook 08, pack §2.8 "Bad arguments"): repair limits.

The toolkit's :func:`~toolkit.schema.repair_args` already turns "true" into a boolean and
fixes an enum value's letter case. The student adds one more rule: an enum value sent with
stray white space around it (``" Celsius "``) becomes the allowed value it plainly means, and
nothing else changes. The rule is a function ``rule(value, spec) -> (value, note)``, with
``note`` None when it did nothing; :func:`toolkit.lessons.repair_rules.repair_with` applies it after the toolkit's repair.

The student also writes ``test_rule(rule)``, which raises ``AssertionError`` when a rule is
wrong. The check runs those tests against a correct rule (they must pass it) and against two
broken ones (they must catch both): one that never fires, and one that always picks the
closest allowed value, so "maybe" would become something. A test that cannot fail proves
nothing.
"""

from __future__ import annotations

import copy
import difflib
import random
from collections.abc import Callable
from typing import Any

from ..lessons.repair_rules import repair_with
from ..registry import ToolRegistry
from . import Checker, CheckResult, StudentError, StudentTimeout, not_done, probe_parts

__all__ = [
    "check",
    "reference_rule",
    "reworded_rule",
    "never_fires",
    "over_eager",
    "cases",
    "drawn_cases",
    "FIRES",
    "QUIET",
]

TITLE = "Exercise 3: repair limits"


def cases() -> tuple[list, list]:
    """``(FIRES, QUIET)`` built afresh, so a cell that edits the module's copies changes no verdict.

    FIRES holds ``(value, spec, the value it should become)``: the rule must fire.
    QUIET holds ``(value, spec, why it must stay as it is)``: the rule must not fire.

    Notebook 08, through check.
    """
    unit = {"type": "string", "enum": ["celsius", "fahrenheit"]}
    cabin = {"type": "string", "enum": ["economy", "premium_economy", "business"]}
    switch = {"type": "string", "enum": ["on", "ON", "off"]}  # two values differ only in case
    free = {"type": "string", "description": "a city name"}
    level = {"type": "integer", "enum": [1, 2, 3]}

    fires = [
        *_with(unit, [(" celsius", "celsius"), ("fahrenheit\n", "fahrenheit"), ("  Celsius\t", "celsius")]),
        *_with(cabin, [(" Business ", "business")]),
        *_with(switch, [(" off ", "off"), (" on", "on")]),
    ]
    quiet = _with(
        unit,
        [
            ("maybe", "'maybe' is not an allowed value in any spelling"),
            ("kelvin", "'kelvin' is a different unit, not a slip"),
            ("cels", "a prefix is a guess"),
            (" celcius ", "a misspelling is a guess, even a close one"),
            ("celsius or fahrenheit", "the caller did not choose"),
            ("   ", "white space alone means nothing was chosen"),
            ("", "an empty string means nothing was chosen"),
            ("celsius", "a value that already fits is left alone"),
            ('"celsius"', "quotes are not white space"),
            (" 'fahrenheit' ", "quotes are not white space, even inside stray spaces"),
            ("cel sius", "a space inside the value is not stray white space around it"),
            ("celsius.", "punctuation is not white space"),
        ],
    )
    quiet += [
        (" On ", switch, "'On' matches both 'on' and 'ON'; a repair must not pick one"),
        (
            "premium economy",
            cabin,
            "a space inside the value is not stray white space; the caller may mean another value",
        ),
        (" premium_ economy ", cabin, "only the white space around the value is stray"),
        ("  Paris ", free, "without an enum there is no list of values to compare with"),
        (2, level, "not a string"),
        (None, unit, "no value at all"),
    ]
    return fires, quiet


def _with(spec: dict, pairs: list) -> list:
    """``(value, x)`` pairs as ``(value, spec, x)`` cases: one spec, many values."""
    return [(value, spec, x) for value, x in pairs]


def drawn_cases(rng: random.Random | None = None) -> tuple[tuple, tuple]:
    """One more FIRES case and one more QUIET case, drawn at check time, so a rule that looks the
    listed cases up in a table still meets values it has not seen.

    Notebook 08, through check.
    """
    rng = rng or random.Random()
    words = ["north", "south", "east", "west", "small", "medium", "large", "daily", "weekly", "monthly"]
    allowed = rng.sample(words, 3)
    spec = {"type": "string", "enum": allowed}
    pads = [" ", "  ", "\t", "\n", " \t"]
    chosen = rng.choice(allowed)
    spelled = rng.choice([chosen, chosen.upper(), chosen.capitalize()])
    padded = rng.choice(pads) + spelled + rng.choice(pads)
    other = rng.choice([w for w in words if w not in allowed])
    altered = rng.choice(
        [
            (" " + other + " ", f"{other!r} is not one of the allowed values"),
            (f'"{chosen}"', "quotes are not white space"),
            (chosen[:2] + " " + chosen[2:], "a space inside the value is not stray white space"),
        ]
    )
    return (padded, spec, chosen), (altered[0], spec, altered[1])


FIRES, QUIET = cases()  # for reading; each check builds its own


def reference_rule(value: Any, spec: Any) -> tuple[Any, str | None]:
    """A correct rule: strip white space, then accept an exact match, or else a match that
    ignores case when exactly one allowed value fits.

    Notebook 08, through check.
    """
    enum = spec.get("enum") if isinstance(spec, dict) else None
    if not isinstance(value, str) or not enum or value in enum:
        return value, None
    text = value.strip()
    if text in enum:
        return text, f"trimmed {value!r} to {text!r}"
    same = [e for e in enum if isinstance(e, str) and e.lower() == text.lower()]
    if text and len(same) == 1:
        return same[0], f"trimmed {value!r} to {same[0]!r}"
    return value, None


def reworded_rule(value: Any, spec: Any) -> tuple[Any, str | None]:
    """Also correct: :func:`reference_rule` with a note in other words (tests must not demand one wording).

    Notebook 08, through check.
    """
    new, note = reference_rule(value, spec)
    return new, (f"enum value {new!r} chosen for {value!r}" if note else None)


def never_fires(value: Any, spec: Any) -> tuple[Any, str | None]:
    """A broken rule: it does nothing.

    Notebook 08, through check.
    """
    return value, None


def over_eager(value: Any, spec: Any) -> tuple[Any, str | None]:
    """A broken rule: any string that is not allowed becomes the closest allowed value.

    Notebook 08, through check.
    """
    enum = spec.get("enum") if isinstance(spec, dict) else None
    if not isinstance(value, str) or not enum or value in enum:
        return value, None
    words = [e for e in enum if isinstance(e, str)]
    best = difflib.get_close_matches(value.strip().lower(), words, n=1, cutoff=0.0) or words[:1]
    return best[0], f"guessed {best[0]!r} for {value!r}"


def _pair(c: Checker, rule: Callable, value: Any, spec: dict) -> tuple[Any, Any]:
    out = c.call(rule, value, copy.deepcopy(spec))
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise StudentError(f"the rule should return a pair (value, note), got {out!r}")
    return tuple(out)


def _tests_pass(c: Checker, test_rule: Callable, rule: Callable) -> str | None:
    """None when the student's tests accept ``rule``; else what they said."""
    try:
        c.call(test_rule, rule)
    except StudentTimeout:
        raise
    except StudentError as exc:
        said = str(exc).replace("your code raised ", "", 1)
        return "an assert failed" if said == "AssertionError: " else said
    return None


def _fires(c: Checker, rule: Callable, fires_cases: list) -> bool:
    for value, spec, want in fires_cases:
        got, note = _pair(c, rule, value, spec)
        assert got == want, (
            f"{value!r} with allowed values {spec['enum']} should become {want!r}; "
            f"your rule gave {got!r}. Strip the white space, then compare"
        )
        assert isinstance(note, str) and note.strip(), (
            f"the rule fixed {value!r} but gave no note; say what changed, so the harness can log it"
        )
    return True


def _quiet(c: Checker, rule: Callable, quiet_cases: list) -> bool:
    for value, spec, why in quiet_cases:
        got, note = _pair(c, rule, value, spec)
        assert got == value and type(got) is type(value) and note is None, (
            f"{value!r} should be left as it is, with note None ({why}); your rule gave ({got!r}, {note!r})"
        )
    return True


# Strings sent to an integer enum, only to see that the rule leaves the schema as it was (a rule
# that turns the enum's integers into strings, to compare, edits the caller's schema).
def _integer_probes() -> list:
    return [(text, {"type": "integer", "enum": [1, 2, 3]}, None) for text in (" 2 ", "4")]


def _spec_untouched(c: Checker, rule: Callable, all_cases: list) -> bool:
    for value, spec, _ in all_cases:
        given = copy.deepcopy(spec)
        c.call(rule, value, given, copy_args=False)  # looking for edits to it
        same_types = [type(e) for e in given.get("enum", [])] == [type(e) for e in spec.get("enum", [])]
        assert given == spec and same_types, (
            f"given {value!r}, the rule changed the schema it was given to {given}; read it, do not edit it"
        )
    return True


def _heating_tool() -> tuple[ToolRegistry, Any]:
    def set_heating(mode: str, level: int) -> str:
        """Set the heating.

        Args:
            mode: heating mode
            level: power level from 1 to 3
        """
        return f"{mode} at {level}"

    registry = ToolRegistry()
    tool = registry.add(set_heating)
    tool.input_schema["properties"]["mode"]["enum"] = ["eco", "comfort", "off"]
    return registry, tool


def _through_registry(c: Checker, trim_enum_value: Callable) -> bool:
    registry, tool = _heating_tool()

    def rule(value, spec):
        return _pair(c, trim_enum_value, value, spec)

    schema = copy.deepcopy(tool.input_schema)
    args, notes = repair_with(rule, {"mode": " Comfort ", "level": "2"}, tool.input_schema)
    assert tool.input_schema == schema, "the rule changed the tool's schema while repairing; read it, do not edit it"
    result = registry.run("set_heating", args, repair=False)
    assert result.ok and result.content == "comfort at 2", (
        f"after repair_with, the call {{'mode': ' Comfort ', 'level': '2'}} should run as "
        f"'comfort at 2'; the registry said {result.content!r}"
    )
    assert len(notes) == 2, f"expected two notes (the toolkit's and yours), got {notes}"
    args, notes = repair_with(rule, {"mode": " warm ", "level": 2}, tool.input_schema)
    result = registry.run("set_heating", args, repair=False)
    assert result.kind == "invalid_args" and not notes, (
        "' warm ' is not an allowed mode in any spelling, so it must reach the model as an error, "
        f"unrepaired; instead: notes {notes}, result {result.kind}"
    )
    return True


def _tests_accept_correct(c: Checker, test_rule: Callable) -> bool:
    said = _tests_pass(c, test_rule, reference_rule) or _tests_pass(c, test_rule, reworded_rule)
    assert said is None, (
        f"your tests reject a correct rule ({said}). Test what the rule does (the "
        "value it returns, and that a note is or is not there), not a note's wording"
    )
    return True


def _tests_catch(c: Checker, test_rule: Callable, broken: Callable, what: str, hint: str) -> bool:
    said = _tests_pass(c, test_rule, broken)
    assert said is not None, f"your tests pass a rule that {what}; {hint}"
    return True


def _own_rule(c: Checker, trim_enum_value: Callable) -> CheckResult | None:
    """The report when the student passed the check's own rule, else None."""
    if trim_enum_value not in (reference_rule, reworded_rule):
        return None
    c.expect(
        False,
        "trim_enum_value is your own rule",
        "it is this check's own rule, imported from toolkit.checks.ex03; write the rule yourself",
    )
    return c.done()


def check(trim_enum_value: Callable, test_rule: Callable) -> CheckResult:
    """Run the student's rule on unseen values, and the student's tests on three rules.

    Notebook 08.
    """
    c = Checker(TITLE)
    fires_cases, quiet_cases = cases()
    drawn_fire, drawn_quiet = drawn_cases()
    fires_cases.append(drawn_fire)
    quiet_cases.append(drawn_quiet)
    parts = {
        "trim_enum_value": (trim_enum_value, (" celsius", fires_cases[0][1])),
        "test_rule": (test_rule, (reference_rule,)),
    }
    if probe_parts(c, parts)[1]:
        return not_done(TITLE)
    report = _own_rule(c, trim_enum_value)
    if report is not None:
        return report
    rule, tests = trim_enum_value, test_rule
    c.run(f"the rule fixes padded enum values ({len(fires_cases)} unseen cases)", lambda: _fires(c, rule, fires_cases))
    c.run(
        f"the rule leaves everything else alone, including 'maybe' ({len(quiet_cases)} unseen cases)",
        lambda: _quiet(c, rule, quiet_cases),
    )
    c.run(
        "the rule does not change the schema it reads",
        lambda: _spec_untouched(c, rule, fires_cases + quiet_cases + _integer_probes()),
    )
    c.run(
        "through the registry: ' Comfort ' runs as 'comfort'; ' warm ' stays an error",
        lambda: _through_registry(c, rule),
    )
    c.run("your tests pass a correct rule", lambda: _tests_accept_correct(c, tests))
    c.run(
        "your tests catch a rule that never fires",
        lambda: _tests_catch(c, tests, never_fires, "never fires", "add a test where a padded value must be fixed"),
    )
    c.run(
        "your tests catch a rule that always guesses the closest value",
        lambda: _tests_catch(
            c,
            tests,
            over_eager,
            "turns 'maybe' into an allowed value",
            "add a test where the rule must do nothing, such as 'maybe'",
        ),
    )
    return c.done(next_step="Now the two sentences below: why is repair riskier for a tool that changes things?")
