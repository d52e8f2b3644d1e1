"""Verdicts do not depend on machine load (issue 19, point 3; the checks: toolkit/checks/).

In a class twenty kernels share two cores. This test keeps every core busy (as many spinning
processes as cores, plus one) and meanwhile runs, in a child pytest, every exercise's reference
solution and the right answers written differently that tests/test_check_*.py hold (two or
more per exercise), several rounds; every one must pass every time. The child inherits
``TOOLKIT_TIME_SCALE`` (0.1 when unset, which shrinks the exercises' deliberate sleeps and so
the margins they leave: a harder test, and a bounded one, about 15 s a round on 2 cores; the files are given ROUNDS times to one child).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent  # tests/
ROUNDS = 2
RIGHT_ANSWERS = " or ".join(
    [
        "solution_passes",
        "right_answers",
        "right_rules",
        "right_designs",
        "other_right_answers",
        "written_other_ways",
        "other_than_the_solutions",
        "countdown_written_differently",
        "another_clock",
    ]
)


def _spinners(count: int) -> list:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def test_every_reference_and_right_answer_passes_on_a_saturated_machine():
    files = sorted(str(p) for p in TESTS.glob("test_check_ex*.py")) + [str(TESTS / "test_check_failure_groups.py")]
    env = dict(os.environ, TOOLKIT_TIME_SCALE=os.environ.get("TOOLKIT_TIME_SCALE", "0.1"))
    # --keep-duplicates: the files listed ROUNDS times run ROUNDS times, in one process
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--keep-duplicates"]
    command += ["-k", RIGHT_ANSWERS, *files * ROUNDS]
    busy = _spinners((os.cpu_count() or 1) + 1)
    try:
        run = subprocess.run(command, cwd=TESTS.parent, env=env, capture_output=True, text=True, timeout=240)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    tail = run.stdout[-3000:]
    assert run.returncode == 0, f"{ROUNDS} rounds with every core busy:\n{tail}"
    passed = re.search(r"(\d+) passed", run.stdout)
    assert passed and int(passed.group(1)) >= 30 * ROUNDS, tail  # every exercise's reference and right answers
