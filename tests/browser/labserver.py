"""A throw-away JupyterLab for the browser tests: its own folders, its own port, its own copy.

:class:`LabServer` copies the notebooks (and nothing else of the repository) into a temporary
folder, points every Jupyter and IPython setting folder at fresh temporary ones, starts
JupyterLab on 127.0.0.1 with a random token, and on :meth:`stop` shuts down its kernels and
itself, killing the process group if it does not go quietly. Every wait has a time limit.

The prebuilt lab extensions (widgets, RISE) live in this Python's ``share/jupyter``; the
isolation keeps that folder visible and hides only the user's own settings.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"

# Settings a fresh user would otherwise be asked about, or that reach out to the network.
USER_SETTINGS = {
    # no news feed or update check: CI has no network, and a pop-up would cover cells
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
    # every cell stays in the page, so a screenshot shows them all and locators find them
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """JupyterLab in a sandbox. Use as a context manager, or call start() and stop()."""

    def __init__(self, notebooks: list[Path], startup_timeout: float = 90.0) -> None:
        self.sources = list(notebooks)
        self.startup_timeout = startup_timeout
        self.tmp = Path(tempfile.mkdtemp(prefix="toolkit-browser-"))
        self.root = self.tmp / "course"
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.proc: subprocess.Popen | None = None
        self.log_path = self.tmp / "jupyterlab.log"

    # ------------------------------------------------------------------ set-up
    def _prepare(self) -> dict:
        self.root.mkdir()
        for nb in self.sources:
            shutil.copy2(nb, self.root / nb.name)
        env = dict(os.environ)
        for var, sub in (
            ("JUPYTER_CONFIG_DIR", "config"),
            ("JUPYTER_DATA_DIR", "data"),
            ("JUPYTER_RUNTIME_DIR", "runtime"),
            ("IPYTHONDIR", "ipython"),
            ("JUPYTERLAB_SETTINGS_DIR", "lab-settings"),
            ("JUPYTERLAB_WORKSPACES_DIR", "lab-workspaces"),
            ("MPLCONFIGDIR", "matplotlib"),
        ):
            path = self.tmp / sub
            path.mkdir()
            env[var] = str(path)
        env.pop("JUPYTER_PATH", None)  # the environment's share/jupyter stays on the path
        env["JUPYTER_PLATFORM_DIRS"] = "1"
        env["PYTHONUNBUFFERED"] = "1"
        for name, value in USER_SETTINGS.items():
            path = self.tmp / "lab-settings" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(value))
        return env

    def start(self) -> LabServer:
        env = self.env = self._prepare()
        cmd = [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            "--ServerApp.open_browser=False",
            "--ServerApp.allow_root=True",  # CI runs as root
            "--LabApp.extension_manager=readonly",  # never ask PyPI about extensions
            "--LabApp.expose_app_in_browser=True",
        ]  # lets the tests run lab commands
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.root,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"JupyterLab exited with {self.proc.returncode} while starting; its log:\n{self.log_tail()}"
                )
            try:
                self.api("GET", "/api/status", timeout=2)
                return self
            except (OSError, urllib.error.URLError):
                time.sleep(0.25)
        self.stop()
        raise TimeoutError(
            f"JupyterLab did not answer within {self.startup_timeout:.0f} s; its log:\n{self.log_tail()}"
        )

    # ------------------------------------------------------------------ use
    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}{path}{sep}token={self.token}"

    def api(self, method: str, path: str, timeout: float = 10.0):
        req = urllib.request.Request(self.base + path, method=method, headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def add_copy(self, source: Path, name: str, trusted: bool = False) -> str:
        """Copy a notebook into the served folder as ``name``; with ``trusted``, sign it with
        this server's key, as JupyterLab does when a user saves a notebook they ran."""
        shutil.copy2(source, self.root / name)
        if trusted:
            subprocess.run(
                [sys.executable, "-m", "jupyter", "trust", str(self.root / name)],
                env=self.env,
                check=True,
                capture_output=True,
                timeout=60,
            )
        return name

    def shutdown_kernels(self) -> None:
        """Close every session and kernel, so the next notebook has both CPU cores."""
        for session in self.api("GET", "/api/sessions") or []:
            self.api("DELETE", f"/api/sessions/{session['id']}", timeout=20)
        for kernel in self.api("GET", "/api/kernels") or []:
            self.api("DELETE", f"/api/kernels/{kernel['id']}", timeout=20)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    # ------------------------------------------------------------------ tear-down
    def stop(self, timeout: float = 20.0) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.shutdown_kernels()
                self.api("POST", "/api/shutdown", timeout=5)
            except (OSError, urllib.error.URLError, ValueError):
                pass
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGTERM)
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                    self.proc.wait(timeout=5)
        if getattr(self, "_log", None):
            self._log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> LabServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
