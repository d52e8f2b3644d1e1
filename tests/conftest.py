"""Fixtures shared by several test files.

``badge_run``: one mock run whose transcript carries a repaired call, a retry and an unknown
tool (tests/test_widgets.py, tests/test_widgets_a11y.py).

For the exercise-check tests (tests/test_check_*.py): each notebook's solution and starter
cells, read from its jupytext source (tests/exercise_helpers.py), once per test module.

For each check: the notebook's own solution passes; the notebook's own starter stub gives
"not done yet"; wrong answers fail with a sentence that says what to change; and nothing a
student writes makes a check raise. Starter and solution code are read from the notebooks'
jupytext sources, so the tests follow the cells students actually get.
"""

import pytest
from exercise_helpers import cell_namespace

import toolkit as T


@pytest.fixture
def badge_run():
    from toolkit.lessons.toy_tools import make_weather_registry

    calls = [
        T.call("a", "get_weather", citty="Paris"),
        T.call("b", "flaky_rate", currency="eur"),
        T.call("c", "get_wether", city="Oslo"),
    ]
    model = T.ScriptedModel([{"tool_calls": calls}, {"content": "It is mild."}])
    return T.run_agent(model, make_weather_registry(0.01), "Weather?", sleep=lambda s: None)


@pytest.fixture(scope="module")
def nb05_solution():
    return cell_namespace("05_schemas_and_function_calling", "solution")


@pytest.fixture(scope="module")
def nb05_starter():
    return cell_namespace("05_schemas_and_function_calling", "starter")


@pytest.fixture(scope="module")
def nb06_solution():
    return cell_namespace("06_model_context_protocol", "solution")


@pytest.fixture(scope="module")
def nb06_starter():
    return cell_namespace("06_model_context_protocol", "starter")


@pytest.fixture(scope="module")
def nb04_solution():
    return cell_namespace("04_thousands_of_tools", "solution")


@pytest.fixture(scope="module")
def nb04_starter():
    return cell_namespace("04_thousands_of_tools", "starter")


@pytest.fixture(scope="module")
def nb08_solution():
    return cell_namespace("08_parallel_chained_retried", "solution")


@pytest.fixture(scope="module")
def nb08_starter():
    return cell_namespace("08_parallel_chained_retried", "starter")


@pytest.fixture(scope="module")
def nb09_solution():
    return cell_namespace("09_scoring_calls", "solution")


@pytest.fixture(scope="module")
def nb09_starter():
    return cell_namespace("09_scoring_calls", "starter")


@pytest.fixture(scope="module")
def nb10_solution():
    return cell_namespace("10_reliability_pass_k", "solution")


@pytest.fixture(scope="module")
def nb10_starter():
    return cell_namespace("10_reliability_pass_k", "starter")


@pytest.fixture(scope="module")
def nb11_solution():
    return cell_namespace("11_security", "solution")


@pytest.fixture(scope="module")
def nb11_starter():
    return cell_namespace("11_security", "starter")


@pytest.fixture(scope="module")
def nb12_solution():
    return cell_namespace("12_failures_project_review", "solution")


@pytest.fixture(scope="module")
def nb12_starter():
    return cell_namespace("12_failures_project_review", "starter")
