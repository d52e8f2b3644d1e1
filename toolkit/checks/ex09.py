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
differences of case and spacing. A pair that differs only in what a reader passes over (quotes,
the dots of "U.S.", the hyphen of "e-mail", the apostrophe of "O'Brien", the comma of "Paris,
France") does not count: the notebook calls such differences harmless.

Each case must also be what it says (pack §2.9, BFCL's categories): its category fits its gold
calls, and each gold value is judged as the kind of value it is (:class:`Said`): numbers,
times, dates, currencies, languages and an enum's members by value, on the side ("from", "to")
the question puts them, and names and other text as the user's own words. A standard form of
what the user said passes; a value that contradicts the question fails.
"""

from __future__ import annotations

import copy
import functools
import random
import re
from collections.abc import Callable
from types import MappingProxyType
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


QUOTES = "\"'“”‘’`«»"


def _plain(text: str) -> str:
    """``text`` without the differences a user would not mind (the notebook's "Paris, France"
    against "Paris France"): quotes around it, a closing mark, the dots of an abbreviation
    (U.S.), a hyphen after a single letter (e-mail), an apostrophe after a name's one capital
    letter (O'Brien), a comma or semicolon between words; then :func:`squash`. A hyphen or an
    apostrophe elsewhere may change a word ("re-sign", "it's"), so it stays."""
    text = text.strip().strip(QUOTES).strip().rstrip(CLOSING_MARKS)
    text = re.sub(r"\b([^\W\d_])\.(?=[^\W\d_]\b)", r"\1", text)
    text = re.sub(r"\b([^\W\d_])-(?=[^\W\d_])", r"\1", text)
    text = re.sub(r"\b([A-Z])['’](?=[A-Z])", r"\1", text)
    text = re.sub(r"(?<=[^\W\d_])[,;](?=\s)", "", text)
    return squash(text)


NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty"
)  # a string: no cell can edit it
CLOSING_MARKS = ".,;:!?"
MONTHS = "january february march april may june july august september october november december"

# ---- what the question says, value by value (each gold value is judged against its own kind) -----
#
# A gold value may be written in a standard form of what the user said (an ISO date for "March 5,
# 2026", 15:00 for "3 pm", 12:00 for "noon", JPY for "yen", "celsius" for "°C"), but it may not
# contradict it (the day and month swapped, 09:00 for "9 pm", 200 for "$1,200", USD for "Canadian
# dollars", the from and to sides swapped, another year). Names (places, people, companies, titles)
# are kept as the user wrote them: one acceptable value must be the question's own words.

# ISO 4217 codes and what a user writes for them; a qualified name ("Canadian dollars") is found
# before the bare one ("dollars"), so it is never taken for US dollars.
CURRENCIES = (
    "CAD canadian dollars|canadian dollar|c$; AUD australian dollars|australian dollar|a$; "
    "NZD new zealand dollars|new zealand dollar; HKD hong kong dollars|hong kong dollar; "
    "SGD singapore dollars|singapore dollar; MXN mexican pesos|mexican peso|pesos|peso; "
    "USD us dollars|us dollar|u.s. dollars|american dollars|dollars|dollar|bucks|$; EUR euros|euro|€; "
    "GBP pounds sterling|pound sterling|british pounds|sterling|pounds|pound|quid|£; JPY japanese yen|yen|¥; "
    "CNY chinese yuan|yuan|renminbi|rmb; CHF swiss francs|swiss franc|francs|franc; INR indian rupees|rupees|rupee|₹; "
    "KRW korean won|won|₩; SEK swedish kronor|swedish krona; NOK norwegian kroner|norwegian krone; "
    "DKK danish kroner|danish krone; BRL brazilian reais|brazilian real|reais; RUB roubles|rouble|rubles|ruble"
)
# ISO 639-1 codes and language names.
LANGUAGES = (
    "en english; es spanish|castilian; fr french; de german; it italian; pt portuguese; nl dutch; "
    "ja japanese; zh chinese|mandarin; ko korean; ru russian; ar arabic; hi hindi; sv swedish; "
    "no norwegian; da danish; fi finnish; pl polish; tr turkish; el greek; he hebrew; uk ukrainian; "
    "cs czech; vi vietnamese; th thai; id indonesian"
)
# The words and signs a user writes for the members of a unit enum.
UNIT_WORDS = MappingProxyType(
    {"celsius": r"°\s*c|℃|centigrade|degrees? c", "fahrenheit": r"°\s*f|℉|degrees? f", "kelvin": r"°?\s*k\b"}
)
TO_SIDE = ("to", "into", "in", "for")
FROM_SIDE = ("from",)


@functools.lru_cache(maxsize=4)
def _table(text: str) -> dict[str, str]:
    """``"CODE name|name; ..."`` as {name, sign or code (case folded): code}, longest first."""
    pairs = {}
    for entry in text.split(";"):
        code, _, names = entry.strip().partition(" ")
        pairs.update({name.strip(): code for name in names.split("|")} | {code.casefold(): code})
    return dict(sorted(pairs.items(), key=lambda kv: -len(kv[0])))


def _mentions(text: str, table: dict[str, str]) -> list[tuple[int, int, str]]:
    """``(start, end, code)`` for each name or sign of ``table`` in ``text``, longest first, no overlaps."""
    low, found, taken = text.casefold(), [], [False] * len(text)
    for name, code in table.items():
        edge = r"\b" if name[0].isalnum() else ""
        tail = r"\b" if name[-1].isalnum() else ""
        for m in re.finditer(edge + re.escape(name) + tail, low):
            if (
                len(name) <= 3
                and name.isalpha()
                and text[m.start() : m.end()] != name.upper()
                and name == code.casefold()
            ):
                continue  # a code counts only written as one (USD), not as a word (the "won" of a game)
            if not any(taken[m.start() : m.end()]):
                taken[m.start() : m.end()] = [True] * (m.end() - m.start())
                found.append((m.start(), m.end(), code))
    return sorted(found)


def _side(text: str, start: int, end: int) -> str:
    """'from', 'to' or '' for a mention: the word before it ("from", "to", "into", "in"), or an
    amount right next to it ("50 Canadian dollars", "$1,200") for the side that is converted."""
    before = text[:start].rstrip()
    if re.search(r"[\d.,]+\s*$", before) or re.match(r"\s*\d", text[end:]):
        return "from"
    last = re.findall(r"[a-z]+", before.casefold())[-1:]
    return "from" if last and last[0] in FROM_SIDE else "to" if last and last[0] in TO_SIDE else ""


def _param_side(param: str) -> str:
    name = param.casefold()
    if re.search(r"from|source|origin|depart", name):
        return "from"
    return "to" if re.search(r"(^|_)to($|_)|target|destination|arriv", name) else ""


_TIME = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?|\b(\d{1,2}):(\d{2})(?::\d{2})?\b|\b(noon|midday|midnight)\b",
    re.IGNORECASE,
)
_MONTH = "|".join(f"{m[:3]}[a-z]*" for m in MONTHS.split())
_DATES = (
    (re.compile(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b"), "ymd"),
    (re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?", re.IGNORECASE), "mdy"),
    (
        re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\b\.?(?:,?\s+(\d{{4}}))?", re.IGNORECASE),
        "dmy",
    ),
    (re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b"), "slash"),
    (re.compile(r"\b(\d{1,2})[.-](\d{1,2})[.-](\d{4})\b"), "dmy-num"),
)
_NUMBER = re.compile(r"[-+]?[$€£¥₹]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-+]?[$€£¥₹]?\d+(?:\.\d+)?")


def _month(word: str) -> int:
    return [m[:3] for m in MONTHS.split()].index(word[:3].casefold()) + 1


def _date(groups: tuple, order: str) -> tuple | None:
    """``(year or None, month, day)`` from one match, written in the question's own order."""
    y: int | None
    if order == "ymd":
        y, m, d = int(groups[0]), int(groups[1]), int(groups[2])
    elif order in ("mdy", "dmy"):
        month, day = (groups[0], groups[1]) if order == "mdy" else (groups[1], groups[0])
        y, m, d = (int(groups[2]) if groups[2] else None), _month(month), int(day)
    else:  # numbers: 3/5/2026 is March 5 (US), unless the first cannot be a month; 5.3.2026 is 5 March
        a, b, y = int(groups[0]), int(groups[1]), int(groups[2])
        m, d = (a, b) if order == "slash" and a <= 12 else (b, a)
    return (y, m, d) if 1 <= m <= 12 and 1 <= d <= 31 else None


def _typed(text: str) -> tuple[list, list, list, str]:
    """The times (minutes after midnight), dates and numbers written in ``text``, and what is left."""
    times, dates, numbers = [], [], []

    def time(m: re.Match) -> str:
        if m.group(6):
            times.append(0 if m.group(6).casefold() == "midnight" else 720)
        elif m.group(3):
            times.append(
                (int(m.group(1)) % 12 + (12 if m.group(3).casefold() == "p" else 0)) * 60 + int(m.group(2) or 0)
            )
        else:
            times.append(int(m.group(4)) * 60 + int(m.group(5)))
        return " "

    rest = _TIME.sub(time, text)
    for pattern, order in _DATES:
        for m in list(pattern.finditer(rest)):
            found = _date(m.groups(), order)
            if found:
                dates.append(found)
                rest = rest.replace(m.group(0), " ", 1)
    for m in _NUMBER.finditer(rest):
        numbers.append(float(re.sub(r"[,$€£¥₹+]", "", m.group(0))))
    rest = _NUMBER.sub(" ", rest)
    spelled = NUMBER_WORDS.split()
    numbers += [float(spelled.index(w)) for w in re.findall(r"[a-z]+", rest.casefold()) if w in spelled]
    return times, dates, numbers, rest


def _tokens(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.casefold())


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


class Said:
    """What one question says, read once: its times, dates, numbers, currencies and languages
    (each with the side it is on, when the question says "from" or "to"), and its words."""

    def __init__(self, question: str) -> None:
        self.question = question
        self.times, self.dates, self.numbers, _ = _typed(question)
        self.tokens = _tokens(question)
        self.currencies = [
            (code, _side(question, s, e), question[s:e]) for s, e, code in _mentions(question, _table(CURRENCIES))
        ]
        self.languages = [
            (code, _side(question, s, e), question[s:e]) for s, e, code in _mentions(question, _table(LANGUAGES))
        ]

    def says(self, words: list[str]) -> int:
        """Where the words run together in the question (-1: they do not)."""
        n = len(words)
        return next((i for i in range(len(self.tokens) - n + 1) if n and self.tokens[i : i + n] == words), -1)


def _code_of(value: Any, table: str) -> str | None:
    """The code a gold value names: a code (any case) or a name, the whole value."""
    return _table(table).get(value.strip().casefold()) if isinstance(value, str) else None


def _coded(code: str | None, mentions: list, side: str) -> tuple[str, str]:
    """A currency or language against the question's: those on the parameter's side when the
    question says which is which ("from", "to", an amount), else any it names."""
    if not mentions:
        return "unknown", ""
    sides = {s for _, s, _ in mentions}
    if side and side in sides:
        pool = [m for m in mentions if m[1] == side]
    elif side and "" in sides:  # the other side is named: one the question leaves open is this one
        pool = [m for m in mentions if not m[1]]
    elif side:
        return "unknown", ""  # the question names only the other side
    else:
        pool = mentions
    if code in {c for c, _, _ in pool}:
        return "agrees", ""
    shown = ", ".join(f"{text!r} ({c})" for c, _, text in pool)
    return "contradicts", f"the question has {shown}" + (
        f" on the {side} side" if side and pool is not mentions else ""
    )


def _member_said(member: str, said: Said) -> bool:
    if member.casefold() in said.tokens:
        return True
    pattern = UNIT_WORDS.get(member.casefold())
    return bool(pattern and re.search(rf"(?<![a-z])(?:{pattern})(?![a-z])", said.question.casefold()))


def _enum_member(value: Any, enum: list, said: Said) -> tuple[str, str]:
    named = [m for m in enum if isinstance(m, str) and _member_said(m, said)]
    if value in named:
        return "agrees", ""
    return ("contradicts", f"the question asks for {' or '.join(map(repr, named))}") if named else ("unknown", "")


def _number(value: Any, said: Said) -> tuple[str, str]:
    if isinstance(value, bool):
        return "agrees", ""
    if not isinstance(value, (int, float)):
        return _text(str(value), said, "")
    if float(value) in said.numbers:
        return "agrees", ""
    if not said.numbers:
        return "unknown", ""
    return "contradicts", "the question's numbers are " + ", ".join(f"{n:g}" for n in said.numbers)


def _same_date(a: tuple, b: tuple) -> bool:
    return a[1:] == b[1:] and (a[0] is None or b[0] is None or a[0] == b[0])


def _pieces_fit(value: str, said: Said) -> tuple[str, str] | None:
    """The times, dates and numbers inside a text value against the question's (None: it has none)."""
    times, dates, numbers, rest = _typed(value)
    if not (times or dates or numbers):
        return None
    for mine, theirs, shown in (
        (times, said.times, lambda: "the time " + ", ".join(map(_clock, said.times))),
        (dates, said.dates, lambda: "the date " + ", ".join(_iso(d) for d in said.dates)),
        (numbers, said.numbers, lambda: "the numbers " + ", ".join(f"{n:g}" for n in said.numbers)),
    ):
        same = _same_date if mine is dates else (lambda a, b: a == b)
        if any(not any(same(m, t) for t in theirs) for m in mine):
            return ("contradicts", f"the question has {shown()}") if theirs else ("unknown", "")
    left = _tokens(rest)
    return ("agrees", "") if all(t in said.tokens for t in left) else ("unknown", "")


def _iso(date: tuple) -> str:
    y, m, d = date
    return f"{y}-{m:02d}-{d:02d}" if y else f"--{m:02d}-{d:02d}"


def _text(value: str, said: Said, side: str) -> tuple[str, str]:
    """A text value: its times, dates and numbers by value, and the rest as the user's own words,
    in order; a name the question puts on the other side ("from Madrid" as the destination) contradicts it."""
    typed = _pieces_fit(value, said)
    if typed is not None:
        return typed
    words = _tokens(value)
    at = said.says(words)
    if at < 0:
        return "unknown", ""
    before = said.tokens[at - 1] if at > 0 else ""
    other = {"from": TO_SIDE, "to": FROM_SIDE}.get(side, ())
    if before in other:
        return "contradicts", f"the question has {value!r} after {before!r}, on the other side"
    return "agrees", ""


def _all_of(verdicts: list[tuple[str, str]]) -> tuple[str, str]:
    bad = next((v for v in verdicts if v[0] == "contradicts"), None)
    if bad:
        return bad
    return ("agrees", "") if verdicts and all(v[0] == "agrees" for v in verdicts) else ("unknown", "")


def _judge(param: str, spec: dict, said: Said) -> Callable[[Any], tuple[str, str]]:
    """How to judge one acceptable value of ``param``: by its kind (the schema's enum or number
    type, a currency or a language by its name), else as text."""
    side, name = _param_side(param), param.casefold()
    if spec.get("enum"):
        return lambda v: _enum_member(v, spec["enum"], said)
    if spec.get("type") in ("integer", "number"):
        return lambda v: _number(v, said)
    if "currency" in name or "language" in name:
        table, mentions = (CURRENCIES, said.currencies) if "currency" in name else (LANGUAGES, said.languages)
        return lambda v: _coded(_code_of(v, table), mentions, side)
    if spec.get("type") == "array":
        item = _judge(param, spec.get("items") or {}, said)
        return lambda v: _all_of([item(x) for x in v]) if isinstance(v, list) else item(v)
    return lambda v: _text(v, said, side) if isinstance(v, str) else ("agrees", "")


def _options_issue(options: list, judge: Callable[[Any], tuple[str, str]]) -> tuple[str, Any, str] | None:
    """None when the acceptable values fit the question: none contradicts it, and one is what it
    says (or the parameter is optional); else ``(what is wrong, the value, a note)``."""
    verdicts = [(judge(o), o) for o in options if o != ""]
    for (state, note), option in verdicts:
        if state == "contradicts":
            return "contradicts", option, note
    if "" in options or any(state == "agrees" for (state, _), _ in verdicts):
        return None
    return "absent", verdicts[0][1] if verdicts else None, ""


def _param_issue(param: str, spec: dict, options: list, said: Said) -> tuple[str, str, Any, str] | None:
    """``(".key" of a nested value or "", what is wrong, the value, a note)``, or None."""
    nested = [o for o in options if is_nested_form(o)]
    if not nested:
        issue = _options_issue(options, _judge(param, spec, said))
        return ("", *issue) if issue else None
    props = spec.get("properties") or {}
    for option in nested:
        for key, sub in option.items():
            inner = _param_issue(key, props.get(key) or {}, sub, said) if isinstance(sub, list) else None
            if inner:
                return (f".{key}{inner[0]}", *inner[1:])
    return None


def _issue_sentence(where: str, label: str, issue: tuple, spec: dict) -> str:
    _, what, value, note = issue
    if what == "contradicts":
        return (
            f"{where}: {label} accepts {value!r}, which contradicts the question ({note}); make the gold answer "
            "what the user asked for. A standard form of the user's words is fine: an ISO date, 15:00 for "
            "3 pm, JPY for yen, celsius for °C"
        )
    if spec.get("enum"):
        return (
            f"{where}: the question names none of {label}'s values ({', '.join(map(str, spec['enum']))}); say "
            "which in the question (°C or Celsius for 'celsius', say), or list \"\" to make it optional"
        )
    return (
        f"{where}: {label} is not in the question (none of its acceptable values is); make the gold answer what "
        "the user asked for, in the user's own words or a standard form of them (an ISO date, 15:00, JPY). "
        "Names are kept as the user wrote them: list the name, with a code for it (an airport code, a "
        "ticker) beside it if you like, not instead of it"
    )


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


def _id_problem(case: Any, seen: set, existing_ids: set) -> str:
    if not isinstance(case, dict):
        return f"a case should be a dict, got {type(case).__name__}"
    cid = case.get("id")
    if not isinstance(cid, str) or not cid:
        return "every case needs an 'id' string"
    if cid in existing_ids:
        return f"{cid!r} is already a case id in the course's set; pick a new one"
    if cid in seen:
        return f"two cases have the id {cid!r}"
    seen.add(cid)
    return ""


def _frame_problem(case: dict, where: str, functions: dict) -> str:
    """The category, question, functions and the gold list's size."""
    cat, funcs, gold = case.get("category"), case.get("functions"), case.get("gold")
    if cat not in CATEGORIES:
        return f"{where}: 'category' should be one of {', '.join(CATEGORIES)}, got {cat!r}"
    if not isinstance(case.get("question"), str) or not case["question"].strip():
        return f"{where}: write the user's request under 'question'"
    if not isinstance(funcs, list) or not funcs or not all(isinstance(f, str) for f in funcs):
        return f"{where}: 'functions' should be a list of function names offered to the model"
    unknown = [f for f in funcs if f not in functions]
    if unknown:
        return f"{where}: there is no function {unknown[0]!r}; use the course's functions, listed above"
    if not isinstance(gold, list):
        return f"{where}: 'gold' should be a list of calls (empty when no call is right)"
    if cat in NO_CALL and gold:
        return f"{where}: in a {cat} case no call is right, so 'gold' should be []"
    if cat not in NO_CALL and not gold:
        return f"{where}: a {cat} case needs at least one gold call"
    if cat in ("parallel", "parallel_multiple") and len(gold) < 2:
        return f"{where}: a {cat} case needs two or more gold calls"
    return ""


def _param_problem(where: str, name: str, props: dict, param: str, options: Any) -> str:
    if param not in props:
        return f"{where}: {name} has no parameter {param!r} (it has {', '.join(props)})"
    if not isinstance(options, list) or not options:
        return f"{where}: {name}.{param} should list its acceptable values, such as ['Paris']"
    problem = _object_problem(props[param], options, f"{where}: {name}.{param}")
    if problem:
        return problem
    kind = props[param].get("type")
    if kind != "object" and any(is_nested_form(o) for o in options):
        return (
            f"{where}: {name}.{param} is not an object (its type is {kind}), so it takes a plain "
            "value, not the nested form {key: [values]}"
        )
    return ""


def _gold_call_problem(where: str, g: Any, funcs: list, functions: dict) -> str:
    if not isinstance(g, dict) or not isinstance(g.get("args"), dict):
        return f"{where}: each gold call is {{'name': ..., 'args': {{param: [acceptable values]}}}}"
    name = g.get("name")
    if not isinstance(name, str) or name not in funcs:
        return f"{where}: the gold call {name!r} is not among the case's functions {funcs}"
    schema = functions[name]["parameters"]
    props = schema.get("properties") or {}
    for param, options in g["args"].items():
        problem = _param_problem(where, name, props, param, options)
        if problem:
            return problem
    missing = [p for p in schema.get("required") or [] if p not in g["args"]]
    if missing:
        return f"{where}: {name} needs {missing[0]!r}; the gold call must list a value for it"
    if all(o == "" for opts in g["args"].values() for o in opts) and g["args"]:
        return f"{where}: every value of {name} is optional; list at least one real value"
    return ""


def _question_problem(where: str, case: dict, functions: dict) -> str:
    """Each gold value against what the question says (see :class:`Said`); '' when all fit."""
    said = Said(case["question"])
    for g in case["gold"]:
        props = functions[g["name"]]["parameters"].get("properties") or {}
        for param, options in g["args"].items():
            spec = props.get(param) or {}
            issue = _param_issue(param, spec, options, said)
            if issue:
                return _issue_sentence(where, f"{g['name']}.{param}{issue[0]}", issue, spec)
    return ""


def _problems(case: Any, seen: set, functions: dict, existing_ids: set) -> list[str]:
    """What is wrong with one case, as sentences (empty when it is fine): the first problem found."""
    problem = _id_problem(case, seen, existing_ids)
    if problem:
        return [problem]
    where = f"case {case['id']!r}"
    problem = _frame_problem(case, where, functions)
    for g in case["gold"] if not problem else []:
        problem = problem or _gold_call_problem(where, g, case["functions"], functions)
    if not problem:
        category = _category_problem(case["category"], case["functions"], case["gold"])
        problem = f"{where}: {category}" if category else _question_problem(where, case, functions)
    return [problem] if problem else []


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


def _cases_valid(c: Checker, harder_cases: Callable, course: tuple, state: dict) -> bool:
    functions, existing_ids = course
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


def _found_in_cases(state: dict, finder: Callable, first: str, missing: str) -> list[tuple[dict, int, str]]:
    """``(case, gold index, parameter)`` for each place ``finder`` finds in the valid cases."""
    cases = state.get("cases")
    assert cases, first
    found = finder(cases)
    assert found, missing
    return [(cases[i], j, param) for i, j, param in found]


def _has_nested(state: dict, functions: dict) -> bool:
    for case, j, param in _found_in_cases(
        state,
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


def _has_optional(state: dict, functions: dict) -> bool:
    for case, j, param in _found_in_cases(
        state,
        optional_params,
        "fix the cases first",
        'no gold argument is optional; list "" next to a value, as in '
        "'unit': ['', 'celsius'], for a parameter the user did not insist on",
    ):
        for reply in _optional_both_ways(case, j, param):
            label = classify(case, reply, functions)
            assert label == "pass", f"case {case['id']!r}: the reply {reply} should pass, but scores {label}"
    return True


def _gold_passes(state: dict, functions: dict) -> bool:
    cases = state.get("cases")
    assert cases, "fix the cases first"
    for case in cases:
        reply = gold_text(case)
        label = classify(case, reply, functions)
        assert label == "pass", (
            f"case {case['id']!r}: a reply written from your gold answer ({reply!r}) scores {label}; check the gold values"
        )
    return True


def _pair_lenient(c: Checker, lenient_pair: Callable, state: dict) -> bool:
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
    assert _plain(a) != _plain(b), (
        f"{a!r} and {b!r} differ only in punctuation a reader passes over (quotes around a value, the dots "
        "of U.S., the hyphen of e-mail, the apostrophe of O'Brien, the comma of 'Paris, France'), which the "
        "notebook counts as harmless; find a pair whose meaning changes, such as a sign or a symbol the scorer drops"
    )
    state["pair"] = (a, b)
    return True


def _stricter(c: Checker, stricter_equal: Callable, state: dict) -> bool:
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


def _next_step(state: dict, functions: dict) -> str:
    step = "Now write what you would change in the scorer, below."
    cases = state.get("cases") or []
    scores = []
    for kind in CALLER_TYPES if cases else ():
        caller = kind(0.5, SEED)
        try:
            overall = evaluate_calls(cases, caller.answers(cases), functions)["overall"]
        except Exception:  # a case shape the callers cannot write; the lines above say why
            continue
        scores.append(f"{caller.name} {overall:.2f}")
    if scores:
        step = f"The three mock callers at slip 0.5 on your cases (mock): {'; '.join(scores)}. " + step
    return step


def check(harder_cases: Callable, lenient_pair: Callable, stricter_equal: Callable) -> CheckResult:
    """Validate and score the new cases; test the lenient pair and the stricter comparison.

    Notebook 09.
    """
    c = Checker(TITLE)
    course = _course_functions()
    functions = course[0]
    parts: dict[str, tuple[Callable, tuple]] = {
        "harder_cases": (harder_cases, ()),
        "lenient_pair": (lenient_pair, ()),
        "stricter_equal": (stricter_equal, ("Paris", "paris")),
    }
    if probe_parts(c, parts)[1]:
        return not_done(TITLE)
    state: dict = {}
    c.run(
        f"at least {N_CASES} well-formed cases over the course's functions",
        lambda: _cases_valid(c, harder_cases, course, state),
    )
    c.run("a reply written from each gold answer passes", lambda: _gold_passes(state, functions))
    c.run("a nested dictionary argument, and a wrong nested value fails", lambda: _has_nested(state, functions))
    c.run("an optional parameter: the reply passes with it and without it", lambda: _has_optional(state, functions))
    c.run(
        "lenient_pair(): values_equal says equal, and they differ in more than case or spacing",
        lambda: _pair_lenient(c, lenient_pair, state),
    )
    c.run(
        f"stricter_equal rejects your pair and {N_UNSEEN} unseen ones, and still accepts "
        f"{len(HARMLESS)} harmless differences",
        lambda: _stricter(c, stricter_equal, state),
    )
    return c.done(next_step=_next_step(state, functions))
