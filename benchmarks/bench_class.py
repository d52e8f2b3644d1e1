"""A class at once: N simulated students on one JupyterHub on this machine (issue 22, point 3).

The hub is deploy/jupyterhub_config.py in trial mode (tests/hub/hubdriver.py starts it on free
loopback ports). Every student, all at the same moment (a class clicking the link at 9:00):

1. logs in with the hub's form and clicks the nbgitpuller link to a local git repository of
   the student edition (`make student --git`), which starts their server and clones it;
2. opens a notebook (even-numbered students notebook 10, odd ones notebook 11) and starts its
   kernel: "ready" is the time from the login to the kernel's first reply;
3. runs every code cell of the notebook top to bottom over the kernel's websocket, timing
   each ("cell" latency);
4. at each exercise check, submits the notebook's own solution and then a hurried wrong answer
   and runs the course's check after each: a verdict is right when the right answer passes
   every item and the wrong one does not.

Meanwhile the resident memory (RSS from /proc) of each student's processes (server and
kernel, found by their home folder) and of the hub (hub, proxy, culler) is sampled every
0.5 s. A kernel is lost when it died or stopped answering. Ends with one line:
``class: N students, L kernels lost, R/T verdicts right, ready p95 X s, cell p95 Y s,
peak Z MB per student``. Targets: no kernel lost, every verdict right; exit status 1 otherwise.

    python benchmarks/bench_class.py [--students 30] [--ramp 0]

Needs the `hub` extra and the pinned proxy (`make test-hub` installs both).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

import common
from common import ROOT, median, p95, table, verdict

sys.path.insert(0, str(ROOT / "tests" / "hub"))
from hubdriver import Hub, Student, check_verdict  # noqa: E402

from toolkit.course.grade import course_checks  # noqa: E402

NOTEBOOKS = {10: "10_reliability_pass_k", 11: "11_security"}
# A hurried wrong answer for each check cell, in order (notebook 10: exercises 10 and 11;
# notebook 11: the three parts of exercise 12).
WRONG = {
    10: [
        "def passk_table(p_skip_check, p_typo):\n"
        "    wins = T.run_retail_trials(n=N_TRIALS, p_skip_check=p_skip_check, p_typo=p_typo, seed=SEED)\n"
        "    p1 = T.pass_hat_k(wins, N_TRIALS, 1)\n"
        "    return [p1**k for k in range(1, N_TRIALS + 1)]\n",
        "def enforce_cancel_policy(env):\n"
        "    def cancel_order(order_id):\n"
        "        raise T.ToolError('no cancelling at all')\n"
        "    env.registry.get('cancel_order').fn = cancel_order\n",
    ],
    11: [
        "def add_fetch_url(registry, web):\n"
        "    def fetch_url(url: str) -> str:\n"
        '        """Open a web page and return its text.\n\n        Args:\n            url: the address\n        """\n'
        "        return web.open(url)\n"
        "    registry.add(fetch_url)\n",
        "class LeakyModel:\n    def respond(self, messages, tools):\n        return {'content': 'done'}\n",
        "class LeakGate(T.PermissionGate):\n"
        "    def check(self, call, tool):\n"
        "        return super().check(call, tool)\n"
        "def make_gate():\n    return LeakGate(allow={'fetch_url', 'get_customers'})\n",
    ],
}


class Outcome:
    def __init__(self, name: str, notebook: int):
        self.name, self.notebook = name, notebook
        self.ready = None
        self.cells: list[float] = []
        self.cell_errors = 0
        self.verdicts: list[bool] = []
        self.lost = False
        self.problem = ""


def simulate(hub: Hub, repo: str, out: Outcome) -> None:
    notebook = NOTEBOOKS[out.notebook]
    path = f"week3/notebooks/{notebook}.ipynb"
    checks = course_checks(ROOT / "notebooks" / f"{notebook}.ipynb")
    student = Student(hub, out.name)
    kernel = None
    began = time.monotonic()
    try:
        student.login()
        student.follow_link(repo, "main", "week3", f"lab/tree/{path}")
        cells = student.open_notebook(path)["cells"]
        kernel = student.start_kernel(path)
        kernel.execute("1")
        out.ready = time.monotonic() - began
        check_index = 0
        for cell in cells:
            if cell["cell_type"] != "code" or not cell["source"].strip():
                continue
            run = kernel.execute(cell["source"])
            out.cells.append(run.seconds)
            out.cell_errors += bool(run.error)
            if "check" in cell.get("metadata", {}).get("tags", []) and check_index < len(checks):
                check = checks[check_index]
                kernel.execute("\n".join(check.solutions))
                right, _ = check_verdict(kernel, check.source)
                kernel.execute(WRONG[out.notebook][check_index])
                wrong, _ = check_verdict(kernel, check.source)
                kernel.execute("\n".join(check.solutions))  # back to the right answer for later cells
                out.verdicts += [right, not wrong]
                check_index += 1
        out.lost = not kernel.alive()
    except Exception as exc:  # a student whose kernel or server went away counts as lost
        out.lost, out.problem = True, f"{type(exc).__name__}: {exc}"
        traceback.print_exc(file=sys.stderr)
    finally:
        if kernel is not None:
            try:
                kernel.close()
            except Exception:
                pass


def sample_memory(hub: Hub, stop: threading.Event, peaks: dict) -> None:
    homes = str(hub.homes.resolve()) + os.sep
    while not stop.is_set():
        per: dict[str, float] = {}
        cpu: dict[str, float] = {}
        for pid in hub.student_pids():
            try:
                name = os.readlink(f"/proc/{pid}/cwd")[len(homes) :].split(os.sep)[0]
                rss = int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
                ticks = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13]
            except (OSError, ValueError, IndexError):
                continue
            per[name] = per.get(name, 0.0) + rss
            cpu[name] = cpu.get(name, 0.0) + sum(map(int, ticks)) / os.sysconf("SC_CLK_TCK")
        for name, mb in per.items():
            peaks[name] = max(peaks.get(name, 0.0), mb)
        for name, seconds in cpu.items():
            peaks["<cpu>" + name] = max(peaks.get("<cpu>" + name, 0.0), seconds)
        hub_mb, _ = hub.memory_mb()
        peaks["<hub>"] = max(peaks.get("<hub>", 0.0), hub_mb)
        peaks["<all students>"] = max(peaks.get("<all students>", 0.0), sum(per.values()))
        stop.wait(0.5)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30, help="how many students at once (default 30)")
    parser.add_argument("--ramp", type=float, default=0.0, help="seconds between two students' logins (default 0)")
    args = parser.parse_args()
    print(f"bench_class: {args.students} students on one hub; {common.machine()}")
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    with tempfile.TemporaryDirectory(prefix="bench-class-") as scratch:
        edition = Path(scratch) / "student-edition"
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "make_student.py"), "--out", str(edition), "--git"],
            check=True,
            capture_output=True,
        )
        hub = Hub(Path(scratch) / "hub")
        outcomes = [Outcome(f"student{i:02d}", 10 if i % 2 == 0 else 11) for i in range(args.students)]
        stop, peaks = threading.Event(), {}
        sampler = threading.Thread(target=sample_memory, args=(hub, stop, peaks), daemon=True)
        started = time.monotonic()
        try:
            hub.start()
            sampler.start()
            threads = []
            for out in outcomes:
                thread = threading.Thread(target=simulate, args=(hub, f"file://{edition}", out))
                thread.start()
                threads.append(thread)
                time.sleep(args.ramp)
            for thread in threads:
                thread.join(timeout=1800)
        finally:
            stop.set()
            hub.stop()
            shutil.rmtree(hub.homes, ignore_errors=True)
        wall = time.monotonic() - started
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    return report(args.students, outcomes, peaks, wall, load_before, load_after)


def report(n: int, outcomes: list[Outcome], peaks: dict, wall: float, load_before, load_after) -> int:
    ready = [o.ready for o in outcomes if o.ready is not None]
    cells = [s for o in outcomes for s in o.cells]
    per_student = [mb for name, mb in peaks.items() if not name.startswith("<")]
    cpu = [v for name, v in peaks.items() if name.startswith("<cpu>")]
    lost = sum(o.lost for o in outcomes)
    right = sum(sum(o.verdicts) for o in outcomes)
    total = sum(len(o.verdicts) for o in outcomes)
    expected = sum(2 * len(course_checks(ROOT / "notebooks" / f"{NOTEBOOKS[o.notebook]}.ipynb")) for o in outcomes)
    print(f"load average before {' '.join(load_before)}, after {' '.join(load_after)}; {wall:.0f} s in all")
    rows = [
        [
            "ready kernel (login to first reply), s",
            f"{median(ready):.1f}" if ready else "-",
            f"{p95(ready):.1f}" if ready else "-",
            "",
        ],
        ["cell latency, s", f"{median(cells):.2f}" if cells else "-", f"{p95(cells):.2f}" if cells else "-", ""],
        [
            "peak memory per student (server + kernel), MB",
            f"{median(per_student):.0f}" if per_student else "-",
            f"{p95(per_student):.0f}" if per_student else "-",
            f"max {max(per_student, default=0):.0f}",
        ],
        ["peak memory of the hub (hub, proxy, culler), MB", "", "", f"{peaks.get('<hub>', 0):.0f}"],
        ["peak memory of all students together, MB", "", "", f"{peaks.get('<all students>', 0):.0f}"],
        [
            "CPU time per student (server + kernel, whole run), s",
            f"{median(cpu):.1f}" if cpu else "-",
            f"{p95(cpu):.1f}" if cpu else "-",
            "",
        ],
        ["cells that showed an error", "", "", str(sum(o.cell_errors for o in outcomes))],
    ]
    table(["measure", "p50", "p95", ""], rows)
    for o in outcomes:
        if o.problem or (o.verdicts and not all(o.verdicts)):
            print(f"  {o.name} (notebook {o.notebook}): verdicts {o.verdicts} {o.problem}")
    peak = max(per_student, default=0)
    status = verdict(
        [
            (f"no kernel lost ({lost} lost)", lost == 0),
            (f"every verdict right ({right}/{expected}, {total} given)", right == expected and total == expected),
        ]
    )
    print(
        f"class: {n} students, {lost} kernels lost, {right}/{expected} verdicts right, "
        f"ready p95 {p95(ready) if ready else float('nan'):.1f} s, cell p95 {p95(cells) if cells else float('nan'):.2f} s, "
        f"peak {peak:.0f} MB per student"
    )
    return status


if __name__ == "__main__":
    sys.exit(main())
