"""The course itself: how long the notebooks take under nbval, and how fast the widgets redraw.

1. Wall time of ``pytest --nbval`` over every numbered notebook present, in one run (what
   ``make test`` does last), then of each notebook alone (a fresh pytest and kernel each).
2. benchmarks/widget_latency.py as it is (each view and control: median redraw in ms over
   15 updates, caches cleared), its lines gathered into one table.

Nothing is compared with a competitor here; the numbers say whether the course feels live.
The last column of the notebook table is each notebook's share of the sum of the solo runs.
Targets (DESIGN.md): every notebook passes nbval; every widget median stays under 100 ms.
Exits 1 when a target is missed.

    python benchmarks/bench_course.py [--skip-widgets]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time

import common
from common import ROOT, table, verdict

NBVAL = [
    sys.executable,
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "--nbval",
    "--nbval-current-env",
    "--nbval-sanitize-with",
    "notebooks/nbval_sanitize.cfg",
]


def run(command: list[str]) -> tuple[float, int, str]:
    """Wall seconds, exit status and output of one command run from the repository root."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode, done.stdout + done.stderr


def summary(output: str) -> str:
    """pytest's last line without the timing, such as '52 passed' or '1 failed, 51 passed'."""
    lines = [line for line in output.strip().splitlines() if re.search(r"\d+ (passed|failed|error)", line)]
    return re.sub(r"\s+in [\d.]+s.*$", "", lines[-1]).strip("= ") if lines else "no summary"


def bench_notebooks() -> bool:
    notebooks = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    print(f"\nnotebooks present ({len(notebooks)}): " + ", ".join(n.split("/")[-1][:2] for n in notebooks))
    all_s, all_rc, all_out = run(NBVAL + notebooks)
    solo = [(nb, *run(NBVAL + [nb])) for nb in notebooks]
    total = sum(s for _, s, _, _ in solo)
    rows = [["all together (one pytest)", f"{all_s:.1f}", summary(all_out), ""]]
    rows += [[nb.split("/")[-1], f"{s:.1f}", summary(out), f"{s / total:.0%}"] for nb, s, _, out in solo]
    rows.append(["sum of the solo runs", f"{total:.1f}", "", ""])
    table(["pytest --nbval", "wall s", "result", "share"], rows)
    print(
        f"one pytest for all saves {total - all_s:.1f} s of the solo runs' startup ({all_s / total:.2f} of their sum)"
    )
    ok = all_rc == 0 and all(rc == 0 for _, _, rc, _ in solo)
    failed = sorted({line.split(" - ")[0] for line in all_out.splitlines() if line.startswith("FAILED")})
    for line in failed:
        print(line)
    return ok


def bench_widgets() -> bool:
    seconds, rc, out = run([sys.executable, "benchmarks/widget_latency.py"])
    rows = []
    for line in out.splitlines():
        match = re.fullmatch(r"(\S+) ([\d.]+)", line.strip())
        if match:
            rows.append([match[1], match[2]])
    print(f"\nwidget_latency.py: median redraw per view and control, ms ({seconds:.0f} s in all)")
    table(["view.control", "median ms"], rows)
    if rc:
        print(out.strip().splitlines()[-1])
    return rc == 0 and bool(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-widgets", action="store_true")
    args = parser.parse_args(argv)
    print(f"The course, {common.machine()}")
    results = [("every notebook present passes pytest --nbval, together and alone", bench_notebooks())]
    if not args.skip_widgets:
        results.append(("every widget median under 100 ms (widget_latency.py exits 0)", bench_widgets()))
    return verdict(results)


if __name__ == "__main__":
    sys.exit(main())
