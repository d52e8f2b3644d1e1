"""The exercise-check framework itself (toolkit/checks/__init__.py).

A check is the course's promise of feedback, so it must never hang, must pass an item only
on a real yes, must keep the student's printing short, say one root cause once, name the
real cause of a failure, and notice when the student's last cell did not run.
"""

import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from exercise_helpers import cell_namespace, failed_lines, run_check_cell

import toolkit.checks as checks
from toolkit.checks import Checker, StudentTimeout, ex02, ex10

ROOT = Path(__file__).resolve().parents[1]
needs_alarm = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no SIGALRM on this system")


def named(name: str, body: str):
    """A student function called ``name`` whose body is ``body`` (defined as a notebook cell would)."""
    ns = {"time": time, "threading": threading}
    exec(f"def {name}(*args, **kwargs):\n    {body}\n", ns)
    return ns[name]


@pytest.fixture
def short_limit(monkeypatch):
    """A quarter of a second per call: the tests that use it loop on purpose, and what they assert
    (stopped, named once, the next check works) does not depend on the limit's length."""
    monkeypatch.setattr(checks, "STUDENT_TIME_LIMIT", 0.25)


def _alarm_state():
    return signal.getsignal(signal.SIGALRM), signal.getitimer(signal.ITIMER_REAL)


# ----------------------------------------------------------------------- point 1: time limits


@needs_alarm
@pytest.mark.parametrize("body", ["while True: pass", "time.sleep(100)", "threading.Event().wait()"])
def test_a_call_that_never_returns_is_stopped_with_one_sentence(body):
    before = _alarm_state()
    c = Checker("t", time_limit=0.5)
    with pytest.raises(StudentTimeout) as info:  # raised only by the limit: the body never returns by itself
        c.call(named("plan_trip", body), {"city": "Oslo"})
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
    with pytest.raises(StudentTimeout):
        c.call(stubborn)


@needs_alarm
def test_a_function_that_hung_is_not_called_again_and_the_sentence_is_shown_once():
    c = Checker("t", time_limit=0.3)
    calls = []
    spin = named("spin", "calls.append(1)\n    while True: pass")
    spin.__globals__["calls"] = calls
    for label in ("first", "second", "third"):
        c.run(label, lambda: c.call(spin) == 1)
    assert len(calls) == 1  # one wait, not three
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

    with pytest.raises(StudentTimeout, match="outer part"):  # the body never returns by itself
        checks._with_limit(body, 0.5, "outer part")


@needs_alarm
def test_a_timer_set_before_the_check_is_left_alone():
    fired = []

    def handler(*args):
        fired.append(1)

    old = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 30)
        with pytest.raises(StudentTimeout):
            Checker("t", time_limit=0.2).call(named("f", "while True: pass"))
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 25 < remaining <= 30
        assert signal.getsignal(signal.SIGALRM) is handler
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert not fired


def test_a_check_run_outside_the_main_thread_keeps_its_time_limit():
    seen = {}

    def worker():
        c = Checker("t", time_limit=0.2)
        try:
            c.call(
                named(
                    "slow", "while True:\n        try:\n            time.sleep(0.01)\n        except:\n            pass"
                )
            )
        except StudentTimeout as exc:
            seen["stopped"] = str(exc)
        seen["value"] = c.call(named("quick", "return 7"))

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(30)
    assert seen["stopped"].startswith("`slow` did not return within 0.2 s") and seen["value"] == 7


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
    result = run_check_cell(stem, module, namespace)
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
    chatty = named("chatty", "[print('line', i) for i in range(3000)]\n    return 1")
    c = Checker("t")
    c.run("first", lambda: c.call(chatty) == 1)
    c.run("second", lambda: c.call(chatty) == 1)
    result = c.done()
    text = result.text
    assert len(text) < 2000
    assert text.index("All 2 checks passed") < text.index("Your code printed")
    assert "  | line 0" in text and "  | line 4" in text and "line 5\n" not in text
    assert "… 5995 more lines printed by your code" in text


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


@pytest.mark.kernel
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


# ------------------------------------------- nothing hangs: loops inside what the check runs


def _nested_loopers():
    """Student answers whose loop sits inside something the check or the harness runs: a tool
    (run in a harness thread), a model's respond(), a policy rule waiting for a state that never
    comes, a gate rule. Each: (stem, module, names replaced, the function the report must name)."""
    import toolkit as T

    def make_flaky_tool(failures):
        def quote(symbol: str) -> str:
            """A quote that never comes.

            Args:
                symbol: ticker
            """
            while True:
                pass

        return quote

    def slow_writer_registry(seconds, saved):
        def save_note(text: str) -> str:
            """Save a note, forever.

            Args:
                text: the note
            """
            while True:
                time.sleep(0.01)

        registry = T.ToolRegistry()
        registry.add(save_note, read_only=False)
        return registry

    def time_one_turn(parallel, n_calls=4, delay=0.2):
        def endless(city: str) -> str:
            """Never returns.

            Args:
                city: any city
            """
            while True:
                pass

        registry = T.ToolRegistry()
        registry.add(endless)
        start = time.perf_counter()
        model = T.ScriptedModel([{"tool_calls": [T.call("a", "endless", city="Oslo")]}, {"content": "ok"}])
        T.run_agent(model, registry, "Go.", parallel=parallel)
        return time.perf_counter() - start

    class Stuck:
        def respond(self, messages, tools):
            while True:
                pass

    def chained_model():
        return Stuck()

    def enforce_cancel_policy(env):
        tool = env.registry.get("cancel_order")
        unguarded = tool.fn

        def cancel_order(order_id: str) -> dict:
            while env.db.get(order_id) != "pending":  # waits for a state that never comes
                time.sleep(0.01)
            return unguarded(order_id)

        tool.fn = cancel_order

    class WaitingGate(T.PermissionGate):
        def check(self, call, tool):
            while True:
                time.sleep(0.01)

    def make_gate():
        return WaitingGate(allow={"fetch_url", "get_customers"})

    return {
        "ex04-flaky tool": ("08_parallel_chained_retried", "ex04", {"make_flaky_tool": make_flaky_tool}, "quote"),
        "ex04-slow writer": (
            "08_parallel_chained_retried",
            "ex04",
            {"slow_writer_registry": slow_writer_registry},
            "save_note",
        ),
        "ex05-tool": ("08_parallel_chained_retried", "ex05", {"time_one_turn": time_one_turn}, "endless"),
        "ex05-respond": ("08_parallel_chained_retried", "ex05", {"chained_model": chained_model}, "Stuck.respond"),
        "ex11-policy rule": (
            "10_reliability_pass_k",
            "ex11",
            {"enforce_cancel_policy": enforce_cancel_policy},
            "cancel_order",
        ),
        "ex12-gate rule": ("11_security", "ex12", {"make_gate": make_gate}, "WaitingGate.check"),
    }


NESTED = _nested_loopers()


@needs_alarm
@pytest.mark.parametrize("case", NESTED)
def test_a_loop_inside_a_tool_a_model_or_a_rule_is_stopped_within_the_checks_time_and_named(case, monkeypatch):
    stem, module, replaced, culprit = NESTED[case]
    limit = 3.0  # exercise 5's right parts sleep about 3 s at TOOLKIT_TIME_SCALE=1, 0.6 s here
    monkeypatch.setattr(checks, "RUN_TIME_LIMIT", limit)
    monkeypatch.setattr(checks, "STUDENT_TIME_LIMIT", 0.75)
    namespace = dict(solution(stem), **replaced)
    start = time.monotonic()
    result = run_check_cell(stem, module, namespace)
    took = time.monotonic() - start
    assert took < limit + 2.0, f"the verdict took {took:.1f} s, past the check's {limit:g} s:\n{result.text}"
    assert not result.ok, result.text
    assert f"`{culprit.split('.')[-1]}`" in result.text or culprit in result.text, result.text


# ---------------------------------------------- one way to write a check (issue 19, point 4)


def test_no_function_in_the_checks_is_longer_than_60_lines():
    """A check reads on two screens: its items are named module-level functions, none long."""
    import ast
    from pathlib import Path

    folder = Path(checks.__file__).parent
    long = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > 60:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, long
    assert len(list(folder.glob("ex*.py"))) >= 12  # the test looked at the checks


# ------------------------- a loop that catches the stop itself (bare except), issue 19 audit F1


SPINS: list = []  # each student loop below appends to it on every turn, so a test can see it stop


def _swallowing_loopers():
    """Student answers whose wait loop wraps its sleep in ``try: ... except: continue`` (or
    ``except BaseException`` / ``except SystemExit``), so the stop raised in it is caught like
    anything else: a policy rule waiting for a state, a model's respond polling for a tool
    message, a gate waiting for a confirmation, a tool in the harness's thread, and a tool that
    blocks for ever inside a parallel turn with no call_timeout. Each: (stem, module, names
    replaced, the function the report must name)."""
    import toolkit as T

    def enforce_cancel_policy(env):
        tool = env.registry.get("cancel_order")
        orig = tool.fn

        def cancel_order(order_id: str) -> dict:
            while True:
                try:
                    SPINS.append(1)
                    if env.db.get(order_id, "pending") == "pending":
                        return orig(order_id)
                    time.sleep(0.01)
                except:  # noqa: E722 -- the student's bare except, on purpose
                    continue

        tool.fn = cancel_order

    class Polling:
        def respond(self, messages, tools):
            while True:
                try:
                    SPINS.append(1)
                    if messages[-1]["role"] == "tool":
                        return {"content": "done"}
                    time.sleep(0.01)
                except BaseException:
                    continue

    def chained_model():
        return Polling()

    class ConfirmGate(T.PermissionGate):
        def decide(self, call, tool):
            while True:
                try:
                    SPINS.append(1)
                    if self.confirm is not None:
                        return bool(self.confirm(call)), "asked"
                    time.sleep(0.01)
                except:  # noqa: E722
                    continue

    def make_gate():
        return ConfirmGate(allow={"fetch_url", "get_customers"})

    def make_flaky_tool(failures):
        def quote(symbol: str) -> str:
            """A quote that waits for a market that never opens.

            Args:
                symbol: ticker
            """
            while True:
                try:
                    SPINS.append(1)
                    time.sleep(0.01)
                except SystemExit:
                    continue

        return quote

    def time_one_turn(parallel, n_calls=4, delay=0.2):
        def lookup(city: str) -> str:
            """Waits for an answer that never comes.

            Args:
                city: any city
            """
            threading.Event().wait()
            return city

        registry = T.ToolRegistry()
        for i in range(n_calls):
            registry.add(lookup, name=f"lookup_{i}")
        model = T.ScriptedModel([{"tool_calls": [T.call(f"c{i}", f"lookup_{i}", city="Oslo") for i in range(n_calls)]}])
        start = time.perf_counter()
        T.run_agent(model, registry, "Go.", parallel=parallel, call_timeout=None)
        return time.perf_counter() - start

    return {
        "ex11-rule waits for a state": (
            "10_reliability_pass_k",
            "ex11",
            {"enforce_cancel_policy": enforce_cancel_policy},
            "cancel_order",
        ),
        "ex05-respond polls": (
            "08_parallel_chained_retried",
            "ex05",
            {"chained_model": chained_model},
            "Polling.respond",
        ),
        "ex12-gate waits": ("11_security", "ex12", {"make_gate": make_gate}, "ConfirmGate.decide"),
        "ex04-tool thread": ("08_parallel_chained_retried", "ex04", {"make_flaky_tool": make_flaky_tool}, "quote"),
        "ex05-parallel turn blocks": (
            "08_parallel_chained_retried",
            "ex05",
            {"time_one_turn": time_one_turn},
            "lookup",
        ),
    }


SWALLOWING = _swallowing_loopers()


def _still_spinning() -> bool:
    """Whether the student loops above still turn: two looks a moment apart (a loop turns every
    0.01 s). Asked a few times, since a thread the check stopped may take a moment to unwind."""
    for _ in range(10):
        before = len(SPINS)
        time.sleep(0.3)
        if len(SPINS) == before:
            return False
    return True


@pytest.mark.parametrize("case", SWALLOWING)
def test_a_loop_that_catches_the_stop_is_still_stopped_and_the_check_returns(case, monkeypatch):
    stem, module, replaced, culprit = SWALLOWING[case]
    monkeypatch.setattr(checks, "RUN_TIME_LIMIT", 3.0)
    monkeypatch.setattr(checks, "STUDENT_TIME_LIMIT", 0.75)
    namespace = dict(solution(stem), **replaced)
    box: list = []
    runner = threading.Thread(target=lambda: box.append(run_check_cell(stem, module, namespace)), daemon=True)
    runner.start()
    runner.join(60)  # a hang guard only: the check's own limit is 3 s
    assert box, f"the check did not return: {case}"
    result = box[0]
    assert not result.ok, result.text
    assert f"`{culprit.split('.')[-1]}`" in result.text or culprit in result.text, result.text
    assert not _still_spinning(), "the student's loop still runs after the check gave its verdict"
    pools = sys.modules.get("concurrent.futures.thread")
    stuck = [t for t in getattr(pools, "_threads_queues", {}) if t.is_alive()]
    assert not stuck, f"Python would wait for these threads when it exits: {stuck}"
