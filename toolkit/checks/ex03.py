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
        ],
    )
    quiet += [
        (" On ", switch, "'On' matches both 'on' and 'ON'; a repair must not pick one"),
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
    return (padded, spec, chosen), (" " + other + " ", spec, f"{other!r} is not one of the allowed values")


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


def check(trim_enum_value: Callable, test_rule: Callable) -> CheckResult:
    """Run the student's rule on unseen values, and the student's tests on three rules.

    Notebook 08.
    """
    c = Checker(TITLE)
    fires_cases, quiet_cases = cases()
    drawn_fire, drawn_quiet = drawn_cases()
    fires_cases.append(drawn_fire)
    quiet_cases.append(drawn_quiet)
    _, all_stubs = probe_parts(
        c,
        {
            "trim_enum_value": (trim_enum_value, (" celsius", fires_cases[0][1])),
            "test_rule": (test_rule, (reference_rule,)),
        },
    )
    if all_stubs:
        return not_done(TITLE)
    if trim_enum_value in (reference_rule, reworded_rule):
        c.expect(
            False,
            "trim_enum_value is your own rule",
            "it is this check's own rule, imported from toolkit.checks.ex03; write the rule yourself",
        )
        return c.done()

    def fires():
        for value, spec, want in fires_cases:
            got, note = _pair(c, trim_enum_value, value, spec)
            assert got == want, (
                f"{value!r} with allowed values {spec['enum']} should become {want!r}; "
                f"your rule gave {got!r}. Strip the white space, then compare"
            )
            assert isinstance(note, str) and note.strip(), (
                f"the rule fixed {value!r} but gave no note; say what changed, so the harness can log it"
            )
        return True

    def quiet():
        for value, spec, why in quiet_cases:
            got, note = _pair(c, trim_enum_value, value, spec)
            assert got == value and type(got) is type(value) and note is None, (
                f"{value!r} should be left as it is, with note None ({why}); your rule gave ({got!r}, {note!r})"
            )
        return True

    def spec_untouched():
        for value, spec, _ in fires_cases[:2] + quiet_cases[:2]:
            given = copy.deepcopy(spec)
            c.call(trim_enum_value, value, given, copy_args=False)  # looking for edits to it
            assert given == spec, "the rule changed the schema it was given; read it, do not edit it"
        return True

    def through_registry():
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

        def rule(value, spec):
            return _pair(c, trim_enum_value, value, spec)

        args, notes = repair_with(rule, {"mode": " Comfort ", "level": "2"}, tool.input_schema)
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

    def tests_accept_correct():
        said = _tests_pass(c, test_rule, reference_rule) or _tests_pass(c, test_rule, reworded_rule)
        assert said is None, (
            f"your tests reject a correct rule ({said}). Test what the rule does (the "
            "value it returns, and that a note is or is not there), not a note's wording"
        )
        return True

    def tests_catch(broken: Callable, what: str, hint: str):
        def body():
            said = _tests_pass(c, test_rule, broken)
            assert said is not None, f"your tests pass a rule that {what}; {hint}"
            return True

        return body

    run = c.run
    run(f"the rule fixes padded enum values ({len(fires_cases)} unseen cases)", fires)
    run(f"the rule leaves everything else alone, including 'maybe' ({len(quiet_cases)} unseen cases)", quiet)
    run("the rule does not change the schema it reads", spec_untouched)
    run("through the registry: ' Comfort ' runs as 'comfort'; ' warm ' stays an error", through_registry)
    run("your tests pass a correct rule", tests_accept_correct)
    run(
        "your tests catch a rule that never fires",
        tests_catch(never_fires, "never fires", "add a test where a padded value must be fixed"),
    )
    run(
        "your tests catch a rule that always guesses the closest value",
        tests_catch(
            over_eager,
            "turns 'maybe' into an allowed value",
            "add a test where the rule must do nothing, such as 'maybe'",
        ),
    )
    return c.done(next_step="Now the two sentences below: why is repair riskier for a tool that changes things?")
