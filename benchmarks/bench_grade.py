"""Grading throughput: ``python -m toolkit grade`` with and without the bubblewrap sandbox, at
``--jobs 1`` and ``--jobs 2``, side by side in one run (docs/running-a-class.md, "Grading").

The submissions are the course's own notebooks with exercises (their solutions: every check
runs to full marks), ``--students`` copies of the whole set, one folder per student. Each
configuration grades the same folder in a fresh ``grade`` process; the rounds alternate the
configurations so a change in the machine's load falls on all of them. Printed per
configuration: notebooks per minute (wall clock) and CPU-seconds per notebook (the grade
process and everything it started: kernels, sandboxes, check processes), medians over the
rounds, and the sandbox's cost as a ratio. The CPU is read from a cgroup v1 ``cpuacct`` group
the grade process runs in (as root): bubblewrap's own pid 1 does not pass its children's CPU
time up to ``wait4``, so without that group the sandboxed figure would miss the kernels; where
there is no such group the script says so and sets no target on the ratio. From the CPU-seconds per student, the wall time
of a class of 300 on one 16-core machine (``--jobs 16``, if CPU is what limits it).
Target: the sandbox costs at most 25 % more CPU per notebook. Exits 1 when a target is missed,
or when a right answer was not graded full marks.

    python benchmarks/bench_grade.py [--students 1] [--rounds 1]

Measured once (2026-12-04, 2 cores shared with other work, load average 8-12; 1 student, 1
round): notebooks/min and CPU-s/notebook 7.2 and 2.6 (sandbox, --jobs 1), 8.2 and 2.3 (no
sandbox, --jobs 1), 14.2 and 2.1 (sandbox, --jobs 2), 10.3 and 2.4 (no sandbox, --jobs 2);
sandbox / no sandbox CPU 0.98; 15 CPU-seconds a student; a class of 300 on 16 cores about 5
minutes. The wall-clock figures move with the machine's other load; the CPU ones hardly do.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import common
from common import ROOT, median, table, verdict

from toolkit.course.grade import course_checks
from toolkit.course.grade_sandbox import unavailable

CONFIGS = [("sandbox", 1), ("no sandbox", 1), ("sandbox", 2), ("no sandbox", 2)]


def submissions(folder: Path, students: int) -> int:
    """``students`` folders, each with every course notebook that has checks; how many notebooks."""
    graded = [p for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) if course_checks(p)]
    for n in range(students):
        (folder / f"s{n:03d}").mkdir(parents=True)
        for path in graded:
            shutil.copy(path, folder / f"s{n:03d}" / path.name)
    return students * len(graded)


ACCOUNTS = Path("/sys/fs/cgroup/cpuacct")


def grade(folder: Path, sandbox: str, jobs: int, out: Path) -> tuple[float, float, list[dict]]:
    """Wall seconds, CPU seconds (user + system of everything the grade process started) and the CSV rows."""
    command = [sys.executable, "-m", "toolkit", "grade", str(folder), "--out", str(out), "--jobs", str(jobs)]
    command += ["--no-sandbox"] if sandbox == "no sandbox" else []
    group = ACCOUNTS / f"bench-grade-{uuid.uuid4().hex[:8]}"
    if (ACCOUNTS / "cpuacct.usage").exists() and os.geteuid() == 0:
        group.mkdir()
        command = ["/bin/sh", "-c", f'echo $$ > "{group}/cgroup.procs" && exec "$@"', "grade", *command]
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    if group.exists():
        cpu = int((group / "cpuacct.usage").read_text()) / 1e9
        group.rmdir()  # empty: the grader killed every process it started
    rows = list(csv.DictReader(out.read_text().splitlines())) if out.exists() else []
    return wall, cpu, rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=1, help="copies of the course's notebooks (default 1)")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each configuration (default 1)")
    args = parser.parse_args()
    why = unavailable()
    if why:
        print(f"bench_grade: {why}")
        return 1
    print(f"Grading throughput, {common.machine()}")
    accounted = (ACCOUNTS / "cpuacct.usage").exists() and os.geteuid() == 0
    if not accounted:
        print("no cgroup v1 cpuacct group (or not root): the sandboxed CPU figures miss the kernels")
    results: dict[tuple[str, int], list[tuple[float, float]]] = {c: [] for c in CONFIGS}
    full = True
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        folder = Path(tmp) / "submitted"
        notebooks = submissions(folder, args.students)
        print(f"{args.students} student(s), {notebooks} notebooks with checks each run; {args.rounds} round(s)\n")
        for _ in range(args.rounds):
            for sandbox, jobs in CONFIGS:
                wall, cpu, rows = grade(folder, sandbox, jobs, Path(tmp) / "grades.csv")
                full &= bool(rows) and all(r["status"] == "graded" and r["passed"] == r["total"] for r in rows)
                results[(sandbox, jobs)].append((wall, cpu))
    per = {c: (median(w for w, _ in r), median(c_ for _, c_ in r)) for c, r in results.items()}
    rows = []
    for sandbox, jobs in CONFIGS:
        wall, cpu = per[(sandbox, jobs)]
        rows.append(
            [f"{sandbox}, --jobs {jobs}", f"{notebooks / wall * 60:.1f}", f"{cpu / notebooks:.1f}", f"{wall:.0f}"]
        )
    table(["configuration", "notebooks/min", "CPU-s/notebook", "wall s"], rows)
    ratio = median(per[("sandbox", j)][1] / per[("no sandbox", j)][1] for j in (1, 2))
    cpu_student = per[("sandbox", 2)][1] / args.students
    class_minutes = 300 * cpu_student / 16 / 60
    print(f"\nsandbox / no sandbox, CPU per notebook (median of --jobs 1 and 2): {ratio:.2f}")
    print(f"CPU-seconds per student (all {notebooks // args.students} notebooks, sandboxed): {cpu_student:.0f}")
    print(f"a class of 300 on one 16-core machine (--jobs 16): about {class_minutes:.0f} minutes")
    return verdict(
        [
            (f"the sandbox costs at most 25% more CPU per notebook (x{ratio:.2f})", ratio <= 1.25 or not accounted),
            ("every right answer graded full marks in every configuration", full),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
