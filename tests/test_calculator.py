"""The calculator tool and the pattern-matching mock of notebook 01 (pack §2.1)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as T
from toolkit.lessons.calculator import (
    CalculatorCallingModel,
    PatternMatchingModel,
    accuracy_by_digits,
    calculate,
    format_accuracy_table,
    format_number,
    make_calculator_registry,
    make_problems,
    parse_question,
    question,
)

# -- the calculator ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("2 + 3 * 4", "14"),
        ("(2 + 3) * 4", "20"),
        ("7 / 2", "3.5"),
        ("8 / 2", "4"),
        ("10 // 3", "3"),
        ("-7 % 3", "2"),
        ("2 ** 10", "1024"),
        ("-3 * -2", "6"),
        ("12 × 3", "36"),
        ("12 ÷ 4", "3"),
        ("12,345 * 2", "24690"),
        ("1 / 3", "0.3333333333"),
        ("123456789 * 987654321", "121932631112635269"),
    ],
)
def test_calculator_is_exact(expression, expected):
    assert calculate(expression) == expected


@pytest.mark.parametrize(
    "expression, words",
    [
        ("12 / 0", "divides by zero"),
        ("5 % 0", "divides by zero"),
        ("2 +* 3", "Cannot read"),
        ("", "empty"),
        ("__import__('os').system('true')", "only does arithmetic"),
        ("x + 1", "'x'"),
        ("True + 1", "'True'"),
        ("[1, 2]", "only does arithmetic"),
        ("2 ** 5000", "too large"),
        ("(10 ** 900) ** 900", "too large"),
        ("(-8) ** 0.5", "not a real number"),
        ("2.5 ** 999", "overflows"),
        ("1e308 * 10", "not a finite number"),
        ("1" * 600, "limit"),
    ],
)
def test_calculator_errors_teach(expression, words):
    with pytest.raises(T.ToolError) as info:
        calculate(expression)
    message = str(info.value)
    assert words in message
    assert message.endswith(".")


def test_calculator_rejects_non_text():
    with pytest.raises(T.ToolError, match="must be text"):
        calculate(12)


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**12), 10**12), st.integers(-(10**12), 10**12))
def test_calculator_agrees_with_python_on_integers(a, b):
    assert calculate(f"{a} * ({b})") == str(a * b)
    assert calculate(f"{a} + ({b})") == str(a + b)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_calculator_never_raises_anything_but_tool_error(text):
    try:
        calculate(text)
    except T.ToolError:
        pass


def test_format_number():
    assert format_number(84) == "84"
    assert format_number(84.0) == "84"
    assert format_number(2 / 3) == "0.6666666667"
    with pytest.raises(T.ToolError):
        format_number(True)


def test_calculator_registry_reports_errors_as_results():
    reg = make_calculator_registry()
    assert reg.names() == ["calculator"]
    ok = reg.run("calculator", {"expression": "6 * 7"})
    assert (ok.ok, ok.kind, ok.content) == (True, "ok", "42")
    bad = reg.run("calculator", {"expression": "6 / 0"})
    assert (bad.ok, bad.kind) == (False, "tool_error")
    missing = reg.run("calculator", {})
    assert missing.kind == "invalid_args" and "expression" in missing.content


# -- problems and questions ----------------------------------------------------------------


def test_problems_have_the_right_size_and_are_seeded():
    for digits in (1, 2, 3, 6):
        problems = make_problems(digits, 50, seed=3)
        assert len(problems) == 50
        assert all(len(str(a)) == digits and len(str(b)) == digits for a, b in problems)
    assert make_problems(3, 20, seed=3) == make_problems(3, 20, seed=3)
    assert make_problems(3, 20, seed=3) != make_problems(3, 20, seed=4)


@pytest.mark.parametrize("bad", [0, 13, 2.0, True, "3"])
def test_problems_reject_bad_sizes(bad):
    with pytest.raises(ValueError, match="digits"):
        make_problems(bad, 5)


def test_question_round_trip():
    assert parse_question(question(123, 456)) == (123, 456)
    assert parse_question("what is 12 x 3") == (12, 3)
    with pytest.raises(ValueError, match="no multiplication"):
        parse_question("what is the weather?")


# -- the mocks ------------------------------------------------------------------------------


def test_pattern_matcher_knows_the_times_table_and_what_it_saw():
    mock = PatternMatchingModel(seed=0, examples_per_size=500)
    assert all(mock.multiply(a, b) == a * b for a in range(1, 10) for b in range(1, 10))
    assert mock.coverage(1) == 1.0
    remembered = [(a, b) for a in range(10, 100) for b in range(10, 100) if mock.seen(a, b)]
    assert remembered and all(mock.multiply(a, b) == a * b for a, b in remembered)
    assert mock.coverage(2) == pytest.approx(len(remembered) / 8100)


def test_pattern_matcher_is_plausible_but_wrong_on_long_numbers():
    mock = PatternMatchingModel(seed=0)
    problems = make_problems(5, 100, seed=11)
    answers = [mock.multiply(a, b) for a, b in problems]
    wrong = [(p, x) for p, x in zip(problems, answers) if x != p[0] * p[1]]
    assert len(wrong) >= 95
    for (a, b), x in wrong:
        assert x % 10 == (a % 10) * (b % 10) % 10  # the last digit is always right
        assert abs(x - a * b) / (a * b) < 0.1  # and the size is close


def test_pattern_matcher_depends_on_its_seed_and_handles_edges():
    a, b = PatternMatchingModel(seed=0), PatternMatchingModel(seed=1)
    problems = make_problems(4, 30, seed=2)
    assert [a.multiply(*p) for p in problems] != [b.multiply(*p) for p in problems]
    assert a.multiply(0, 123) == 0
    assert a.multiply(-3, 4) == -12
    assert a.multiply(12, 3456) % 10 == 2  # a shape it never saw: still a plausible guess


def test_the_mocks_through_the_loop():
    reg = make_calculator_registry()
    plain = T.run_agent(PatternMatchingModel(seed=0), reg, question(7, 8), call_timeout=None)
    assert (plain.final, plain.calls) == ("56", 0)
    tool = T.run_agent(CalculatorCallingModel(), reg, question(48213, 7364), call_timeout=None)
    assert tool.final == str(48213 * 7364) and tool.calls == 1
    assert [m["role"] for m in tool.messages] == ["user", "assistant", "tool", "assistant"]
    confused = T.run_agent(CalculatorCallingModel(), reg, "hello", call_timeout=None)
    assert "only answer" in confused.final


def test_accuracy_falls_with_digits_without_the_tool_and_not_with_it():
    without = accuracy_by_digits(PatternMatchingModel(seed=0), digits=(1, 2, 3, 4), n=60)
    with_tool = accuracy_by_digits(CalculatorCallingModel(), digits=(1, 2, 3, 4), n=60)
    acc = [r.accuracy for r in without]
    assert acc[0] == 1.0 and acc == sorted(acc, reverse=True) and acc[-1] < 0.1
    assert all(r.accuracy == 1.0 and r.tool_calls == r.n for r in with_tool)
    assert all(r.tool_calls == 0 for r in without)
    again = accuracy_by_digits(PatternMatchingModel(seed=0), digits=(1, 2, 3, 4), n=60)
    assert [r.correct for r in again] == [r.correct for r in without]


def test_accuracy_table_lines_up_and_checks_its_input():
    rows = {"a (mock)": accuracy_by_digits(CalculatorCallingModel(), digits=(1, 2), n=5)}
    text = format_accuracy_table(rows)
    assert text.splitlines()[0].startswith("digits | a (mock)")
    assert "5/5 = 100%, 5 calls" in text
    with pytest.raises(ValueError):
        format_accuracy_table({})
    other = {"b": accuracy_by_digits(CalculatorCallingModel(), digits=(1,), n=5)}
    with pytest.raises(ValueError, match="different digit counts"):
        format_accuracy_table({**rows, **other})


# -- what notebook 01 says about the mock's wrong answers ----------------------------------

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent

# a property the notebook may claim of the wrong answers, and how to check it on one of them
CLAIMS = {
    r"right number of digits|same number of digits|right length": lambda g, t: len(str(g)) == len(str(t)),
    r"right last digit|ends? in the right digit": lambda g, t: g % 10 == t % 10,
    r"right first digits?|right leading digits?": lambda g, t: str(g)[0] == str(t)[0],
}


def _printed_examples_and_the_text_after():
    import json
    import re

    cells = json.loads((ROOT / "notebooks" / "01_why_tools.ipynb").read_text(encoding="utf-8"))["cells"]
    line = re.compile(r"=\s+([\d,]+)\s+mock says\s+([\d,]+)")
    for i, cell in enumerate(cells):
        printed = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))
        found = [(int(t.replace(",", "")), int(g.replace(",", ""))) for t, g in line.findall(printed)]
        if found:
            after = next(c for c in cells[i + 1 :] if c["cell_type"] == "markdown")
            return found, "".join(after["source"])
    raise AssertionError("notebook 01 prints no 'mock says' examples")


def test_notebook_01_claims_only_what_its_printed_wrong_answers_show():
    import re

    examples, text = _printed_examples_and_the_text_after()
    wrong = [(truth, guess) for truth, guess in examples if guess != truth]
    assert len(wrong) >= 3
    text = " ".join(text.split())
    for phrase, holds in CLAIMS.items():
        if re.search(phrase, text, re.I):
            broken = [f"{g:,} for {t:,}" for t, g in wrong if not holds(g, t)]
            assert not broken, f"notebook 01 claims '{phrase}' of the wrong answers: {broken}"


def test_wrong_answers_keep_the_last_digit_and_length_but_not_always_the_lead():
    """What notebook 01 tells students to notice, over the problems it asks (seed 1)."""
    mock = PatternMatchingModel(seed=0)
    wrong = [
        (a * b, mock.multiply(a, b))
        for d in (2, 3, 4, 5)
        for a, b in make_problems(d, 100)
        if mock.multiply(a, b) != a * b
    ]
    assert len(wrong) > 300
    assert all(g % 10 == t % 10 for t, g in wrong)
    same_length = sum(len(str(g)) == len(str(t)) for t, g in wrong)
    assert same_length >= 0.98 * len(wrong)
    assert any(str(g)[0] != str(t)[0] for t, g in wrong)  # the lead digit can be wrong
    assert max(abs(g - t) / t for t, g in wrong) < 0.15


def test_the_accuracy_plot_keeps_its_legend_off_the_bars():
    """Notebook 01's chart: the legend must not sit on a bar, even when every bar is full."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from scripts.figures.layout import collisions
    from toolkit.lessons.calculator import DigitRow
    from toolkit.widgets.accuracy import plot_accuracy

    def rows(correct):
        return [DigitRow(d, 100, c, 0, 0.0) for d, c in zip((1, 2, 3, 4, 5), correct)]

    shown = {
        "pattern-matching (mock)": rows([100, 55, 3, 0, 0]),  # notebook 01's numbers
        "calls the calculator (mock)": rows([100] * 5),
    }
    fig = plot_accuracy(shown, "Exact answers by problem size (two mocks, 100 problems each)")
    assert collisions(fig) == []
    plt.close(fig)
