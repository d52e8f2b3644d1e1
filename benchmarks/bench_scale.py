"""Side by side, in one run: the toolkit's matching and retrieval against the pack's naive ways.

1. ``calls_match`` (one-to-one matching by augmenting paths) against trying every order of
   the gold calls (the permutation approach), for n parallel calls with one wrong.
2. ``ToolIndex`` (precomputed contributions + MaxScore pruning) against the plain
   per-document BM25 loop, on a seeded ToolBench-sized catalog of 16,464 tools.

Prints medians and ratios and exits non-zero when a target is missed
(issue targets: at least 100× for matching at n = 10, at least 30× for retrieval).
Usage: python benchmarks/bench_scale.py [--quick]
"""

from __future__ import annotations

import itertools
import statistics
import sys
import time

import toolkit as T
from toolkit.selection import PlainBM25Index
from toolkit.synthetic import zipf_catalog, zipf_queries

NAIVE_CAP_S = 10.0


def naive_calls_match(preds, golds, deadline):
    """The pack's approach: try every order of the gold calls. Returns (answer, finished)."""
    if len(preds) != len(golds):
        return False, True
    for i, perm in enumerate(itertools.permutations(golds)):
        if i % 5000 == 0 and time.perf_counter() > deadline:
            return None, False
        if all(T.call_matches(p, g) for p, g in zip(preds, perm)):
            return True, True
    return False, True


def parallel_case(n):
    golds = [{"name": "get_weather", "args": {"city": [f"City{i}"], "unit": ["celsius", ""]}} for i in range(n)]
    preds = [("get_weather", {"city": f"city{i}"}) for i in range(n)]
    preds[-1] = ("get_weather", {"city": "Nowhere"})  # one wrong: every order must be tried
    return preds, golds


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_matching(sizes):
    print("calls_match: n parallel calls, one wrong (median seconds)")
    print(f"{'n':>3} {'matching':>12} {'permutations':>14} {'ratio':>10}")
    ratio_at_10 = None
    for n in sizes:
        preds, golds = parallel_case(n)
        fast = median_time(lambda: T.calls_match(preds, golds), 21)
        assert T.calls_match(preds, golds) is False
        start = time.perf_counter()
        answer, finished = naive_calls_match(preds, golds, start + NAIVE_CAP_S)
        naive = time.perf_counter() - start
        if finished:
            assert answer is False
        shown = f"{naive:.4f}" if finished else f">{NAIVE_CAP_S:.0f} (stopped)"
        ratio = naive / fast
        print(f"{n:>3} {fast:>12.6f} {shown:>14} {('≥' if not finished else '') + f'{ratio:,.0f}x':>10}")
        if n == 10:
            ratio_at_10 = ratio
    return ratio_at_10


def bench_retrieval(n_queries):
    tools = zipf_catalog()
    queries = zipf_queries(n_queries)
    t = time.perf_counter()
    fast = T.ToolIndex(tools)
    build_fast = time.perf_counter() - t
    t = time.perf_counter()
    plain = PlainBM25Index(tools)
    build_plain = time.perf_counter() - t
    fast_times, plain_times = [], []
    for i, q in enumerate(queries):
        t = time.perf_counter()
        got = fast.search(q, 5)
        fast_times.append(time.perf_counter() - t)
        if i < max(20, n_queries // 10):  # the plain loop is slow; a tenth of the queries is plenty
            t = time.perf_counter()
            ref = plain.search(q, 5)
            plain_times.append(time.perf_counter() - t)
            assert got == ref, f"top-5 differs for {q!r}"
    fast_times.sort()
    fm, fp95 = statistics.median(fast_times), fast_times[int(0.95 * (len(fast_times) - 1))]
    pm = statistics.median(plain_times)
    print(f"\nToolIndex on {len(tools):,} tools, {len(queries)} queries (top-5; identical results checked "
          f"on {len(plain_times)} queries)")
    print(f"{'':22} {'build s':>8} {'median ms':>10} {'p95 ms':>8}")
    print(f"{'ToolIndex (MaxScore)':22} {build_fast:>8.2f} {fm * 1000:>10.3f} {fp95 * 1000:>8.3f}")
    print(f"{'plain BM25 loop':22} {build_plain:>8.2f} {pm * 1000:>10.3f} {'':>8}")
    ratio = pm / fm
    print(f"ratio of medians: {ratio:,.0f}x")
    return ratio


def main(argv):
    quick = "--quick" in argv
    r_match = bench_matching([2, 4, 6, 8, 9] if quick else [2, 4, 6, 8, 9, 10])
    r_index = bench_retrieval(60 if quick else 300)
    ok = (quick or r_match >= 100) and r_index >= 30
    print(f"\ntargets: matching >= 100x at n=10: {'skipped (--quick)' if quick else ('met' if r_match >= 100 else 'MISSED')}; "
          f"retrieval >= 30x: {'met' if r_index >= 30 else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
