"""How long does each live view take to follow a control? (DESIGN.md: "well under 100 ms")

For each view and control: set the control's value, which runs the view's redraw (computation,
drawing and PNG encoding) before the assignment returns, exactly as a slider release does in a
kernel; time it; repeat with fresh values. Caches are cleared before every update, so each
number includes the full computation, not a cache hit (the one exception, the pass^k
explorer's bounded plan memo, is also measured cold: ``.cold``). Prints one ``name median_ms`` line per
measurement and exits with status 1 if any median reaches the budget.

    python benchmarks/widget_latency.py [--repeat 15] [--budget 100]

Not part of the test gate (timings depend on the machine); run it on the classroom machine
before a lecture.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import toolkit as T  # noqa: E402
from toolkit.widgets import gate_view, passk, quiz_view, recall, scoring  # noqa: E402
from toolkit.widgets.transcript_view import transcript_html, wire_html  # noqa: E402


def clear_caches(cold: bool = False) -> None:
    """Forget every cached result. The pass^k explorer's plan memo (each distinct plan of the
    mock agent run once, see toolkit.lessons.retail.retail_outcomes) is kept unless ``cold``: it is
    bounded and fills within the first few redraws of a session."""
    if cold:
        passk._PLAN_MEMO.clear()
    passk._mock_outcomes.cache_clear()
    recall._index.cache_clear()
    recall._catalog.cache_clear()
    scoring._score_one.cache_clear()


def time_updates(view, control, values, repeat: int, cold: bool = False) -> list[float]:
    """Milliseconds per update; each update must succeed and redraw."""
    times = []
    for value in itertools.islice(itertools.cycle(values), repeat):
        if control.value == value:  # setting an equal value fires nothing; step away first
            continue
        clear_caches(cold)
        before = view.redraws
        start = time.perf_counter()
        control.value = value
        times.append((time.perf_counter() - start) * 1000)
        if view.message or view.redraws != before + 1:
            raise SystemExit(f"{view.name}: the update to {value!r} did not redraw ({view.message})")
    return times


def time_calls(fn, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def steps(lo: float, hi: float, n: int) -> list[float]:
    return [round(lo + (hi - lo) * i / (n - 1), 2) for i in range(n)]


def measurements(repeat: int):
    """(name, list of milliseconds) for every view and control that redraws."""
    pk = passk.passk_explorer(trials=32)  # the brief's worst case: 32 trials × 5 tasks
    yield "passk.p_skip_check@32x5", time_updates(pk, pk.p_skip_check, steps(0, 1, 21), repeat)
    yield "passk.p_skip_check@32x5.cold", time_updates(pk, pk.p_skip_check, steps(0, 1, 21), repeat, cold=True)
    yield "passk.p_typo@32x5", time_updates(pk, pk.p_typo, steps(0, 0.3, 31), repeat)
    yield "passk.policy_in_tool@32x5", time_updates(pk, pk.policy_in_tool, [True, False], repeat)
    yield "passk.seed@32x5", time_updates(pk, pk.seed, list(range(1, 40)), repeat)
    yield "passk.trials", time_updates(pk, pk.trials, list(range(32, 0, -1)), repeat)
    yield "passk.source", time_updates(pk, pk.source, [passk.SOURCE_TAU, passk.SOURCE_MOCK], repeat)

    rc = recall.recall_explorer()
    yield "recall.k1", time_updates(rc, rc.k1, steps(0.1, 3.0, 30), repeat)
    yield "recall.b", time_updates(rc, rc.b, steps(0, 1, 21), repeat)
    yield "recall.k", time_updates(rc, rc.k, list(range(1, 11)), repeat)
    yield (
        "recall.synonyms",
        time_updates(rc, rc.synonyms, [f"look up => find\nphrase{i} => word{i}" for i in range(50)], repeat),
    )
    base = recall.default_query_text()
    yield (
        "recall.queries",
        time_updates(
            rc, rc.queries, [base + f"\nFind hotel rooms in city {i} => hotels_search" for i in range(50)], repeat
        ),
    )
    yield (
        "recall.descriptions",
        time_updates(
            rc, rc.descriptions, [f"flights_search: Look up airline flights, version {i}." for i in range(50)], repeat
        ),
    )

    sp = scoring.scoring_panel()
    yield "scoring.invents_slip", time_updates(sp, sp.invents, steps(0, 1, 21), repeat)
    yield "scoring.drops_slip", time_updates(sp, sp.drops, steps(0, 1, 21), repeat)
    yield "scoring.eager_slip", time_updates(sp, sp.eager, steps(0, 1, 21), repeat)
    yield "scoring.seed", time_updates(sp, sp.seed, list(range(1, 40)), repeat)
    yield "scoring.case_set", time_updates(sp, sp.case_set, list(scoring.CASE_SETS), repeat)

    gv = gate_view.gate_playground()
    yield "gate.taint", time_updates(gv, gv.taint, [False, True], repeat)
    yield "gate.confirm", time_updates(gv, gv.confirm, list(gate_view.CONFIRM_ANSWERS), repeat)
    yield "gate.scenario", time_updates(gv, gv.scenario, [gate_view.URL, gate_view.EMAIL], repeat)

    qz = quiz_view.quiz()
    yield "quiz.answer", time_updates(qz, qz.choices[0], [0, 1, 2, 3], repeat)
    yield "quiz.check", time_calls(qz.check.click, repeat)

    result, _, _ = T.injection_demo(True)
    yield "transcript.render", time_calls(lambda: transcript_html(result), repeat)
    from toolkit.lessons.toy_tools import make_server_registry

    transport = T.InMemoryTransport(T.MCPServer(make_server_registry()))
    client = T.MCPClient(transport)
    client.initialize()
    client.list_tools()
    client.call_tool("add", {"a": 1, "b": 2})
    yield "wire.render", time_calls(lambda: wire_html(transport.log), repeat)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="updates per control (default 15)")
    parser.add_argument("--budget", type=float, default=100.0, help="median budget in ms (default 100)")
    args = parser.parse_args(argv)
    slow = []
    for name, times in measurements(args.repeat):
        median = statistics.median(times)
        print(f"{name} {median:.1f}", flush=True)
        if median >= args.budget:
            slow.append(name)
    if hasattr(os, "getloadavg"):  # other work on the machine inflates wall-clock times
        print(f"(load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)", file=sys.stderr)
    if slow:
        print(f"over the {args.budget:g} ms budget: {', '.join(slow)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
