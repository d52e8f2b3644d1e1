"""``python -m toolkit grade`` (toolkit/course/grade.py) on a class of made-up submissions of notebook 10.

Each student below is one kind of submission an instructor gets: right, wrong, half done,
hostile (loops, an answer cell that never ends, crashes the kernel, deletes the toolkit, prints
megabytes, a fork bomb, a memory hog, reads the solutions or another submission through a child
process, an isolated ``python -I`` or ``LD_PRELOAD``, fetches an answer from the grader's
loopback) and tampering (redefines a check, patches Checker and puts it back, raises a check's
constant, rewrites check cells with an IPython transformer, rebinds a check's name, edits a check
cell, writes the course data, reads the check's frame, patches the check from inside the answer).
The whole class is graded once, in the bubblewrap sandbox, by the command line with two jobs at
once, and each row of the CSV is compared with what that submission deserves: tampering in the
student's own kernel earns nothing, and nothing reaches a file outside the submission's copy.
The grader's own robustness is tested without kernels in tests/test_grade.py, in `make test`
(docs/running-a-class.md, "Grading").
"""

from __future__ import annotations

import csv
import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from toolkit.course import grade
from toolkit.course.grade_sandbox import NOBODY

ROOT = Path(__file__).resolve().parents[2]
NB = "10_reliability_pass_k"
CHECKS = grade.course_checks(ROOT / "notebooks" / f"{NB}.ipynb")
OPT = "opt10_dual_control"  # the optional your turn's check (10 §6), graded like the exercises

WRONG_10 = """
def passk_table(p_skip_check, p_typo):
    wins = T.run_retail_trials(n=N_TRIALS, p_skip_check=p_skip_check, p_typo=p_typo, seed=SEED)
    p1 = T.pass_hat_k(wins, N_TRIALS, 1)
    return [p1**k for k in range(1, N_TRIALS + 1)]  # pass^1 to the k: the hurried answer
"""
WRONG_11 = """
def enforce_cancel_policy(env):
    def cancel_order(order_id):
        raise T.ToolError("no cancelling at all")
    env.registry.get("cancel_order").fn = cancel_order
"""
FAKE = 'CheckResult("Exercise 10: vary the agent", 5, 5, ["All 5 checks passed."])'


def _code(source: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}


def _notebook(edition: Path, answers: list[str | None], before_check: dict[int, str] | None = None) -> dict:
    """The student edition's notebook with ``answers[i]`` in the starter cell before check ``i``
    (None, or no ``answers[i]``: left as the stub) and ``before_check[i]`` as an extra cell just before check ``i``."""
    nb = json.loads((edition / "notebooks" / f"{NB}.ipynb").read_text())
    cells, check, starter = [], 0, None
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if "starter" in tags:
            starter = len(cells)
        if "check" in tags:
            if check < len(answers) and answers[check] is not None and starter is not None:
                cells[starter] = _code(answers[check])
            if before_check and check in before_check:
                cells.append(_code(before_check[check]))
            check += 1
        cells.append(cell)
    nb["cells"] = cells
    return nb


RIGHT = ["\n".join(ch.solutions) for ch in CHECKS]
FORGE_IMPORT = "from toolkit.checks import Checker, CheckResult\n"

# student -> (notebook, {exercise: expected status}, how passed/total must relate)
CLASS: dict[str, tuple] = {}


def _add(name, nb, expected):
    CLASS[name] = (nb, expected)


def _add_undone_tampering(ed: Path) -> None:
    """Tampering the audit found the old guard blind to: a patch that puts itself back, a check's
    constant raised, an IPython transformer rewriting check cells (README "Grading submitted notebooks")."""
    restore = (
        FORGE_IMPORT + "_real_done = Checker.done\n"
        "def _done(self, next_step=''):\n"
        "    Checker.done = _real_done  # put back before anyone looks\n"
        "    return CheckResult(self.title, 5, 5, ['All 5 checks passed.'])\n"
        "Checker.done = _done"
    )
    _add("selfrestore", _notebook(ed, [None, None], {0: restore}), {10: "not_done", 11: "not_done"})
    constant = "import toolkit.checks.ex10 as _m\n_m.TOLERANCE = 1.0  # a float, not a function"
    _add("constant", _notebook(ed, [RIGHT[0] + WRONG_10, RIGHT[1]], {0: constant}), {10: "partial", 11: "full"})
    transformer = (
        "def _rewrite(lines):\n"
        "    return [l.replace('.check(', '.not_done(') for l in lines]\n"
        "get_ipython().input_transformers_cleanup.append(_rewrite)"
    )
    _add("transformer", _notebook(ed, [None, None], {0: transformer}), {10: "not_done", 11: "not_done"})


def _reader(how: str, path: str) -> str:
    """A cell that takes notebook 10's answers from ``path`` (the solutions, or another student's
    submission) through a process of its own, and runs them."""
    run = {
        "child": f"subprocess.run(['cat', {path!r}], capture_output=True, text=True).stdout",
        "isolated": f"subprocess.run([sys.executable, '-I', '-c', 'print(open({path!r}).read())'], capture_output=True, text=True).stdout",
        "preload": f"subprocess.run(['cat', {path!r}], env={{'LD_PRELOAD': 'libc.so.6'}}, capture_output=True, text=True).stdout",
    }[how]
    return (
        "import json, subprocess, sys\n"
        f"_nb = json.loads({run})\n"
        "for _c in _nb['cells']:\n"
        "    if _c['cell_type'] == 'code' and 'passk_table' in ''.join(_c['source']) and 'check' not in ''.join(_c['source']):\n"
        "        exec(''.join(_c['source']))"
    )


def _add_hostile(ed: Path, folder: Path) -> None:
    """Attacks on the machine: each fails alone, and no read outside the submission's copy works."""
    solutions = str(ROOT / "notebooks" / f"{NB}.ipynb")
    other = str(folder / "right" / "week3" / f"{NB}.ipynb")
    _add("child", _notebook(ed, [None, RIGHT[1]], {0: _reader("child", solutions)}), {10: "not_done", 11: "full"})
    _add("isolated", _notebook(ed, [None, RIGHT[1]], {0: _reader("isolated", solutions)}), {10: "not_done", 11: "full"})
    _add("preload", _notebook(ed, [None, RIGHT[1]], {0: _reader("preload", other)}), {10: "not_done", 11: "full"})
    never = "def enforce_cancel_policy(env):\n    pass\nwhile True:\n    pass  # the answer cell never ends"
    _add("endless", _notebook(ed, [RIGHT[0], never]), {10: "full", 11: "timeout"})
    bomb = "import subprocess\nsubprocess.Popen(['/bin/sh', '-c', 'b() { b | b & }; b'])\nimport time\ntime.sleep(2)"
    # the bomb fails alone: it fills its own cgroup, is frozen while the check of the right answer
    # beside it runs in a cgroup of its own, and is killed with the notebook
    _add("forkbomb", _notebook(ed, RIGHT, {1: bomb}), {10: "full", 11: "full"})
    _add("hog", _notebook(ed, RIGHT, {1: "hog = bytearray(6 << 30)"}), {10: "full", 11: "full"})


@pytest.fixture(scope="module")
def served():
    """Notebook 10's answer on the grader's loopback, for the student who tries to fetch it."""

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(RIGHT[0].encode())

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()  # its listening socket, or pytest reports it unclosed


@pytest.fixture(scope="module")
def graded(student_edition, tmp_path_factory, served):
    ed = student_edition
    folder = tmp_path_factory.mktemp("submissions") / "submitted"
    _add("right", _notebook(ed, RIGHT), {10: "full", 11: "full", OPT: "full"})  # the optional your turn too
    _add("wrong", _notebook(ed, [RIGHT[0] + WRONG_10, WRONG_11]), {10: "partial", 11: "partial"})
    _add("half", _notebook(ed, [RIGHT[0], None]), {10: "full", 11: "not_done"})
    _add("blank", _notebook(ed, [None, None]), {10: "not_done", 11: "not_done", OPT: "not_done"})
    loop = _notebook(ed, RIGHT, {0: "while True:\n    pass"})
    _add("loops", loop, {10: "full", 11: "full"})
    # a plain cell that ignores interrupts: its kernel is stopped, and the check after it is out
    # of time, not a crash (however the checks themselves stop a student's function)
    stubborn = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"
    _add("stubborn", _notebook(ed, RIGHT, {1: stubborn}), {10: "full", 11: "timeout"})
    _add("crash", _notebook(ed, RIGHT, {1: "import os\nos._exit(3)"}), {10: "full", 11: "error"})
    deleter = (
        "import os, shutil, toolkit\n"
        "os.remove('" + NB + ".ipynb')  # its own copy: allowed\n"
        "shutil.rmtree(os.path.dirname(toolkit.__file__), ignore_errors=True)"
    )
    _add("deleter", _notebook(ed, RIGHT, {0: deleter}), {10: "full", 11: "full"})  # read-only: nothing deleted
    _add("chatty", _notebook(ed, RIGHT, {0: "for _ in range(40):\n    print('x' * 250_000)"}), {10: "full", 11: "full"})
    # the answer to 10 served on the grader's own loopback: the sandbox has no network to fetch it
    fetch = f"import urllib.request\nexec(urllib.request.urlopen('http://127.0.0.1:{served}/a.py', timeout=3).read().decode())"
    _add("network", _notebook(ed, [None, RIGHT[1]], {0: fetch}), {10: "not_done", 11: "full"})
    redefine = FORGE_IMPORT + f"ex10.check = lambda *a, **k: {FAKE}"
    _add("redefine", _notebook(ed, [None, RIGHT[1]], {0: redefine}), {10: "not_done", 11: "full"})
    patch = (
        FORGE_IMPORT
        + "Checker.done = lambda self, next_step='': CheckResult(self.title, 1, 1, ['All 1 checks passed.'])"
    )
    _add("patcher", _notebook(ed, [None, None], {0: patch}), {10: "not_done", 11: "not_done"})
    rebind = FORGE_IMPORT + f"import types\nex10 = types.SimpleNamespace(check=lambda *a, **k: {FAKE})"
    _add("rebind", _notebook(ed, [None, RIGHT[1]], {0: rebind}), {10: "not_done", 11: "full"})
    data = "from toolkit.data import data_dir\nopen(data_dir() / 'retail.json', 'a').write(' ')"
    _add("data", _notebook(ed, RIGHT, {0: data}), {10: "full", 11: "full"})  # read-only: nothing written
    frames = RIGHT[0] + (
        "\n_honest = passk_table\n"
        "def passk_table(p_skip_check, p_typo):\n"
        "    import sys\n"
        "    sys._getframe(1).f_locals  # the check's own frame\n"
        "    return _honest(p_skip_check, p_typo)\n"
    )
    _add("frames", _notebook(ed, [frames, RIGHT[1]]), {10: "full", 11: "full"})  # reading wins nothing
    inside = (
        "\ndef passk_table(p_skip_check, p_typo):  # runs inside the check: patches it there\n"
        "    import toolkit.checks as c\n"
        f"    c.Checker.done = lambda self, next_step='': c.{FAKE}\n"
        "    return []\n"
    )
    # the rest of the answer stays right (my_pass2_by_hand, the slip rates): only passk_table tampers
    _add("incheck", _notebook(ed, [RIGHT[0] + inside, RIGHT[1]]), {10: "tampered", 11: "full"})
    _add_hostile(ed, folder)
    _add_undone_tampering(ed)
    edited = _notebook(ed, RIGHT)
    for cell in edited["cells"]:
        if "ex10.check(" in "".join(cell["source"]):
            cell["source"] = "print('All 5 checks passed.')  # ex10.check( was here"
    _add("edited", edited, {10: "full", 11: "full"})  # the course's check ran in its place

    for name, (nb, _) in CLASS.items():
        where = folder / name / "week3" / f"{NB}.ipynb"  # nbgrader's submitted/STUDENT/ASSIGNMENT/
        where.parent.mkdir(parents=True)
        where.write_text(json.dumps(nb))
    flat = folder.parent / "flat"
    flat.mkdir()
    (flat / "dana.ipynb").write_text(json.dumps(CLASS["right"][0]))  # file stem = student
    (flat / "broken.ipynb").write_text("{ not json")
    out = folder.parent / "grades.csv"
    toolkit_before = sorted(p.name for p in (ROOT / "toolkit").iterdir())
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkit",
            "grade",
            str(folder),
            "--out",
            str(out),
            "--cell-timeout",
            "6",  # the student's cells: notebook 10's take well under a second; loops wait this out
            "--notebook-timeout",
            "240",
            "--jobs",
            "2",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1500,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in (ROOT / "toolkit").iterdir()) == toolkit_before
    assert not [p for p in (ROOT / "toolkit").rglob("*") if p.stat().st_uid == NOBODY]  # nothing of the sandbox's
    assert not _left_running(), "a process of a graded notebook outlived it"
    flat_out = folder.parent / "flat.csv"
    flat_done = subprocess.run(
        [sys.executable, "-m", "toolkit", "grade", str(flat), "--out", str(flat_out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert flat_done.returncode == 0, flat_done.stdout + flat_done.stderr
    rows = [row for path in (out, flat_out) for row in csv.DictReader(path.read_text().splitlines())]
    # two kernels at once, rows still in submission order (the progress lines come as they finish)
    in_csv = list(dict.fromkeys(row["student"] for row in rows))
    assert in_csv == [s.student for s in grade.find_submissions(folder)] + ["broken", "dana"]
    return rows, json.loads(out.with_suffix(".json").read_text()), done.stdout


def _left_running() -> list[str]:
    """Processes of the sandboxes' user (nobody) still running after the grader exited."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.stat(f"/proc/{entry}").st_uid == NOBODY:
                found.append(open(f"/proc/{entry}/cmdline", "rb").read().replace(b"\0", b" ").decode()[:80])
        except OSError:
            continue
    return found


def _rows(graded, student):
    """The student's CSV rows by exercise, each with its feedback lines (shown when a test fails)."""
    feedback = {str(f["exercise"]): f for f in graded[1] if f["student"] == student}
    rows = {r["exercise"]: dict(r) for r in graded[0] if r["student"] == student}
    for number, row in rows.items():
        row["feedback"] = feedback.get(number, {}).get("feedback")
    return rows


@pytest.mark.parametrize(
    "student",
    [
        "right",
        "wrong",
        "half",
        "blank",
        "loops",
        "stubborn",
        "crash",
        "deleter",
        "chatty",
        "network",
        "redefine",
        "patcher",
        "rebind",
        "data",
        "frames",
        "selfrestore",
        "constant",
        "transformer",
        "edited",
        "incheck",
        "child",
        "isolated",
        "preload",
        "endless",
        "forkbomb",
        "hog",
    ],
)
def test_each_submission_gets_the_verdict_it_deserves(graded, student):
    rows = _rows(graded, student)
    _, expected = CLASS[student]
    assert set(rows) == {str(n) for n in expected} | {OPT}  # every notebook 10 gets its optional row
    for number, want in expected.items():
        row = rows[str(number)]
        passed, total = int(row["passed"]), int(row["total"])
        if want == "full":
            assert (row["status"], passed == total, total > 0) == ("graded", True, True), row
        elif want == "failed":  # the notebook failed alone: no marks, an honest status
            assert row["status"] in ("error", "timeout") and passed == 0, row
        elif want == "partial":
            assert row["status"] == "graded" and 0 <= passed < total, row
        else:
            assert row["status"] == want, row


def test_csv_columns_and_feedback_lines(graded):
    rows, feedback, progress = graded
    assert list(rows[0]) == ["student", "notebook", "exercise", "passed", "total", "status"]
    assert {r["notebook"] for r in rows if r["student"] != "broken"} == {NB}
    right = [f for f in feedback if f["student"] == "right" and f["exercise"] == 10][0]
    assert right["feedback"][0].startswith("Exercise 10")
    assert any(line.startswith("All 5 checks passed.") for line in right["feedback"])
    tampered = [f for f in feedback if f["student"] == "incheck" and f["exercise"] == 10][0]
    assert any("Checker.done" in line for line in tampered["feedback"])
    endless = [f for f in feedback if f["student"] == "endless" and f["exercise"] == 11][0]
    assert endless["feedback"][0].startswith("your cell `def enforce_cancel_policy(env):` ran longer than 6 s")
    assert progress.count("] ") >= len(CLASS)  # one progress line per notebook


def test_flat_layout_uses_the_file_stem_and_an_unreadable_file_is_an_error_row(graded):
    dana = _rows(graded, "dana")
    assert {r["status"] for r in dana.values()} == {"graded"}
    broken = _rows(graded, "broken")
    assert [r["status"] for r in broken.values()] == ["error"]
