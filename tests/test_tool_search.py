"""toolkit.lessons.tool_search: deferred loading over the BM25 index (notebook 04, issue 21)."""

import toolkit as T
from toolkit.lessons.tool_search import TopHitMock, compare_loading, deferred_registry


def test_the_model_starts_with_one_search_tool_and_a_search_loads_what_it_found():
    catalog = T.make_catalog()
    registry, loaded = deferred_registry(catalog, k=3)
    assert registry.names() == ["tool_search"] and loaded == []
    found = registry.run("tool_search", {"query": "look up airline flights to Rome"}).data
    names = [f["name"] for f in found]
    assert len(names) == 3 and loaded == names
    assert set(registry.names()) == {"tool_search", *names}
    registry.run("tool_search", {"query": "look up airline flights to Rome"})
    assert loaded == names, "a tool found twice is loaded once"


def test_a_found_tool_is_shown_only_from_the_turn_after_the_search():
    catalog = T.make_catalog()
    registry, loaded = deferred_registry(catalog, k=3)
    shown = []

    class Recording(TopHitMock):
        def respond(self, messages, tools):
            shown.append([t["name"] for t in tools])
            return super().respond(messages, tools)

    result = T.run_agent(Recording(), registry, "look up airline flights to Oslo", call_timeout=None)
    assert shown[0] == ["tool_search"]
    assert set(loaded) <= set(shown[1]) and loaded[0] in shown[1]
    called = [c["name"] for c, _ in result.results]
    assert called == ["tool_search", loaded[0]], "the mock calls the first hit once it is loaded"


def test_tool_search_sends_a_fraction_of_the_tokens_and_its_recall_is_the_index_recall():
    catalog, queries = T.make_catalog(), T.CATALOG_QUERIES
    index = T.ToolIndex(catalog)
    for k in (1, 3, 5):
        rows = compare_loading(catalog, queries, k=k)
        every, search = rows["every tool"], rows["tool search"]
        assert every["tokens per request"] == T.schema_size_estimate(catalog)
        assert search["tokens per request"] < every["tokens per request"] / 5
        assert every["right tool in view"] == 1.0
        assert search["right tool in view"] == T.selection_recall(index, queries, k)
        assert search["model turns"] == every["model turns"] + len(queries), "one extra turn per run: the search"
    assert (
        compare_loading(catalog, queries, k=1)["tool search"]["search results per run"]
        < (compare_loading(catalog, queries, k=5)["tool search"]["search results per run"])
    )
