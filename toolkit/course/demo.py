"""``python -m toolkit demo``: the lab's eight demo sections, end to end, in a few seconds.

Each section runs real code from the package against mock models and prints what came out;
nothing printed here is typed in by hand.
"""

from __future__ import annotations

import json

from ..lessons.catalog import CATALOG_QUERIES, make_catalog
from ..lessons.injection import injection_demo
from ..lessons.retail import RETAIL_TASKS, run_retail_trials
from ..lessons.toy_tools import get_weather, make_weather_registry
from ..loop import ScriptedModel, call, run_agent
from ..mcp import InMemoryTransport, MCPClient, MCPError, MCPServer
from ..reliability import pass_at_k, pass_hat_k
from ..schema import repair_args, schema_from_function, validate_args
from ..scoring import BFCL_CASES, BFCL_OUTPUTS, FUNCS, calls_match, evaluate_calls, exact_string_match, parse_calls
from ..selection import ToolIndex, schema_size_estimate, selection_recall

__all__ = ["main"]


def _banner(text: str) -> None:
    print(f"== {text} ==")


def section_schema() -> None:
    _banner("1. a tool schema built from type hints and a docstring")
    print(json.dumps(schema_from_function(get_weather), indent=1))


def section_validation() -> None:
    _banner("2. validation and repair")
    schema = schema_from_function(get_weather)["inputSchema"]
    for args in ({"city": "Paris", "unit": "Celsius"}, {"town": "Paris"}, {"city": 5}):
        print(f"{args} -> {validate_args(args, schema)} | repaired: {repair_args(args, schema)}")


def _count_reply(messages: list) -> dict:
    tool_msgs = [m for m in messages if m["role"] == "tool"]
    bad = sum(1 for m in tool_msgs if m["is_error"])
    return {"content": f"I got {len(tool_msgs) - bad} good results and {bad} errors."}


def section_loop() -> None:
    _banner("3. the loop: parallel calls, a flaky tool, a slow tool, a step limit")
    registry = make_weather_registry()
    model = ScriptedModel(
        [
            {
                "tool_calls": [
                    call("c1", "get_weather", city="Paris"),
                    call("c2", "get_weather", city="Rome", unit="Fahrenheit"),
                    call("c3", "flaky_rate", currency="EUR"),
                    call("c4", "slow_lookup", key="1999 rates"),
                    call("c5", "get_wether", city="Oslo"),
                ]
            },
            _count_reply,
        ]
    )
    result = run_agent(
        model, registry, "Weather in Paris and Rome, the EUR rate, and the 1999 archive.", call_timeout=0.1
    )
    for m in result.messages:
        if m["role"] == "tool":
            print(f"  [{m['name']}] error={m['is_error']}: {m['content'][:95]}")
    print(f"  events: {result.events}")
    print(f"  final: {result.final} | steps: {result.steps} | calls: {result.calls}")
    runaway = ScriptedModel([{"tool_calls": [call(f"r{i}", "get_weather", city="Paris")]} for i in range(10)])
    stuck = run_agent(runaway, registry, "Keep checking the weather.", max_steps=3)
    print(f"  runaway model -> {stuck.stop_reason} after {stuck.steps} steps")


def section_mcp() -> None:
    _banner("4. an MCP session (in memory), message by message")
    transport = InMemoryTransport(MCPServer(make_weather_registry()))
    client = MCPClient(transport)
    client.initialize()
    names = [t["name"] for t in client.list_tools()]
    result = client.call_tool("get_weather", {"city": "Paris"})
    try:
        client.call_tool("get_weather", {"city": 5})
    except MCPError as exc:
        print(f"  protocol error: {exc}")
    for arrow, msg in transport.log[:6]:
        print(f"  {arrow} {json.dumps(msg)[:150]}")
    print(f"  tools: {names} | result: {result['content'][0]['text']} | isError: {result['isError']}")


def section_selection() -> None:
    _banner("5. picking tools out of a catalog of 48")
    tools = make_catalog()
    index = ToolIndex(tools)
    for k in (1, 3, 5):
        print(f"  tool recall@{k}: {selection_recall(index, CATALOG_QUERIES, k):.2f}")
    query = CATALOG_QUERIES[0][0]
    top = {name for name, _ in index.search(query, 5)}
    print(
        f"  schema size, all {len(tools)} tools: {schema_size_estimate(tools)} tokens (rough); "
        f"top 5 only: {schema_size_estimate([t for t in tools if t.name in top])}"
    )
    print(f"  {query!r} -> {index.search(query, 3)}")


def section_scoring() -> None:
    _banner("6. BFCL-style scoring")
    report = evaluate_calls(BFCL_CASES, BFCL_OUTPUTS, FUNCS)
    by_cat = {c: round(v, 3) for c, v in report["by_category"].items()}
    print(f"  overall: {report['overall']:.3f} | by category: {by_cat}")
    print(f"  failures: {report['failures']}")
    gold = [{"name": "add", "args": {"a": [2], "b": [3]}}]
    pred, text = "add(a=2,b=3)", "add(a=2, b=3)"
    print(
        f"  exact string match of {pred!r} vs {text!r}: {exact_string_match(pred, text)} | "
        f"AST match: {calls_match(parse_calls(pred), gold)}"
    )


def section_reliability() -> None:
    n = 8
    _banner(f"7. tau-bench-style pass^k over repeated runs ({n} trials x {len(RETAIL_TASKS)} tasks)")
    successes = run_retail_trials(n=n, seed=0)
    print(f"  successes per task out of {n}: {successes}")
    for k in (1, 2, 4, 8):
        print(f"  k={k}: pass^k={pass_hat_k(successes, n, k):.3f}   pass@k={pass_at_k(successes, n, k):.3f}")


def section_injection() -> None:
    _banner("8. prompt injection in a tool output")
    for defended in (False, True):
        result, sent, gate = injection_demo(defended)
        print(f"  defended={defended}: emails sent = {sent}")
        if gate is not None:
            print(f"   gate log: {gate.log}")
            print(f"   events: {result.events}")
        print(f"   final: {result.final}")


SECTIONS = [
    section_schema,
    section_validation,
    section_loop,
    section_mcp,
    section_selection,
    section_scoring,
    section_reliability,
    section_injection,
]


def main() -> None:
    """Print every section of the demo, one after another.

    Used by: python -m toolkit demo.
    """
    for i, section in enumerate(SECTIONS):
        if i:
            print()
        section()
