"""The course's own commands against a real model on this machine (issue 24; README, "No key,
no network: a small local model"). Run by ``make test-local-model``.

One server (``scripts/local_model.py serve`` on a free port of 127.0.0.1) serves the whole
module. What is asserted is the harness, not the model: real tool calls were made and scored,
tool results went back and reached the model's prompt, and no adapter or endpoint error
occurred. The model's score is its own and is only recorded, with the run's own timings and the
server's peak memory, in ``build/local-model-report.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from toolkit.scoring import FAILURE_TYPES

ROOT = Path(__file__).resolve().parents[2]
LOCAL_PY = os.environ.get("TOOLKIT_LOCAL_MODEL_PYTHON", "")
REPORT = ROOT / "build" / "local-model-report.json"
LOAD_TIMEOUT = 300  # seconds for the server to load the model and answer /v1/models
measured: dict = {}


def record(key: str, value) -> None:
    measured[key] = value
    REPORT.parent.mkdir(exist_ok=True)
    REPORT.write_text(json.dumps(measured, indent=1) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    assert Path(LOCAL_PY).is_file(), f"{LOCAL_PY} is missing: run `make local-model` first"
    prompts = tmp_path_factory.mktemp("local") / "prompts.jsonl"
    env = {**os.environ, "LOCAL_MODEL_PROMPT_LOG": str(prompts)}
    cmd = [LOCAL_PY, str(ROOT / "scripts" / "local_model.py"), "serve", "--port", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    started = time.monotonic()
    try:
        first = proc.stdout.readline()  # "Serving NAME (FILE) at URL with ..."
        assert first.startswith("Serving "), first + proc.stdout.read()
        url = first.split(" at ", 1)[1].split(" ", 1)[0]
        banner = [first] + [proc.stdout.readline() for _ in range(5)]
        while True:
            try:
                with urllib.request.urlopen(url + "/models", timeout=5) as answer:
                    models = json.load(answer)
                break
            except OSError:
                assert proc.poll() is None, "the server stopped: " + proc.stdout.read()
                assert time.monotonic() - started < LOAD_TIMEOUT, "the server did not answer /v1/models"
                time.sleep(1)
        record("server_ready_seconds", round(time.monotonic() - started, 1))
        yield {"url": url, "banner": "".join(banner), "models": models, "prompts": prompts, "pid": proc.pid}
    finally:
        status = Path(f"/proc/{proc.pid}/status")
        if status.exists():
            peak = next((line.split()[1] for line in status.read_text().splitlines() if line.startswith("VmHWM")), None)
            if peak:
                record("server_peak_rss_mb", round(int(peak) / 1024))
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


def course_env(server) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLKIT_MODEL")}
    for line in server["banner"].splitlines():
        line = line.strip()
        if line.startswith("export TOOLKIT_MODEL"):
            name, value = line[len("export ") :].split("=", 1)
            env[name] = value
    return env


def run_course(server, command: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "toolkit", *command.split()],
        cwd=ROOT,
        env=course_env(server),
        capture_output=True,
        text=True,
        timeout=900,
    )
    return proc, round(time.monotonic() - started, 1)


def test_the_banner_gives_the_three_lines_to_paste(server):
    env = course_env(server)
    assert env["TOOLKIT_MODEL_API"] == "openai" and env["TOOLKIT_MODEL"] == "smollm2-135m-instruct"
    assert env["TOOLKIT_MODEL_BASE_URL"] == server["url"] and server["url"].startswith("http://127.0.0.1:")
    assert [m["id"] for m in server["models"]["data"]] == ["smollm2-135m-instruct"]


def test_the_chat_format_shows_the_tools_and_the_tool_results_where_the_stock_one_does_not():
    probe = subprocess.run(
        [LOCAL_PY, str(Path(__file__).with_name("chat_format_probe.py"))], capture_output=True, text=True, timeout=120
    )
    assert probe.returncode == 0, probe.stderr
    rendered = json.loads(probe.stdout)
    stock, course = rendered["stock"]["calls"][0]["prompt"], rendered["course"]["calls"][0]["prompt"]
    assert "pending-ZX81" not in stock and "functions.get_order:" not in stock.split("<|im_start|>user")[0]
    assert "functions.get_order returned:" in course and "pending-ZX81" in course  # the model reads the result
    assert "&#34;" in stock and '{"order_id": "A1", "status": "pending-ZX81"}' in course  # quotes as written
    assert "You have access to the following functions" in course  # the tools, with no system message given
    assert all(c["max_tokens"] is not None for c in rendered["course"]["calls"])
    assert rendered["course"]["content"] == "Done."  # a text answer keeps its words


def test_bfcl_makes_real_calls_that_are_scored(server, tmp_path):
    proc, seconds = run_course(
        server, f"bfcl --limit 5 --out {tmp_path / 'r.jsonl'} --summary {tmp_path / 's.json'}", tmp_path
    )
    record("bfcl_limit_5_seconds", seconds)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "stopped" not in proc.stderr and "endpoint failed" not in proc.stdout
    records = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    summary = json.loads((tmp_path / "s.json").read_text())
    assert len(records) == summary["cases"] == 25 and not summary.get("partial")
    assert "endpoint_error" not in summary["failures"]
    called = [r for r in records if r["reply"]["tool_calls"]]
    assert called, "the model made no tool call at all"
    assert {r["label"] for r in called} <= {"pass", *FAILURE_TYPES}  # each call was read and scored
    record("bfcl_limit_5", {"overall": summary["overall"], "by_category": summary["by_category"],
                            "failures": summary["failures"], "cases_with_calls": len(called)})  # fmt: skip


def test_passk_feeds_tool_results_back_and_the_model_reads_them(server, tmp_path):
    proc, seconds = run_course(
        server, f"passk --trials 2 --out {tmp_path / 't.jsonl'} --summary {tmp_path / 'p.json'}", tmp_path
    )
    record("passk_trials_2_seconds", seconds)
    assert proc.returncode == 0, proc.stderr[-2000:]
    trials = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    summary = json.loads((tmp_path / "p.json").read_text())
    assert len(trials) == 6 and summary["endpoint_errors"] == 0 and not summary.get("partial")
    assert not any("error" in t for t in trials)
    fed_back = []
    for t in trials:
        roles = [m["role"] for m in t["messages"]]
        fed_back += [
            m["content"] for i, m in enumerate(t["messages"]) if m["role"] == "tool" and "assistant" in roles[i + 1 :]
        ]
    assert fed_back, "no tool result was followed by another model turn"
    prompts = [json.loads(line) for line in server["prompts"].read_text().splitlines()]
    assert any(result.strip() and result.strip() in p for result in fed_back for p in prompts), (
        "no tool result reached the prompt the model read"
    )
    record("passk_trials_2", {"tasks": summary["tasks"], "pass_hat_k": summary["pass_hat_k"],
                              "tool_results_fed_back": len(fed_back)})  # fmt: skip


def test_notebook_09s_real_model_section_runs_headless(server, tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    from nbpipeline import execute_notebook, read_py

    nb = read_py(next((ROOT / "notebooks").glob("09_*.py")))
    start = next(i for i, c in enumerate(nb.cells) if "## With a real model" in c.source)
    end = next(i for i in range(start + 1, len(nb.cells)) if nb.cells[i].source.startswith("## "))
    nb.cells = nb.cells[start:end]
    env = course_env(server)
    saved = dict(os.environ)
    os.environ.update({k: v for k, v in env.items() if k.startswith("TOOLKIT_MODEL")})
    started = time.monotonic()
    try:
        execute_notebook(nb, ROOT / "notebooks", cell_timeout=600)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    record("notebook_09_section_seconds", round(time.monotonic() - started, 1))
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "BFCL on 10 shipped cases: smollm2-135m-instruct" in text, text
    assert "endpoint failed" not in text and "not set up" not in text
