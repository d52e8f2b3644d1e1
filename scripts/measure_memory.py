#!/usr/bin/env python3
"""Measure what one student costs a hub in memory: each notebook's kernel at its peak, and
JupyterLab's server at idle with a notebook open. docs/running-a-class.md, "Deploying to a class", quotes it.

Usage: .venv/bin/python scripts/measure_memory.py [NN ...] [--interval 0.05] [--no-server]

For each notebook (all twelve unless numbers are given) a fresh python3 kernel runs every
cell, as `make notebooks` does, while a thread reads the resident memory (RSS) of the kernel
and of any process it started (notebook 06 starts MCP servers) every ``--interval`` seconds.
It reports the kernel's own peak (the kernel's VmHWM, exact) and the largest sampled sum of
kernel plus its child processes. Then it starts ``jupyter lab --no-browser`` on 127.0.0.1,
waits until it answers, opens the largest notebook the way a browser does (reads it, starts
its kernel through /api/sessions), lets it settle, and reads the server's RSS and the idle
kernel's. Finally it prints a per-student recommendation from those figures (see
:func:`recommend`). Linux only: the figures come from /proc. Memory is in MiB (2^20 bytes),
the unit JupyterHub's ``mem_limit``/``mem_guarantee`` use for "M".
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbpipeline import CELL_TIMEOUT, NOTEBOOKS, ROOT, PipelineError, child_env, pairs, read_ipynb, rel  # noqa: E402

MIB = 1024 * 1024
SETTLE = 10.0  # seconds the server is left alone before it is measured


# --------------------------------------------------------------------------------------------
# /proc


def _status_kib(pid: int, field: str) -> int:
    """A ``VmRSS``/``VmHWM`` line of /proc/PID/status in KiB; 0 once the process is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0


def rss(pid: int) -> int:
    """Resident memory of one process, in bytes."""
    return _status_kib(pid, "VmRSS") * 1024


def peak_rss(pid: int) -> int:
    """The largest resident memory the process has had so far (VmHWM), in bytes."""
    return _status_kib(pid, "VmHWM") * 1024


def descendants(pid: int) -> list[int]:
    """Every living process started by ``pid``, at any depth."""
    parent_of = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                parent_of[int(entry.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        children = [child for child, ppid in parent_of.items() if ppid == parent]
        found += children
        todo += children
    return found


class Sampler(threading.Thread):
    """Reads the RSS of a process and its descendants every ``interval`` seconds; ``peak`` is
    the largest sum seen."""

    def __init__(self, pid: int, interval: float):
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak = pid, interval, 0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, rss(self.pid) + sum(rss(p) for p in descendants(self.pid)))
            self._done.wait(self.interval)

    def stop(self) -> int:
        self._done.set()
        self.join()
        return self.peak


# --------------------------------------------------------------------------------------------
# kernels


def measure_notebook(ipynb: Path, interval: float) -> dict:
    """Run every cell of ``ipynb`` in a fresh python3 kernel and return its memory figures."""
    from nbclient import NotebookClient

    nb = read_ipynb(ipynb)
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        allow_errors=False,
        resources={"metadata": {"path": str(ipynb.parent)}},
    )
    start = time.perf_counter()
    with client.setup_kernel():
        pid = client.km.provisioner.process.pid
        at_start = rss(pid)
        sampler = Sampler(pid, interval)
        sampler.start()
        try:
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)
        finally:
            with_children = sampler.stop()
        kernel_peak = peak_rss(pid)
    return {
        "notebook": ipynb.stem,
        "kernel_start": at_start,
        "kernel_peak": kernel_peak,
        "with_children_peak": max(with_children, kernel_peak),
        "seconds": time.perf_counter() - start,
    }


# --------------------------------------------------------------------------------------------
# the JupyterLab server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _request(url: str, method: str = "GET", body: dict | None = None, timeout: float = 10.0):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as reply:
        payload = reply.read()
    return json.loads(payload) if payload[:1] in (b"{", b"[") else payload


def measure_server(notebook: Path, settle: float = SETTLE) -> dict:
    """Start ``jupyter lab --no-browser`` on 127.0.0.1, open ``notebook`` through the REST API
    (contents, then a session, which starts its kernel), wait ``settle`` seconds, and read the
    RSS of the server process and of the notebook's kernel. The server is stopped afterwards."""
    port, token = _free_port(), secrets.token_hex(16)
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={ROOT}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # containers often run as root; Jupyter refuses otherwise
    base, auth = f"http://127.0.0.1:{port}", f"token={token}"
    with tempfile.TemporaryDirectory() as runtime:
        env = dict(child_env(), JUPYTER_RUNTIME_DIR=runtime)
        server = subprocess.Popen(
            cmd,
            env=env,
            cwd=str(ROOT),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 90
            while True:
                if server.poll() is not None:
                    raise PipelineError("jupyter lab stopped before it answered:\n" + server.stderr.read()[-2000:])
                try:
                    _request(f"{base}/api/status?{auth}", timeout=2)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise PipelineError("jupyter lab did not answer within 90 s") from None
                    time.sleep(0.5)
            started = rss(server.pid)
            path = notebook.relative_to(ROOT).as_posix()
            _request(f"{base}/lab?{auth}")  # the page a browser loads
            _request(f"{base}/api/contents/{path}?content=1&{auth}")  # opening the notebook
            session = _request(
                f"{base}/api/sessions?{auth}",
                "POST",
                {"path": path, "name": notebook.name, "type": "notebook", "kernel": {"name": "python3"}},
                timeout=60,
            )
            time.sleep(settle)
            idle = 0
            for _ in range(5):  # the largest of five readings a fifth of a second apart
                idle = max(idle, rss(server.pid))
                time.sleep(0.2)
            kernel_idle = sum(rss(pid) for pid in descendants(server.pid))
            _request(f"{base}/api/sessions/{session['id']}?{auth}", "DELETE")
        finally:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
                try:
                    server.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait()
    return {"notebook": notebook.stem, "server_started": started, "server_idle": idle, "kernel_idle": kernel_idle}


# --------------------------------------------------------------------------------------------
# report


def round_up(value: float, step: int) -> int:
    return int(-(-value // step) * step)


def recommend(largest_kernel: int, server: int) -> tuple[int, int]:
    """(guarantee, limit) per student, in MiB.

    guarantee: the server plus one kernel at the largest peak measured, rounded up to 128 MiB;
    what one student working through one notebook needs.
    limit: the server plus two kernels at that peak (JupyterLab keeps a kernel running when its
    tab is closed, so a student easily has two), plus a quarter for what the course does not
    measure (a student's own experiments, the terminal, pip), rounded up to 256 MiB.
    """
    guarantee = round_up((server + largest_kernel) / MIB, 128)
    limit = round_up(1.25 * (server + 2 * largest_kernel) / MIB, 256)
    return guarantee, limit


def mib(value: int) -> str:
    return f"{value / MIB:.0f}"


def machine() -> str:
    cpus = os.cpu_count()
    mem = ""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            mem = f", {int(handle.readline().split()[1]) / MIB:.1f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return (
        f"{platform.system()} {platform.release()} {platform.machine()}, {cpus} cores{mem}, "
        f"Python {platform.python_version()}"
    )


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebook numbers, e.g. 04 06 (default: all)")
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between samples (0.05)")
    parser.add_argument("--no-server", action="store_true", help="measure the kernels only")
    args = parser.parse_args(argv)
    if not Path("/proc/self/status").exists():
        print("measure_memory: this script reads /proc and runs on Linux only (as hubs do).")
        return 2
    chosen = [
        ipynb
        for _, ipynb in pairs(NOTEBOOKS)
        if ipynb.exists() and (not args.notebooks or ipynb.stem[:2] in args.notebooks)
    ]
    if not chosen:
        print(f"measure_memory: no notebook matches {args.notebooks} in {rel(NOTEBOOKS)}")
        return 2
    os.environ.update({k: v for k, v in child_env().items() if k not in os.environ})
    print(f"{datetime.date.today().isoformat()}; {machine()}; load average before: {load()}")
    print(f"command: .venv/bin/python scripts/measure_memory.py {' '.join(argv)}".rstrip())
    print()
    print("| notebook | kernel at start (MiB) | kernel peak (MiB) | with its subprocesses (MiB) | run (s) |")
    print("|---|---:|---:|---:|---:|")
    rows = []
    for ipynb in chosen:
        try:
            row = measure_notebook(ipynb, args.interval)
        except Exception as exc:  # a failing notebook: say which, keep measuring the rest
            print(f"| {ipynb.stem} | failed: {type(exc).__name__}: {str(exc).splitlines()[0][:80]} | | | |")
            continue
        rows.append(row)
        print(
            f"| {row['notebook']} | {mib(row['kernel_start'])} | {mib(row['kernel_peak'])} "
            f"| {mib(row['with_children_peak'])} | {row['seconds']:.1f} |",
            flush=True,
        )
    if not rows:
        return 1
    largest = max(rows, key=lambda r: r["with_children_peak"])
    print(
        f"\nlargest kernel peak: {mib(largest['with_children_peak'])} MiB ({largest['notebook']}, "
        "subprocesses included)"
    )
    if args.no_server:
        return 0
    biggest_file = max(chosen, key=lambda p: p.stat().st_size)
    server = measure_server(biggest_file)
    print(
        f"JupyterLab server: {mib(server['server_started'])} MiB when it first answers, "
        f"{mib(server['server_idle'])} MiB idle with {server['notebook']} open "
        f"(its kernel idle: {mib(server['kernel_idle'])} MiB)"
    )
    guarantee, limit = recommend(largest["with_children_peak"], server["server_idle"])
    print(f"per student: guarantee {guarantee} MiB, limit {limit} MiB (see recommend() in this script for the rule)")
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except PipelineError as exc:
        print(f"measure_memory: {exc}")
        sys.exit(1)
