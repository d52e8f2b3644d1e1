"""Exercise 8 (notebook 04, pack §2.4): pick better.

The student writes eight queries for the 48-tool catalog in words the descriptions do not use,
measures recall@1, @3 and @5 with BM25, and repairs the misses twice: once by rewriting tool
descriptions (``make_catalog(descriptions=...)``) and once with a synonym table that adds words
to a query before the search (the recall explorer's rule,
:func:`toolkit.lessons.catalog.expand_query`). The check validates the queries, checks that each
fix raises recall on them without lowering it on the pack's own eight queries, and reports how
both fixes do on unseen queries (not shown in the notebook), which is the evidence for the
question "which fix generalizes?".

Overfitting is named, not rewarded (issue 10): queries copied from the pack, from an example the
notebook prints, or from the check's unseen set are turned down; so are synonym phrases longer
than three words (a whole query used as a key) and descriptions that hold every word of
one of the student's queries.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from ..lessons.catalog import CATALOG_QUERIES, expand_query, make_catalog
from ..selection import ToolIndex, selection_recall, tokenize, tool_text
from . import Checker, CheckResult, StudentError, not_done, probe_parts, restore_course_data

__all__ = ["check", "recall_row", "ranks", "KS", "MAX_SHARED", "MAX_PHRASE_WORDS", "shared_share"]

TITLE = "Exercise 8: pick better"
KS = (1, 3, 5)
MAX_SHARED = 0.5  # at most this share of a query's words may come from its tool's own text
N_QUERIES = 8
MAX_PHRASE_WORDS = 3  # a synonym phrase is something users say, not a whole query
COPY_SHARE = 0.75  # a query with this share of its words in one example counts as a copy of it
STUFFED_SHARE, STUFFED_MIN = 1.0, 4  # a description holding this share (and number) of a query's own words

# Examples the notebook shows (its printed query and the tool-search demo); copying one is not a new query.
NOTEBOOK_EXAMPLES = (
    "Look up airline flights from SFO to JFK",
    "a short summary of stock prices",
    "Find cooking recipes that match leek soup",
)


def _unseen_queries() -> tuple:
    """Requests in everyday words, with the tool we judge right for each, that the notebook does
    not show: they show whether a fix carries over to queries it was not written for."""
    return _UNSEEN


_UNSEEN = (
    ("Is it going to snow in Denver on Saturday?", "weather_search"),
    ("Book me a seat on the morning plane to Boston", "flights_create"),
    ("Move my dentist appointment to Thursday", "calendar_update"),
    ("Get rid of the newsletter mail I got yesterday", "email_delete"),
    ("Give me the gist of how Tesla shares did this month", "stocks_summarize"),
    ("Reserve a double room in Kyoto for three nights", "hotels_create"),
    ("Put on some jazz by Miles Davis", "music_search"),
    ("How should I bake sourdough bread?", "recipes_search"),
    ("Drop the 3 pm meeting from my schedule", "calendar_delete"),
    ("Push my return trip by plane to Sunday", "flights_update"),
)


def _copied_from(query: str, examples, share: float = COPY_SHARE) -> str | None:
    """The example whose words make up at least ``share`` of ``query``'s words, if any."""
    words = set(tokenize(query))
    for example in examples:
        if words and len(words & set(tokenize(example))) / len(words) >= share:
            return example
    return None


def _names(query: str) -> set[str]:
    """The names in a query (a capitalised word after its first, Porto, Priya) and its numbers:
    words no description for every user would hold."""
    words = query.split()[1:]
    return {
        w.casefold() for word in words for w in tokenize(word) if (word[:1].isupper() and len(w) > 1) or w.isdigit()
    }


def _stuffed(description: str, pairs, old_text: str) -> tuple[str, str] | None:
    """``(query, what of it)`` when the description holds every one of a query's own words (those
    not already in the tool's old text, at least four: the test pasted in, perhaps reordered), or
    a name from a query that the old text did not hold."""
    have, old = set(tokenize(description)), set(tokenize(old_text))
    for query, _ in pairs:
        own = set(tokenize(query)) - old
        hit = own & have
        if len(hit) >= STUFFED_MIN and len(hit) >= STUFFED_SHARE * len(own):
            return query, "every word"
        named = sorted((_names(query) - old) & have)
        if named:
            return query, f"the name {named[0]!r}"
    return None


def recall_row(pairs, descriptions=None, synonyms=None) -> tuple[float, ...]:
    """recall@1, @3, @5 of BM25 for ``pairs``, with optional description edits and synonyms.

    Notebook 04, through check.
    """
    index = ToolIndex(make_catalog(descriptions=descriptions or None))
    if synonyms:
        table = _lower_table(synonyms)
        pairs = [(expand_query(q, table), g) for q, g in pairs]
    return tuple(selection_recall(index, pairs, k) for k in KS)


def _lower_table(synonyms: dict) -> dict:
    """The synonym table with phrases and words in lower case: the exercise promises a phrase
    matches in any case, and :func:`expand_query` compares it with the lower-cased query."""
    return {str(phrase).strip().lower(): str(words).lower() for phrase, words in synonyms.items()}


def shared_share(query: str, tool_name: str, tools_by_name: dict) -> float:
    """The share of the query's words that also occur in the tool's name, description or
    parameter names (the text BM25 indexes).

    Notebook 04, through check.
    """
    words = set(tokenize(query))
    if not words:
        return 1.0
    return len(words & set(tokenize(tool_text(tools_by_name[tool_name])))) / len(words)


def _fmt(row) -> str:
    return ", ".join(f"@{k} {r:.2f}" for k, r in zip(KS, row))


def _better(new, old) -> bool:
    return all(n >= o for n, o in zip(new, old)) and any(n > o for n, o in zip(new, old))


_PARTS = ("my_queries", "better_descriptions", "synonym_table")
COURSE_DATA = ("T.CATALOG_QUERIES", "T.CATALOG_DOMAINS", "T.CATALOG_ACTIONS")


def _call_clean(c: Checker, fn: Callable, what: str):
    """Call the student's ``fn()``; if it changed the course's catalog data in place, put the data
    back (so the check's own numbers do not move) and fail with a sentence saying so."""
    try:
        value = c.call(fn)
    finally:
        changed = restore_course_data(c, *COURSE_DATA, note=False)
    if changed:
        raise StudentError(
            f"{what}() changed {', '.join(changed)} in place (the check put the course's data back); "
            "return new data of your own instead of editing the course's"
        )
    return value


def ranks(pairs, descriptions=None, synonyms=None) -> list[int]:
    """Where BM25 puts each pair's right tool (1 is first), with optional description edits and synonyms.

    Notebook 04, through check.
    """
    index = ToolIndex(make_catalog(descriptions=descriptions or None))
    table = _lower_table(synonyms) if synonyms else None
    out = []
    for query, gold in pairs:
        order = [name for name, _ in index.search(expand_query(query, table) if table else query, k=len(index))]
        out.append(order.index(gold) + 1 if gold in order else len(index) + 1)
    return out


def _fallen(pairs, **fix) -> str:
    """A sentence naming the first pair whose tool fell in the ranking under ``fix`` ('' if none)."""
    for (query, gold), old, new in zip(pairs, ranks(pairs), ranks(pairs, **fix)):
        if new > old:
            return f"the pack's query {query!r} ({gold}) fell from rank {old} to rank {new}"
    return ""


def _pairs(c: Checker, fn: Callable) -> list[tuple[str, str]]:
    pairs = _call_clean(c, fn, "my_queries")
    if not isinstance(pairs, (list, tuple)) or not all(
        isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs
    ):
        raise StudentError("my_queries() should return a list of (query, tool name) pairs of strings")
    return [(q.strip(), g.strip()) for q, g in pairs]


def _str_dict(c: Checker, fn: Callable, what: str) -> dict:
    out = _call_clean(c, fn, what)
    if not isinstance(out, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in out.items()):
        raise StudentError(f"{what}() should return a dict of strings to strings")
    if not out:
        raise StudentError(f"{what}() returned an empty dict; add at least one entry")
    return out


def _real_tools(pairs: list, names: set) -> None:
    for _, g in pairs:
        if g not in names:
            close = difflib.get_close_matches(g, sorted(names), n=1)
            raise AssertionError(
                f"there is no tool {g!r} in the catalog" + (f"; did you mean {close[0]!r}?" if close else "")
            )


def _not_copied(pairs: list) -> None:
    texts = [" ".join(tokenize(q)) for q, _ in pairs]
    assert len(set(texts)) == len(texts), "two of your queries are the same; make all eight different"
    pack = {" ".join(tokenize(q)) for q, _ in CATALOG_QUERIES}
    copied = [q for (q, _), t in zip(pairs, texts) if t in pack]
    assert not copied, f"{copied[0]!r} is one of the pack's own queries; write new ones"
    for q, _ in pairs:
        seen = _copied_from(q, NOTEBOOK_EXAMPLES + tuple(p for p, _ in CATALOG_QUERIES))
        assert not seen, f"{q!r} is close to an example the notebook shows ({seen!r}); write a request of your own"
        # all words, not most: a student who never read the unseen set may write a close cousin
        assert not _copied_from(q, [p for p, _ in _unseen_queries()], share=1.0), (
            f"{q!r} is one of the check's unseen queries; write your own, so those can still "
            "show whether your fixes carry over"
        )


def _queries_valid(c: Checker, my_queries: Callable, tools: dict, state: dict) -> bool:
    pairs = _pairs(c, my_queries)
    assert len(pairs) == N_QUERIES, f"write exactly {N_QUERIES} queries; you have {len(pairs)}"
    _real_tools(pairs, set(tools))
    _not_copied(pairs)
    state["pairs"] = pairs
    return True


def _queries_reworded(tools: dict, state: dict) -> bool:
    pairs = state.get("pairs")
    assert pairs, "fix the queries first (the line above)"
    worst = max(pairs, key=lambda p: shared_share(p[0], p[1], tools))
    share = shared_share(worst[0], worst[1], tools)
    common = sorted(set(tokenize(worst[0])) & set(tokenize(tool_text(tools[worst[1]]))))
    assert share <= MAX_SHARED, (
        f"{share:.0%} of the words of {worst[0]!r} come from {worst[1]}'s own text ({', '.join(common)}); "
        "say it the way a user would, with words the description does not use"
    )
    return True


def _has_a_miss(state: dict) -> bool:
    pairs = state.get("pairs")
    assert pairs, "fix the queries first"
    state["base"] = base = recall_row(pairs)
    assert base[0] < 1.0, (
        f"BM25 already ranks every right tool first ({_fmt(base)}), so there is "
        "nothing to fix; write queries whose words differ more from the descriptions"
    )
    return True


def _fair_descriptions(table: dict, tools: dict, pairs: list) -> None:
    unknown = [n for n in table if n not in tools]
    assert not unknown, f"there is no tool {unknown[0]!r}; keys are tool names such as flights_search"
    pasted = [q for q, _ in pairs if any(q.lower() in d.lower() for d in table.values())]
    assert not pasted, (
        f"a description contains your query {pasted[0]!r} word for word; describe the tool, do not paste the test into it"
    )
    for name, text in table.items():
        found = _stuffed(text, pairs, tool_text(tools[name]))
        assert not found, (
            f"the description of {name} holds {found[1] if found else ''} of your query {found[0] if found else ''!r}; "
            "describe what the tool does in words many users say, not the words of one test"
        )


def _fair_synonyms(table: dict) -> None:
    long = [p for p in table if len(str(p).split()) > MAX_PHRASE_WORDS]
    assert not long, (
        f"the synonym phrase {long[0]!r} has {len(long[0].split())} words; key the table on short "
        "phrases users say (one to three words), not on whole queries"
    )


def _fix_works(c: Checker, fn: Callable, what: str, kind: str, tools: dict, state: dict) -> bool:
    base = state.get("base")
    assert base is not None, "fix the queries first"
    table = _str_dict(c, fn, what)
    if kind == "descriptions":
        _fair_descriptions(table, tools, state["pairs"])
    else:
        _fair_synonyms(table)
    new = recall_row(state["pairs"], **{kind: table})
    pack_new = recall_row(CATALOG_QUERIES, **{kind: table})
    state[kind] = table
    assert _better(new, base), (
        f"recall on your queries went from {_fmt(base)} to {_fmt(new)}; a fix must raise at least "
        "one and lower none. Look at which queries still miss and which words they lack"
    )
    pack_base = recall_row(CATALOG_QUERIES)
    assert all(n >= o for n, o in zip(pack_new, pack_base)), (
        f"on the pack's eight queries recall fell from {_fmt(pack_base)} to {_fmt(pack_new)}: "
        + _fallen(CATALOG_QUERIES, **{kind: table})
        + "; a fix that breaks other queries is not a fix"
    )
    state[kind + "_row"] = new
    return True


def _summary(state: dict) -> str:
    """Both fixes on the student's queries and on the unseen ones ('' before the queries work)."""
    if "base" not in state:
        return ""
    summary = f"Your queries, recall {_fmt(state['base'])} unchanged"
    for kind in ("descriptions", "synonyms"):
        if kind + "_row" in state:
            summary += f"; with your {kind} {_fmt(state[kind + '_row'])}"
    unseen = _unseen_queries()
    held = [f"unchanged {_fmt(recall_row(unseen))}"]
    for kind in ("descriptions", "synonyms"):
        if kind in state:
            held.append(f"with your {kind} {_fmt(recall_row(unseen, **{kind: state[kind]}))}")
    return (
        f"{summary}. On {len(unseen)} unseen queries: "
        + "; ".join(held)
        + ". Use these numbers to answer: which fix generalizes?"
    )


def check(my_queries: Callable, better_descriptions: Callable, synonym_table: Callable) -> CheckResult:
    """Validate the queries, then measure both fixes on them, on the pack's queries and on
    unseen ones.

    Notebook 04.
    """
    c = Checker(TITLE)
    restore_course_data(c, *COURSE_DATA)
    parts = {name: (fn, ()) for name, fn in zip(_PARTS, (my_queries, better_descriptions, synonym_table))}
    if probe_parts(c, parts)[1]:
        return not_done(TITLE)
    restore_course_data(c, *COURSE_DATA, note=False)  # a part's edit is named when that part is called again
    tools = {t.name: t for t in make_catalog()}
    state: dict = {}
    c.run(
        f"my_queries() gives {N_QUERIES} new (query, tool) pairs, each naming a real tool",
        lambda: _queries_valid(c, my_queries, tools, state),
    )
    c.run(
        f"each query shares at most {MAX_SHARED:.0%} of its words with its tool's name and description",
        lambda: _queries_reworded(tools, state),
    )
    c.run("the unchanged catalog misses at least one of them at k=1 (something to fix)", lambda: _has_a_miss(state))
    c.run(
        "better_descriptions() raises recall on your queries and keeps the pack's",
        lambda: _fix_works(c, better_descriptions, "better_descriptions", "descriptions", tools, state),
    )
    c.run(
        "synonym_table() raises recall on your queries and keeps the pack's",
        lambda: _fix_works(c, synonym_table, "synonym_table", "synonyms", tools, state),
    )
    summary = _summary(state)
    result = c.done(next_step="")
    if summary:
        print(summary)
        result.lines.append(summary)
    return result
