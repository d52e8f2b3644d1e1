"""The optional your-turn check of notebook 07 §7 (toolkit/checks/opt07_skill_files.py)."""

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom, cell_namespace

from toolkit.checks import opt07_skill_files


@pytest.fixture(scope="module")
def nb07():
    return cell_namespace("07_designing_tools", "solution"), cell_namespace("07_designing_tools", "starter")


def test_solution_passes(nb07):
    assert opt07_skill_files.check(nb07[0]["skill_md"]).ok


def test_starter_is_not_done(nb07, capsys):
    assert_not_done(opt07_skill_files.check(nb07[1]["skill_md"]), capsys)


BODY = "1. Call list_expenses for the month.\n2. Add up each category.\n3. Ask the user, then call submit_report.\n"


def skill(name="expense-report", description="File the month's expense report when the user asks to.", body=BODY):
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


@pytest.mark.parametrize(
    "text, fragment",
    [
        (BODY, "must start with a line '---'"),  # no front matter
        ("---\nname: expense-report\n" + BODY, "never closed"),
        (skill(name="Expense-Report"), "breaks the format"),
        (skill(name="expense--report"), "breaks the format"),
        (skill(name="-expense-report"), "breaks the format"),
        (skill(name="expense_report"), "breaks the format"),
        (skill(name="expenses"), "must be the folder's name"),
        (skill(name="e" * 70), "the format allows 64"),
        (skill(description="Expenses."), "at least a few words"),
        (skill(description=BODY.replace("\n", " ") * 3), "move the detail into the instructions"),
        (skill(body=""), "no instructions"),
        (skill(body="Add up the expenses and file them."), "never name list_expenses"),
        (skill(body="list_expenses, submit_report"), "shorter than the description"),
        ("---\n- name\n- description\n---\n" + BODY, "key: value"),
    ],
)
def test_wrong_files_fail(text, fragment):
    assert_fails_with_sentence(opt07_skill_files.check(lambda: text), fragment)


def test_a_non_string_fails_with_a_sentence():
    assert_fails_with_sentence(opt07_skill_files.check(lambda: {"name": "expense-report"}), "return the file's text")


def test_never_raises():
    assert_fails_with_sentence(opt07_skill_files.check(boom), "KeyError")
