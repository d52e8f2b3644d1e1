"""The harness loop: parallel calls, timeouts, retries, step limits (pack §2.2, §2.8)."""

import threading
import time

import toolkit as T
from toolkit.lessons.toy_tools import make_weather_registry


def tool_msgs(res):
    return [m for m in res.messages if m["role"] == "tool"]


def sleepy_registry(seconds=0.2, spans=None, meet=None):
    """Four tools that sleep ``seconds``; each appends its own (start, end) to ``spans``. With a
    ``meet`` barrier each waits there first, so a call ends only once all four have started."""
    reg = T.ToolRegistry()
    spans = [] if spans is None else spans

    def nap(x: int) -> str:
        """Sleep, then answer."""
        start = time.perf_counter()
        if meet is not None:
            meet.wait(timeout=60)  # a guard only: run one by one, the first call would wait here, then fail
        time.sleep(seconds)
        spans.append((start, time.perf_counter()))
        return f"done {x}"

    for i in range(4):
        reg.add(nap, name=f"nap{i}")
    return reg


def four_calls():
    return T.ScriptedModel([{"tool_calls": [T.call(f"c{i}", f"nap{i}", x=i) for i in range(4)]}, {"content": "ok"}])


def test_parallel_calls_overlap_in_time():
    """Pack §2.8, the authors' own arithmetic: 4 × 0.2 s is ~0.2 s together, ~0.8 s in a row.
    Judged from the spans the calls recorded, not from a stopwatch: together, every call starts
    before any call ends (they meet at a barrier, so however late a thread starts, the others
    wait for it); in a row, each starts after the one before it ended."""
    together, one_by_one = [], []
    meet = threading.Barrier(4)
    res = T.run_agent(four_calls(), sleepy_registry(spans=together, meet=meet), "go", parallel=True, call_timeout=None)
    T.run_agent(four_calls(), sleepy_registry(spans=one_by_one), "go", parallel=False)
    assert res.final == "ok" and not meet.broken
    assert len(together) == len(one_by_one) == 4
    assert max(start for start, _ in together) < min(end for _, end in together), together
    in_order = sorted(one_by_one)
    assert all(prev_end <= start for (_, prev_end), (start, _) in zip(in_order, in_order[1:])), one_by_one
    # answers come back in call order whatever order they finished in
    assert [m["tool_call_id"] for m in res.messages if m["role"] == "tool"] == ["c0", "c1", "c2", "c3"]


def test_message_shape_follows_the_openai_style():
    reg = make_weather_registry()
    res = T.run_agent(
        T.ScriptedModel([{"tool_calls": [T.call("c1", "get_weather", city="Paris")]}, {"content": "21 degrees"}]),
        reg,
        "weather?",
        system="be brief",
    )
    roles = [m["role"] for m in res.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert res.messages[2]["tool_calls"] == [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]
    assert res.messages[3] == {
        "role": "tool",
        "tool_call_id": "c1",
        "name": "get_weather",
        "content": '{"city": "Paris", "temp": 21, "unit": "celsius"}',
        "is_error": False,
    }
    assert (res.final, res.steps, res.calls, res.stop_reason) == ("21 degrees", 2, 1, "final")


def test_one_failure_does_not_stop_the_other_calls():
    reg = make_weather_registry()
    model = T.ScriptedModel([{"tool_calls": [T.call("a", "nope"), T.call("b", "get_weather", city="Oslo")]}])
    res = T.run_agent(model, reg, "x")
    tool_msgs = [m for m in res.messages if m["role"] == "tool"]
    assert [m["is_error"] for m in tool_msgs] == [True, False]
    assert res.final == "(script ended)"


def test_timeout_gives_kind_timeout_and_the_message():
    reg = make_weather_registry(slow_seconds=1.0)
    waits = []
    model = T.ScriptedModel([{"tool_calls": [T.call("s", "slow_lookup", key="k")]}])
    res = T.run_agent(model, reg, "x", call_timeout=0.1, max_retries=0, sleep=waits.append)
    kind = res.results[0][1].kind
    assert kind == "timeout"
    assert tool_msgs(res)[0]["content"] == "Tool 'slow_lookup' timed out after 0.1 s."


def test_transient_errors_are_retried_with_doubling_waits_then_given_up():
    reg = T.ToolRegistry()
    attempts = []

    def rate(code: str) -> str:
        """Always busy."""
        attempts.append(code)
        raise T.TransientToolError("Busy.")

    reg.add(rate)
    waits = []
    model = T.ScriptedModel([{"tool_calls": [T.call("r", "rate", code="EUR")]}])
    res = T.run_agent(model, reg, "x", max_retries=3, sleep=waits.append)
    assert len(attempts) == 4
    assert waits == [0.1, 0.2, 0.4]
    assert res.events == [f"retry {i}/3 for rate (transient)" for i in (1, 2, 3)]
    assert tool_msgs(res)[0]["content"] == "Busy. Gave up after 4 tries."


def test_a_tool_that_fails_five_times_then_works_needs_five_retries():
    """Exercise 4 in miniature: 0 and 2 retries give up, 5 retries succeed."""

    def run(max_retries):
        reg = T.ToolRegistry()
        count = {"n": 0}

        def flaky(x: int) -> str:
            """Fails five times, then works."""
            count["n"] += 1
            if count["n"] <= 5:
                raise T.TransientToolError("Not yet.")
            return "finally"

        reg.add(flaky)
        res = T.run_agent(
            T.ScriptedModel([{"tool_calls": [T.call("f", "flaky", x=1)]}]),
            reg,
            "x",
            max_retries=max_retries,
            sleep=lambda s: None,
        )
        return tool_msgs(res)[0]["content"], count["n"]

    assert run(0) == ("Not yet.", 1)
    assert run(2) == ("Not yet. Gave up after 3 tries.", 3)
    assert run(5) == ("finally", 6)


def test_timed_out_read_only_tool_is_retried_but_a_state_changing_one_is_not():
    def build(read_only):
        reg = T.ToolRegistry()
        runs = []

        def charge(amount: int) -> str:
            """Charge a card (slowly)."""
            runs.append(amount)
            time.sleep(0.3)
            return "charged"

        reg.add(charge, read_only=read_only)
        return reg, runs

    reg, runs = build(read_only=True)

    def charge_once(reg):
        model = T.ScriptedModel([{"tool_calls": [T.call("c", "charge", amount=5)]}])
        return T.run_agent(model, reg, "x", call_timeout=0.05, max_retries=2, sleep=lambda s: None)

    res = charge_once(reg)
    assert res.events == ["retry 1/2 for charge (timeout)", "retry 2/2 for charge (timeout)"]
    assert tool_msgs(res)[0]["content"].endswith(" Gave up after 3 tries.")

    reg, runs = build(read_only=False)
    res = charge_once(reg)
    assert not any(e.startswith("retry") for e in res.events)
    assert tool_msgs(res)[0]["content"] == "Tool 'charge' timed out after 0.05 s."
    assert runs == [5]  # started once, never again


def test_step_limit_stops_a_runaway_model():
    reg = make_weather_registry()
    forever = T.ScriptedModel([{"tool_calls": [T.call(f"c{i}", "get_weather", city="Paris")]} for i in range(50)])
    res = T.run_agent(forever, reg, "x", max_steps=3)
    assert (res.final, res.stop_reason, res.steps, res.calls) == (None, "max_steps", 3, 3)
    assert res.events[-1] == "stopped: reached max_steps=3"


def test_repairs_are_recorded_as_events():
    reg = make_weather_registry()
    model = T.ScriptedModel([{"tool_calls": [T.call("c", "get_weather", city="Rome", unit="Fahrenheit")]}])
    res = T.run_agent(model, reg, "x")
    assert res.events == [
        "repaired get_weather: unit: fixed case of 'Fahrenheit' to 'fahrenheit'",
        'repaired get_weather arguments: {"city": "Rome", "unit": "fahrenheit"} '
        '(the model sent {"city": "Rome", "unit": "Fahrenheit"})',
    ]
    assert '"temp": 70' in tool_msgs(res)[0]["content"]


def test_scripted_model_steps_can_be_functions_and_the_script_ends_politely():
    seen = []

    def step(messages):
        seen.append(len(messages))
        return {"content": f"saw {len(messages)} messages"}

    m = T.ScriptedModel([step])
    assert m.respond([{"role": "user", "content": "hi"}], []) == {"content": "saw 1 messages"}
    assert m.respond([], []) == {"content": "(script ended)"}
    assert T.call("id1", "f", a=1, b="x") == {"id": "id1", "name": "f", "arguments": {"a": 1, "b": "x"}}


def test_arguments_sent_as_a_json_string_are_decoded():
    reg = make_weather_registry()
    model = T.ScriptedModel([{"tool_calls": [{"id": "c", "name": "get_weather", "arguments": '{"city": "Oslo"}'}]}])
    res = T.run_agent(model, reg, "x")
    assert tool_msgs(res)[0]["is_error"] is False and '"Oslo"' in tool_msgs(res)[0]["content"]


def test_wrap_outputs_wraps_successful_content_only():
    reg = make_weather_registry()
    model = T.ScriptedModel([{"tool_calls": [T.call("a", "get_weather", city="Oslo"), T.call("b", "nope")]}])
    res = T.run_agent(model, reg, "x", wrap_outputs=True)
    ok, bad = [m for m in res.messages if m["role"] == "tool"]
    assert ok["content"].startswith('<tool_output trust="untrusted">\n') and ok["content"].endswith("\n</tool_output>")
    assert bad["content"].startswith("Unknown tool")


def test_hung_tool_does_not_keep_the_loop_waiting():
    """The loop returns while the tool is still hanging: an order of events, not a stopwatch.
    A harness that waited for the tool would see it give up after 5 s and set ``finished``."""
    gate, finished = threading.Event(), threading.Event()
    reg = T.ToolRegistry()

    def hang(x: int) -> str:
        """Never returns until told."""
        gate.wait(5)
        finished.set()
        return "late"

    reg.add(hang)
    res = T.run_agent(
        T.ScriptedModel([{"tool_calls": [T.call("h", "hang", x=1)]}]), reg, "x", call_timeout=0.1, max_retries=0
    )
    still_hanging = not finished.is_set()
    gate.set()
    assert still_hanging, "run_agent waited for the hung tool instead of timing it out"
    assert res.results[0][1].kind == "timeout"


def test_result_cap_truncates_with_a_visible_marker():
    reg = T.ToolRegistry()

    def dump(n: int) -> str:
        """A big result."""
        return "x" * n

    reg.add(dump)
    model = T.ScriptedModel([{"tool_calls": [T.call("a", "dump", n=50), T.call("b", "dump", n=5)]}])
    res = T.run_agent(model, reg, "x", max_result_chars=10)
    big, small = tool_msgs(res)
    assert big["content"] == "x" * 10 + " [truncated 40 characters]"
    assert small["content"] == "xxxxx"
    assert res.events == ["truncated dump: 40 characters cut"]


# ---- issue 11, point 4: the gate sees exactly the call that runs ---------------------------------


class RefundCapGate(T.PermissionGate):
    """Reads arguments: refunds over 100 need a person. Records every call it is shown."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.shown = []

    def check(self, call, tool):
        self.shown.append(call)
        amount = call["arguments"].get("amount", 0) if isinstance(call["arguments"], dict) else 0
        if isinstance(amount, (int, float)) and amount > 100:
            self.log.append(("deny", call["name"], "over 100"))
            return False, "over 100"
        return super().check(call, tool)


def refund_registry():
    reg = T.ToolRegistry()
    paid = []

    def refund(order_id: str, amount: int) -> str:
        """Refund part of an order."""
        paid.append((order_id, amount))
        return f"refunded {amount}"

    reg.add(refund, read_only=False)
    return reg, paid


SLIPS = {
    "key in another case": {"order_id": "A1", "Amount": 150},
    "misspelt key": {"order_id": "A1", "amuont": 150},
    "number as a string": {"order_id": "A1", "amount": "150"},
    "arguments as a JSON string": '{"order_id": "A1", "amount": 150}',
    "all at once": '{"order_id": "A1", "AMOUNT": "150"}',
}


def test_a_gate_that_reads_arguments_sees_the_repaired_call():
    for label, args in SLIPS.items():
        reg, paid = refund_registry()
        gate = RefundCapGate(pre_approved={"refund"})
        model = T.ScriptedModel([{"tool_calls": [{"id": "r1", "name": "refund", "arguments": args}]}])
        res = T.run_agent(model, reg, "refund", gate=gate)
        assert paid == [], label
        assert gate.shown == [{"id": "r1", "name": "refund", "arguments": {"order_id": "A1", "amount": 150}}], label
        assert res.results[0][1].kind == "blocked", label
        # the conversation keeps what the model sent
        assert res.messages[1]["tool_calls"][0]["arguments"] == args, label
        assert res.results[0][0]["arguments"] == args, label


def test_the_tool_runs_exactly_what_the_gate_allowed_and_both_are_logged():
    reg, paid = refund_registry()
    gate = RefundCapGate(pre_approved={"refund"})
    model = T.ScriptedModel([{"tool_calls": [T.call("r1", "refund", order_id="A1", Amount="40")]}])
    res = T.run_agent(model, reg, "refund", gate=gate)
    assert paid == [("A1", 40)]
    assert gate.shown[0]["arguments"] == {"order_id": "A1", "amount": 40}
    assert res.results[0][1].notes == ["renamed parameter 'Amount' to 'amount'", "amount: converted '40' to integer"]
    assert res.events == [
        "repaired refund: renamed parameter 'Amount' to 'amount'; amount: converted '40' to integer",
        'repaired refund arguments: {"order_id": "A1", "amount": 40} '
        '(the model sent {"order_id": "A1", "Amount": "40"})',
    ]


def test_a_call_that_fails_validation_is_answered_and_never_reaches_the_gate_or_the_tool():
    reg, paid = refund_registry()
    gate = RefundCapGate(confirm=lambda c: True)  # a gate that would allow anything
    model = T.ScriptedModel(
        [
            {
                "tool_calls": [
                    T.call("r1", "refund", order_id="A1", amount="lots"),
                    T.call("r2", "refund", order_id="A1"),
                    T.call("r3", "refnud", order_id="A1", amount=5),
                    {"id": "r4", "name": "refund", "arguments": "{not json"},
                ]
            }
        ]
    )
    res = T.run_agent(model, reg, "refund", gate=gate)
    assert paid == [] and gate.shown == [] and gate.log == []
    assert [r.kind for _, r in res.results] == ["invalid_args", "invalid_args", "unknown_tool", "invalid_args"]
    assert "amount: expected integer, got string ('lots')" in res.results[0][1].content


# ---- issue 11, point 8: nothing from the registry escapes into the loop --------------------------


def test_a_result_too_long_to_print_is_not_reported_as_a_timeout():
    reg = T.ToolRegistry()

    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    reg.add(add)
    huge = int("9" * 4300)
    for timeout in (2.0, None):
        res = T.run_agent(
            T.ScriptedModel([{"tool_calls": [T.call("a", "add", a=huge, b=huge)]}]),
            reg,
            "x",
            call_timeout=timeout,
            sleep=lambda s: None,
        )
        assert res.results[0][1].kind == "ok" and "4301 digits" in tool_msgs(res)[0]["content"]
        assert not any(e.startswith("retry") for e in res.events)


def test_an_exception_out_of_registry_run_becomes_a_crash_not_a_timeout():
    class BrokenRegistry(T.ToolRegistry):
        def run(self, name, args, repair=True):
            raise RuntimeError("the registry itself broke")

    reg = BrokenRegistry()

    def ping(x: int) -> str:
        """Ping."""
        return "pong"

    reg.add(ping)
    for timeout in (2.0, None):
        waits = []
        res = T.run_agent(
            T.ScriptedModel([{"tool_calls": [T.call("p", "ping", x=1)]}, {"content": "ok"}]),
            reg,
            "x",
            call_timeout=timeout,
            sleep=waits.append,
        )
        result = res.results[0][1]
        assert result.kind == "crash" and "RuntimeError" in result.content, result
        assert waits == [] and res.final == "ok"


# ---- issue 21: reasoning models in the loop ------------------------------------------------------


def test_reasoning_blocks_ride_along_unmodified_in_the_assistant_messages():
    """Opaque thinking blocks (an Anthropic-style signed block here) must go back as they came."""
    thinking = [{"type": "thinking", "thinking": "Need the weather first.", "signature": "c2lnbmVk"}]
    closing = [{"type": "redacted_thinking", "data": "b3BhcXVl"}]
    model = T.ScriptedModel(
        [
            {"tool_calls": [T.call("c1", "get_weather", city="Paris")], "reasoning": thinking},
            {"content": "21 degrees", "reasoning": closing},
        ]
    )
    res = T.run_agent(model, make_weather_registry(), "weather?")
    turn, final = [m for m in res.messages if m["role"] == "assistant"]
    assert turn["reasoning"] is thinking and turn["reasoning"] == [
        {"type": "thinking", "thinking": "Need the weather first.", "signature": "c2lnbmVk"}
    ]
    assert final["reasoning"] is closing and final["content"] == "21 degrees"
    # a reply without reasoning gets no such key: the message shape stays as before
    plain = T.run_agent(T.ScriptedModel([{"content": "hi"}]), make_weather_registry(), "x")
    assert plain.messages[-1] == {"role": "assistant", "content": "hi"}
