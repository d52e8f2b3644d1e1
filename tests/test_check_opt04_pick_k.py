"""The optional your-turn check of notebook 04 §7 (toolkit/checks/opt04_pick_k.py)."""

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

import toolkit as T
from toolkit.checks import opt04_pick_k
from toolkit.checks.opt04_pick_k import reference_pick


def test_solution_passes(nb04_solution):
    assert opt04_pick_k.check(nb04_solution["pick_k"]).ok


def test_starter_is_not_done(nb04_starter, capsys):
    assert_not_done(opt04_pick_k.check(nb04_starter["pick_k"]), capsys)


NOTEBOOK_CATALOG = T.make_catalog()


def strictly_above(catalog, queries, target):
    """Reads 'reaches' as 'exceeds'."""
    index = T.ToolIndex(catalog)
    for k in range(1, len(catalog) + 1):
        if T.selection_recall(index, queries, k) > target:
            return k, reference_pick(catalog, queries, T.selection_recall(index, queries, k))[1]
    return None


def notebook_catalog(catalog, queries, target):
    """Ignores the catalog it is given and uses the notebook's."""
    return reference_pick(NOTEBOOK_CATALOG, queries, target)


def priced_as_every_tool(catalog, queries, target):
    got = reference_pick(catalog, queries, target)
    return got and (got[0], T.schema_size_estimate(catalog))


def never_none(catalog, queries, target):
    return reference_pick(catalog, queries, target) or (len(catalog), T.schema_size_estimate(catalog))


@pytest.mark.parametrize(
    "answer, fragment",
    [
        (lambda catalog, queries, target: (4, 268), "the smallest k with recall@k >= 0.75 is 1"),  # hard-coded
        (strictly_above, "a recall equal to the target meets it"),
        (notebook_catalog, "the smallest k"),
        (priced_as_every_tool, "you priced"),
        (never_none, "return None when no k reaches the target"),
        (lambda catalog, queries, target: 3, "return a pair (k, tokens)"),
    ],
)
def test_wrong_answers_fail(answer, fragment):
    assert_fails_with_sentence(opt04_pick_k.check(answer), fragment)


def test_never_raises():
    assert_fails_with_sentence(opt04_pick_k.check(boom), "KeyError")
