"""MCP over stdio, side by side: ``python -m toolkit serve`` against the same two tools
(echo, add) served by the official Python SDK (benchmarks/sdk_server.py, mcp 2.3.0).

One raw client drives both the same way: JSON lines over the child's pipes, written and read
here, no SDK on the client side. Both servers run under this interpreter, from the repository.

* cold start: from spawning the process to the initialize reply (protocol 2025-06-18, which
  both accept); median of 10 spawns per server, the servers taking turns, after one untimed
  spawn each (so both find their bytecode cached).
* round trips: in a fresh session (initialize, notifications/initialized, one untimed call
  of each tool), 2,000 sequential tools/call requests, each sent only after the previous
  reply, alternating echo {"text": "message <i>"} and add {"a": i, "b": 7}; every reply's
  text is checked. Calls per second, median of 3 sessions per server, taking turns.

Targets (issue 7): the toolkit server starts at least 5x faster and answers at least 5x
more calls per second. Exits 1 when a target is missed or a reply is wrong.

    python benchmarks/bench_mcp.py [--spawns 10] [--calls 2000] [--sessions 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import common
from common import ROOT, median, table, verdict

PROTOCOL = "2025-06-18"
SERVERS = [
    ("toolkit (python -m toolkit serve)", [sys.executable, "-m", "toolkit", "serve"]),
    ("official SDK (mcp 2.3.0 MCPServer)", [sys.executable, str(ROOT / "benchmarks" / "sdk_server.py")]),
]


class RawClient:
    """A bare stdio MCP client: one JSON object per line each way."""

    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0

    def send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:  # skip anything that is not our reply (log or progress notifications)
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the server closed its output while we waited for {method}")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method} failed: {reply['error']}")
                return reply["result"]

    def initialize(self) -> dict:
        result = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "bench-raw-client", "version": "1"},
            },
        )
        if result.get("protocolVersion") != PROTOCOL:
            raise RuntimeError(f"the server answered with protocol {result.get('protocolVersion')}")
        return result

    def call(self, name: str, arguments: dict) -> str:
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        if result.get("isError"):
            raise RuntimeError(f"{name} returned an error: {result}")
        return "".join(c.get("text", "") for c in result["content"])

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def cold_start(command: list[str]) -> float:
    start = time.perf_counter()
    client = RawClient(command)
    client.initialize()
    seconds = time.perf_counter() - start
    client.close()
    return seconds


def one_call(client: RawClient, i: int) -> None:
    if i % 2:
        text, want = client.call("add", {"a": i, "b": 7}), str(i + 7)
    else:
        text, want = client.call("echo", {"text": f"message {i}"}), f"message {i}"
    if text != want:
        raise RuntimeError(f"call {i}: expected {want!r}, got {text!r}")


def calls_per_second(command: list[str], calls: int) -> float:
    client = RawClient(command)
    try:
        client.initialize()
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        one_call(client, 0)
        one_call(client, 1)
        start = time.perf_counter()
        for i in range(calls):
            one_call(client, i)
        return calls / (time.perf_counter() - start)
    finally:
        client.close()


def interpreter_start() -> float:
    """Context: spawning this interpreter to do nothing, median of 10."""
    runs = []
    for _ in range(10):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        runs.append(time.perf_counter() - start)
    return median(runs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spawns", type=int, default=10)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--sessions", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"MCP servers over stdio, {common.machine()}")

    starts = [[] for _ in SERVERS]
    rates = [[] for _ in SERVERS]
    for _, command in SERVERS:
        cold_start(command)  # untimed: compiles and caches bytecode
    for n in range(args.spawns):
        for k in (0, 1) if n % 2 == 0 else (1, 0):
            starts[k].append(cold_start(SERVERS[k][1]))
    for n in range(args.sessions):
        for k in (0, 1) if n % 2 == 0 else (1, 0):
            rates[k].append(calls_per_second(SERVERS[k][1], args.calls))

    start_ms = [median(s) * 1e3 for s in starts]
    rate = [median(r) for r in rates]
    print(
        f"\ncold start: spawn to initialize reply, median of {args.spawns}; round trips: "
        f"{args.calls:,} sequential tools/call, median of {args.sessions} sessions"
    )
    table(
        ["server", "cold start ms", "x toolkit's", "calls / s", "ms per call", "x toolkit's"],
        [
            [name, f"{s:,.0f}", f"{s / start_ms[0]:.1f}x", f"{r:,.0f}", f"{1e3 / r:.3f}", f"{rate[0] / r:.1f}x"]
            for (name, _), s, r in zip(SERVERS, start_ms, rate)
        ],
    )
    print(
        f"context: this interpreter starting and exiting with nothing to do takes "
        f"{interpreter_start() * 1e3:,.0f} ms (median of 10)"
    )

    start_ratio = start_ms[1] / start_ms[0]
    call_ratio = rate[0] / rate[1]
    return verdict(
        [
            (f"the toolkit server starts >= 5x faster: {start_ratio:.1f}x", start_ratio >= 5),
            (f"the toolkit server answers >= 5x more calls per second: {call_ratio:.1f}x", call_ratio >= 5),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
