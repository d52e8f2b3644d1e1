"""Exercise 2's check (toolkit/checks/ex02.py, notebook 05). What every check test holds: tests/conftest.py."""

import copy

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

from toolkit.checks import ex02

# ---------------------------------------------------------------------------------- exercise 2


def test_ex02_solution_passes(nb05_solution):
    assert ex02.check(nb05_solution["valid_but_wrong"]).ok


def test_ex02_starter_is_not_done(nb05_starter, capsys):
    assert_not_done(ex02.check(nb05_starter["valid_but_wrong"]), capsys)


@pytest.mark.parametrize(
    "args, fragment",
    [
        ({"city": "Oslo", "unit": "fahrenheit"}, "is the intended call"),
        ({"city": "oslo", "unit": "fahrenheit"}, "is the intended call"),  # same city, other case
        ({"city": "Oslo", "unit": "kelvin"}, "validate_args says"),
        ({"town": "Oslo"}, "missing required parameter 'city'"),
        (["Oslo"], "returned list"),
        ({"city": "Oslo", "unit": "Fahrenheit"}, "validate_args says"),  # the enum is exact
    ],
)
def test_ex02_wrong_answers_fail(args, fragment):
    assert_fails_with_sentence(ex02.check(lambda: copy.deepcopy(args)), fragment)


def test_ex02_other_valid_wrong_calls_pass():
    assert ex02.check(lambda: {"city": "Rome", "unit": "fahrenheit"}).ok
    assert ex02.check(lambda: {"city": "Oslo", "unit": "celsius"}).ok
    assert ex02.check(lambda: {"city": "Bergen"}).ok  # right unit by default, wrong city
    assert ex02.check(lambda: {"city": "OSLO"}).ok  # any case; the default unit is the mistake


def test_ex02_never_raises():
    assert_fails_with_sentence(ex02.check(boom), "KeyError")


@pytest.mark.parametrize("city", ["Oslo, Norway", "Oslo, NO", "oslo , norge"])
def test_ex02_the_intended_city_with_its_country_is_still_the_intended_call(city):
    result = ex02.check(lambda: {"city": city, "unit": "fahrenheit"})
    assert_fails_with_sentence(result, "is the intended call", "a city named with its country is still that city")
