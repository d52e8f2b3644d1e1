"""``python -m toolkit grade`` (toolkit/course/grade.py) without kernels: how it plans a
notebook's cells, what it says for a missing folder, and its own robustness (a notebook it cannot
read, a kernel that does not start, a run that stops half way, a kernel stopped for its time).
A whole class of submissions is graded through kernels in tests/classroom/test_grade.py
(`make test-class`); the guard's attacks are in tests/test_grade_guard.py.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.course import grade

ROOT = Path(__file__).resolve().parents[1]
NB = "10_reliability_pass_k"
CHECKS = grade.course_checks(ROOT / "notebooks" / f"{NB}.ipynb")


def test_a_check_cell_the_student_deleted_still_runs():
    cells = [
        {"cell_type": "code", "source": "x = 1", "metadata": {}},
        {"cell_type": "code", "source": CHECKS[1].source, "metadata": {"tags": ["check"]}},
    ]
    steps = grade._plan(copy.deepcopy(cells), CHECKS)
    assert [s.check for s in steps] == [None, 1, 0] and not any(s.edited for s in steps)


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

    monkeypatch.setattr(grade, "GradingKernel", no_kernel)
    sub = _submission(tmp_path, (ROOT / "notebooks" / f"{NB}.ipynb").read_text(), f"{NB}.ipynb")
    rows = grade.grade_notebook(sub, {NB: CHECKS})
    assert [(r["exercise"], r["status"]) for r in rows] == [(10, "error"), (11, "error")]
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
    monkeypatch.setattr(grade, "become_subreaper", lambda: False)
    out = tmp_path / "grades.csv"
    with pytest.raises(KeyboardInterrupt):
        grade.grade_folder(folder, ROOT / "notebooks", progress=lambda line: None, out=out)
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert [(r["student"], r["status"]) for r in rows] == [("ann", "graded"), ("bob", "error")]
    assert "a bug of the grader's" in json.loads(out.with_suffix(".json").read_text())[1]["feedback"][0]


class _ScriptedKernel:
    """Stands in for GradingKernel: each cell's reply comes from ``replies`` in order."""

    def __init__(self, replies: list[dict]) -> None:
        self.replies = replies
        self.timeouts: list[float] = []  # the time each cell was given

    def run(self, code: str, timeout: float, silent: bool = False) -> dict:
        self.timeouts.append(timeout)
        return self.replies.pop(0)


class _Reports:
    """Stands in for the report pipe: the guard's records, all read already."""

    def __init__(self, records: list[dict]) -> None:
        self.records, self.forged = records, []

    def catch_up(self) -> None:
        pass

    def mac(self, index: int, source: str) -> str:
        return "0" * 64


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
    session.channel = type("NoReports", (), {"records": []})()
    session._run([grade.Step("while True: pass"), grade.Step(CHECKS[0].source, 0), grade.Step(CHECKS[1].source, 1)])
    session._fill_unrun()
    assert [part["status"] for part in session.parts] == [status, status]


def test_a_check_cell_has_the_notebooks_time_and_the_grader_stopping_it_is_a_timeout_not_tampering():
    """CI, stop 26: on a busy machine a check cell ran past the class test's 6 s cell limit, the
    interrupt landed while the guard was writing the check's end, and a right answer was graded
    'tampered'. A check limits the student's code itself (its time excuses the guard's), so its
    cell has the notebook's time; when the grader does interrupt one, the verdict is timeout."""
    ok = {"status": "ok", "error": "", "text": ""}
    session = grade.Session(CHECKS, (6.0, 240.0))
    session.kernel = _ScriptedKernel([ok, {"status": "timeout", "error": "ran longer than 200 s", "text": ""}])
    session.channel = _Reports([])  # no 'end' record: the interrupt came before the guard wrote it
    session._run([grade.Step("x = 1"), grade.Step(CHECKS[0].source, 0)])
    plain, check = session.kernel.timeouts
    assert plain == 6.0 and check > 200, session.kernel.timeouts
    assert session.parts[0]["status"] == "timeout", session.parts[0]
    assert "notebook's 240 s ran out" in session.parts[0]["lines"][0]


def test_an_interrupted_check_after_tampering_stays_tampered():
    """The timeout verdict is for the grader's own interrupt only: tampering the guard reported
    before it (an alert), or a check cell the student edited, still taints the check."""
    session = grade.Session(CHECKS, (6.0, 240.0))
    session.kernel = _ScriptedKernel([{"status": "timeout", "error": "", "text": ""}])
    session.channel = _Reports([{"seq": 1, "kind": "alert", "tampered": ["sys.meta_path was changed (Finder)"]}])
    session._read_reports()
    session._run([grade.Step(CHECKS[0].source, 0)])
    assert session.parts[0]["status"] == "tampered"
    assert "sys.meta_path was changed (Finder)" in session.parts[0]["lines"]


def test_the_report_pipe_is_read_up_to_date_without_waiting_for_its_thread():
    """A report written before a cell finished is in the records after catch_up, even when the
    drain thread has not run at all (a grader starved of CPU): no 5 s wait to run out."""
    from toolkit.course import grade_integrity
    from toolkit.course.grade_kernel import Channel

    channel = Channel()
    try:
        for seq, kind in ((1, "ready"), (2, "end")):
            payload = grade_integrity.dump({"seq": seq, "kind": kind, "check": 0}).encode()
            os.write(channel.write_fd, payload + b" " + grade_integrity.sign(channel.key, payload).encode() + b"\n")
        os.write(channel.write_fd, b'{"seq": 3, "kind": "end"} 00\n')
        channel.catch_up()
        assert [r["kind"] for r in channel.records] == ["ready", "end"]
        assert len(channel.forged) == 1
        channel.catch_up()  # nothing more in the pipe: returns at once, nothing read twice
        assert len(channel.records) == 2
    finally:
        os.close(channel.write_fd)
        os.close(channel.key_fd)
        channel.close()
