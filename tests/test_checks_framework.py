"""The exercise-check framework itself (toolkit/checks/__init__.py).

A check is the course's promise of feedback, so it must never hang, must pass an item only
on a real yes, must keep the student's printing short, say one root cause once, name the
real cause of a failure, and notice when the student's last cell did not run.
"""

import signal
import sys
import threading
import time

import pytest
from exercise_helpers import cell_namespace, failed_lines, run_check_cell

import toolkit.checks as checks
from toolkit.checks import Checker, StudentTimeout, ex02, ex10

needs_alarm = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no SIGALRM on this system")


def named(name: str, body: str):
    """A student function called ``name`` whose body is ``body`` (defined as a notebook cell would)."""
    ns = {"time": time, "threading": threading}
    exec(f"def {name}(*args, **kwargs):\n    {body}\n", ns)
    return ns[name]


@pytest.fixture
def short_limit(monkeypatch):
    monkeypatch.setattr(checks, "STUDENT_TIME_LIMIT", 1.0)


def _alarm_state():
    return signal.getsignal(signal.SIGALRM), signal.getitimer(signal.ITIMER_REAL)


# ----------------------------------------------------------------------- point 1: time limits


@needs_alarm
@pytest.mark.parametrize("body", ["while True: pass", "time.sleep(100)", "threading.Event().wait()"])
def test_a_call_that_never_returns_is_stopped_with_one_sentence(body):
    before = _alarm_state()
    c = Checker("t", time_limit=0.5)
    start = time.monotonic()
    with pytest.raises(StudentTimeout) as info:
        c.call(named("plan_trip", body), {"city": "Oslo"})
    assert time.monotonic() - start < 3
    message = str(info.value)
    assert message.startswith("`plan_trip` did not return within 0.5 s")
    assert "loop" in message and "sleep" in message and "input()" in message
    assert _alarm_state() == before  # handler and timer put back


@needs_alarm
def test_a_bare_except_in_student_code_cannot_swallow_the_stop():
    c = Checker("t", time_limit=0.3)
    stubborn = named(
        "stubborn",
        "\n    ".join(["while True:", "    try:", "        while True: pass", "    except:", "        pass"]),
    )
    start = time.monotonic()
    with pytest.raises(StudentTimeout):
        c.call(stubborn)
    assert time.monotonic() - start < 3


@needs_alarm
def test_a_function_that_hung_is_not_called_again_and_the_sentence_is_shown_once():
    c = Checker("t", time_limit=0.3)
    spin = named("spin", "while True: pass")
    start = time.monotonic()
    for label in ("first", "second", "third"):
        c.run(label, lambda: c.call(spin) == 1)
    assert time.monotonic() - start < 1.5  # one wait, not three
    result = c.done()
    lines = failed_lines(result)
    assert len(lines) == 3 and "`spin` did not return" in lines[0]
    assert all("did not return" not in line and "same error as above" in line for line in lines[1:])


@needs_alarm
def test_an_outer_limit_survives_an_inner_call():
    c = Checker("t", time_limit=5)
    quick = named("quick", "return 1")

    def body():
        c.call(quick)  # an inner limit starts and ends inside the outer one
        while True:
            pass

    start = time.monotonic()
    with pytest.raises(StudentTimeout, match="outer part"):
        checks._with_limit(body, 0.5, "outer part")
    assert time.monotonic() - start < 2


@needs_alarm
def test_a_timer_set_before_the_check_is_put_back():
    fired = []
    old = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30)
        Checker("t", time_limit=0.2).call(named("f", "return 1"))
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25 < remaining <= 30
        assert signal.getsignal(signal.SIGALRM) is not checks._on_alarm
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert not fired


def test_outside_the_main_thread_calls_run_without_a_hard_stop():
    seen = {}

    def worker():
        seen["available"] = checks.hard_stop_available()
        seen["value"] = Checker("t", time_limit=0.1).call(named("slow", "time.sleep(0.3); return 7"))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(5)
    assert seen == {"available": False, "value": 7}


@needs_alarm
def test_after_a_check_on_a_looping_answer_the_next_check_in_the_same_process_works(short_limit):
    before = _alarm_state()
    looping = ex02.check(named("valid_but_wrong", "while True: pass"))
    assert not looping.ok and "`valid_but_wrong` did not return" in looping.text
    solution = cell_namespace("05_schemas_and_function_calling", "solution")
    assert ex02.check(solution["valid_but_wrong"]).ok
    assert _alarm_state() == before


EXERCISES = [  # (notebook, check module, the student functions its check cell passes)
    ("05_schemas_and_function_calling", "ex01", ["to_openai", "to_anthropic"]),
    ("05_schemas_and_function_calling", "ex02", ["valid_but_wrong"]),
    ("08_parallel_chained_retried", "ex03", ["trim_enum_value", "test_rule"]),
    ("08_parallel_chained_retried", "ex04", ["make_flaky_tool", "slow_writer_registry"]),
    ("08_parallel_chained_retried", "ex05", ["time_one_turn", "chained_model"]),
    ("06_model_context_protocol", "ex06", ["hand_typed_lines"]),
    ("06_model_context_protocol", "ex07", ["weather_output_schema", "check_structured"]),
    ("04_thousands_of_tools", "ex08", ["my_queries", "better_descriptions", "synonym_table"]),
    ("09_scoring_calls", "ex09", ["harder_cases", "lenient_pair", "stricter_equal"]),
    ("10_reliability_pass_k", "ex10", ["passk_table", "my_pass2_by_hand"]),
    ("10_reliability_pass_k", "ex11", ["enforce_cancel_policy"]),
    ("12_failures_project_review", "failure_groups", ["sort_failures"]),
]
LOOPING = [(stem, module, name) for stem, module, names in EXERCISES for name in names]

_solutions: dict = {}


def solution(stem: str) -> dict:
    if stem not in _solutions:
        _solutions[stem] = cell_namespace(stem, "solution")
    return _solutions[stem]


@needs_alarm
@pytest.mark.parametrize("stem,module,name", LOOPING, ids=[f"{m}-{n}" for _, m, n in LOOPING])
def test_every_check_returns_when_a_student_function_loops_forever(stem, module, name, short_limit):
    namespace = dict(solution(stem), **{name: named(name, "while True: pass")})
    start = time.monotonic()
    result = run_check_cell(stem, module, namespace)
    assert time.monotonic() - start < 15
    assert not result.ok, result.text
    assert f"`{name}` did not return within" in result.text, result.text
    assert sum(f"`{name}` did not return" in line for line in result.lines) == 1, result.text


# ------------------------------------------------------------------------- point 5: Checker


@pytest.mark.parametrize("value,shown", [(None, "None"), ("yes", "'yes'"), (1, "1"), ([True], "[True]")])
def test_an_item_passes_only_on_true(value, shown):
    c = Checker("t")
    assert c.run("item", lambda: value) is False
    result = c.done()
    assert not result.ok
    assert f"the check got {shown} instead of a yes/no" in failed_lines(result)[0]


def test_true_passes_and_false_fails_with_its_hint():
    c = Checker("t")
    c.run("good", lambda: True)
    c.run("bad", lambda: False, "try this")
    result = c.done()
    assert result.passed == 1 and failed_lines(result) == ["  ✗ bad: try this"]


def test_what_student_code_prints_is_capped_and_shown_once_under_the_report():
    chatty = named("chatty", "[print('line', i) for i in range(100000)]\n    return 1")
    c = Checker("t")
    c.run("first", lambda: c.call(chatty) == 1)
    c.run("second", lambda: c.call(chatty) == 1)
    result = c.done()
    text = result.text
    assert len(text) < 2000
    assert text.index("All 2 checks passed") < text.index("Your code printed")
    assert "  | line 0" in text and "  | line 4" in text and "line 5\n" not in text
    assert "… 199995 more lines printed by your code" in text


def test_nothing_printed_adds_nothing_to_the_report():
    c = Checker("t")
    c.run("quiet", lambda: c.call(named("quiet", "return 1")) == 1)
    assert c.done().lines == ["t", "  ✓ quiet", "All 1 checks passed."]


def test_one_error_is_shown_once_and_referred_to_after():
    broken = named("broken", "raise KeyError('city')")
    c = Checker("t")
    for label in ("a", "b", "c"):
        c.run(label, lambda: c.call(broken) == 1)
    lines = failed_lines(c.done())
    assert "your code raised KeyError: 'city'" in lines[0]
    assert all("KeyError" not in line and "same error as above" in line for line in lines[1:])


def test_an_exception_inside_student_code_is_named_not_called_a_shape():
    class Model:  # defined here, like a student's class in a notebook cell
        def respond(self, messages):
            return messages["no such key"]

    c = Checker("t")
    c.run("the model answers", lambda: Model().respond({}) == "hi")
    line = failed_lines(c.done())[0]
    assert "your code raised KeyError" in line and "unexpected shape" not in line


def test_the_checks_own_trouble_with_a_returned_value_is_an_unexpected_shape():
    c = Checker("t")
    answer = c.call(named("answer", "return 42"))
    c.run("it formats as a table", lambda: bool(ex10._fmt(answer)))  # the check's code trips over 42
    line = failed_lines(c.done())[0]
    assert "unexpected shape (TypeError" in line and "your code raised" not in line


def test_student_code_gets_copies_of_plain_data():
    given = {"cities": ["Oslo"]}
    c = Checker("t")
    c.call(named("greedy", "args[0]['cities'].append('Lima'); args[0].clear()"), given)
    assert given == {"cities": ["Oslo"]}
    saved = []
    c.call(named("fills", "args[0].append(1)"), saved, copy_args=False)
    assert saved == [1]


def test_objects_that_cannot_be_copied_are_passed_as_they_are():
    lock = threading.Lock()
    c = Checker("t")
    assert c.call(named("same", "return args[0]"), {"lock": lock})["lock"] is lock


# ------------------------------------------------------------- point 6: the last cell failed


def _shell():
    IPython = pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    return IPython, shell


def test_a_failed_last_cell_is_reported_before_grading(capsys):
    IPython, shell = _shell()
    try:
        shell.run_cell("def valid_but_wrong():\n    return {'city': 'Oslo', 'unit': 'celsius'}\n")
        shell.run_cell("def valid_but_wrong(:\n    return {}\n")  # the student's edit: a syntax error
        capsys.readouterr()
        shell.run_cell("from toolkit.checks import ex02\n_r = ex02.check(valid_but_wrong)")
        result = shell.user_ns["_r"]
        assert result.lines[0].startswith("Your last cell did not run (SyntaxError")
        assert "fix it and run it again before this check" in result.lines[0]
        shell.run_cell("_r = ex02.check(valid_but_wrong)")  # the cell before is now a check that ran
        assert not shell.user_ns["_r"].lines[0].startswith("Your last cell")
    finally:
        type(shell).clear_instance()


def test_outside_ipython_nothing_is_said(monkeypatch):
    monkeypatch.setitem(sys.modules, "IPython", None)  # as if IPython were not installed
    assert checks.last_cell_problem() == ""


# ------------------------------------------- point 2: student code cannot corrupt the checks

import copy  # noqa: E402
import importlib  # noqa: E402
import re  # noqa: E402

import toolkit as T  # noqa: E402


def _mutable_globals(module):
    return {
        name: value
        for name, value in vars(module).items()
        if not name.startswith("__") and isinstance(value, (list, dict, set))
    }


def _vandalise(value):
    """What a careless cell might do to a list, dict or set it can reach."""
    if isinstance(value, list):
        value.reverse()
        del value[len(value) // 2 :]
    elif isinstance(value, dict):
        for key in list(value)[::2]:
            del value[key]
    else:
        value.clear()


def _restore(value, saved):
    if isinstance(value, list):
        value[:] = saved
    else:
        value.clear()
        value.update(saved)


def _shared_course_data():
    """Course data every check might read: tasks, catalog, scoring functions."""
    import toolkit.lessons.catalog as catalog
    import toolkit.lessons.retail as retail

    return [retail.RETAIL_TASKS, catalog.CATALOG_QUERIES, catalog.CATALOG_DOMAINS, catalog.CATALOG_ACTIONS]


def _report(result, stem):
    text = result.text
    if stem.startswith("08_"):  # exercise 5 prints the student's own stopwatch readings
        text = re.sub(r"\d+\.\d+ s", "N s", text)
    return text


@pytest.mark.parametrize("stem,module", [(s, m) for s, m, _ in EXERCISES], ids=[m for _, m, _ in EXERCISES])
def test_the_reference_still_passes_after_a_student_edits_what_the_check_reuses(stem, module, capsys):
    namespace = solution(stem)
    before = run_check_cell(stem, module, namespace)
    assert before.ok, before.text
    check_module = importlib.import_module(f"toolkit.checks.{module}")
    targets = list(_mutable_globals(check_module).values()) + _shared_course_data()
    targets += [task for task in T.RETAIL_TASKS] + [T.make_catalog()]  # a task, a catalog a cell holds
    saved = [copy.deepcopy(v) for v in targets]
    try:
        for value in targets:
            _vandalise(value)
        after = run_check_cell(stem, module, namespace)
    finally:
        for value, old in zip(targets, saved):
            _restore(value, old)
    assert after.ok, after.text
    notes = [line for line in after.lines if line.startswith("  Note: ")]
    assert _report(before, stem) == "\n".join(line for line in _report(after, stem).split("\n") if line not in notes)
    if module in ("ex08", "ex10", "ex11"):  # they read shared course data: they say they put it back
        assert notes and all("put the course's own data back" in n for n in notes), after.text


def test_input_where_nobody_can_type_is_named_not_taken_for_a_stub():
    class StdinNotImplementedError(NotImplementedError):  # what IPython raises without a frontend
        pass

    def valid_but_wrong():
        raise StdinNotImplementedError("raw_input was called, but this frontend does not support input requests.")

    result = ex02.check(valid_but_wrong)
    assert result.status == "checked" and not result.ok
    assert "your code called `input()`" in failed_lines(result)[0]


def _kernel_run(kc, code, allow_stdin=False, limit=60):
    """Run ``code`` in the kernel; return (text printed, error name or None)."""
    msg_id = kc.execute(code, allow_stdin=allow_stdin)
    out, error, end = [], None, time.monotonic() + limit
    while time.monotonic() < end:
        try:
            msg = kc.get_iopub_msg(timeout=0.2)
        except Exception:  # queue.Empty: nothing yet
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            out.append(content["text"])
        elif kind == "error":
            error = content["ename"]
        elif kind == "status" and content["execution_state"] == "idle":
            return "".join(out), error
    raise AssertionError(f"the kernel did not finish {code!r} within {limit} s")


@needs_alarm
def test_in_a_real_kernel_a_loop_and_an_unanswered_input_are_stopped_and_the_kernel_goes_on():
    manager = pytest.importorskip("jupyter_client.manager")
    km, kc = manager.start_new_kernel(kernel_name="python3")
    try:
        _kernel_run(
            kc, "import toolkit.checks as checks; checks.STUDENT_TIME_LIMIT = 1\nfrom toolkit.checks import ex02"
        )
        _kernel_run(kc, "def valid_but_wrong():\n    while True:\n        pass")
        text, error = _kernel_run(kc, "ex02.check(valid_but_wrong)")
        assert error is None and "`valid_but_wrong` did not return within 1 s" in text
        _kernel_run(kc, "def valid_but_wrong():\n    return {'city': input('city? ')}")
        text, error = _kernel_run(kc, "ex02.check(valid_but_wrong)", allow_stdin=True)  # nobody answers
        assert error is None and "`valid_but_wrong` did not return within 1 s" in text
        _kernel_run(kc, "def valid_but_wrong():\n    return {'city': 'Oslo'}")
        text, error = _kernel_run(kc, "ex02.check(valid_but_wrong)")
        assert error is None and "All 3 checks passed" in text
        assert _kernel_run(kc, "print(6 * 7)") == ("42\n", None)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_a_student_thread_left_looping_by_a_check_is_stopped():
    """A tool the harness gave up on keeps running in its thread; the check stops it."""
    spin = named("spin", "while True: pass")
    c = Checker("t")

    def body():
        threading.Thread(target=spin, daemon=True, name="tool:spin").start()
        return True

    c.run("starts a tool that never returns", body)
    c.done()
    deadline = time.monotonic() + 3
    while any(t.name == "tool:spin" for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(t.name == "tool:spin" for t in threading.enumerate())
