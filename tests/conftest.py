"""Fixtures and settings shared by several test files.

The run itself (pyproject.toml, [tool.pytest.ini_options]; the Makefile's `test`): warnings are
errors except the ones named there; ``TOOLKIT_TIME_SCALE`` (below) shrinks the checks' waits, but not
the notebooks' (nbval runs them in the same session, at a class's timings);
tests marked ``kernel`` take turns (one at a time) across the pytest-xdist workers.

``badge_run``: one mock run whose transcript carries a repaired call, a retry and an unknown
tool (tests/test_widgets.py, tests/test_widgets_a11y.py).

``sdk_waits``: the back-off waits of the ``openai`` and ``anthropic`` SDKs, recorded instead of
slept (tests/test_endpoints.py, tests/test_model_eval.py: a fake's first answer is a 429).

``student_edition``: one `make student --git` edition built by the script for the whole test
session (the student-edition tests, tests/classroom/, tests/hub/), never written to by a test.

For the exercise-check tests (tests/test_check_*.py): each notebook's solution and starter
cells, read from its jupytext source (tests/exercise_helpers.py), once per test module.

For each check: the notebook's own solution passes; the notebook's own starter stub gives
"not done yet"; wrong answers fail with a sentence that says what to change; and nothing a
student writes makes a check raise. Starter and solution code are read from the notebooks'
jupytext sources, so the tests follow the cells students actually get.
"""

import os
import subprocess
import sys
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no lock, the kernel tests simply share the cores
    fcntl = None

# The exercise checks' time limits and the deliberate sleeps of exercises 4 and 5 shrink by this
# factor (toolkit/checks/__init__.py, toolkit/lessons/toy_tools.py), so the unit tests wait a
# fifth as long; it is read when toolkit is imported, hence before the imports below. Child
# kernels and subprocesses inherit it. `TOOLKIT_TIME_SCALE=1 pytest` runs at a class's timings.
os.environ.setdefault("TOOLKIT_TIME_SCALE", "0.2")

import pytest
from exercise_helpers import cell_namespace

import toolkit as T


def make_student_git(out: Path) -> subprocess.CompletedProcess:
    """`scripts/make_student.py --out OUT --git`, as `make student GIT=1` runs it."""
    root = Path(__file__).resolve().parent.parent
    script = [sys.executable, str(root / "scripts" / "make_student.py"), "--out", str(out), "--git"]
    return subprocess.run(script, capture_output=True, text=True, cwd=root, timeout=300)


class _RecordedSleep:
    """The ``time`` module as an SDK sees it, with ``sleep`` recorded instead of slept."""

    def __init__(self, waits: list) -> None:
        self.sleep = waits.append

    def __getattr__(self, name):
        import time

        return getattr(time, name)


@pytest.fixture
def sdk_waits(monkeypatch) -> list:
    """Every wait the SDKs would sleep before a retry, in order (their retry loops call
    ``time.sleep`` in ``_base_client``; a changed SDK makes this fixture fail loudly)."""
    import anthropic._base_client
    import openai._base_client

    waits: list = []
    for module in (openai._base_client, anthropic._base_client):
        monkeypatch.setattr(module, "time", _RecordedSleep(waits))
    return waits


@pytest.fixture(scope="session")
def run_make_student():
    """:func:`make_student_git`, for a test that rebuilds an edition of its own."""
    return make_student_git


@pytest.fixture(scope="session")
def student_edition(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("edition") / "student"
    done = make_student_git(out)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """A test marked ``kernel`` starts a Jupyter kernel, or runs a notebook in a child process.
    Under pytest-xdist (`make test`) such tests take one lock in turn, so however many workers
    run, one kernel test runs at a time and none fights another for the cores; each file's
    module fixtures (the built student edition) are made once because `make test` hands out
    whole files (--dist loadfile). pytest-xdist's own --dist loadgroup would do the grouping,
    but 3.8 sets a node id attribute that pytest 9 no longer reads."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if fcntl is None or run is None or item.get_closest_marker("kernel") is None:
        return (yield)
    shared = item.config._tmp_path_factory.getbasetemp().parent  # pytest-N/, above each popen-gwN/
    with open(shared / f"kernel-{run}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        return (yield)


def pytest_collection_modifyitems(items):
    """The notebooks (nbval, in the same `make test` session) run at a class's timings, unscaled:
    their stored outputs print the exercises' real sleeps. nbval starts a notebook's kernel when
    the notebook is set up, with this process's environment, so the scale is left out of that.
    (A hook of this file's collection, not of its items: those are only called for tests/.)"""

    def unscaled(setup):
        def start_kernel():
            shrunk = os.environ.pop("TOOLKIT_TIME_SCALE", None)
            try:
                return setup()
            finally:
                if shrunk is not None:
                    os.environ["TOOLKIT_TIME_SCALE"] = shrunk

        return start_kernel

    for notebook in {item.parent for item in items if item.path.suffix == ".ipynb"}:
        notebook.setup = unscaled(notebook.setup)


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
