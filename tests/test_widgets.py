"""The live views, driven from Python: set a control, check the view changed as the lesson says.

Pure computations are tested without ipywidgets; the widget tests set ``control.value`` (which
runs the redraw at once, as a slider release does in JupyterLab) and read ``view.state``,
``view.message`` and the picture in ``view.image.value``.
"""

import base64
import json
import re
import subprocess
import sys
from html import escape as escape_html

import pytest

import toolkit as T
from toolkit.lessons.catalog import expand_query
from toolkit.widgets import gate_view as gp
from toolkit.widgets import passk, recall, scoring
from toolkit.widgets._base import OKABE_ITO, InputError
from toolkit.widgets.quiz_view import grade, load_quiz
from toolkit.widgets.transcript_view import transcript, transcript_text, wire, wire_html

W = pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

SOURCE_MOCK_HTML = escape_html(passk.SOURCE_MOCK)


# ------------------------------------------------------------------------------ the package


def test_widgets_package_imports_without_ipywidgets_or_matplotlib():
    code = (
        "import sys\n"
        "sys.modules['ipywidgets'] = None\n"
        "sys.modules['matplotlib'] = None\n"
        "import toolkit, toolkit.widgets as w\n"
        "from toolkit.widgets import passk_state, recall_state, scoring_state, gate_run, grade, transcript\n"
        "s = passk_state(trials=4)\n"
        "assert 0 <= s.pass_hat_at(4) <= 1\n"
        "assert recall_state().recall_at(5) == 1.0\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_core_toolkit_does_not_import_widget_libraries():
    code = "import sys, toolkit; print(sorted(m for m in ('ipywidgets', 'matplotlib', 'numpy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def _figure_checks(view):
    """Every plotted axes has a title, axis labels and a legend; lines are thick enough."""
    axes = [ax for ax in view.figure.fig.axes if ax.get_visible()]
    assert axes
    assert any(ax.get_title(loc="left") for ax in axes)
    for ax in axes:
        assert ax.get_xlabel() or ax.get_ylabel() or ax.get_yticklabels()
        for line in ax.get_lines():  # every data series (a line with a legend entry)
            if not line.get_label().startswith("_"):
                assert line.get_linewidth() >= 2, line.get_label()
    assert any(ax.get_legend() is not None for ax in axes)
    assert view.image.value[:8] == b"\x89PNG\r\n\x1a\n"


def test_views_display_themselves_with_a_short_plain_text_fallback():
    view = passk.passk_explorer(trials=4)
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert "live view" in bundle["text/plain"]


# ------------------------------------------------------------------------------ static pictures
# A saved live view must not be blank where widgets cannot be drawn (GitHub, nbconvert, a
# JupyterLab that does not trust the notebook yet): its display carries a picture of the view.

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
DATA_PNG = re.compile(r"<img [^>]*src=['\"]data:image/png;base64,([A-Za-z0-9+/=]+)['\"]")


def _every_view():
    """One of each live view, built as a notebook builds it, with a line its picture must show."""
    from toolkit.lessons.toolformer import filter_run
    from toolkit.widgets.toolformer import toolformer_explorer

    views = [
        passk.passk_explorer(),
        recall.recall_explorer(),
        scoring.scoring_panel(),
        gp.gate_playground(),
        T.widgets.quiz(),
        toolformer_explorer(filter_run().candidates),
    ]
    first_question = load_quiz()[0]["question"]
    must_show = [
        passk.summary_line(views[0].state),
        recall.summary_line(views[1].state),
        "Accuracy by category",
        views[3].state.verdict,
        first_question,
        "Only just kept",
    ]
    return list(zip(views, must_show))


@pytest.fixture(scope="module")
def every_view():
    return _every_view()


def _png_size(data: bytes) -> tuple:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_every_view_displays_a_static_picture_beside_the_widget(every_view):
    """Renderers without live widgets pick text/html or image/png from the same bundle: the
    view's first picture, its text and its control settings, never a bare placeholder."""
    from html import escape

    for view, must_show in every_view:
        bundle = view._repr_mimebundle_()
        assert WIDGET_VIEW in bundle and "live view" in bundle["text/plain"], view.name
        page = bundle["text/html"]
        assert escape(must_show, quote=True) in page or must_show in page, view.name
        assert "<script" not in page and "<style" not in page, view.name
        images = DATA_PNG.findall(page)
        if hasattr(view, "image"):
            png = base64.b64decode(bundle["image/png"])
            assert images == [bundle["image/png"]], view.name
            assert _png_size(png) == _png_size(view.image.value), view.name
        else:
            assert images == [] and "image/png" not in bundle, view.name


def test_the_static_picture_shows_each_controls_setting():
    view = passk.passk_explorer(p_skip_check=0.35, trials=12, seed=4, policy_in_tool=True)
    page = view._repr_mimebundle_()["text/html"]
    for text in ("p_skip_check", "0.35", "trials per task", "12", "seed", "☑", "policy in the tool", SOURCE_MOCK_HTML):
        assert text in page, text
    quiz_page = T.widgets.quiz()._repr_mimebundle_()["text/html"]
    question = load_quiz()[0]
    assert all(escape_html(option) in quiz_page for option in question["options"])
    assert "○" in quiz_page and "●" not in quiz_page  # nothing chosen yet
    assert "Check answers" in quiz_page


def test_the_static_picture_is_the_same_every_time_and_smaller_than_the_live_one(every_view):
    """nbval and git see the same bytes on every rebuild; the saved copy is a 256-colour PNG."""
    again = {view.name: view._repr_mimebundle_() for view, _ in _every_view()}
    for view, _ in every_view:
        first = view._repr_mimebundle_()
        assert "text/html" in first, view.name
        for mime in ("text/html", "image/png", "text/plain"):
            assert first.get(mime) == again[view.name].get(mime), (view.name, mime)
        if "image/png" in first:
            assert len(base64.b64decode(first["image/png"])) < 0.6 * len(view.image.value), view.name


# ------------------------------------------------------------------------------ pass^k explorer


def test_passk_state_matches_the_retail_trials_and_the_formulas():
    state = passk.passk_state(0.3, 0.05, 12, seed=2)
    expected = T.run_retail_trials(12, 0.3, 0.05, 2, T.RETAIL_TASKS_EXTENDED)
    assert state.successes == expected
    assert state.ks == list(range(1, 13))
    assert state.pass_hat == [T.pass_hat_k(expected, 12, k) for k in state.ks]
    assert state.pass_at == [T.pass_at_k(expected, 12, k) for k in state.ks]
    assert state.rule == [0.9**k for k in state.ks]
    assert [sum(r) for r in state.outcomes] == expected and len(state.task_ids) >= 5


def test_passk_state_rejects_bad_values_with_a_sentence():
    for kwargs in (
        {"p_skip_check": 1.5},
        {"p_typo": -0.1},
        {"trials": 0},
        {"trials": 33},
        {"seed": 1.5},
        {"source": "the moon"},
    ):
        with pytest.raises(InputError):
            passk.passk_state(**kwargs)


def test_raising_p_skip_check_lowers_pass_hat_4():
    view = passk.passk_explorer(p_skip_check=0.0, p_typo=0.0, trials=8, seed=0)
    assert view.state.pass_hat_at(4) == 1.0
    before_png = view.image.value
    view.p_skip_check.value = 0.6
    assert view.message == ""
    assert view.state.pass_hat_at(4) < 1.0
    assert view.image.value != before_png
    lower = view.state.pass_hat_at(4)
    view.p_skip_check.value = 0.9
    assert view.state.pass_hat_at(4) <= lower


def test_moving_the_policy_into_the_tool_raises_pass_hat_k():
    view = passk.passk_explorer(p_skip_check=0.5, p_typo=0.0, trials=16, seed=1)
    in_prompt = view.state.pass_hat_at(4)
    view.policy_in_tool.value = True
    assert view.state.pass_hat_at(4) > in_prompt
    assert "policy in the tool" in view.summary.value


def test_trials_and_seed_controls_redraw_and_the_same_controls_give_the_same_picture():
    view = passk.passk_explorer(trials=8, seed=0)
    first_png, first = view.image.value, view.state.successes
    view.trials.value = 32
    assert view.state.n == 32 and view.state.ks[-1] == 32
    view.seed.value = 7
    view.seed.value = 0
    view.trials.value = 8
    assert view.state.successes == first
    assert view.image.value == first_png
    assert view.table.value.count("<tr>") == 1 + len(view.state.task_ids)
    assert view.table.value.count("✓") == sum(view.state.successes)


def test_the_tau_bench_source_shows_the_published_counts_and_locks_the_mock_controls():
    view = passk.passk_explorer()
    view.source.value = passk.SOURCE_TAU
    data = T.load_taubench()
    assert view.state.successes == data["successes"] and view.state.n == 4
    assert round(view.state.pass_hat_at(4), 3) == pytest.approx(data["leaderboard_row"]["pass^4"], abs=0.0015)
    assert view.p_skip_check.disabled and view.trials.disabled
    view.source.value = passk.SOURCE_MOCK
    assert not view.p_skip_check.disabled and view.state.n == view.trials.value


def test_passk_figure_is_labelled():
    view = passk.passk_explorer()
    _figure_checks(view)
    labels = [t.get_text() for t in view.ax.get_legend().get_texts()]
    assert any("pass^k" in s for s in labels) and any("0.9^k" in s for s in labels)
    dashed = [ln for ln in view.ax.get_lines() if ln.get_linestyle() == "--"]
    assert dashed and list(dashed[0].get_ydata()[:2]) == pytest.approx([0.9, 0.81])


# ------------------------------------------------------------------------------ recall explorer


def test_recall_state_reproduces_the_pack_demo_figures():
    state = recall.recall_state()
    assert state.recall_at(1) == 0.75 and state.recall_at(3) == 0.75 and state.recall_at(5) == 1.0
    assert state.tokens_all == T.schema_size_estimate(T.make_catalog())
    assert state.tokens_top_k < state.tokens_all / 5
    assert state.baseline == state.recall


def test_adding_a_synonym_for_look_up_raises_recall_at_1():
    view = recall.recall_explorer()
    before = view.state.recall_at(1)
    view.synonyms.value = "look up => find"
    assert view.message == ""
    assert view.state.recall_at(1) > before
    row = view.state.rows[0]
    assert row.searched.endswith("find") and row.top[0][0] == row.gold
    view.use_synonyms.value = False
    assert view.state.recall_at(1) == before


def test_a_better_description_fixes_a_miss():
    view = recall.recall_explorer()
    before = view.state.recall_at(1)
    view.descriptions.value = "music_search: Play or look up music tracks by an artist."
    assert view.message == ""
    assert view.state.recall_at(1) > before
    music = next(r for r in view.state.rows if r.gold == "music_search")
    assert music.rank == 1


def test_a_malformed_line_shows_a_message_and_keeps_the_last_good_plot():
    view = recall.recall_explorer()
    good_state, good_png = view.state, view.image.value
    view.queries.value = "Find hotel rooms in Oslo hotels_search"
    assert "=>" in view.message and "line 1" in view.message
    assert view.state is good_state and view.image.value == good_png
    view.queries.value = "Find hotel rooms in Oslo => hotel_search"
    assert "hotels_search" in view.message and "Did you mean" in view.message
    assert view.state is good_state and view.image.value == good_png
    view.descriptions.value = "nonsense_tool: whatever"
    view.queries.value = recall.default_query_text()
    assert "nonsense_tool" in view.message
    view.descriptions.value = ""
    assert view.message == "" and view.state.recall == good_state.recall


def test_k1_b_and_k_sliders_change_the_view():
    view = recall.recall_explorer()
    view.k.value = 1
    assert view.table.value.count("✗ miss") == 2  # recall@1 = 0.75 on 8 queries
    small = view.state.tokens_top_k
    view.k.value = 10
    assert view.state.tokens_top_k > small
    assert "✗ miss" not in view.table.value
    scores = [s for _, s in view.state.rows[0].top]
    view.k1.value = 0.5
    assert [s for _, s in view.state.rows[0].top] != scores
    view.b.value = 0.0
    assert view.state.settings == {"k1": 0.5, "b": 0.0, "synonyms": 0, "descriptions": 0}
    assert view.state.baseline[0] == 0.75  # the reference curve does not move with the sliders


def test_recall_parsers():
    assert recall.parse_synonyms("# comment\nlook up => find search\n") == {"look up": "find search"}
    assert expand_query("Please LOOK UP flights", {"look up": "find"}) == "Please LOOK UP flights find"
    assert expand_query("lookup flights", {"look up": "find"}) == "lookup flights"
    # "any case" holds for the table too: a phrase written with capitals still matches
    assert expand_query("please look up flights", {"Look Up": "find"}) == "please look up flights find"
    with pytest.raises(InputError):
        recall.parse_query_lines("\n\n")
    with pytest.raises(InputError):
        recall.parse_descriptions("flights search: two words in the name")
    with pytest.raises(InputError):
        recall.parse_synonyms("look up =>")


def test_recall_figure_is_labelled_and_the_edit_button_copies_a_description():
    view = recall.recall_explorer()
    _figure_checks(view)
    view.describe.value = "music_search"
    view.copy_button.click()
    assert view.descriptions.value.startswith("music_search: Find music tracks")
    assert view.message == ""


# ------------------------------------------------------------------------------ scoring panel


def test_scoring_state_equals_evaluate_calls_and_exact_match():
    state = scoring.scoring_state((0.4, 0.4, 0.4), seed=3)
    for s in state.callers:
        report = T.evaluate_calls(state.cases, s.replies)
        assert (s.overall, s.by_category, s.failures) == (report["overall"], report["by_category"], report["failures"])
        exact = [T.exact_string_match(r, g) for r, g in zip(s.replies, state.gold_texts)]
        assert s.exact == exact
        assert s.disagreements == [
            i for i, c in enumerate(state.cases) if (T.classify(c, s.replies[i]) == "pass") != exact[i]
        ]
    assert state.categories == ["simple", "multiple", "parallel", "irrelevance", "missing_parameter"]


def test_each_slider_moves_its_own_caller_and_failure_type():
    view = scoring.scoring_panel(slips=(0.0, 0.0, 0.0))
    assert [s.overall for s in view.state.callers] == [1.0, 1.0, 1.0]
    assert "No failures" in view.failures.value
    png = view.image.value
    view.invents.value = 0.6
    inventor, dropper, eager = view.state.callers
    assert inventor.overall < 1.0 and inventor.failures.get("hallucinated_function")
    assert dropper.overall == eager.overall == 1.0
    assert view.image.value != png
    view.eager.value = 1.0
    eager = view.state.callers[2]
    assert eager.by_category["irrelevance"] == 0.0 and eager.by_category["missing_parameter"] == 0.0
    assert "should_abstain" in view.failures.value
    view.drops.value = 1.0
    assert view.state.callers[1].failures.get("wrong_arguments")


def test_exact_match_disagreement_is_reported():
    view = scoring.scoring_panel(slips=(0.0, 0.0, 0.0))
    dropper = view.state.caller("drops values")
    assert dropper.disagreements, "leaving optional values out must trip exact match"
    assert f"{len(dropper.disagreements)} of {len(view.state.cases)}" in view.agreement.value
    assert "Examples of disagreement" in view.agreement.value


def test_case_set_switch_changes_the_categories_and_the_seed_is_honoured():
    view = scoring.scoring_panel()
    view.case_set.value = "the pack's 7"
    assert len(view.state.cases) == 7 and "missing_parameter" not in view.state.categories
    view.case_set.value = "all 39 cases"
    first = [s.replies for s in view.state.callers]
    view.seed.value = 11
    assert [s.replies for s in view.state.callers] != first
    view.seed.value = 0
    assert [s.replies for s in view.state.callers] == first
    _figure_checks(view)


def test_scoring_state_rejects_bad_values():
    for args in (((0.1, 0.2),), ((0.1, 0.2, 2.0),), ((0.1, 0.2, 0.3), 1.5), ((0.1, 0.2, 0.3), 0, "most")):
        with pytest.raises(InputError):
            scoring.scoring_state(*args)


# ------------------------------------------------------------------------------ gate playground


def test_gate_run_follows_the_gate_rules_for_the_email_injection():
    assert not gp.gate_run().attack_succeeded  # defended: taint blocks send_email
    assert gp.gate_run(use_gate=False).attack_succeeded
    assert gp.gate_run(taint=False).attack_succeeded
    assert gp.gate_run(confirm="person says yes").attack_succeeded
    said_no = gp.gate_run(confirm="person says no")
    assert not said_no.attack_succeeded and said_no.log[-1][0] == "deny"
    not_allowed = gp.gate_run(allowed=["fetch_page"])
    assert not not_allowed.attack_succeeded and "allowlist" in not_allowed.log[-1][2]


def test_the_exfiltration_case_passes_the_gate():
    state = gp.gate_run(gp.URL)
    assert state.attack_succeeded and state.sent
    assert all(decision == "allow" for decision, _, _ in state.log)
    assert state.gate.tainted  # the run is tainted, yet nothing it did changed state
    blocked = gp.gate_run(gp.URL, allowed=["fetch_url"])
    assert not blocked.attack_succeeded


def test_gate_playground_toggles_rerun_the_attack():
    view = gp.gate_playground()
    assert not view.state.attack_succeeded and "attack failed" in view.verdict.value
    view.taint.value = False
    assert view.state.attack_succeeded and "evil@attacker.test" in view.report.value
    view.taint.value = True
    view.use_gate.value = False
    assert view.state.attack_succeeded and view.pre_approve.disabled
    view.use_gate.value = True
    view.scenario.value = gp.URL
    assert view.allowed.value == ("fetch_url", "get_customers")
    assert view.state.attack_succeeded and "collect.attacker.test" in view.report.value
    assert view.pre_approve.disabled
    view.allowed.value = ("fetch_url",)
    assert not view.state.attack_succeeded
    assert "blocked by the gate" in view.conversation.value
    assert view.message == ""


def test_gate_run_rejects_unknown_choices():
    with pytest.raises(InputError):
        gp.gate_run("a third attack")
    with pytest.raises(InputError):
        gp.gate_run(allowed=["fetch_url"])
    with pytest.raises(InputError):
        gp.gate_run(confirm="maybe")


# ------------------------------------------------------------------------------ transcript, wire


def test_transcript_marks_errors_blocks_repairs_and_retries(badge_run):
    result = badge_run
    view = transcript(result, title="A run")
    text = view.text
    assert "repaired: renamed parameter 'citty' to 'city'" in text
    assert "retried 1×" in text and "unknown tool" in text
    html = view._repr_html_()
    assert "A run" in html and "get_weather(citty=&#x27;Paris&#x27;)" not in html  # escaped quotes
    assert "get_weather(citty='Paris')" in html and OKABE_ITO["vermillion"] in html
    defended, _, _ = T.injection_demo(True)
    assert "blocked by the gate" in transcript_text(defended)
    with pytest.raises(TypeError):
        transcript("not a result")


def test_transcript_of_a_step_limited_run_says_why_it_stopped():
    loop = T.ScriptedModel([{"tool_calls": [T.call(f"c{i}", "echo", text="hi")]} for i in range(5)])
    reg = T.ToolRegistry()

    def echo(text: str) -> str:
        """Echo."""
        return text

    reg.add(echo)
    result = T.run_agent(loop, reg, "loop", max_steps=2)
    assert "stopped: max_steps" in transcript_text(result)
    assert "reached max_steps=2" in transcript(result).html


def test_wire_view_shows_arrows_and_marks_errors():
    from toolkit.lessons.toy_tools import make_server_registry

    transport = T.InMemoryTransport(T.MCPServer(make_server_registry()))
    client = T.MCPClient(transport)
    client.initialize()
    client.call_tool("add", {"a": 2, "b": 3})
    with pytest.raises(T.MCPError):
        client.call_tool("subtract", {"a": 1})
    view = wire(transport)  # a transport or its log
    text = view.text
    assert text.splitlines()[0].startswith("-> request initialize (id 1)")
    assert "notification notifications/initialized" in text
    assert "<- error -32602" in text
    html = view._repr_html_()
    assert html.count("client ──▶ server") == 4 and html.count("client ◀── server") == 3
    assert json.dumps({"a": 2, "b": 3}, indent=2).splitlines()[1].strip() in html
    with pytest.raises(ValueError):
        wire_html([("->",)])


def test_two_wire_logs_side_by_side_keep_each_column_to_its_own_log():
    from toolkit.widgets.transcript_view import wire_side_by_side

    old = [("->", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add"}})]
    new = [("->", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": {"v": "2026-07-28"}}})]
    new.append(("<-", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete"}}))
    pair = wire_side_by_side(old, new, titles=("2025-06-18", "2026-07-28"))
    html = pair._repr_html_()
    assert "grid-template-columns:repeat(2,minmax(0,1fr))" in html  # two columns that cannot overflow
    first, second = html.split("<div style='min-width:0'>")[1:]  # the two columns, in order
    assert "2025-06-18" in first and "resultType" not in first and '"name": "add"' in first
    assert "2026-07-28" in second and "resultType" in second
    assert pair.text.startswith("== 2025-06-18 ==\n-> request tools/call (id 2)")
    assert "== 2026-07-28 ==\n-> request tools/call (id 1)" in pair.text and "<- result for id 1" in pair.text
    with pytest.raises(ValueError):
        wire_side_by_side(old, [("<-",)])


# ------------------------------------------------------------------------------ quiz


def test_quiz_data_has_ten_questions_with_valid_answers_and_explanations():
    questions = load_quiz()
    assert len(questions) == 10
    assert len({q["topic"] for q in questions}) == 10
    for q in questions:
        assert 0 <= q["answer"] < len(q["options"]) == 4
        assert q["explanation"] and len(set(q["options"])) == 4
    assert len({q["answer"] for q in questions}) > 1  # the right option is not always in one place


def test_grade_counts_right_wrong_and_blank():
    questions = load_quiz()
    right = [q["answer"] for q in questions]
    assert grade(questions, right).score == 10
    answers = [None] * 10
    answers[0] = right[0]
    answers[1] = (right[1] + 1) % 4
    result = grade(questions, answers)
    assert (result.score, result.answered) == (1, 2)
    assert result.verdicts[:3] == [True, False, None]
    with pytest.raises(ValueError):
        grade(questions, [0])


def test_quiz_widget_checks_answers_and_explains():
    from toolkit.widgets import quiz

    view = quiz()
    assert "0 of 10 answered" in view.score.value
    questions = view.questions
    view.choices[0].value = questions[0]["answer"]
    view.choices[1].value = (questions[1]["answer"] + 1) % 4
    assert "2 of 10 answered" in view.score.value and view.feedback[0].value == ""
    view.check.click()
    assert "Score: 1 of 10" in view.score.value
    assert "Right" in view.feedback[0].value and "Not quite" in view.feedback[1].value
    assert "Not answered" in view.feedback[2].value
    view.choices[1].value = questions[1]["answer"]  # changing an answer hides the old marks
    assert view.feedback[1].value == "" and "3 of 10" not in view.score.value
    assert view.check_answers().score == 2


def test_no_public_name_is_shadowed_by_a_submodule():
    """`from toolkit.widgets import quiz` must give the function even after the module holding
    it was imported (Python sets a package attribute for each imported submodule)."""
    import pkgutil

    import toolkit.widgets as w

    modules = {m.name for m in pkgutil.iter_modules(w.__path__)}
    assert not modules & set(w._LAZY)
    for name in w._LAZY:
        if name == "toolformer_explorer" and "toolformer" not in modules:
            continue
        assert getattr(w, name) is not None
    import toolkit.widgets.quiz_view  # noqa: F401
    from toolkit.widgets import quiz

    assert callable(quiz) and not hasattr(quiz, "__path__")


def test_an_unexpected_failure_becomes_a_sentence_and_the_view_stays():
    view = scoring.scoring_panel()
    good_state, good_png = view.state, view.image.value

    def broken():
        raise ZeroDivisionError("division by zero")

    view.compute = broken
    view.seed.value = 5
    assert view.message.startswith("Could not update the view (ZeroDivisionError")
    assert "last good view is kept" in view.message and "⚠" in view.message_box.value
    assert view.state is good_state and view.image.value == good_png
    del view.compute  # back to the class's method
    view.seed.value = 6
    assert view.message == "" and view.message_box.value == "" and view.state is not good_state
