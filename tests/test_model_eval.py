"""`python -m toolkit bfcl` and `passk`, and the notebooks' optional sections, against local fakes.

Each fake "model" answers from a plan written here: for every BFCL case it means to send a
known reply (right calls, wrong arguments, a missed call, malformed JSON, an invented name,
calls on an irrelevance case ...). The summary must equal what `classify` gives for exactly
those replies; every request must carry legal names and JSON Schema types; the first request's
429 must be retried; and a recognisable key must appear in no output and no file.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import toolkit as T
from tests.fakes.llm import NAME_PATTERN, FakeChatCompletions, FakeMessages, schema_type_problem
from toolkit.cli.model_eval import cli
from toolkit.lessons.model_eval import (
    NOT_CONFIGURED,
    notebook_bfcl,
    notebook_loop,
    notebook_passk,
    real_model_from_env,
    select_cases,
)
from toolkit.scoring import gold_calls

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-test-LEAKCANARY-123"
LIMIT = 3  # three cases of each category (15 in all) keeps `make test` fast
FAKES = {"openai": FakeChatCompletions, "anthropic": FakeMessages}


# --------------------------------------------------------------------------------------------
# what the fake model means to answer


def alias(name: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name)


def first_value(options):
    """A gold parameter's first acceptable value, BFCL's nested dict form resolved."""
    value = next(o for o in options if o != "")
    if isinstance(value, dict) and all(isinstance(v, list) for v in value.values()):
        return {k: first_value(v) for k, v in value.items() if any(o != "" for o in v)}
    return value


def gold_reply(case) -> list:
    calls = []
    for g in gold_calls(case):
        args = {p: first_value(opts) for p, opts in g["args"].items() if any(o != "" for o in opts)}
        calls.append((g["name"], args))
    return calls


def planned_intent(case, index: int, api: str) -> dict:
    """The reply the fake model means to send for a case, in BFCL's own names."""
    if not gold_calls(case):  # irrelevance: abstain, or call anyway
        if index % 2 == 0:
            return {"text": "None of these functions can answer that."}
        return {"text": None, "calls": [(case["function"][0]["name"], {})]}
    calls = gold_reply(case)
    kinds = ["right", "text_and_right", "wrong_argument", "missed", "malformed", "invented", "extra"]
    kind = kinds[index % len(kinds)]
    if kind == "malformed" and api == "anthropic":
        kind = "invented"  # Anthropic sends input as an object; it cannot be malformed JSON
    if kind == "right":
        return {"calls": calls}
    if kind == "text_and_right":
        return {"text": "Here you go.", "calls": calls}
    if kind == "wrong_argument":
        name, args = calls[0]
        key = next(iter(args), None)
        bent = dict(args)
        if key is not None:
            bent[key] = "not the value" if not isinstance(args[key], str) else args[key] + " (changed)"
        return {"calls": [(name, bent)] + calls[1:]}
    if kind == "missed":
        return {"text": "I would need more details."}
    if kind == "malformed":
        return {"calls": [(calls[0][0], '{"' + next(iter(calls[0][1]), "x") + '": ')] + calls[1:]}
    if kind == "invented":
        return {"calls": [("no_such_function", {"a": 1})]}
    return {"calls": calls + [calls[0]]}  # extra: one call too many


def intended_output(intent):
    """The scorer's input for that reply: the calls, or the text when there are none."""
    return list(intent["calls"]) if intent.get("calls") else (intent.get("text") or "")


def case_key(question, names) -> str:
    return json.dumps([question, sorted(alias(n) for n in names)])


class Plan:
    """A fake model's `respond`: finds the case from the request and sends its planned reply."""

    def __init__(self, cases, api):
        self.by_key = {}
        self.expected = {}
        for i, case in enumerate(cases):
            intent = planned_intent(case, i, api)
            key = case_key(case["question"][0], [f["name"] for f in case["function"]])
            assert key not in self.by_key
            self.by_key[key] = intent
            self.expected[case["id"]] = intended_output(intent)

    def __call__(self, body):
        if "system" in body or body["messages"][0].get("role") == "system":
            raise AssertionError("a BFCL case is sent as its question alone")
        tools = body.get("tools") or []
        names = [t["function"]["name"] if "function" in t else t["name"] for t in tools]
        intent = self.by_key[case_key(body["messages"], names)]
        wire = {alias(n): n for n in names}
        return {
            "text": intent.get("text"),
            "calls": [(alias(name) if alias(name) in wire else name, args) for name, args in intent.get("calls", [])],
        }


def tools_of(body, api):
    if api == "openai":
        return [(t["function"]["name"], t["function"]["parameters"]) for t in body.get("tools") or []]
    return [(t["name"], t["input_schema"]) for t in body.get("tools") or []]


# --------------------------------------------------------------------------------------------
# python -m toolkit bfcl, end to end


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_bfcl_command_scores_what_the_model_meant_and_keeps_the_key_secret(api, tmp_path):
    cases = select_cases(limit=LIMIT)
    plan = Plan(cases, api)
    out, summary_file = tmp_path / "replies.jsonl", tmp_path / "summary.json"
    with FAKES[api](plan, api_key=KEY, retry_after="0") as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLKIT_MODEL")}
        env["COURSE_TEST_KEY"] = KEY
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "toolkit",
                "bfcl",
                "--api",
                api,
                "--base-url",
                fake.base_url,
                "--model",
                "fake-model",
                "--api-key-env",
                "COURSE_TEST_KEY",
                "--limit",
                str(LIMIT),
                "--out",
                str(out),
                "--summary",
                str(summary_file),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        requests = list(fake.requests)
        answered = list(fake.answered)
    assert run.returncode == 0, run.stderr

    # the summary equals what classify gives for the replies the model meant to send
    summary = json.loads(summary_file.read_text())
    expected = T.evaluate_calls(cases, [plan.expected[c["id"]] for c in cases])
    assert summary == {"model": "fake-model", "cases": 5 * LIMIT, **expected}
    assert set(summary["by_category"]) == set(T.scoring.case_category(c) for c in cases)
    assert 0 < summary["overall"] < 1 and len(summary["failures"]) >= 4  # the plan has variety

    # every request carried legal names and JSON Schema types; the 429 was retried
    assert len(requests) == 5 * LIMIT + 1 and len(answered) == 5 * LIMIT
    for request in requests:
        for name, schema in tools_of(request["body"], api):
            assert NAME_PATTERN.match(name), name
            assert schema["type"] == "object" and schema_type_problem(schema) is None
    assert any("." in f["name"] for c in cases for f in c["function"])  # names needed an alias

    # --out: one raw reply per case, names mapped back to BFCL's
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in lines] == [c["id"] for c in cases]
    for record in lines:
        assert record["response"]["model"] == "fake-model"
        sent = plan.expected[record["id"]]
        if isinstance(sent, list):
            assert [c["name"] for c in record["reply"]["tool_calls"]] == [n for n, _ in sent]

    # the table and the progress bar; and the key is nowhere
    for cat in summary["by_category"]:
        assert cat in run.stdout
    assert "fake-model" in run.stdout and f"{5 * LIMIT}/{5 * LIMIT}" in run.stderr and "[####" in run.stderr
    for text in (run.stdout, run.stderr, out.read_text(), summary_file.read_text()):
        assert KEY not in text


def run_cli(argv, environ=None):
    """Run the command line in-process; ``argv`` is a list or one shell-quoted line."""
    argv = shlex.split(argv) if isinstance(argv, str) else argv
    stdout, stderr = io.StringIO(), io.StringIO()
    code = cli(argv, stdout=stdout, stderr=stderr, environ=environ or {})
    return code, stdout.getvalue(), stderr.getvalue()


def test_bfcl_questions_and_tools_go_out_as_the_case_has_them():
    cases = select_cases(["simple_python"], limit=2)
    with FakeChatCompletions(Plan(cases, "openai"), rate_limit_first=False) as fake:
        code, _, _ = run_cli(
            f"bfcl --api openai --base-url {fake.base_url} --model m --categories simple_python --limit 2"
        )
        bodies = [r["body"] for r in fake.requests]
    assert code == 0
    for case, body in zip(cases, bodies):
        assert body["messages"] == case["question"][0]
        assert [t["function"]["name"] for t in body["tools"]] == [alias(f["name"]) for f in case["function"]]


def test_a_case_the_endpoint_fails_is_counted_and_the_run_goes_on(tmp_path):
    cases = select_cases(["simple_python"], limit=3)
    plan = Plan(cases, "openai")
    bad_question = cases[1]["question"][0]

    def respond(body):
        if body["messages"] == bad_question:
            raise RuntimeError("this one breaks")  # the fake answers 500
        return plan(body)

    with FakeChatCompletions(respond, rate_limit_first=False) as fake:
        code, stdout, _ = run_cli(
            f"bfcl --api openai --base-url {fake.base_url} --model m --categories simple_python --limit 3 --max-retries 0 --summary {tmp_path / 's.json'}"
        )
    summary = json.loads((tmp_path / "s.json").read_text())
    assert code == 0 and summary["cases"] == 3 and summary["failures"].get("endpoint_error") == 1
    assert "endpoint_error 1" in stdout


def test_a_refused_key_stops_the_run_with_one_line_and_no_key(tmp_path):
    with FakeChatCompletions(api_key="another-key") as fake:
        code, stdout, stderr = run_cli(
            f"bfcl --api openai --base-url {fake.base_url} --model m --limit 5 --summary {tmp_path / 's.json'}",
            environ={"OPENAI_API_KEY": KEY},
        )
        assert len(fake.requests) == 1  # stopped at the first refusal
    assert code == 2 and "check the API key in $OPENAI_API_KEY" in stderr
    assert KEY not in stdout + stderr + (tmp_path / "s.json").read_text()
    partial = json.loads((tmp_path / "s.json").read_text())
    assert partial["partial"] is True and partial["cases"] == 0 and "check the API key" in partial["stopped"]


def test_bad_command_lines_say_what_is_wrong():
    code, _, stderr = run_cli("bfcl --api openai --base-url http://x/v1 --model m --categories simple,nope")
    assert code == 2 and "unknown BFCL categories" in stderr
    code, _, stderr = run_cli("bfcl --api openai --base-url localhost/v1 --model m")
    assert code == 2 and "http://" in stderr
    with pytest.raises(SystemExit):
        run_cli("bfcl --api gemini --base-url http://x/v1 --model m")


def test_limit_takes_the_first_n_cases_of_each_category():
    # as lm-evaluation-harness's --limit does per task: every category stays in the sample
    chosen = select_cases(limit=2)
    assert [c["id"] for c in chosen] == [
        c["id"]
        for cat in ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")
        for c in T.load_bfcl(cat)[:2]
    ]
    assert [c["id"] for c in select_cases(["irrelevance", "parallel"], limit=3)] == (
        [c["id"] for c in T.load_bfcl("irrelevance")[:3]] + [c["id"] for c in T.load_bfcl("parallel")[:3]]
    )
    assert len(select_cases(limit=1000)) == len(select_cases()) == 250


# --------------------------------------------------------------------------------------------
# python -m toolkit passk


ORDER = re.compile(r"\b[A-C]\d\b")


class RetailAgent:
    """A fake model for the retail world: careful on even trials of a task (look up, then cancel
    only pending orders), hasty on odd ones (cancel everything asked for at once)."""

    def __init__(self):
        self.trials: dict = {}

    def __call__(self, body):
        msgs = body["messages"]
        user = next(m for m in msgs if m["role"] == "user")
        instruction = user["content"] if isinstance(user["content"], str) else user["content"][0]["text"]
        orders = ORDER.findall(instruction)
        results = self.results(msgs)
        if not results:
            trial = self.trials.get(instruction, 0)
            self.trials[instruction] = trial + 1
            if trial % 2:
                return {"calls": [("cancel_order", {"order_id": o}) for o in orders]}
            return {"calls": [("get_order", {"order_id": o}) for o in orders]}
        pending = [r["order_id"] for r in results if r.get("status") == "pending"]
        if pending and not any(r.get("status") == "canceled" for r in results):
            return {"calls": [("cancel_order", {"order_id": o}) for o in pending]}
        return {"text": "Done."}

    @staticmethod
    def results(msgs):
        texts = [m["content"] for m in msgs if m.get("role") == "tool"]
        for m in msgs:
            if m["role"] == "user" and isinstance(m["content"], list):
                texts += [b["content"] for b in m["content"] if b.get("type") == "tool_result"]
        out = []
        for t in texts:
            try:
                out.append(json.loads(t))
            except ValueError:
                pass
        return out


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_passk_command_counts_each_task_and_computes_pass_hat_k(api, tmp_path):
    trials = 4
    with FAKES[api](RetailAgent(), api_key=KEY) as fake:
        code, stdout, stderr = run_cli(
            f"passk --api {api} --base-url {fake.base_url} --model fake-agent --trials {trials} --summary {tmp_path / 'p.json'}",
            environ={"OPENAI_API_KEY": KEY, "ANTHROPIC_API_KEY": KEY},
        )
    assert code == 0, stderr
    summary = json.loads((tmp_path / "p.json").read_text())
    # hasty trials break T1 (A2 is shipped) and T3 (C1 is delivered); T2's only order is pending
    counts = {"T1": 2, "T2": 4, "T3": 2}
    assert summary["tasks"] == counts and summary["trials"] == trials and summary["model"] == "fake-agent"
    for k in (1, 2, 4):
        assert summary["pass_hat_k"][str(k)] == pytest.approx(T.pass_hat_k(list(counts.values()), trials, k))
        assert summary["pass_at_k"][str(k)] == pytest.approx(T.pass_at_k(list(counts.values()), trials, k))
    assert set(summary["pass_hat_k"]) == {"1", "2", "4"}
    assert "T1 2/4" in stdout and "fake-agent" in stdout and "pass^k" in stdout
    assert KEY not in stdout + stderr + (tmp_path / "p.json").read_text()


# --------------------------------------------------------------------------------------------
# the notebooks' optional sections


def test_without_configuration_the_notebook_sections_print_one_fixed_line_and_send_nothing(capsys):
    for run in (notebook_loop, notebook_bfcl, notebook_passk):
        assert run(environ={}) is None
        assert capsys.readouterr().out == NOT_CONFIGURED + "\n"
    assert real_model_from_env({}) is None
    for var in ("TOOLKIT_MODEL_API", "TOOLKIT_MODEL_BASE_URL", "TOOLKIT_MODEL", "OPENAI_API_KEY"):
        assert var in NOT_CONFIGURED


def test_a_half_configuration_names_what_is_missing(capsys):
    assert notebook_bfcl(environ={"TOOLKIT_MODEL_API": "openai"}) is None
    out = capsys.readouterr().out
    assert "TOOLKIT_MODEL_BASE_URL" in out and "TOOLKIT_MODEL" in out and out.count("\n") == 1


def configured(fake, api, **extra):
    return {
        "TOOLKIT_MODEL_API": api,
        "TOOLKIT_MODEL_BASE_URL": fake.base_url,
        "TOOLKIT_MODEL": "fake-model",
        "TOOLKIT_MODEL_KEY_ENV": "UNI_KEY",
        "UNI_KEY": KEY,
        **extra,
    }


def test_the_bfcl_section_says_the_cost_first_and_labels_its_numbers(capsys):
    cases = select_cases(limit=1)
    plan = Plan(cases, "anthropic")
    with FakeMessages(plan, api_key=KEY) as fake:
        summary = notebook_bfcl(per_category=1, environ=configured(fake, "anthropic"))
    out = capsys.readouterr().out
    assert summary == {
        "model": "fake-model",
        "cases": 5,
        **T.evaluate_calls(cases, [plan.expected[c["id"]] for c in cases]),
    }
    first = out.splitlines()[0]
    assert "5 requests" in first and "tokens" in first  # the cost, before anything runs
    assert "measured" in out and "fake-model" in out.splitlines()[-1] and KEY not in out
    assert re.search(r"\[fake-model, \d{4}-\d\d-\d\d\]", out)


def test_the_loop_section_runs_the_weather_question(capsys):
    def respond(body):
        answered = any(m.get("role") == "tool" for m in body["messages"])
        return (
            {"text": "Paris is warmer."}
            if answered
            else {"calls": [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Oslo"})]}
        )

    with FakeChatCompletions(respond) as fake:
        result = notebook_loop(environ=configured(fake, "openai"))
    out = capsys.readouterr().out
    assert result.final == "Paris is warmer." and result.calls == 2
    assert "2 tool calls" in out and "[fake-model," in out and KEY not in out


def test_the_passk_section_and_an_endpoint_failure(capsys):
    with FakeChatCompletions(RetailAgent()) as fake:
        result = notebook_passk(trials=2, environ=configured(fake, "openai"))
    assert result["tasks"] == {"T1": 1, "T2": 2, "T3": 1}
    capsys.readouterr()
    with FakeChatCompletions(api_key="other") as fake:
        assert notebook_passk(trials=2, environ=configured(fake, "openai")) is None
    out = capsys.readouterr().out
    assert "check the API key in $UNI_KEY" in out and KEY not in out


# --------------------------------------------------------------------------------------------
# runs that stop early, settings from the environment (issue 24)


def test_a_bfcl_run_that_stops_early_still_writes_out_and_a_partial_summary(tmp_path):
    cases = select_cases(["simple_python"], limit=6)
    plan = Plan(cases, "openai")
    broken = [c["question"][0] for c in cases[2:]]

    def respond(body):
        if body["messages"] in broken:
            raise RuntimeError("upstream down")  # a 500, every time, from the third case on
        return plan(body)

    with FakeChatCompletions(respond, rate_limit_first=False) as fake:
        code, _, stderr = run_cli(
            f"bfcl --api openai --base-url {fake.base_url} --model m --categories simple_python --limit 6 "
            f"--max-retries 0 --out {tmp_path / 'r.jsonl'} --summary {tmp_path / 's.json'}"
        )
    assert code == 2 and "stopped" in stderr and "partial summary (4 done)" in stderr
    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert [r["label"] == "endpoint_error" for r in lines] == [False, False, True, True]  # the third error stops it
    partial = json.loads((tmp_path / "s.json").read_text())
    assert partial["partial"] is True and partial["cases"] == 4 and partial["failures"]["endpoint_error"] == 2
    assert "upstream down" in partial["stopped"]


def test_a_passk_run_that_stops_early_keeps_the_trials_it_ran(tmp_path):
    agent = RetailAgent()
    served = {"n": 0}

    def respond(body):
        served["n"] += 1
        if served["n"] > 4:
            raise RuntimeError("upstream down")
        return agent(body)

    with FakeChatCompletions(respond, rate_limit_first=False) as fake:
        code, _, stderr = run_cli(
            f"passk --api openai --base-url {fake.base_url} --model m --trials 2 --max-retries 0 "
            f"--out {tmp_path / 't.jsonl'} --summary {tmp_path / 'p.json'}"
        )
    assert code == 2 and "stopped" in stderr
    trials = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    partial = json.loads((tmp_path / "p.json").read_text())
    assert partial["partial"] is True and partial["trials_run"] == len(trials) >= 2
    assert partial["tasks"]["T1"] == [sum(t["success"] for t in trials if t["task"] == "T1"), 2]
    roles = [m["role"] for m in trials[0]["messages"]]
    assert roles[:4] == ["system", "user", "assistant", "tool"]  # tool results went back to the model


def test_passk_writes_each_trials_conversation_with_its_tool_results(tmp_path):
    with FakeChatCompletions(RetailAgent(), rate_limit_first=False) as fake:
        code, _, _ = run_cli(
            f"passk --api openai --base-url {fake.base_url} --model m --trials 2 --out {tmp_path / 't.jsonl'}"
        )
    trials = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert code == 0 and [(t["task"], t["trial"]) for t in trials] == [(f"T{i}", j) for i in (1, 2, 3) for j in (0, 1)]
    assert [t["success"] for t in trials] == [True, False, True, True, True, False]
    assert all(t["calls"] >= 1 and any(m["role"] == "tool" for m in t["messages"]) for t in trials)


def test_the_toolkit_model_variables_stand_in_for_the_flags(tmp_path):
    cases = select_cases(["simple_python"], limit=2)
    with FakeChatCompletions(Plan(cases, "openai"), rate_limit_first=False) as fake:
        environ = {
            "TOOLKIT_MODEL_API": "openai",
            "TOOLKIT_MODEL_BASE_URL": fake.base_url,
            "TOOLKIT_MODEL": "local-model",
            "TOOLKIT_MODEL_MAX_TOKENS": "200",
            "TOOLKIT_MODEL_EXTRA_BODY": '{"top_k": 1}',
        }
        code, stdout, stderr = run_cli("bfcl --categories simple_python --limit 2", environ=environ)
        body = fake.requests[-1]["body"]
        assert code == 0, stderr
        assert (body["model"], body["max_tokens"], body["top_k"], body["tool_choice"]) == (
            "local-model",
            200,
            1,
            "auto",
        )
        code, _, _ = run_cli(
            "bfcl --categories simple_python --limit 1 --max-tokens 50 --tool-choice required", environ
        )
        assert (fake.requests[-1]["body"]["max_tokens"], fake.requests[-1]["body"]["tool_choice"]) == (50, "required")
    assert "local-model" in stdout


def test_bad_settings_in_the_environment_are_named():
    for var, value in (
        ("TOOLKIT_MODEL_TIMEOUT", "soon"),
        ("TOOLKIT_MODEL_MAX_TOKENS", "lots"),
        ("TOOLKIT_MODEL_EXTRA_BODY", "[1]"),
    ):
        with pytest.raises(ValueError, match=var):
            real_model_from_env({**configured_env(), var: value})
    model = real_model_from_env({**configured_env(), "TOOLKIT_MODEL_TIMEOUT": "240"}, max_tokens=None)
    assert (model.timeout, model.max_tokens) == (240.0, None)


def configured_env():
    return {"TOOLKIT_MODEL_API": "openai", "TOOLKIT_MODEL_BASE_URL": "http://127.0.0.1:9/v1", "TOOLKIT_MODEL": "m"}


def test_the_notebook_sections_take_options_for_the_request(capsys):
    with FakeChatCompletions(RetailAgent(), rate_limit_first=False) as fake:
        notebook_passk(
            trials=1, environ=configured(fake, "openai"), options={"extra_body": {"seed": 3}, "max_tokens": 99}
        )
    body = fake.requests[-1]["body"]
    assert (body["seed"], body["max_tokens"]) == (3, 99)
    first = capsys.readouterr().out.splitlines()[0]
    assert "assuming three model turns a trial" in first and "at most 99 out a request" in first


def test_the_cost_estimate_says_what_it_assumes():
    cost = T.lessons.model_eval.estimate_bfcl_cost(select_cases(limit=1), max_tokens=256)
    assert cost["output_tokens_at_most"] == 5 * 256
    assert "one request a case" in cost["assumes"] and "four characters a token" in cost["assumes"]


def test_trials_that_outgrow_a_small_context_fail_alone_and_the_run_completes(tmp_path):
    """llama-cpp-python's 400 when a looping model has filled its 2,048-token context."""
    from tests.fakes.llm import ApiError

    def respond(body):
        if sum(m["role"] == "tool" for m in body["messages"]) >= 1:
            raise ApiError(400, "invalid_request_error", "This model's maximum context length is 2048 tokens. "
                           "However, you requested 3072 tokens (2048 in the messages, 1024 in the completion).")  # fmt: skip
        return {"calls": [("get_order", {"order_id": "A1"})]}

    with FakeChatCompletions(respond, rate_limit_first=False) as fake:
        code, _, stderr = run_cli(
            f"passk --api openai --base-url {fake.base_url} --model m --trials 2 --summary {tmp_path / 'p.json'} "
            f"--out {tmp_path / 't.jsonl'}"
        )
    summary = json.loads((tmp_path / "p.json").read_text())
    assert code == 0, stderr
    assert summary["endpoint_errors"] == 6 and summary["tasks"] == {"T1": 0, "T2": 0, "T3": 0}
    trials = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert all("no longer fits the context window of model 'm'" in t["error"] for t in trials) and len(trials) == 6
