"""Toolformer's loss filter on the tiny language model of notebook 03 (pack §2.3)."""

import math

import pytest

from toolkit.lessons.toolformer import (
    LOSS_WEIGHTS,
    PAPER_TABLE2_CALCULATOR,
    Candidate,
    TinyLM,
    best_per_text,
    candidate_calls,
    detokenize,
    explain_call,
    filter_run,
    filter_summary,
    format_call,
    format_explanation,
    format_threshold_table,
    insert_call,
    make_corpus,
    near_threshold,
    run_filter,
    score_call,
    threshold_table,
    tokenize,
)

SENTENCE = "ben packed 23 boxes with 17 cups in each , so ben packed 391 cups ."


@pytest.fixture(scope="module")
def lm():
    return TinyLM.train(make_corpus(2000, seed=0))


@pytest.fixture(scope="module")
def run():
    return filter_run(train_texts=2000, filter_texts=400, seed=0)


# -- the pieces ------------------------------------------------------------------------------


def test_the_papers_numbers_are_the_ones_the_pack_cites():
    assert PAPER_TABLE2_CALCULATOR == {0.5: 3680, 1.0: 994, 2.0: 138}
    raw = [1.0, 0.8, 0.6, 0.4, 0.2]  # max(0, 1 - 0.2 t) for t = 0..4, then zero
    assert LOSS_WEIGHTS == pytest.approx([w / 3.0 for w in raw])
    assert sum(LOSS_WEIGHTS) == pytest.approx(1.0)


def test_tokenize_and_detokenize():
    assert tokenize("Ben packed 23 boxes, so 391.5 cups!") == [
        "ben",
        "packed",
        "23",
        "boxes",
        ",",
        "so",
        "391.5",
        "cups",
        "!",
    ]
    assert detokenize(["so", ",", "391", "cups", "."]) == "so, 391 cups."
    with pytest.raises(TypeError):
        tokenize(None)


def test_corpus_is_seeded_and_its_sums_are_right():
    a, b = make_corpus(300, seed=5), make_corpus(300, seed=5)
    assert a == b and a != make_corpus(300, seed=6)
    for text in a:
        t = text.split()
        if "packed" in t and "boxes" in t:
            x, y, z = int(t[2]), int(t[5]), int(t[-3])
            assert x * y == z
        if t[:2] == ["of", "the"]:
            assert int(t[2]) - int(t[5]) == int(t[9])
    sums = sum(1 for text in make_corpus(2000, seed=1) if "," in text or ";" in text or "gives" in text)
    assert 800 < sums < 1300  # about half, as the default share says
    with pytest.raises(ValueError):
        make_corpus(10, share_sums=0.8, share_repeats=0.5)
    with pytest.raises(ValueError):
        make_corpus(-1)


def test_the_model_is_a_probability_distribution(lm):
    """Next-token probabilities over the words it knows plus every whole number below 10,000
    (its number universe; every number in the corpus is in it) sum to 1, less the small share
    kept for words it has never seen."""
    from collections import Counter

    assert all(int(n) < lm.number_universe for n in lm.number_counts)
    numbers = [str(i) for i in range(lm.number_universe)]
    assert sum(lm._p_number(n) for n in numbers) == pytest.approx(1.0)
    memory = Counter({"23": 1, "17": 1})
    for prev in ("packed", "so", ",", "23", None):
        total = sum(lm.prob(prev, w, memory, 2) for w in lm.word_counts)
        total += sum(lm.prob(prev, n, memory, 2) for n in numbers)
        assert 0.99 < total <= 1.0 + 1e-9, (prev, total)


def test_the_model_learns_to_copy_numbers(lm):
    assert 0.05 < lm.copy_weight < 0.5
    no_repeats = TinyLM.train(make_corpus(1000, seed=0, share_repeats=0.0))
    more_repeats = TinyLM.train(make_corpus(1000, seed=0, share_repeats=0.4))
    assert no_repeats.copy_weight < lm.copy_weight < more_repeats.copy_weight
    assert lm.mean_loss(make_corpus(200, seed=1)) < no_repeats.mean_loss(make_corpus(200, seed=1, share_repeats=0.4))
    with pytest.raises(ValueError):
        TinyLM.train([])


def test_a_number_in_the_prefix_becomes_easier_to_predict(lm):
    tokens = tokenize(SENTENCE)
    plain = lm.token_losses(tokens, 13, 14)[0]
    helped = lm.token_losses(tokens, 13, 14, prefix_numbers=("391",))[0]
    assert helped < plain - 2


# -- the filter ------------------------------------------------------------------------------


def test_the_right_call_gains_and_a_wrong_one_does_not(lm):
    tokens = tokenize(SENTENCE)
    right = score_call(lm, tokens, 13, "23 * 17")
    wrong = score_call(lm, tokens, 13, "23 + 17")
    early = score_call(lm, tokens, 10, "23 * 17")
    assert right.result == "391" and wrong.result == "40"
    assert right.gain > 1.0
    assert wrong.gain <= 1e-12
    assert 0 < early.gain < right.gain  # further away, smaller weight
    assert right.loss_minus == min(right.loss_plain, right.loss_call)
    assert right.kept(1.0) and not right.kept(right.gain + 0.01)
    assert right.augmented() == (
        "ben packed 23 boxes with 17 cups in each, so ben packed [Calculator(23 * 17) → 391] 391 cups."
    )
    with pytest.raises(ValueError):
        score_call(lm, tokens, 99, "1 + 1")


def test_repeating_the_inputs_earns_nothing(lm):
    """L⁻ takes the call without its result into account: a call whose result only repeats a
    number already present gains nothing over the call alone."""
    tokens = tokenize("take bus 12 to the park . bus 12 stops by the gate .")
    c = score_call(lm, tokens, 7, "12 * 1", result="12")
    assert c.gain <= 1e-9


def test_explanation_matches_the_score(lm):
    rows = explain_call(lm, SENTENCE, 13, "23 * 17")
    assert [r["token"] for r in rows] == ["391", "cups", "."]
    c = score_call(lm, tokenize(SENTENCE), 13, "23 * 17")
    assert sum(r["weight"] * r["call + result"] for r in rows) == pytest.approx(c.loss_result)
    text = format_explanation(rows)
    assert f"L⁻ − L⁺ = {c.gain:.3f}" in text


def test_candidates_need_two_earlier_numbers():
    assert candidate_calls(tokenize("gus likes to read .")) == []
    assert candidate_calls(tokenize("room 7 is upstairs .")) == []
    calls = candidate_calls(tokenize("12 cakes for 4 guests gives 3 ."))
    assert (5, "12 / 4", "3") in calls and (5, "4 / 12", "0.3333333333") in calls
    assert all(pos >= 4 for pos, _, _ in calls)
    assert not any("0" == e.split()[-1] and e.split()[1] == "/" for _, e, _ in calls)


def test_filter_keeps_fewer_texts_as_tau_rises(run):
    counts = [filter_summary(run.candidates, tau)["texts_kept"] for tau in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)]
    assert counts == sorted(counts, reverse=True)
    assert counts[1] > 100 and counts[3] < counts[1] and counts[-1] == 0
    calls = [filter_summary(run.candidates, tau)["calls_kept"] for tau in (0.5, 1.0, 2.0)]
    assert calls == sorted(calls, reverse=True)


def test_every_kept_call_has_its_result_in_the_following_tokens(run):
    kept = [c for c in run.candidates if c.kept(0.5)]
    assert kept
    assert all(c.result in c.tokens[c.position : c.position + len(LOSS_WEIGHTS)] for c in kept)


def test_unfamiliar_results_gain_more(run):
    best = [c for c in best_per_text(run.candidates).values() if c.gain >= 0.5]
    familiar = [c.gain for c in best if run.lm.number_counts[c.result] >= 20]
    unseen = [c.gain for c in best if run.lm.number_counts[c.result] == 0]
    assert familiar and unseen
    assert max(familiar) < min(unseen)


def test_filter_run_is_reproducible_and_cached():
    a = filter_run(train_texts=300, filter_texts=40, seed=3)
    assert filter_run(train_texts=300, filter_texts=40, seed=3) is a
    fresh = run_filter(TinyLM.train(make_corpus(300, seed=3)), make_corpus(40, seed=5))
    assert [(c.text_id, c.position, c.expression, round(c.gain, 9)) for c in fresh] == [
        (c.text_id, c.position, c.expression, round(c.gain, 9)) for c in a.candidates
    ]


def test_threshold_table_and_its_text(run):
    rows = threshold_table(run.candidates)
    assert [r["tau"] for r in rows] == [0.5, 1.0, 2.0]
    assert [r["paper"] for r in rows] == [3680, 994, 138]
    assert rows[0]["share"] == 1.0 and rows[1]["paper_share"] == pytest.approx(994 / 3680)
    text = format_threshold_table(rows)
    assert "3,680" in text and "27.0%" in text
    odd = threshold_table(run.candidates, taus=(0.7,))
    assert odd[0]["paper"] is None and "-" in format_threshold_table(odd)
    with pytest.raises(ValueError):
        filter_summary(run.candidates, float("nan"))


def test_near_threshold_examples_sit_on_each_side(run):
    for tau in (0.5, 1.0, 2.0):
        kept, dropped = near_threshold(run.candidates, tau)
        assert kept.gain >= tau > dropped.gain
        gains = sorted(c.gain for c in best_per_text(run.candidates).values())
        assert kept.gain == min(g for g in gains if g >= tau)
    assert near_threshold(run.candidates, 99.0)[0] is None


def test_call_formatting():
    assert format_call("12 * 7", "84") == "[Calculator(12 * 7) → 84]"
    assert format_call("12 * 7") == "[Calculator(12 * 7)]"
    assert insert_call(["so", "84", "cups"], 1, "12 * 7", "84") == "so [Calculator(12 * 7) → 84] 84 cups"
    c = Candidate(0, 1, "1 + 1", "2", 3.0, 2.5, 1.0)
    assert (c.loss_minus, c.gain) == (2.5, 1.5)
    assert not math.isnan(c.gain)


# -- the widget's pure part --------------------------------------------------------------------


def test_widget_state_agrees_with_the_filter(run):
    from toolkit.widgets.toolformer import FilterData, InputError, filter_state

    data = FilterData(run.candidates)
    for tau in (0.0, 0.3, 0.5, 1.0, 1.7, 2.0, 3.0):
        state = filter_state(data, tau)
        summary = filter_summary(run.candidates, tau)
        kept, dropped = near_threshold(run.candidates, tau)
        assert (state.texts_kept, state.calls_kept) == (summary["texts_kept"], summary["calls_kept"])
        assert state.kept_example is kept and state.dropped_example is dropped
    for bad in (-0.1, 3.5, "1", True, float("nan")):
        with pytest.raises(InputError):
            filter_state(data, bad)
    with pytest.raises(InputError):
        FilterData([])


def test_widget_builds_and_follows_the_slider(run):
    pytest.importorskip("ipywidgets")
    pytest.importorskip("matplotlib")
    from toolkit.widgets.toolformer import toolformer_explorer

    view = toolformer_explorer(run.candidates, tau=1.0)
    assert view.message == "" and view.state.tau == 1.0
    assert "3,680" in view.table.value and view.image.value[:4] == b"\x89PNG"
    view.slider.value = 2.0
    assert view.state.texts_kept == filter_summary(run.candidates, 2.0)["texts_kept"]
    assert "<b>2.0</b>" in view.summary.value


# -- what the course says about the paper -------------------------------------------------


def test_the_course_keeps_toolformers_stated_limits_apart_from_its_test_setting():
    """The paper lists no chaining as a limit; one call per input is how its experiments were
    run [1]. A quiz distractor must be plainly false, not a twisted version of that setting."""
    import json
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    quiz = json.loads((root / "data" / "quiz.json").read_text(encoding="utf-8"))["questions"]
    q2 = next(q for q in quiz if q["id"] == 2)
    right = q2["options"][q2["answer"]]
    assert "chain" in right.lower() or "feed" in right, right
    one_call = re.compile(r"at most one|only once|one (api )?call per|per input|more than once", re.I)
    wrong = [o for i, o in enumerate(q2["options"]) if i != q2["answer"]]
    assert not [o for o in wrong if one_call.search(o)], wrong

    notebook = (root / "notebooks" / "03_learning_to_call_tools.py").read_text(encoding="utf-8")
    paragraphs = re.split(r"\n#\s*\n|\n# [-*] |\n# \d\. ", notebook)
    for text in paragraphs:
        if one_call.search(text):
            assert re.search(r"evaluation|experiments|setting", text), text
