"""Mock function callers with one bad habit each, for scoring studies.

Pack §2.9 (BFCL's categories and AST scoring [7]), lab exercise 9: a worked example, not an
answer to the assignment's Part B.
None of these is a language model. Each caller reads a case's gold calls and writes the reply
a model with one known habit would write, so a score tells you about the scorer and the
habit, never about any real model:

* :class:`NameInventor` sometimes calls a function that does not exist (Gorilla's
  "hallucination" [2]);
* :class:`ValueDropper` always leaves optional values out, which is fine, and sometimes
  leaves a required one out, which is not;
* :class:`OverEagerCaller` sometimes calls a tool when none fits, or guesses a value the user
  never gave instead of asking.

Each slips on a case when a seeded draw falls below its ``slip`` rate. The draw depends only
on the seed, the caller and the case id, so the same settings always give the same replies,
and raising ``slip`` only adds slips: it never fixes a case that slipped before.

Apart from its habit every caller answers correctly. It words a value the way any acceptable
answer does (``"Paris"`` or ``"Paris, France"``), picked by the same seeded draws, which is
where exact string match and AST matching part ways.

The course's cases live in ``data/course_cases.json``. In a ``missing_parameter`` case the
user left out something a required argument needs; the right move is to ask, so the gold list
is empty, and :func:`toolkit.evaluate_calls` scores any call there as ``should_abstain``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..data import load_json
from ..scoring import BFCL_CASES, FUNCS, format_calls, gold_calls, is_nested_form

__all__ = [
    "MockCaller",
    "NameInventor",
    "ValueDropper",
    "OverEagerCaller",
    "CALLER_TYPES",
    "make_callers",
    "gold_text",
    "course_cases",
    "scoring_cases",
    "invent_name",
    "written_call",
    "concrete_value",
]

_COURSE = load_json("course_cases.json")


def course_cases() -> tuple[dict, list[dict]]:
    """The course's 32 cases and their functions, as ``(functions, cases)``.

    Used by: toolkit/checks/ex09.py.
    """
    data = load_json("course_cases.json")
    return data["functions"], data["cases"]


def scoring_cases(which: str = "all") -> tuple[dict, list[dict]]:
    """``(functions, cases)`` for ``"pack"`` (the pack's 7), ``"course"`` (32) or ``"all"`` (39).

    The pack's two irrelevance cases get the over-eager call listed for them in
    ``course_cases.json`` under ``tempting_for_pack_cases``.

    Used by: toolkit/checks/ex09.py.
    """
    if which not in ("pack", "course", "all"):
        raise ValueError(f"which must be 'pack', 'course' or 'all', got {which!r}")
    functions: dict = {}
    cases: list[dict] = []
    if which in ("pack", "all"):
        functions.update(FUNCS)
        extra = _COURSE["tempting_for_pack_cases"]
        for case in BFCL_CASES:
            case = dict(case)
            if case["id"] in extra:
                case["tempting"] = extra[case["id"]]
            cases.append(case)
    if which in ("course", "all"):
        more_functions, more_cases = course_cases()
        functions.update(more_functions)
        cases.extend(more_cases)
    return functions, cases


# --------------------------------------------------------------------------------------------
# gold calls as a caller writes them (the text itself: toolkit.scoring.format_calls)


def _options(acceptable: Any) -> list:
    opts = acceptable if isinstance(acceptable, list) else [acceptable]
    return [o for o in opts if o != ""]


def concrete_value(option: Any, pick) -> Any:
    """A real value from a gold option; BFCL's nested form ``{key: [acceptable]}`` becomes a dict.

    Notebook 09, through MockCaller.
    """
    if is_nested_form(option):
        out = {}
        for key, opts in option.items():
            choices = _options(opts)
            if choices and opts[0] != "":  # optional keys are left out, as in the gold text
                out[key] = concrete_value(pick(choices), pick)
        return out
    if isinstance(option, list) and option and all(is_nested_form(o) for o in option):
        return [concrete_value(o, pick) for o in option]
    return option


def _is_optional(acceptable: Any) -> bool:
    return "" in (acceptable if isinstance(acceptable, list) else [acceptable])


def written_call(gold: Mapping, pick, keep_optional: bool = True) -> tuple[str, dict]:
    """One gold call as a caller writes it. An optional parameter is written when its first
    listed answer is a value (as the gold text does) and ``keep_optional`` is set.

    Notebook 09, through MockCaller.
    """
    kwargs = {}
    for param, acceptable in (gold.get("args") or {}).items():
        choices = _options(acceptable)
        if not choices:
            continue
        first = acceptable[0] if isinstance(acceptable, list) else acceptable
        if _is_optional(acceptable) and (first == "" or not keep_optional):
            continue
        kwargs[param] = concrete_value(pick(choices), pick)
    return gold["name"], kwargs


def gold_text(case: Mapping) -> str:
    """The one reference string exact matching compares against: every gold call with the
    first acceptable value of each parameter (optional ones only when that first value is not
    ``""``), in the gold's order. ``""`` when the right move is to make no call.

    Notebook 09.
    """
    first = lambda choices: choices[0]  # noqa: E731
    return format_calls([written_call(g, first) for g in gold_calls(case)])


# --------------------------------------------------------------------------------------------
# the callers

_VERB_SWAPS = {
    "get": "fetch",
    "search": "find",
    "set": "create",
    "send": "post",
    "book": "reserve",
    "convert": "exchange",
    "create": "new",
    "translate": "translate_text",
    "add": "sum",
    "mult": "multiply",
}


def invent_name(name: str, known: Iterable[str], rng: random.Random) -> str:
    """A plausible function name that is not among ``known``: a verb swapped for a synonym
    (``mult`` → ``multiply``, ``get_weather`` → ``fetch_weather``), camelCase, or a suffix.

    Notebook 12, through NameInventor.
    """
    parts = name.split("_")
    candidates = []
    if parts[0] in _VERB_SWAPS:
        candidates.append("_".join([_VERB_SWAPS[parts[0]]] + parts[1:]))
    if len(parts) > 1:
        candidates.append(parts[0] + "".join(p.title() for p in parts[1:]))
    candidates += [name + "_api", name + "_v2"]
    known = set(known)
    candidates = [c for c in candidates if c not in known and c != name]
    return rng.choice(candidates)


class MockCaller:
    """Writes a reply for each case; a subclass adds one habit in :meth:`slip_reply`.

    ``slip`` is the chance of the habit on a case (0 to 1), ``seed`` fixes every draw.
    Labelled a mock everywhere it is shown: it is a rule, not a model.

    Notebook 09.
    """

    name = "mock caller"
    habit = "answers every case correctly"

    def __init__(self, slip: float = 0.3, seed: int = 0) -> None:
        if isinstance(slip, bool) or not isinstance(slip, (int, float)) or not 0 <= slip <= 1:
            raise ValueError(f"slip must be a number from 0 to 1, got {slip!r}")
        self.slip = float(slip)
        self.seed = seed

    def __repr__(self) -> str:
        return f"{type(self).__name__}(slip={self.slip:g}, seed={self.seed!r})"

    def _rng(self, case: Mapping) -> random.Random:
        return random.Random(f"{self.seed}:{type(self).__name__}:{case.get('id')}")

    def answer(self, case: Mapping) -> str:
        """The reply text for one case (Python call syntax, or prose when it asks)."""
        rng = self._rng(case)
        slipped = rng.random() < self.slip  # first draw: the same whatever the other settings
        pick = rng.choice
        golds = gold_calls(case)
        calls = [written_call(g, pick, self.keeps_optional) for g in golds]
        if slipped:
            reply = self.slip_reply(case, calls, rng)
            if reply is not None:
                return reply
        if not golds:
            return case.get("ask", "") if case.get("category") == "missing_parameter" else ""
        return format_calls(calls)

    def answers(self, cases: Iterable[Mapping]) -> list[str]:
        return [self.answer(c) for c in cases]

    keeps_optional = True

    def slip_reply(self, case: Mapping, calls: list, rng: random.Random) -> str | None:
        """The reply when the habit strikes, or None when the habit has nothing to do here."""
        return None


class NameInventor(MockCaller):
    """Sometimes renames one call to a function that does not exist.

    Notebook 12.
    """

    name = "invents names"
    habit = "calls a function that does not exist (mult → multiply)"

    def slip_reply(self, case, calls, rng):
        if not calls:
            return None
        i = rng.randrange(len(calls))
        known = case.get("functions") or []
        calls = list(calls)
        calls[i] = (invent_name(calls[i][0], known, rng), calls[i][1])
        return format_calls(calls)


class ValueDropper(MockCaller):
    """Always leaves optional values out; sometimes leaves out a required one too.

    Used by: benchmarks/bench_scoring.py.
    """

    name = "drops values"
    habit = "leaves optional values out, and sometimes a required one"
    keeps_optional = False

    def slip_reply(self, case, calls, rng):
        droppable = [(i, k) for i, (_, kwargs) in enumerate(calls) for k in kwargs]
        if not droppable:
            return None
        i, key = rng.choice(droppable)
        calls = [(n, dict(kw)) for n, kw in calls]
        del calls[i][1][key]
        return format_calls(calls)


class OverEagerCaller(MockCaller):
    """Sometimes calls a tool when none fits, or guesses a missing value instead of asking.

    Used by: benchmarks/bench_scoring.py.
    """

    name = "calls anyway"
    habit = "calls a tool when none fits, or guesses what the user left out"

    def slip_reply(self, case, calls, rng):
        if calls:
            return None
        if case.get("tempting"):
            return case["tempting"]
        return _any_call(case, rng)


def _any_call(case: Mapping, rng: random.Random) -> str:
    """A made-up call to one of the case's functions, for cases with no ``tempting`` entry."""
    funcs = case.get("functions") or []
    name = rng.choice(funcs) if funcs else "search"
    return format_calls([(name, {})])


CALLER_TYPES = (NameInventor, ValueDropper, OverEagerCaller)


def make_callers(slips: Sequence[float] | None = None, seed: int = 0) -> list[MockCaller]:
    """One caller of each type, with the given slip rates (default 0.3 each).

    Notebook 09.
    """
    slips = [0.3] * len(CALLER_TYPES) if slips is None else list(slips)
    if len(slips) != len(CALLER_TYPES):
        raise ValueError(f"give {len(CALLER_TYPES)} slip rates, one per caller")
    return [cls(s, seed) for cls, s in zip(CALLER_TYPES, slips)]
