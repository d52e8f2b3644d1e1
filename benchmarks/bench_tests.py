"""How long `make test` takes on a warm .venv (CONTRIBUTING.md, "Commands"), serial and parallel.

Runs `make test` as it is (pytest-xdist, two workers per core, the checks' waits scaled by
TOOLKIT_TIME_SCALE=0.2 in tests/conftest.py) and, beside it in the same run, the same make test
the way it ran before: one pytest process (TEST_WORKERS=0) at a class's timings
(TOOLKIT_TIME_SCALE=1). The two alternate, pair by pair, so both see the same load. Each row
gives the wall time, the CPU seconds of everything make started (pytest, its workers, kernels,
subprocesses) and the 1-minute load average before and after: on a shared machine the CPU
column says how much of the wall time was this run's own work and how much was waiting for
cores others held. Target: the parallel make test under 120 s. Exits 1 when it is missed (or
make test fails).

    python benchmarks/bench_tests.py [--pairs 1] [--parallel-only]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

import common
from common import ROOT, median, table, verdict

TARGET_S = 120.0
VARIANTS = {
    "parallel": {},  # make test as it is (two workers per core, at most 8)
    "serial": {"TEST_WORKERS": "0", "TOOLKIT_TIME_SCALE": "1"},  # one process, unscaled waits
}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def make_test(variant: str) -> tuple[float, float, float, float]:
    """(wall s, CPU s, load before, load after) of one `make test`; exits if it fails."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLKIT_MODEL")}
    env.update(VARIANTS[variant])
    load, cpu, start = os.getloadavg()[0], children_cpu(), time.perf_counter()
    run = subprocess.run(
        ["make", "test", *(f"{k}={v}" for k, v in VARIANTS[variant].items())],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"make test ({variant}) failed:\n{run.stdout[-4000:]}\n{run.stderr[-4000:]}")
    return wall, children_cpu() - cpu, load, os.getloadavg()[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1, help="serial/parallel pairs (default 1)")
    parser.add_argument("--parallel-only", action="store_true", help="time only make test as it is")
    args = parser.parse_args(argv)
    if not (ROOT / ".venv" / ".installed").exists():
        sys.exit("no warm .venv: run `make venv` first (this script times make test, not the set-up)")
    print(common.machine())
    variants = ["parallel"] if args.parallel_only else ["parallel", "serial"]
    rows, walls = [], {v: [] for v in variants}
    for pair in range(args.pairs):
        for variant in variants if pair % 2 == 0 else variants[::-1]:
            wall, cpu, before, after = make_test(variant)
            walls[variant].append(wall)
            rows.append([f"pair {pair + 1}", variant, f"{wall:.1f}", f"{cpu:.1f}", f"{before:.2f}", f"{after:.2f}"])
            print(
                f"  pair {pair + 1} {variant}: {wall:.1f} s wall, {cpu:.1f} s CPU (load {before:.2f} -> {after:.2f})",
                flush=True,
            )
    print()
    table(["run", "make test", "wall (s)", "CPU (s)", "load before", "load after"], rows)
    print("\nmedian wall: " + ", ".join(f"{v} {median(w):.1f} s" for v, w in walls.items()))
    return verdict(
        [
            (
                f"make test under {TARGET_S:.0f} s on a warm .venv (median {median(walls['parallel']):.1f} s)",
                median(walls["parallel"]) < TARGET_S,
            )
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
