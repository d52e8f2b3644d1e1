"""Tool selection with BM25 (pack §2.4; API.md §4)."""

import json
import math
import random

import pytest

import toolkit as T
from toolkit.lessons.synthetic_catalog import zipf_catalog, zipf_queries
from toolkit.selection import PlainBM25Index, bm25_term_weight, query_words, tool_text


def test_tokenize_rules():
    assert T.tokenize("Look up the flights_search-tool for ME, it's 2x!") == [
        "look",
        "up",
        "flights",
        "search",
        "tool",
        "s",
        "2x",
    ]
    assert T.tokenize("") == [] and T.tokenize("the of and") == []


def test_catalog_shape_and_flags():
    tools = T.make_catalog()
    assert len(tools) == 48
    names = [t.name for t in tools]
    assert names[:6] == [
        "weather_search",
        "weather_get",
        "weather_create",
        "weather_update",
        "weather_delete",
        "weather_summarize",
    ]
    by = {t.name: t for t in tools}
    assert by["flights_search"].description == "Find airline flights that match a text query."
    assert by["stocks_get"].description == "Fetch one record of stock prices by its id."
    assert by["email_delete"].input_schema["required"] == ["address"]
    assert set(by["email_delete"].input_schema["properties"]) == {"address", "id"}
    assert set(by["email_create"].input_schema["properties"]) == {"address"}
    assert [by[f"music_{a}"].read_only for a in ("search", "get", "create", "update", "delete", "summarize")] == [
        True,
        True,
        False,
        False,
        False,
        True,
    ]
    assert by["music_delete"].destructive and not by["music_update"].destructive
    assert [t.name for t in T.make_catalog(["hotels"])] == [n for n in names if n.startswith("hotels_")]
    with pytest.raises(ValueError):
        T.make_catalog(["spaceships"])


def test_the_pack_demo_figures():
    tools = T.make_catalog()
    index = T.ToolIndex(tools)
    assert len(T.CATALOG_QUERIES) == 8
    assert ("Look up airline flights from SFO to JFK", "flights_search") in T.CATALOG_QUERIES
    assert [T.selection_recall(index, T.CATALOG_QUERIES, k) for k in (1, 3, 5)] == [0.75, 0.75, 1.0]
    assert T.schema_size_estimate(tools) == 3296
    hits = index.search("Look up airline flights from SFO to JFK", 5)
    assert hits[:3] == [("flights_create", 5.051), ("flights_delete", 5.051), ("flights_summarize", 5.051)]
    assert "flights_search" in [n for n, _ in hits]
    top5 = [t for t in tools if t.name in {n for n, _ in hits}]
    assert T.schema_size_estimate(top5) == 327


def test_vocabulary_mismatch_is_fixed_by_a_better_description():
    """Exercise 8's point: the description is the document."""
    query = "Look up airline flights from SFO to JFK"
    better = T.make_catalog(descriptions={"flights_search": "Look up airline flights between airports."})
    assert T.ToolIndex(better).search(query, 1)[0][0] == "flights_search"


def test_scores_are_bm25_by_hand():
    tools = [
        {"name": "p", "description": "red apple", "inputSchema": {}},
        {"name": "q", "description": "green apple pie", "inputSchema": {}},
        {"name": "r", "description": "blue sky", "inputSchema": {}},
    ]
    # documents: "p red apple" (3 words), "q green apple pie" (4), "r blue sky" (3); avgdl 10/3
    idf_red = 0.9808292530117262  # ln(1 + (3 - 1 + 0.5) / 1.5)
    expect = idf_red * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 3 / (10 / 3)))
    assert T.ToolIndex(tools).search("red", 3) == [("p", round(expect, 3))]
    assert T.ToolIndex(tools).search("purple", 3) == []


def test_search_ties_follow_catalog_order_and_k_limits():
    tools = [{"name": n, "description": "same words here", "inputSchema": {}} for n in ("z", "y", "x")]
    index = T.ToolIndex(tools)
    assert [n for n, _ in index.search("words", 5)] == ["z", "y", "x"]
    assert len(index.search("words", 2)) == 2 and index.search("words", 0) == []


def test_selection_recall_and_schema_size_inputs():
    index = T.ToolIndex(T.make_catalog())
    assert T.selection_recall(index, [("find cooking recipes", "recipes_search"), ("zzz", "recipes_get")], 1) == 0.5
    with pytest.raises(ValueError):
        T.selection_recall(index, [], 3)
    schemas = [t.schema() for t in T.make_catalog()[:3]]
    assert T.schema_size_estimate(schemas) == len(json.dumps(schemas)) // 4
    reg = T.ToolRegistry()
    reg.register(T.make_catalog()[0])
    assert T.ToolIndex(reg).search("weather", 1)[0][0] == "weather_search"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pruned_search_equals_the_plain_loop_on_zipf_catalogs(seed):
    """MaxScore pruning must not change a single score or rank, ties included."""
    tools = zipf_catalog(n_tools=3000, words_per_tool=12, vocab_size=2500, seed=seed)
    fast, plain = T.ToolIndex(tools), PlainBM25Index(tools)
    rng = random.Random(seed)
    queries = zipf_queries(120, words_per_query=4, vocab_size=2500, seed=seed)
    queries += [q + " " + q.split()[0] for q in queries[:20]]  # repeated words
    queries += ["", "zzzz qqqq", queries[0].upper()]
    for q in queries:
        reference = plain.search(q, 20)  # the top k of any k <= 20 is a prefix of this
        for k in (1, 5, rng.randint(2, 20)):
            assert fast.search(q, k) == reference[:k], (q, k)


def test_pruned_search_equals_plain_with_other_parameters():
    tools = zipf_catalog(n_tools=800, words_per_tool=8, vocab_size=600, seed=5)
    for k1, b in ((0.9, 0.4), (2.0, 1.0), (1.2, 0.0)):
        fast, plain = T.ToolIndex(tools, k1=k1, b=b), PlainBM25Index(tools, k1=k1, b=b)
        for q in zipf_queries(40, words_per_query=3, vocab_size=600, seed=9):
            assert fast.search(q, 5) == plain.search(q, 5)
    assert T.plain_bm25_search(tools, "x", 3) == []
    assert bm25_term_weight(1.0, 1, 10, 10.0, 1.5, 0.75) == pytest.approx(1.0)


def test_scores_helper_matches_search():
    index = T.ToolIndex(T.make_catalog())
    scores = index.scores("cooking recipes")
    best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    assert index.names[best] == index.search("cooking recipes", 1)[0][0]


# --- Each distinct query word counts once (pack §2.4 and API.md §4; issue 11) ----------------

TINY = [
    {"name": "p", "description": "red apple", "inputSchema": {}},
    {"name": "q", "description": "green apple pie", "inputSchema": {}},
    {"name": "r", "description": "blue sky", "inputSchema": {}},
]


def pack_formula(query_words, doc_words, all_docs, k1=1.5, b=0.75):
    """The pack's score written out: the sum over DISTINCT query words of
    idf * tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)), idf = ln(1 + (N - df + 0.5) / (df + 0.5))."""
    n = len(all_docs)
    avgdl = sum(len(d) for d in all_docs) / n
    total = 0.0
    for word in set(query_words):
        tf = doc_words.count(word)
        if tf:
            df = sum(word in d for d in all_docs)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            total += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc_words) / avgdl))
    return total


def test_a_repeated_query_word_counts_once():
    catalog = T.make_catalog()
    index, plain = T.ToolIndex(catalog), PlainBM25Index(catalog)
    once = "cooking recipes for leek soup"
    for repeated in (
        "cooking cooking recipes for leek soup",
        "cooking recipes for leek soup soup soup",
        "Recipes cooking RECIPES for leek soup recipes",
    ):
        assert index.search(repeated, 10) == index.search(once, 10), repeated
        assert index.scores(repeated) == index.scores(once), repeated
        assert plain.search(repeated, 10) == plain.search(once, 10), repeated
        assert T.plain_bm25_search(catalog, repeated, 3) == T.plain_bm25_search(catalog, once, 3)


def test_query_words_are_the_distinct_words_in_first_seen_order():
    assert query_words("Apple red apple, RED pie the apple") == ["apple", "red", "pie"]
    assert query_words("") == [] and query_words("the of") == []


def test_scores_equal_the_pack_formula_by_hand():
    # documents: "p red apple" (3 words), "q green apple pie" (4), "r blue sky" (3); N 3, avgdl 10/3
    # "red": df 1, idf ln(1 + 2.5/1.5); "apple": df 2, idf ln(1 + 1.5/2.5); each tf 1
    idf_red, idf_apple = math.log(1 + 2.5 / 1.5), math.log(1 + 1.5 / 2.5)
    p = idf_red * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 3 / (10 / 3))) + idf_apple * 2.5 / (
        1 + 1.5 * (0.25 + 0.75 * 3 / (10 / 3))
    )
    q = idf_apple * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 4 / (10 / 3)))
    assert round(p, 3) == 1.519 and round(q, 3) == 0.431
    for query in ("red apple", "red apple red", "apple red red apple apple"):
        assert T.ToolIndex(TINY).search(query, 3) == [("p", 1.519), ("q", 0.431)], query
        assert T.ToolIndex(TINY).scores(query) == pytest.approx([p, q, 0.0], rel=1e-15, abs=0), query


def test_scores_equal_the_pack_formula_on_a_zipf_catalog():
    tools = zipf_catalog(n_tools=300, words_per_tool=10, vocab_size=150, seed=3)
    docs = [T.tokenize(tool_text(t)) for t in tools]
    index = T.ToolIndex(tools)
    queries = zipf_queries(30, words_per_query=5, vocab_size=150, seed=3)
    assert any(len(set(q.split())) < 5 for q in queries)  # some queries repeat a word
    for query in queries:
        words = T.tokenize(query)
        assert index.scores(query) == pytest.approx(
            [pack_formula(words, d, docs) for d in docs], rel=1e-12, abs=1e-12
        ), query


def test_same_top_five_and_scores_as_bm25s_given_each_word_once():
    """Done-when of issue 11: bm25s with the ATIRE tf part, Lucene idf (the pack's idf) and float64,
    given the same tokens, each distinct query word once, gives the same top five and scores."""
    import bm25s  # in the `test` extra (pyproject.toml)

    tools = zipf_catalog(n_tools=2000, words_per_tool=15, vocab_size=1500, seed=4)
    index = T.ToolIndex(tools)
    reference = bm25s.BM25(k1=1.5, b=0.75, method="atire", idf_method="lucene", dtype="float64")
    reference.index([T.tokenize(tool_text(t)) for t in tools], show_progress=False)
    queries = zipf_queries(80, words_per_query=4, vocab_size=1500, seed=4)
    queries += [q + " " + q.split()[-1] + " " + q.split()[0] for q in queries[:20]]
    repeats = 0
    for query in queries:
        words = query_words(query)
        repeats += len(words) < len(T.tokenize(query))
        theirs = reference.get_scores(words).tolist() if words else [0.0] * len(tools)
        assert index.scores(query) == theirs, query  # same formula, same order: the same floats
        # bm25s's own tie order differs, so rank its scores with the toolkit's rule
        ranked = sorted((i for i, s in enumerate(theirs) if s > 0), key=lambda i: (-theirs[i], i))[:5]
        assert index.search(query, 5) == [(index.names[i], round(theirs[i], 3)) for i in ranked], query
    assert repeats >= 20
