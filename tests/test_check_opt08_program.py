"""The optional your-turn check of notebook 08 §8 (toolkit/checks/opt08_program.py)."""

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

from toolkit.checks import opt08_program


def test_solution_passes(nb08_solution):
    assert opt08_program.check(nb08_solution["least_spender_program"]).ok


def test_starter_is_not_done(nb08_starter, capsys):
    assert_not_done(opt08_program.check(nb08_starter["least_spender_program"]), capsys)


LOOP = """least = []
for person in list_team():
    total = 0
    for line in get_expenses(person=person):
        total = total + line["amount"]
    if least == []:
        least = [person, total]
    if total {op} least[1]:
        least = [person, total]
"""
PAY = "reimburse(person=least[0], amount={amount})\n"

HARD_CODED = "result = ['p00', 600]\nreimburse(person='p00', amount=50)\n"  # the notebook's team, by hand


@pytest.mark.parametrize(
    "source, fragment",
    [
        (LOOP.format(op="<") + "result = least\n", "never asked to reimburse"),  # skips the payment
        (LOOP.format(op="<") + PAY.format(amount=50) + "result = least\n", "result was never set"),  # pays first
        (LOOP.format(op=">") + "result = least\n" + PAY.format(amount=50), "but the least spender is"),  # the most
        (LOOP.format(op="<") + "result = least\n" + PAY.format(amount=5000), "the bonus is 50"),
        (LOOP.format(op="<") + "result = least[0]\n" + PAY.format(amount=50), "set it to [person, total]"),
        (HARD_CODED, "but the least spender is"),
        (LOOP.format(op="<") + "result = least\n" + PAY.format(amount=50) * 2, "paid 2 times"),
        ("import os\nresult = os.listdir('.')", "never asked to reimburse"),
    ],
)
def test_wrong_programs_fail(source, fragment):
    assert_fails_with_sentence(opt08_program.check(lambda: source), fragment)


def test_a_non_string_fails_with_a_sentence():
    assert_fails_with_sentence(opt08_program.check(lambda: ["result = 1"]), "return the program's source as a string")


def test_never_raises():
    assert_fails_with_sentence(opt08_program.check(boom), "KeyError")
