"""Call scoring, side by side: the toolkit's matching against the pack's permutation approach.

1. classify over the BFCL slice in data/bfcl/ (250 cases) with generated replies: for each
   case the right reply, the same calls in a shuffled order, one value changed, the reply cut
   in half, and the replies of the three mock callers of toolkit.lessons.mock_callers with their habit
   always on (an invented name, a dropped value, a call where none fits). All seeded.
   Outputs per second for classify as it is (one-to-one matching by augmenting paths) and
   for classify with the pack's permutation approach in place of calls_match; the labels
   must be the same.
2. calls_match for 2 to 12 parallel calls with one wrong (so every pairing must be ruled
   out), against trying every order of the gold calls; the permutation approach is stopped
   at 10 s and not run for larger n. The growth columns divide each time by the one for n - 1.

Target (docs/developing.md's claim): matching at least 100x faster than permutations at n = 10.
Exits 1 when it is missed or when the two classifiers disagree on a label.

    python benchmarks/bench_scoring.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections import Counter
from unittest import mock

import common  # also puts the repository on sys.path
from common import median, table, timed, verdict

from toolkit import scoring
from toolkit.lessons.mock_callers import MockCaller, NameInventor, OverEagerCaller, ValueDropper
from toolkit.scoring import call_matches, calls_match, classify, format_calls, load_bfcl, parse_calls

SEED = 0
NAIVE_CAP_S = 10.0


class Stopped(Exception):
    """The permutation approach ran past its time cap."""


def permutation_match(preds, golds, schemas=None, deadline: float = float("inf")) -> bool:
    """The pack's approach: try every order of the gold calls until one fits call by call.
    ``schemas`` as in calls_match (values checked against their declared types)."""
    preds, golds, schemas = list(preds), list(golds), schemas or {}
    if len(preds) != len(golds):
        return False
    for count, order in enumerate(itertools.permutations(golds)):
        if count % 4096 == 0 and time.perf_counter() > deadline:
            raise Stopped
        if all(call_matches(p, g, schemas.get(g["name"])) for p, g in zip(preds, order)):
            return True
    return False


def nudge(value):
    """A value that no longer fits: numbers move by one, text gains letters, bools flip."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "zz"
    if isinstance(value, list):
        return value + ["zz"]
    if isinstance(value, dict):
        return {**value, "zz": 1}
    return "zz"


def replies(case, rng: random.Random) -> list[str]:
    """The generated replies for one case (see the module docstring)."""
    right = MockCaller(slip=0.0, seed=SEED).answer(case)
    out = [right] + [cls(slip=1.0, seed=SEED).answer(case) for cls in (NameInventor, ValueDropper, OverEagerCaller)]
    out.append(right[: len(right) // 2])
    calls = parse_calls(right) if right.strip() else []
    if calls:
        shuffled = calls[:]
        rng.shuffle(shuffled)
        out.append(format_calls(shuffled))
        i = rng.randrange(len(calls))
        name, kwargs = calls[i]
        if kwargs:
            key = rng.choice(sorted(kwargs))
            changed = [(n, dict(kw)) for n, kw in calls]
            changed[i][1][key] = nudge(kwargs[key])
            out.append(format_calls(changed))
    return out


def bench_classify(repeat: int) -> bool:
    rng = random.Random(SEED)
    work = [(case, reply) for case in load_bfcl() for reply in replies(case, rng)]
    labels = [classify(c, r) for c, r in work]

    def run():
        return [classify(c, r) for c, r in work]

    fast, slow = [], []
    with mock.patch.object(scoring, "calls_match", permutation_match):
        naive_labels = run()
    for _ in range(repeat):  # alternate the two, so load on the machine hits both alike
        fast.append(timed(run)[0])
        with mock.patch.object(scoring, "calls_match", permutation_match):
            slow.append(timed(run)[0])
    same = naive_labels == labels
    n = len(work)
    print(f"\nclassify: {n:,} replies to the 250 BFCL cases (median of {repeat} runs)")
    table(
        ["matcher inside classify", "replies / s", "median s", "time / toolkit's"],
        [
            ["one-to-one matching (toolkit)", f"{n / median(fast):,.0f}", f"{median(fast):.3f}", "1.00x"],
            [
                "every order (pack)",
                f"{n / median(slow):,.0f}",
                f"{median(slow):.3f}",
                f"{median(slow) / median(fast):.2f}x",
            ],
        ],
    )
    print(
        "labels: "
        + ", ".join(f"{k} {v}" for k, v in Counter(labels).most_common())
        + f"; the same from both matchers: {'yes' if same else 'NO'}"
    )
    print("BFCL's parallel cases have at most 6 calls, so the order of the search hardly matters here; it does below.")
    return same


def parallel_case(n: int):
    golds = [{"name": "get_weather", "args": {"city": [f"City{i}"], "unit": ["celsius", ""]}} for i in range(n)]
    preds = [("get_weather", {"city": f"city{i}"}) for i in range(n)]
    preds[-1] = ("get_weather", {"city": "Nowhere"})  # one wrong: every pairing must be ruled out
    return preds, golds


def naive_time(preds, golds) -> float:
    """Seconds for the permutation approach: one run, or the median of 21 when a run is short."""
    runs = []
    while len(runs) < 21 and (not runs or runs[0] < 0.05):
        start = time.perf_counter()
        answer = permutation_match(preds, golds, deadline=start + NAIVE_CAP_S)
        runs.append(time.perf_counter() - start)
        assert answer is False
    return median(runs)


def bench_growth(sizes) -> float | None:
    print(
        f"\ncalls_match: n parallel calls, one wrong (matching: median of 101 runs; permutations: "
        f"median of 21 runs below 50 ms, else one run, stopped at {NAIVE_CAP_S:.0f} s)"
    )
    rows, ratio_at_10 = [], None
    prev_fast = prev_slow = None
    stopped = False
    for n in sizes:
        preds, golds = parallel_case(n)
        fast = median([timed(calls_match, preds, golds)[0] for _ in range(101)])
        assert calls_match(preds, golds) is False
        slow_text = growth_slow = ratio = "not run"
        slow = None
        if not stopped:
            try:
                slow = naive_time(preds, golds)
                slow_text, ratio = f"{slow * 1e3:,.2f}", f"{slow / fast:,.0f}x"
                growth_slow = f"{slow / prev_slow:.1f}x" if prev_slow else ""
            except Stopped:
                stopped = True
                slow_text, ratio = f">{NAIVE_CAP_S * 1e3:,.0f} (stopped)", f">{NAIVE_CAP_S / fast:,.0f}x"
                growth_slow = ""
                if n == 10:
                    ratio_at_10 = NAIVE_CAP_S / fast
        if n == 10 and slow is not None:
            ratio_at_10 = slow / fast
        growth_fast = f"{fast / prev_fast:.1f}x" if prev_fast else ""
        rows.append([n, f"{fast * 1e3:.3f}", growth_fast, slow_text, growth_slow, ratio])
        prev_fast, prev_slow = fast, slow
    table(["n", "matching ms", "growth", "permutations ms", "growth", "ratio"], rows)
    return ratio_at_10


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of classify over all replies")
    args = parser.parse_args(argv)
    print(f"Call scoring, {common.machine()}")
    same = bench_classify(args.repeat)
    r10 = bench_growth(range(2, 13))
    return verdict(
        [
            ("classify gives the same label with either matcher on every reply", same),
            (
                f"matching >= 100x faster than permutations at n = 10: "
                f"{'at least ' if r10 and r10 >= NAIVE_CAP_S else ''}{r10 or 0:,.0f}x",
                bool(r10 and r10 >= 100),
            ),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
