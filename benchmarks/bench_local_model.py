"""The local model as a student's machine runs it (issue 31; docs/real-models.md, "No key, no
network"): Qwen2.5-Coder-1.5B-Instruct Q4_K_M behind llama.cpp's server (scripts/local_model.py
serve), once per thread count, side by side.

For each thread count a fresh server is started on a free port of 127.0.0.1 and measured:

- ready: seconds from starting the server to its first answer on /v1/models;
- prompt and generation tokens per second: llama.cpp's own timings of one request with the
  retail policy and its tools as the prompt (the prompt cache off) and 64
  generated tokens;
- seconds per BFCL case: the course's adapter (ChatCompletionsModel) on the first ``--cases``
  shipped cases of each of the five categories, with the BFCL score they got;
- peak RSS: the server process's high-water mark (VmHWM), model and context included.

    python benchmarks/bench_local_model.py [--threads 1,2] [--cases 1]

Needs ``make local-model`` (build/local-model/); nothing to compare against a target, so the exit
status is 0 whenever every server answered.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from common import ROOT, machine, table

from toolkit.lessons.endpoints import ChatCompletionsModel
from toolkit.lessons.model_eval import bfcl_summary, run_bfcl, select_cases
from toolkit.lessons.wire import wire_tools

LOCAL_PY = ROOT / "build" / "local-model" / "bin" / "python"
MODEL = "qwen2.5-coder-1.5b-instruct"


def start(threads: int) -> tuple[subprocess.Popen, str, float]:
    """A server with ``threads`` threads; its process, its /v1 URL and the seconds to ready."""
    started = time.perf_counter()
    cmd = [str(LOCAL_PY), str(ROOT / "scripts" / "local_model.py"), "serve", "--port", "0", "--threads", str(threads)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    if not first.startswith("Serving "):
        raise SystemExit(first + proc.stdout.read())
    url = first.split(" at ", 1)[1].split(" ", 1)[0]
    while True:
        try:
            with urllib.request.urlopen(url + "/models", timeout=5):
                return proc, url, time.perf_counter() - started
        except OSError:
            if proc.poll() is not None:
                raise SystemExit("the server stopped: " + proc.stdout.read()) from None
            time.sleep(0.2)


def token_rates(url: str) -> tuple[float, float]:
    """llama.cpp's prompt and generation tokens per second on the retail policy and tools."""
    from toolkit.lessons.retail import RetailEnv

    env = RetailEnv()
    specs, _ = wire_tools(env.registry.list_schemas())
    body = {
        "messages": [
            {"role": "system", "content": env.POLICY},
            {"role": "user", "content": "Please cancel my order A1 and tell me what happened to A2."},
        ],
        "tools": [{"type": "function", "function": spec} for spec in specs],
        "max_tokens": 64,
        "temperature": 0,
        "ignore_eos": True,  # always 64 tokens, so runs compare
        "cache_prompt": False,
    }
    request = urllib.request.Request(
        url + "/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=900) as answer:
            timings = json.load(answer)["timings"]
    except urllib.error.HTTPError as error:
        raise SystemExit(f"the server refused the request: {error.read().decode()[:500]}") from None
    return timings["prompt_per_second"], timings["predicted_per_second"]


def peak_rss_mb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return round(int(next(line.split()[1] for line in status if line.startswith("VmHWM"))) / 1024)


def measure(threads: int, cases: int) -> list:
    proc, url, ready = start(threads)
    try:
        prompt_rate, gen_rate = token_rates(url)
        chosen = select_cases(limit=cases)
        began = time.perf_counter()
        summary = bfcl_summary(MODEL, run_bfcl(ChatCompletionsModel(url, MODEL), chosen))
        per_case = (time.perf_counter() - began) / len(chosen)
        rss = peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return [f"{threads} thread(s)", f"{ready:.1f}", f"{prompt_rate:.1f}", f"{gen_rate:.1f}",
            f"{per_case:.1f}", f"{summary['overall']:.2f} of {len(chosen)}", rss]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--cases", type=int, default=1, help="BFCL cases per category (default 1: 5 cases)")
    args = parser.parse_args()
    if not LOCAL_PY.is_file():
        raise SystemExit(f"{LOCAL_PY} is missing: run `make local-model` first")
    print(f"{MODEL} Q4_K_M, llama.cpp's server (xllamacpp); {machine()}")
    rows = [measure(int(t), args.cases) for t in args.threads.split(",")]
    header = ["server", "ready s", "prompt tok/s", "gen tok/s", "s/BFCL case", "BFCL", "peak RSS MB"]
    table(header, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
