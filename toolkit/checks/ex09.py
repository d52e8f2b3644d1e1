"""Exercise 9 (notebook 09, pack §2.9 "BFCL: checking the call itself"): score harder.

Part 1: the student writes ten or more new cases in the course's format (as in
``data/course_cases.json``), over the course's functions, including one whose gold answer has
a nested dictionary argument in BFCL's form (``{key: [acceptable values]}``) and one with an
optional parameter (``""`` among its acceptable values). The check validates every case
against the function schemas, confirms that a reply written from the gold answer passes, that
the nested case rejects a wrong nested value, and that the optional parameter may be given or
left out. It then scores the three mock callers on the new cases, for interest.

Part 2: the student finds two strings that :func:`~toolkit.values_equal` treats as equal and a
user would not (they must differ in more than letter case and white space), and writes
``stricter_equal(a, b)``, a comparison that rejects that pair and a few unseen ones of the same
kind (drawn afresh at each check, so no list of them can be copied) while still accepting
differences of case and spacing.

Each case must also be what it says (pack §2.9, BFCL's categories): its category fits its gold
calls, and each required gold value is in the question (a number, or the user's own words), so
a gold answer that contradicts its question fails.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable
from typing import Any

from ..lessons.mock_callers import CALLER_TYPES, concrete_value, gold_text, scoring_cases, written_call
from ..scoring import classify, evaluate_calls, format_calls, is_nested_form, values_equal
from . import Checker, CheckResult, StudentError, not_done, probe_parts

__all__ = [
    "check",
    "FUNCTIONS",
    "EXAMPLE",
    "EXISTING_IDS",
    "CATEGORIES",
    "unseen_lenient_pairs",
    "HARMLESS",
    "nested_cases",
    "optional_params",
    "squash",
]

TITLE = "Exercise 9: score harder"
FUNCTIONS, _EXISTING = scoring_cases("all")
EXISTING_IDS = {c["id"] for c in _EXISTING}
EXAMPLE = next(c for c in _EXISTING if c["id"] == "course_simple_7")  # shown to students as the format
CATEGORIES = ("simple", "multiple", "parallel", "parallel_multiple", "irrelevance", "missing_parameter")
NO_CALL = ("irrelevance", "missing_parameter")
N_CASES = 10
SEED = 0


def unseen_lenient_pairs(rng: random.Random | None = None) -> list[tuple[str, str]]:
    """Five pairs values_equal accepts that mean different things to a person, drawn afresh
    (a sign, a decimal point, a percent sign, a language's symbol, a hyphen that changes a word).

    Notebook 09, through check.
    """
    rng = rng or random.Random()
    n, whole, tenth = rng.randint(2, 999), rng.randint(1, 99), rng.randint(1, 9)
    return [
        (rng.choice(("-", "+")) + str(n), str(n)),
        (f"{whole}.{tenth}", f"{whole}{tenth}"),
        (f"{n}%", str(n)),
        rng.choice((("C++", "C"), ("C#", "C"), ("F#", "F"))),
        rng.choice((("re-sign", "resign"), ("re-cover", "recover"), ("re-form", "reform"))),
    ]


N_UNSEEN = 5
# Pairs that differ only in ways a person would not care about, and non-string values.
HARMLESS = (
    ("Paris", "paris"),
    ("New York", "new york"),
    ("  Oslo ", "Oslo"),
    ("San Francisco", "san  francisco"),
    ("ACME", "acme"),
)
SAME_AS_BEFORE = ((3, 3.0, True), (True, 1, False), (None, None, True), (2, 3, False))


def squash(text: str) -> str:
    """A string with white space removed and case folded: what remains once the two harmless
    differences are gone.

    Notebook 09, through check.
    """
    return re.sub(r"\s+", "", text).casefold()


NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)  # a string: no cell can edit it
CLOSING_MARKS = ".,;:!?"


def _alnum(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def _question_words(question: str) -> tuple[set, set, str]:
    """The question's words, its numbers (digits or number words) and its letters and digits."""
    words = set(re.findall(r"[^\W\d_]+", question.casefold()))
    numbers = {float(x) for x in re.findall(r"\d+(?:\.\d+)?", question)}
    numbers |= {float(x) for x in re.findall(r"\d+", question)}
    spelled = NUMBER_WORDS.split()
    numbers |= {float(spelled.index(w)) for w in words if w in spelled}
    return words, numbers, _alnum(question)


def _in_question(value: Any, q: tuple[set, set, str]) -> bool:
    """Is this gold value something the question says? Texts match by their letters and digits,
    or word by word (numbers by value, so 9 and 09 agree); numbers by value."""
    words, numbers, letters = q
    if isinstance(value, bool) or value == "":
        return True
    if isinstance(value, (int, float)):
        return float(value) in numbers
    if isinstance(value, list):
        return all(_in_question(v, q) for v in value)
    if not isinstance(value, str):
        return True
    if _alnum(value) and _alnum(value) in letters:
        return True
    own_numbers = {float(x) for x in re.findall(r"\d+", value) if int(x)}
    own_words = set(re.findall(r"[^\W\d_]+", value.casefold())) - {"am", "pm"}
    return bool(own_numbers | own_words) and own_numbers <= numbers and own_words <= words


def _absent_from_question(options: list, q: tuple) -> str | None:
    """'' when some acceptable value is in the question; else the key of a nested dict that is
    not (or None for the whole parameter)."""
    if "" in options:
        return ""  # optional: the user need not have said it
    missing_key = None
    for option in options:
        if is_nested_form(option):
            bad = [k for k, opts in option.items() if _absent_from_question(opts, q) != ""]
            if not bad:
                return ""
            missing_key = bad[0]
        elif _in_question(option, q):
            return ""
    return missing_key


def _category_problem(cat: str, funcs: list, gold: list) -> str | None:
    """Does the category fit the case (BFCL's categories, pack §2.9)?"""
    names = {g["name"] for g in gold}
    if cat == "simple" and len(gold) != 1:
        return f"a 'simple' case has exactly one gold call; with {len(gold)} it is parallel or parallel_multiple"
    if cat == "simple" and len(funcs) != 1:
        return f"a 'simple' case offers exactly one function; with {len(funcs)} offered it is 'multiple'"
    if cat == "multiple" and len(gold) != 1:
        return f"a 'multiple' case has exactly one gold call; with {len(gold)} it is parallel_multiple"
    if cat == "multiple" and len(funcs) < 2:
        return "a 'multiple' case offers two or more functions for the model to choose from; with one it is 'simple'"
    if cat == "parallel" and len(names) != 1:
        return (
            f"a 'parallel' case calls one function several times; these calls use {', '.join(sorted(names))}, "
            "so it is 'parallel_multiple'"
        )
    if cat == "parallel_multiple" and len(names) < 2:
        return (
            f"a 'parallel_multiple' case calls two or more different functions; these all call {names.pop()}, "
            "so it is 'parallel'"
        )
    return None


def _gold_args_where(cases: list, wanted: Callable[[list], bool]) -> list[tuple[int, int, str]]:
    """``(case index, gold index, parameter)`` for each gold argument whose list of acceptable
    values is ``wanted``."""
    return [
        (i, j, param)
        for i, case in enumerate(cases)
        for j, g in enumerate(case.get("gold") or [])
        for param, options in (g.get("args") or {}).items()
        if isinstance(options, list) and wanted(options)
    ]


def nested_cases(cases: list) -> list[tuple[int, int, str]]:
    """``(case index, gold index, parameter)`` for each gold argument written in BFCL's nested form.

    Notebook 09, through check.
    """
    return _gold_args_where(cases, lambda options: any(is_nested_form(o) for o in options))


def optional_params(cases: list) -> list[tuple[int, int, str]]:
    """``(case index, gold index, parameter)`` for each gold argument that lists ``""`` and a value.

    Notebook 09, through check.
    """
    return _gold_args_where(cases, lambda options: "" in options and any(o != "" for o in options))


def _object_problem(spec: dict, options: list, where: str) -> str | None:
    """For an object parameter with declared keys: every dict answer uses only those keys, and
    an answer in the nested form lists each required key."""
    keys = (spec or {}).get("properties") if (spec or {}).get("type") == "object" else None
    if not keys:
        return None
    for option in options:
        if not isinstance(option, dict):
            continue
        unknown = [k for k in option if k not in keys]
        if unknown:
            return f"{where} has no key {unknown[0]!r} (it has {', '.join(keys)})"
        if is_nested_form(option):
            missing = [k for k in spec.get("required") or [] if k not in option]
            if missing:
                return f"{where} needs the key {missing[0]!r}; list its acceptable values"
    return None


def _course_functions() -> tuple[dict, set]:
    """The course's functions and the ids of its cases, built afresh for one check (a cell may
    have edited ``FUNCTIONS`` or ``EXISTING_IDS``, which are here for reading)."""
    functions, existing = copy.deepcopy(scoring_cases("all"))
    return functions, {c["id"] for c in existing}


def _problems(case: Any, seen: set, functions: dict, existing_ids: set) -> list[str]:
    """What is wrong with one case, as sentences (empty when it is fine)."""
    if not isinstance(case, dict):
        return [f"a case should be a dict, got {type(case).__name__}"]
    cid = case.get("id")
    if not isinstance(cid, str) or not cid:
        return ["every case needs an 'id' string"]
    if cid in existing_ids:
        return [f"{cid!r} is already a case id in the course's set; pick a new one"]
    if cid in seen:
        return [f"two cases have the id {cid!r}"]
    seen.add(cid)
    where = f"case {cid!r}"
    cat = case.get("category")
    if cat not in CATEGORIES:
        return [f"{where}: 'category' should be one of {', '.join(CATEGORIES)}, got {cat!r}"]
    if not isinstance(case.get("question"), str) or not case["question"].strip():
        return [f"{where}: write the user's request under 'question'"]
    funcs = case.get("functions")
    if not isinstance(funcs, list) or not funcs or not all(isinstance(f, str) for f in funcs):
        return [f"{where}: 'functions' should be a list of function names offered to the model"]
    unknown = [f for f in funcs if f not in functions]
    if unknown:
        return [f"{where}: there is no function {unknown[0]!r}; use the course's functions, listed above"]
    gold = case.get("gold")
    if not isinstance(gold, list):
        return [f"{where}: 'gold' should be a list of calls (empty when no call is right)"]
    if cat in NO_CALL and gold:
        return [f"{where}: in a {cat} case no call is right, so 'gold' should be []"]
    if cat not in NO_CALL and not gold:
        return [f"{where}: a {cat} case needs at least one gold call"]
    if cat in ("parallel", "parallel_multiple") and len(gold) < 2:
        return [f"{where}: a {cat} case needs two or more gold calls"]
    for g in gold:
        if not isinstance(g, dict) or not isinstance(g.get("args"), dict):
            return [f"{where}: each gold call is {{'name': ..., 'args': {{param: [acceptable values]}}}}"]
        name = g.get("name")
        if name not in funcs:
            return [f"{where}: the gold call {name!r} is not among the case's functions {funcs}"]
        schema = functions[name]["parameters"]
        props = schema.get("properties") or {}
        for param, options in g["args"].items():
            if param not in props:
                return [f"{where}: {name} has no parameter {param!r} (it has {', '.join(props)})"]
            if not isinstance(options, list) or not options:
                return [f"{where}: {name}.{param} should list its acceptable values, such as ['Paris']"]
            problem = _object_problem(props[param], options, f"{where}: {name}.{param}")
            if problem:
                return [problem]
            kind = props[param].get("type")
            if kind != "object" and any(is_nested_form(o) for o in options):
                return [
                    f"{where}: {name}.{param} is not an object (its type is {kind}), so it takes a plain "
                    "value, not the nested form {key: [values]}"
                ]
        missing = [p for p in schema.get("required") or [] if p not in g["args"]]
        if missing:
            return [f"{where}: {name} needs {missing[0]!r}; the gold call must list a value for it"]
        if all(o == "" for opts in g["args"].values() for o in opts) and g["args"]:
            return [f"{where}: every value of {name} is optional; list at least one real value"]
    problem = _category_problem(cat, funcs, gold)
    if problem:
        return [f"{where}: {problem}"]
    q = _question_words(case["question"])
    for g in gold:
        for param, options in g["args"].items():
            key = _absent_from_question(options, q)
            if key != "":
                label = f"{g['name']}.{param}" + (f".{key}" if key else "")
                return [
                    f"{where}: {label} is not in the question (none of its acceptable values is); "
                    "make the gold answer what the user asked for, and list the question's own words "
                    "among the acceptable values"
                ]
    return []


def _with_nested_value_changed(case: dict, j: int, param: str) -> str:
    """The gold reply with one nested value replaced by something no gold list holds."""
    first = lambda choices: choices[0]  # noqa: E731
    calls = [written_call(g, first) for g in case["gold"]]
    name, kwargs = calls[j]
    kwargs = copy.deepcopy(kwargs)
    value = kwargs.get(param)
    if isinstance(value, dict) and value:
        key = sorted(value)[0]
        value[key] = "not-a-gold-value-0"
    else:
        nested = next(o for o in case["gold"][j]["args"][param] if is_nested_form(o))
        key = sorted(nested)[0]
        kwargs[param] = {key: "not-a-gold-value-0"}
    calls[j] = (name, kwargs)
    return format_calls(calls)


def _optional_both_ways(case: dict, j: int, param: str) -> tuple[str, str]:
    """The gold reply once with the optional parameter given and once without it."""
    first = lambda choices: choices[0]  # noqa: E731
    calls = [written_call(g, first) for g in case["gold"]]
    name, kwargs = calls[j]
    option = next(o for o in case["gold"][j]["args"][param] if o != "")
    with_it = dict(kwargs, **{param: concrete_value(option, first)})
    without = {k: v for k, v in kwargs.items() if k != param}
    a, b = list(calls), list(calls)
    a[j], b[j] = (name, with_it), (name, without)
    return format_calls(a), format_calls(b)


def check(harder_cases: Callable, lenient_pair: Callable, stricter_equal: Callable) -> CheckResult:
    """Validate and score the new cases; test the lenient pair and the stricter comparison.

    Notebook 09.
    """
    c = Checker(TITLE)
    functions, existing_ids = _course_functions()
    _, all_stubs = probe_parts(
        c,
        {
            "harder_cases": (harder_cases, ()),
            "lenient_pair": (lenient_pair, ()),
            "stricter_equal": (stricter_equal, ("Paris", "paris")),
        },
    )
    if all_stubs:
        return not_done(TITLE)
    run = c.run
    state: dict = {}

    def cases_valid():
        cases = c.call(harder_cases)
        if not isinstance(cases, list):
            raise StudentError(f"harder_cases() should return a list of case dicts, got {type(cases).__name__}")
        assert len(cases) >= N_CASES, f"write at least {N_CASES} cases; you have {len(cases)}"
        seen: set = set()
        for case in cases:
            problems = _problems(case, seen, functions, existing_ids)
            assert not problems, problems[0]
        state["cases"] = copy.deepcopy(cases)
        return True

    def found_in_cases(finder: Callable, first: str, missing: str) -> list[tuple[dict, int, str]]:
        """``(case, gold index, parameter)`` for each place ``finder`` finds in the valid cases."""
        cases = state.get("cases")
        assert cases, first
        found = finder(cases)
        assert found, missing
        return [(cases[i], j, param) for i, j, param in found]

    def has_nested():
        for case, j, param in found_in_cases(
            nested_cases,
            "fix the cases first (the line above)",
            "no gold argument uses the nested form; give an object parameter, such as "
            "create_event's 'when', as [{'date': ['2026-12-03'], 'time': ['10:00']}]",
        ):
            bad = _with_nested_value_changed(case, j, param)
            assert classify(case, bad, functions) != "pass", (
                f"case {case['id']!r}: the reply {bad} passes, so the nested value is not really checked"
            )
        return True

    def has_optional():
        for case, j, param in found_in_cases(
            optional_params,
            "fix the cases first",
            'no gold argument is optional; list "" next to a value, as in '
            "'unit': ['', 'celsius'], for a parameter the user did not insist on",
        ):
            for reply in _optional_both_ways(case, j, param):
                label = classify(case, reply, functions)
                assert label == "pass", f"case {case['id']!r}: the reply {reply} should pass, but scores {label}"
        return True

    def gold_passes():
        cases = state.get("cases")
        assert cases, "fix the cases first"
        for case in cases:
            reply = gold_text(case)
            label = classify(case, reply, functions)
            assert label == "pass", (
                f"case {case['id']!r}: a reply written from your gold answer ({reply!r}) "
                f"scores {label}; check the gold values"
            )
        return True

    def pair_lenient():
        pair = c.call(lenient_pair)
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(s, str) for s in pair)):
            raise StudentError(f"lenient_pair() should return two strings, got {pair!r}")
        a, b = pair
        assert values_equal(a, b), f"values_equal({a!r}, {b!r}) is False: the scorer already tells them apart"
        assert squash(a) != squash(b), (
            f"{a!r} and {b!r} differ only in letter case or white space, which a user would not mind; "
            "find a pair that differs in a character the scorer drops, such as a sign or a symbol"
        )
        assert squash(a.rstrip(CLOSING_MARKS)) != squash(b.rstrip(CLOSING_MARKS)), (
            f"{a!r} and {b!r} differ only in a full stop or other closing mark, which a user would not mind; "
            "find a pair whose meaning changes, such as a sign or a symbol the scorer drops"
        )
        state["pair"] = (a, b)
        return True

    def stricter():
        def eq(a, b):
            out = c.call(stricter_equal, a, b)
            if not isinstance(out, bool):
                raise StudentError(f"stricter_equal({a!r}, {b!r}) should return True or False, got {out!r}")
            return out

        if "pair" in state:
            a, b = state["pair"]
            assert not eq(a, b), f"stricter_equal still calls your own pair {a!r} and {b!r} equal"
        for a, b in unseen_lenient_pairs():
            assert not eq(a, b), f"stricter_equal({a!r}, {b!r}) is True; to a user these differ"
        for a, b in HARMLESS:
            assert eq(a, b), (
                f"stricter_equal({a!r}, {b!r}) is False; a difference of case or spacing "
                "should still pass, or the scorer becomes as brittle as exact match"
            )
        for a, b, want in SAME_AS_BEFORE:
            assert eq(a, b) == want, (
                f"stricter_equal({a!r}, {b!r}) should stay {want}, as in values_equal; "
                "for anything that is not two strings, call T.values_equal"
            )
        return True

    run(f"at least {N_CASES} well-formed cases over the course's functions", cases_valid)
    run("a reply written from each gold answer passes", gold_passes)
    run("a nested dictionary argument, and a wrong nested value fails", has_nested)
    run("an optional parameter: the reply passes with it and without it", has_optional)
    run("lenient_pair(): values_equal says equal, and they differ in more than case or spacing", pair_lenient)
    run(
        f"stricter_equal rejects your pair and {N_UNSEEN} unseen ones, and still accepts "
        f"{len(HARMLESS)} harmless differences",
        stricter,
    )
    step = "Now write what you would change in the scorer, below."
    cases = state.get("cases")
    if cases:
        scores = []
        for kind in CALLER_TYPES:
            caller = kind(0.5, SEED)
            try:
                overall = evaluate_calls(cases, caller.answers(cases), functions)["overall"]
            except Exception:  # a case shape the callers cannot write; the lines above say why
                continue
            scores.append(f"{caller.name} {overall:.2f}")
        if scores:
            step = f"The three mock callers at slip 0.5 on your cases (mock): {'; '.join(scores)}. " + step
    return c.done(next_step=step)
