"""Your turn in notebook 04 §7 (optional, beyond the pack): pick ``k`` for a recall target, and price it.

With deferred loading the model sees only what the search returns, so ``k`` trades recall
against tokens. The student writes ``pick_k(catalog, queries, target)``: the smallest ``k`` whose
recall@k over ``queries`` (``(query, right tool)`` pairs) reaches ``target``, with the tokens
that choice costs, or ``None`` when no ``k`` reaches it. The price is the mean, over the
queries, of :func:`~toolkit.selection.schema_size_estimate` of the tools the search returns at
that ``k`` (the schemas a request carries once the search has loaded them; pack §2.4's
characters / 4). The check runs it on catalogs, queries and targets the notebook never uses.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..lessons.catalog import CATALOG_QUERIES, make_catalog
from ..selection import ToolIndex, schema_size_estimate, selection_recall
from . import Checker, CheckResult, not_done, probe_parts

__all__ = ["check", "reference_pick"]

TITLE = "Your turn (04 §7): pick k for a recall target, and price it"

UNSEEN_QUERIES = [
    ("Show me the tracks of the jazz album I like", "music_search"),
    ("Get the hotel rooms booking number 7", "hotels_get"),
    ("Book a new flight to Lisbon", "flights_create"),
    ("Give me a short summary of my email this week", "email_summarize"),
    ("Delete the Monday entry from my calendar", "calendar_delete"),
]
REWORDED = {  # descriptions that bring the notebook's two misses to the top
    "flights_search": "Look up airline flights from one airport to another.",
    "music_search": "Play some music: find tracks by an artist.",
}
NOWHERE = ("Translate this poem into Welsh", "recipes_get")  # no word of it is in any description


def reference_pick(catalog: list, queries: list, target: float) -> tuple[int, int] | None:
    """The check's own answer: ``(k, tokens)``, or None when no k up to the catalog's size reaches ``target``.

    Notebook 04, through check.
    """
    index, by_name = ToolIndex(catalog), {t.name: t for t in catalog}
    for k in range(1, len(catalog) + 1):
        if selection_recall(index, queries, k) >= target:
            sizes = [schema_size_estimate([by_name[n] for n, _ in index.search(q, k)]) for q, _ in queries]
            return k, round(sum(sizes) / len(sizes))
    return None


def _cases() -> list[tuple[str, list, list, float]]:
    """(label, catalog, queries, target), built afresh for each check."""
    full = make_catalog()
    three = make_catalog(domains=["music", "email", "calendar"])
    reworded = make_catalog(descriptions=REWORDED)
    return [
        ("the notebook's queries, a target met exactly at k=1", full, list(CATALOG_QUERIES), 0.75),
        ("unseen queries, target 0.8", full, list(UNSEEN_QUERIES), 0.8),
        ("unseen queries, target 1.0", full, list(UNSEEN_QUERIES), 1.0),
        (
            "a three-domain catalog, target 0.6",
            three,
            [q for q in UNSEEN_QUERIES if q[1] in {t.name for t in three}],
            0.6,
        ),
        ("a catalog with two descriptions reworded, target 1.0", reworded, list(CATALOG_QUERIES), 1.0),
        ("a query no k can serve, target 1.0", full, list(UNSEEN_QUERIES) + [NOWHERE], 1.0),
    ]


def _one(c: Checker, pick_k: Callable, label: str, catalog: list, queries: list, target: float) -> bool:
    want = reference_pick(catalog, queries, target)
    got = c.call(pick_k, catalog, queries, target)
    if want is None:
        assert got is None, (
            f"for {label} you returned {got!r}, but one query's right tool is never among the search's "
            "results, whatever k; return None when no k reaches the target"
        )
        return True
    assert isinstance(got, tuple) and len(got) == 2, f"for {label} return a pair (k, tokens), not {got!r:.60}"
    k, tokens = got
    assert k == want[0], f"for {label} you picked k={k!r}; the smallest k with recall@k >= {target} is {want[0]}" + (
        " (a recall equal to the target meets it)" if isinstance(k, int) and k > want[0] else ""
    )
    assert isinstance(tokens, (int, float)) and abs(tokens - want[1]) <= 1, (
        f"for {label} you priced k={k} at {tokens!r} tokens; the schemas the search returns at that k "
        f"come to about {want[1]} per request (schema_size_estimate of those tools, averaged over the queries)"
    )
    return True


def check(pick_k: Callable) -> CheckResult:
    """``pick_k(catalog, queries, target)`` returns ``(k, tokens)`` or ``None``.

    Notebook 04.
    """
    c = Checker(TITLE)
    if probe_parts(c, {"pick_k": (pick_k, (make_catalog(), list(CATALOG_QUERIES), 1.0))})[1]:
        return not_done(TITLE)
    for label, catalog, queries, target in _cases():
        c.run(label, partial(_one, c, pick_k, label, catalog, queries, target))
    return c.done(
        next_step="Compare your price with the 'every tool' row above: how much recall does each "
        "extra hundred tokens buy?"
    )
