"""The weak and better order tools and the literal mock reader of notebook 07 (pack §2.7)."""

import toolkit as T
from toolkit.lessons.tool_design import (
    ORDERS,
    LiteralReader,
    SideBySide,
    better_registry,
    concise_view,
    id_tokens,
    list_orders_tool,
    order_book,
    search_orders_tool,
    token_estimate,
    weak_registry,
)

REQUEST = "I'm customer C17. What's the status of my order B7?"


def test_the_two_tools_differ_in_the_four_parts():
    weak, better = weak_registry().tools()[0], better_registry().tools()[0]
    assert (weak.name, weak.description) == ("get", "Gets stuff.")
    assert weak.input_schema["properties"]["id"] == {}
    assert better.name == "orders_get" and "Read-only" in better.description
    assert better.input_schema["properties"]["order_id"]["type"] == "string"
    assert weak_registry().run("get", {"id": "A9"}).content == "failed"
    teaching = better_registry().run("orders_get", {"order_id": "A9"}).content
    assert "No order 'A9'" in teaching and "A1 or B7" in teaching and "Ask the user" in teaching


def test_concise_and_detailed_answers():
    better = better_registry()
    concise = better.run("orders_get", {"order_id": "B7"}).data
    detailed = better.run("orders_get", {"order_id": "B7", "response_format": "detailed"}).data
    assert detailed == ORDERS["B7"] and concise == concise_view(ORDERS["B7"])
    assert concise["items"] == ["1 x Blue kettle", "2 x White mug"] and concise["shipped_with"] == "DHL Express"
    assert "shipped_with" not in concise_view(ORDERS["A1"])
    assert token_estimate(concise) < token_estimate(detailed) / 2
    assert token_estimate("abcdefgh") == 2


def test_registries_do_not_share_or_change_the_orders():
    reg = better_registry()
    reg.run("orders_get", {"order_id": "B7"}).data["status"] = "lost"
    assert ORDERS["B7"]["status"] == "shipped"


def test_literal_reader_on_the_weak_tool_takes_the_first_id_and_gives_up():
    run = T.run_agent(LiteralReader(), weak_registry(), REQUEST)
    calls = [c["arguments"] for c, _ in run.results]
    assert calls == [{"id": "C17"}, {"id": "C17"}]
    assert run.final.startswith("Sorry") and run.stop_reason == "final"


def test_literal_reader_on_the_better_tool():
    run = T.run_agent(LiteralReader(), better_registry(), REQUEST)
    assert [c["arguments"] for c, _ in run.results] == [{"order_id": "B7"}]
    assert "Blue kettle" in run.final
    typo = T.run_agent(LiteralReader(), better_registry(), REQUEST.replace("B7", "B9"))
    assert typo.calls == 1 and "check the order id" in typo.final


def test_literal_reader_with_one_id_works_with_either_tool():
    for registry in (weak_registry(), better_registry()):
        run = T.run_agent(LiteralReader(), registry, "Where is order B7?")
        assert run.calls == 1 and run.results[0][1].ok


def test_id_tokens():
    assert id_tokens("C17 then B7, not b7 or AB12") == [(0, "C17"), (9, "B7")]
    assert id_tokens("") == []


def test_order_book_listing_and_search():
    book = order_book(40, seed=3)
    assert book == order_book(40, seed=3) and len(book) == 40
    assert len({o["order_id"] for o in book}) == 40
    listing, search = list_orders_tool(book), search_orders_tool(book)
    assert listing.fn() is book
    customer = book[0]["customer_id"]
    hits = search.fn(customer)
    assert hits and all(set(h) >= {"order", "status", "items"} for h in hits)
    assert token_estimate(hits) < token_estimate(book)
    reg = T.ToolRegistry()
    reg.register(search)
    assert "Customer ids look like C17" in reg.run("orders_search", {"customer_id": "nobody"}).content
    assert reg.run("orders_search", {"customer_id": customer, "status": "lost"}).kind == "invalid_args"


def test_side_by_side_shows_both_columns():
    view = SideBySide({"left <a>": {"x": 1}, "right": "plain text"})
    assert "left &lt;a&gt;" in view._repr_html_() and "repeat(2,1fr)" in view._repr_html_()
    assert repr(view) == '== left <a> ==\n{\n "x": 1\n}\n\n== right ==\nplain text'
