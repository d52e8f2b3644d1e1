"""Exercise 8's check (toolkit/checks/ex08.py, notebook 04). What every check test holds: tests/conftest.py."""

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

import toolkit as T
import toolkit.lessons.catalog as catalog
from toolkit.checks import ex08

# ---------------------------------------------------------------------------------- exercise 8


def test_ex08_solution_passes(nb04_solution, capsys):
    result = ex08.check(
        nb04_solution["my_queries"], nb04_solution["better_descriptions"], nb04_solution["synonym_table"]
    )
    assert result.ok
    assert "unseen queries" in capsys.readouterr().out


def test_ex08_starter_is_not_done(nb04_starter, capsys):
    s = nb04_starter
    assert_not_done(ex08.check(s["my_queries"], s["better_descriptions"], s["synonym_table"]), capsys)


def fixes(ns):
    return ns["better_descriptions"], ns["synonym_table"]


def test_ex08_bad_queries_fail(nb04_solution):
    good = nb04_solution["my_queries"]()
    cases = [
        (good[:7], "write exactly 8 queries"),
        (good[:7] + [("Where can I fly tonight?", "flights_book")], "no tool 'flights_book'"),
        (good[:7] + [good[0]], "two of your queries are the same"),
        (good[:7] + [T.CATALOG_QUERIES[0]], "one of the pack's own queries"),
        (good[:7] + [("Find weather forecast for Oslo", "weather_search")], "come from weather_search's own text"),
    ]
    for pairs, fragment in cases:
        assert_fails_with_sentence(ex08.check(lambda p=pairs: p, *fixes(nb04_solution)), fragment)


def test_ex08_queries_that_already_hit_fail(nb04_solution):
    easy = [
        ("weather search for Paris tomorrow evening please", "weather_search"),
        ("flights summarize my trips last year overall", "flights_summarize"),
        ("hotels delete booking 55 at once now", "hotels_delete"),
        ("calendar get entry 12 right away today", "calendar_get"),
        ("email update draft 9 subject line tonight", "email_update"),
        ("music create playlist called sunday morning mood", "music_create"),
        ("stocks search ticker NVDA closing values daily", "stocks_search"),
        ("recipes summarize pancake variants I saved earlier", "recipes_summarize"),
    ]
    assert_fails_with_sentence(ex08.check(lambda: easy, *fixes(nb04_solution)), "nothing to fix")


def test_ex08_bad_fixes_fail(nb04_solution):
    queries, descriptions, synonyms = (nb04_solution[k] for k in ("my_queries", "better_descriptions", "synonym_table"))
    pasted = {"weather_search": "Any chance of rain in Bergen tomorrow?"}
    assert_fails_with_sentence(ex08.check(queries, lambda: pasted, synonyms), "word for word")
    # replacing the old wording loses the pack's queries ("Find cooking recipes that match ...")
    replaced = {
        "recipes_search": "Meal ideas for a dish, a diet or a dinner.",
        "flights_create": "Book a seat on a plane.",
    }
    assert_fails_with_sentence(ex08.check(queries, lambda: replaced, synonyms), "on the pack's eight queries")
    assert_fails_with_sentence(
        ex08.check(queries, descriptions, lambda: {"zebra": "giraffe"}), "recall on your queries went from"
    )
    assert_fails_with_sentence(ex08.check(queries, lambda: {"nope_tool": "x"}, synonyms), "no tool 'nope_tool'")


def test_ex08_fixes_fitted_to_the_test_queries_fail(nb04_solution):
    """Issue 10: a synonym table keyed on the whole queries and descriptions stuffed with the
    queries' words raise recall on those eight queries only; the check names the overfitting."""
    queries, descriptions, synonyms = (nb04_solution[k] for k in ("my_queries", "better_descriptions", "synonym_table"))
    tools = {t.name: t for t in T.make_catalog()}
    keyed = {q: f"{tools[g].name} {tools[g].description}" for q, g in queries()}
    assert_fails_with_sentence(ex08.check(queries, descriptions, lambda: keyed), "synonym phrase", "one to three words")
    stuffed = {g: f"{tools[g].description} {' '.join(reversed(T.tokenize(q)))}" for q, g in queries()}
    assert_fails_with_sentence(ex08.check(queries, lambda: stuffed, synonyms), "every word of your query")


def test_ex08_queries_copied_from_the_notebook_or_the_unseen_set_fail(nb04_solution):
    good = nb04_solution["my_queries"]()
    printed = ("Look up airline flights from SFO to LAX", "flights_search")  # the notebook's example, one word changed
    assert_fails_with_sentence(
        ex08.check(lambda: good[:7] + [printed], *fixes(nb04_solution)), "close to an example the notebook shows"
    )
    unseen = [list(p) for p in ex08._unseen_queries()[:8]]
    assert_fails_with_sentence(ex08.check(lambda: unseen, *fixes(nb04_solution)), "unseen")
    assert "HELD_OUT" not in ex08.__all__ and not hasattr(ex08, "HELD_OUT")


def test_ex08_other_right_answers_pass(nb04_solution):
    """Right answers written differently from the solution: other queries and tools, repairs in
    other words, phrases in any case; and the solution's own pairs as lists, in another order."""
    queries = [
        ("Will I need an umbrella in Lisbon on Sunday?", "weather_search"),
        ("Cancel my stay at the beach resort", "hotels_delete"),
        ("Play something upbeat by Daft Punk", "music_search"),
        ("What could I cook for a gluten free lunch?", "recipes_search"),
        ("Remove the dentist slot from my diary", "calendar_delete"),
        ("Get rid of that spam message from the bank", "email_delete"),
        ("How did Apple shares do overall this quarter?", "stocks_summarize"),
        ("Grab me a seat on a plane to Madrid", "flights_create"),
    ]
    added = {
        "weather_search": "Rain, umbrella, sun or snow today or on a given day.",
        "hotels_delete": "Cancel a stay or a reservation.",
        "music_search": "Play songs by a band or an artist.",
        "recipes_search": "What to cook for lunch or dinner.",
        "calendar_delete": "Remove an appointment or slot from the diary.",
        "email_delete": "Get rid of spam or a message.",
        "stocks_summarize": "How shares did over a quarter or year.",
        "flights_create": "Get a seat on a plane.",
    }
    old = {t.name: t.description for t in T.make_catalog()}
    descriptions = {name: f"{old[name]} {extra}" for name, extra in added.items()}
    synonyms = {
        "Umbrella": "weather forecast",
        "cancel my stay": "hotel delete",
        "Play": "music tracks",
        "cook": "cooking recipes",
        "diary": "calendar",
        "spam": "email messages",
        "shares": "stock prices summary",
        "plane": "airline flights",
    }
    assert ex08.check(lambda: queries, lambda: descriptions, lambda: synonyms).ok
    as_lists = [list(p) for p in reversed(nb04_solution["my_queries"]())]
    assert ex08.check(lambda: as_lists, *fixes(nb04_solution)).ok
    # a request of the student's own that happens to resemble an unseen one is not a copy
    cousin = nb04_solution["my_queries"]()[:7] + [("Book me a seat on the morning plane to Paris", "flights_create")]
    assert ex08.check(lambda: cousin, *fixes(nb04_solution)).ok


def test_ex08_never_raises(nb04_solution):
    result = ex08.check(boom, lambda: None, lambda: {1: 2})
    assert_fails_with_sentence(result, "KeyError")
    assert result.status == "checked"


def test_ex08_recall_row_matches_the_pack():
    assert ex08.recall_row(T.CATALOG_QUERIES) == (0.75, 0.75, 1.0)
    assert ex08.recall_row([("Look up airline flights", "flights_search")], synonyms={"look up": "find"})[0] == 1.0


def test_ex08_synonym_phrases_count_in_any_case(nb04_solution):
    """The exercise promises "any case": a table keyed in capitals works like the solution's."""
    queries, descriptions, synonyms = (nb04_solution[k] for k in ("my_queries", "better_descriptions", "synonym_table"))
    shouting = {phrase.upper(): words.upper() for phrase, words in synonyms().items()}
    assert ex08.check(queries, descriptions, lambda: shouting).ok
    assert ex08.recall_row([("Look up airline flights", "flights_search")], synonyms={"Look Up": "FIND"})[0] == 1.0


# ------------------------------- held-out style: answers that edit the course's catalog data


def _editing(part, edit):
    """The notebook's solution, except that ``part`` first runs ``edit()`` on the course's data."""

    def wrapped(solution):
        original = solution[part]

        def edited():
            edit()
            return original()

        return dict(solution, **{part: edited})

    return wrapped


def _words_into_templates():
    for action in catalog.CATALOG_ACTIONS:  # every tool now also says what the student's queries say
        action["description"] += " rain plane mail shares room songs dinner trash recap queue ideas"


def _easier_pack_queries():
    catalog.CATALOG_QUERIES[:] = [(tool.replace("_", " "), tool) for _, tool in catalog.CATALOG_QUERIES]


def _domains_renamed():
    for domain in catalog.CATALOG_DOMAINS:
        domain["words"] += " rain plane mail shares room songs dinner"


EDITS = {
    "better_descriptions edits the action templates": _editing("better_descriptions", _words_into_templates),
    "synonym_table rewrites the pack's queries": _editing("synonym_table", _easier_pack_queries),
    "my_queries edits the domains' words": _editing("my_queries", _domains_renamed),
}


@pytest.mark.parametrize("name", EDITS)
def test_ex08_an_answer_that_edits_the_course_data_fails_and_moves_no_number(name, nb04_solution, capsys):
    reference = ex08.check(
        nb04_solution["my_queries"], nb04_solution["better_descriptions"], nb04_solution["synonym_table"]
    )
    numbers, texts = reference.lines[-1], [t.description for t in T.make_catalog()]
    answer = EDITS[name](nb04_solution)
    try:
        result = ex08.check(answer["my_queries"], answer["better_descriptions"], answer["synonym_table"])
        assert_fails_with_sentence(result, "in place")
    finally:
        ex08.restore_course_data(ex08.Checker("t"), *ex08.COURSE_DATA)
    again = ex08.check(
        nb04_solution["my_queries"], nb04_solution["better_descriptions"], nb04_solution["synonym_table"]
    )
    assert again.ok and again.lines[-1] == numbers and [t.description for t in T.make_catalog()] == texts


def test_ex08_a_fix_that_costs_a_pack_query_names_it_and_its_new_rank(nb04_solution):
    def descriptions():
        return {"recipes_search": "Meal ideas for a dish, a diet or a dinner."}  # the old words are gone

    result = ex08.check(nb04_solution["my_queries"], descriptions, nb04_solution["synonym_table"])
    assert_fails_with_sentence(result, "the pack's query", "(recipes_search) fell from rank 1 to rank")


def test_ex08_a_description_holding_most_words_of_a_query_and_its_names_fails(nb04_solution):
    """Stuffing a description with a query's words, all but one, names included, is fitting the test."""
    queries, _, synonyms = (nb04_solution[k] for k in ("my_queries", "better_descriptions", "synonym_table"))
    tools = {t.name: t for t in T.make_catalog()}
    query, gold = "I need somewhere to sleep in Porto on Saturday", "hotels_create"
    mine = lambda: [*queries()[:7], (query, gold)]  # noqa: E731
    stuffed = {gold: f"{tools[gold].description} saturday sleep porto somewhere"}  # all but "need"
    assert_fails_with_sentence(ex08.check(mine, lambda: stuffed, synonyms), "the name 'porto' of your query")
