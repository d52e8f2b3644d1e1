"""``python -m toolkit grade`` (toolkit/course/grade.py) without kernels: how it plans a
notebook's cells, what it says for a missing folder, and its own robustness (a notebook it cannot
read, a kernel that does not start, a run that stops half way, a kernel stopped for its time).
A whole class of submissions, hostile ones included, is graded through sandboxed kernels in
tests/classroom/test_grade.py (`make test-class`).
"""

from __future__ import annotations

import copy
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.course import grade, grade_sandbox

ROOT = Path(__file__).resolve().parents[1]
NB = "10_reliability_pass_k"
CHECKS = grade.course_checks(ROOT / "notebooks" / f"{NB}.ipynb")


def test_a_check_cell_the_student_deleted_still_runs():
    cells = [
        {"cell_type": "code", "source": "x = 1", "metadata": {}},
        {"cell_type": "code", "source": CHECKS[1].source, "metadata": {"tags": ["check"]}},
    ]
    steps = grade._plan(copy.deepcopy(cells), CHECKS)
    # the kept check runs where it is; every deleted one (notebook 10 has an optional your turn's
    # check too) runs after the student's last cell, in the instructor's order
    deleted = [i for i in range(len(CHECKS)) if i != 1]
    assert len(CHECKS) >= 2 and [s.check for s in steps] == [None, 1, *deleted]
    assert not any(s.edited for s in steps)


def test_a_folder_that_is_not_there_gets_a_sentence(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "grade", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 2 and "not a folder" in done.stderr and "Traceback" not in done.stderr


# ---- the grader's own robustness, without kernels -------------------------------------------------


def _submission(tmp_path: Path, text: str, name: str = "alice.ipynb") -> grade.Submission:
    path = tmp_path / name
    path.write_text(text)
    return grade.Submission(path.stem, path)


def test_a_notebook_nested_too_deep_for_json_is_an_error_row(tmp_path):
    """The audit's nest.ipynb: 100 000 nested brackets raised RecursionError and stopped the run."""
    sub = _submission(tmp_path, '{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}")
    rows = grade.grade_notebook(sub, {NB: CHECKS})
    assert [(r["status"], r["feedback"][0].split(":")[0]) for r in rows] == [("error", "could not read the notebook")]


def test_a_kernel_that_does_not_start_gives_each_check_an_error_row(tmp_path, monkeypatch):
    def no_kernel(*args, **kwargs):
        raise RuntimeError("Kernel died before replying to kernel_info")

    monkeypatch.setattr(grade, "Kernel", no_kernel)
    sub = _submission(tmp_path, (ROOT / "notebooks" / f"{NB}.ipynb").read_text(), f"{NB}.ipynb")
    rows = grade.grade_notebook(sub, {NB: CHECKS})
    # notebook 10 checks Exercises 10 and 11 and its optional your turn (§6, dual control)
    assert [(r["exercise"], r["status"]) for r in rows] == [
        (10, "error"),
        (11, "error"),
        ("opt10_dual_control", "error"),
    ]
    assert "the kernel did not start (RuntimeError: Kernel died" in rows[0]["feedback"][0]


def test_rows_are_written_as_each_notebook_finishes_and_one_failure_stops_nothing(tmp_path, monkeypatch):
    """A grader crash inside one notebook is that notebook's error row; a run stopped later (here
    by Ctrl-C on the third notebook) keeps every row already written."""
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("ann", "bob", "cid"):
        (folder / f"{name}.ipynb").write_text("{}")

    def fake(sub, *args, **kwargs):
        if sub.student == "bob":
            raise RuntimeError("a bug of the grader's")
        if sub.student == "cid":
            raise KeyboardInterrupt
        return [grade._row(sub, NB, 10, "graded", 5, 5)]

    monkeypatch.setattr(grade, "_grade_notebook", fake)
    out = tmp_path / "grades.csv"
    with pytest.raises(KeyboardInterrupt):
        grade.grade_folder(folder, ROOT / "notebooks", progress=lambda line: None, out=out)
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert [(r["student"], r["status"]) for r in rows] == [("ann", "graded"), ("bob", "error")]
    assert "a bug of the grader's" in json.loads(out.with_suffix(".json").read_text())[1]["feedback"][0]


class _ScriptedKernel:
    """Stands in for the sandboxed Kernel: each cell's reply comes from ``replies`` in order."""

    def __init__(self, replies: list[dict]) -> None:
        self.replies = replies
        self.timeouts: list[float] = []  # the time each cell was given

    def run(self, code: str, timeout: float) -> dict:
        self.timeouts.append(timeout)
        return self.replies.pop(0)


@pytest.mark.parametrize(
    "reply, status",
    [
        ({"status": "dead", "error": "ran longer than 6 s", "stopped": True}, "timeout"),
        ({"status": "dead", "error": "the kernel stopped (crashed or exited)"}, "error"),
    ],
    ids=["stopped-for-its-time", "crashed"],
)
def test_checks_after_a_cell_whose_kernel_was_stopped_for_time_are_timeout_not_error(reply, status):
    """The audit's xia: an interrupt-proof loop in a plain cell before check 11."""
    session = grade.Session(CHECKS, (6.0, 240.0))
    session.kernel = _ScriptedKernel([reply])
    session._run([grade.Step("while True: pass"), grade.Step(CHECKS[0].source, 0), grade.Step(CHECKS[1].source, 1)])
    session._fill_unrun()
    assert [part["status"] for part in session.parts] == [status, status, status]  # the unrun optional check too
    if status == "timeout":
        assert "`while True: pass` ran longer than 6 s" in session.parts[0]["lines"][0]


def test_an_answer_cell_that_ran_out_of_time_makes_its_check_a_timeout_naming_the_cell(monkeypatch):
    """The issue: a student whose answer cell loops for ever was told `error: NameError`."""
    late = {"status": "timeout", "error": "ran longer than 6 s", "text": "", "stopped": True}
    handed = {"status": "ok", "error": "", "text": "", "answers": "e30="}
    session = grade.Session(CHECKS, (6.0, 240.0))
    session.kernel = _ScriptedKernel([late, handed])
    monkeypatch.setattr(session, "_verdict", lambda check, answers: {"status": "error", "lines": ["NameError"]})
    session._run([grade.Step("def passk_table(a, b):\n    while True: pass\npasskk"), grade.Step(CHECKS[0].source, 0)])
    assert session.parts[0]["status"] == "timeout"
    assert session.parts[0]["lines"][0].startswith("your cell `def passk_table(a, b):` ran longer than 6 s")
    assert session.kernel.timeouts[0] == 6.0


def test_a_check_of_names_an_unfinished_cell_bound_is_a_timeout_and_does_not_run(monkeypatch):
    """A function defined before an endless loop in the same cell is not handed to the check (it
    would pass 3 of 9 items of Exercise 11), here or in a later check; a cell that finishes and
    binds the name again lifts that."""
    late = {"status": "timeout", "error": "ran longer than 6 s", "text": "", "stopped": True}
    handed = {"status": "ok", "error": "", "text": "", "answers": "e30="}
    session = grade.Session(CHECKS, (6.0, 240.0))
    session.kernel = _ScriptedKernel([late, handed])
    monkeypatch.setattr(session, "_verdict", lambda check, answers: {"status": "graded", "passed": 5, "total": 5})
    endless = "def enforce_cancel_policy(env):\n    pass\nwhile True:\n    pass"
    session._run([grade.Step(endless), grade.Step(CHECKS[0].source, 0), grade.Step(CHECKS[1].source, 1)])
    assert session.parts[0]["status"] == "graded"  # Exercise 10 reads nothing that cell bound
    assert session.parts[1]["status"] == "timeout" and session.kernel.replies == []
    assert session.parts[1]["lines"][0].startswith("your cell `def enforce_cancel_policy(env):` ran longer than 6 s")
    again = {"status": "ok", "error": "", "text": ""}
    session = grade.Session(CHECKS, (6.0, 240.0))
    session.kernel = _ScriptedKernel([late, again, handed])
    monkeypatch.setattr(session, "_verdict", lambda check, answers: {"status": "graded", "passed": 9, "total": 9})
    session._run(
        [grade.Step(endless), grade.Step("def enforce_cancel_policy(env): ..."), grade.Step(CHECKS[1].source, 1)]
    )
    assert session.parts[1]["status"] == "graded"


@pytest.mark.parametrize("passed, status", [(9, "graded"), (3, "timeout")])
def test_after_a_stray_cell_ran_out_of_time_only_a_failed_check_is_a_timeout(monkeypatch, passed, status):
    """A loop in a cell of its own costs a right answer nothing; a wrong one is told the cell ran out of time."""
    late = {"status": "timeout", "error": "ran longer than 6 s", "text": "", "stopped": True}
    handed = {"status": "ok", "error": "", "text": "", "answers": "e30="}
    session = grade.Session(CHECKS, (6.0, 240.0))
    session.kernel = _ScriptedKernel([late, handed])
    monkeypatch.setattr(session, "_verdict", lambda check, answers: {"status": "graded", "passed": passed, "total": 9})
    session._run([grade.Step("while True:\n    pass"), grade.Step(CHECKS[1].source, 1)])
    assert session.parts[1]["status"] == status


def test_the_names_a_cell_binds_are_its_own_not_its_functions_locals():
    source = "import numpy as np, os.path\nfrom math import comb\nX, (y, z) = 1, (2, 3)\n%time 1 + 1\n"  # a magic: still Python after IPython rewrites it
    source += "def f(a):\n    local = a\nclass C:\n    attr = 1\nfor i in range(2):\n    pass"
    assert grade._binds(source) == {"np", "os", "comb", "X", "y", "z", "f", "C", "i"}
    assert grade._binds("def broken(:") == set()


class _FakeClient:
    """A kernel client whose cell answers (goes idle) after ``polls`` empty polls."""

    def __init__(self, polls: int) -> None:
        self.polls = polls

    def execute(self, code, **kwargs):
        return "m1"

    def get_iopub_msg(self, timeout):
        self.polls -= 1
        if self.polls >= 0:
            raise grade_sandbox.Empty
        return {"parent_header": {"msg_id": "m1"}, "msg_type": "status", "content": {"execution_state": "idle"}}


@pytest.mark.parametrize("queued, status", [(1.0, "ok"), (0.0, "timeout")], ids=["busy-machine", "own-time"])
def test_a_cells_time_limit_does_not_count_the_time_it_waited_for_a_cpu(monkeypatch, queued, status):
    """On a clock that moves 1 s a poll: a cell that took 10 polls of which (busy-machine) the
    kernel spent all waiting for a CPU is not stopped at 3 s; one whose time was its own is."""
    clock = iter(range(1000))
    monkeypatch.setattr(grade_sandbox.time, "monotonic", lambda: float(next(clock)))
    kernel = grade_sandbox.Kernel.__new__(grade_sandbox.Kernel)
    kernel.kc = _FakeClient(10)
    waited = iter(range(1000))
    monkeypatch.setattr(kernel, "waited", lambda: queued * next(waited))
    monkeypatch.setattr(kernel, "alive", lambda: True)
    assert kernel.run("x = 1", 3.0, interrupt=False)["status"] == status


def test_an_edited_or_deleted_check_cell_is_replaced_only_by_the_same_modules_check():
    """The old plan gave a later check cell with its call edited away the check of an exercise
    whose cell was deleted; a check cell of another module now runs as the course's own."""
    cells = [
        {"cell_type": "code", "source": "ex11.check(enforce_cancel_policy)  # edited", "metadata": {}},
        {"cell_type": "code", "source": "print('passed')", "metadata": {"tags": ["check"]}},
    ]
    steps = grade._plan(copy.deepcopy(cells), CHECKS)
    assert [(s.check, s.edited) for s in steps] == [(1, True), (None, False), (0, False), (2, False)]


def test_check_cells_of_optional_sections_are_found_with_their_label():
    match = grade.CHECK_CALL.search("opt04_pick_k.check(pick_k, seed=SEED)")
    assert match and match.group(1) == "opt04_pick_k" and grade._exercise(match.group(1)) == "opt04_pick_k"
    assert grade._exercise(grade.CHECK_CALL.search("ex07.check(f)").group(1)) == 7
    optional = grade.CheckCell("opt02_prefix", "opt02_prefix.check(cached_prefix, SEED)", module="opt02_prefix")
    assert grade.CHECK_CALL.search(optional.source).group(0) == "opt02_prefix.check("
    assert grade._reads(optional) == ["SEED", "cached_prefix"]  # the module is the course's, not handed over


def test_the_hand_over_publishes_only_the_names_the_check_cell_reads():
    code = grade._hand_over(CHECKS[0])
    assert "['P_SKIP_CHECK', 'P_TYPO', 'SEED', 'my_pass2_by_hand', 'passk_table']" in code
    assert grade.ANSWERS in code and "ex10" not in code


def test_without_bubblewrap_grade_refuses_unless_told_and_then_says_what_is_unprotected(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(grade, "unavailable", lambda: "bubblewrap (bwrap) is not installed")
    assert grade.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "bwrap) is not installed" in err and "--no-sandbox" in err
    monkeypatch.setattr(grade, "grade_folder", lambda *a, **k: [])
    assert grade.main([str(tmp_path), "--no-sandbox"]) == 2  # nothing to grade, but it ran
    assert "can read the course's solutions" in capsys.readouterr().err
