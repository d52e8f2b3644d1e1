"""Tool selection with BM25 (pack §2.4; API.md §4)."""

import json
import random

import pytest

import toolkit as T
from toolkit.selection import PlainBM25Index, bm25_term_weight
from toolkit.synthetic import zipf_catalog, zipf_queries


def test_tokenize_rules():
    assert T.tokenize("Look up the flights_search-tool for ME, it's 2x!") == [
        "look", "up", "flights", "search", "tool", "s", "2x"]
    assert T.tokenize("") == [] and T.tokenize("the of and") == []


def test_catalog_shape_and_flags():
    tools = T.make_catalog()
    assert len(tools) == 48
    names = [t.name for t in tools]
    assert names[:6] == ["weather_search", "weather_get", "weather_create", "weather_update",
                         "weather_delete", "weather_summarize"]
    by = {t.name: t for t in tools}
    assert by["flights_search"].description == "Find airline flights that match a text query."
    assert by["stocks_get"].description == "Fetch one record of stock prices by its id."
    assert by["email_delete"].input_schema["required"] == ["address"]
    assert set(by["email_delete"].input_schema["properties"]) == {"address", "id"}
    assert set(by["email_create"].input_schema["properties"]) == {"address"}
    assert [by[f"music_{a}"].read_only for a in ("search", "get", "create", "update", "delete", "summarize")] == \
        [True, True, False, False, False, True]
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
    tools = [{"name": "p", "description": "red apple", "inputSchema": {}},
             {"name": "q", "description": "green apple pie", "inputSchema": {}},
             {"name": "r", "description": "blue sky", "inputSchema": {}}]
    # documents: "p red apple" (3 words), "q green apple pie" (4), "r blue sky" (3); avgdl 10/3
    idf_red = 0.9808292530117262   # ln(1 + (3 - 1 + 0.5) / 1.5)
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
    queries += [q + " " + q.split()[0] for q in queries[:20]]       # repeated words
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
