"""Small helpers shared by the bench_*.py scripts: timing, percentiles, a plain-text table."""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as `python benchmarks/bench_x.py` from anywhere
    sys.path.insert(0, str(ROOT))


def machine() -> str:
    """One line of context for the numbers that follow."""
    return (
        f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}"
    )


def timed(fn, *args):
    """``(seconds, result)`` of one call."""
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def median(values) -> float:
    return statistics.median(values)


def p95(values) -> float:
    """The 95th percentile, nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def table(header: list[str], rows: list[list]) -> None:
    """Print rows under a header; the first column is left-aligned, the rest right-aligned."""
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for n, row in enumerate(cells):
        line = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        print("  ".join(line).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


def verdict(results: list[tuple[str, bool]]) -> int:
    """Print each target as met or MISSED; the exit status is 1 if any was missed."""
    print()
    for text, ok in results:
        print(f"target {'met   ' if ok else 'MISSED'}  {text}")
    return 0 if all(ok for _, ok in results) else 1
