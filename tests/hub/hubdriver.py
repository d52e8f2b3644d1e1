"""Drive a real JupyterHub on loopback as a class would: used by tests/hub/ and benchmarks/bench_class.py.

:class:`Hub` starts ``jupyterhub -f deploy/jupyterhub_config.py`` in trial mode (any user name
logs in; each student's server runs as this user in its own home under the state folder) on
free loopback ports, and stops every process it started. :class:`Student` does what a student's
browser does: the login form, the nbgitpuller link (waiting through the spawn page), then the
Jupyter server's REST API (contents, sessions) and a kernel's websocket to run code, which is
what JupyterLab does when a cell runs. Issue 22, points 2 and 3.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import requests
import websocket

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "jupyterhub_config.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _cwd(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return ""


class Hub:
    """One trial hub in ``state`` (its database, cookie secret, log and the students' homes)."""

    def __init__(self, state: Path, start_timeout: float = 180.0):
        self.state = Path(state)
        self.homes = self.state / "homes"
        self.port, self.api_port, self.proxy_api_port = free_port(), free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = self.state / "jupyterhub.log"
        self.start_timeout = start_timeout
        self.proc: subprocess.Popen | None = None

    def start(self) -> Hub:
        self.state.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "TOOLKIT_MODEL"))}
        env |= {
            "COURSE_HUB_TRIAL": "1",
            "COURSE_HUB_STATE": str(self.state),
            "COURSE_HUB_PORT": str(self.port),
            "COURSE_HUB_API_PORT": str(self.api_port),
            "COURSE_PROXY_API_PORT": str(self.proxy_api_port),
            "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
        }
        log = open(self.log_path, "ab")  # noqa: SIM115 (closed in stop)
        self._log = log
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterhub", "-f", str(CONFIG)],
            cwd=self.state,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyterhub exited with {self.proc.returncode}; see {self.log_path}")
            try:
                if requests.get(f"{self.url}/hub/api/", timeout=2).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"jupyterhub did not answer within {self.start_timeout:.0f} s; see {self.log_path}")

    def student_pids(self) -> list[int]:
        """Processes running in a student's home: their servers and kernels (started by us)."""
        homes = str(self.homes.resolve()) + os.sep
        pids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and _cwd(int(entry.name)).startswith(homes):
                pids.append(int(entry.name))
        return pids

    def hub_pids(self) -> list[int]:
        """The hub, the proxy and the culler: the hub's process group."""
        if self.proc is None:
            return []
        pgid = self.proc.pid
        return [
            int(e.name)
            for e in Path("/proc").iterdir()
            if e.name.isdigit() and _safe_pgid(int(e.name)) == pgid and _cwd(int(e.name)) == str(self.state.resolve())
        ]

    def memory_mb(self) -> tuple[float, float]:
        """(hub + proxy + culler, all students' servers and kernels) resident memory, MiB."""
        return sum(map(_rss_mb, self.hub_pids())), sum(map(_rss_mb, self.student_pids()))

    def stop(self) -> None:
        """SIGTERM the hub (it stops the proxy and the servers it spawned), then make sure: every
        process left in the hub's group or running in a student's home is killed by its pid."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        leftovers = self.student_pids() + (self.hub_pids() if self.proc else [])
        for pid in leftovers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if getattr(self, "_log", None):
            self._log.close()


def _safe_pgid(pid: int) -> int:
    try:
        return os.getpgid(pid)
    except OSError:
        return -1


@dataclass
class CellRun:
    """What one execute request gave back: its status, text output and how long it took."""

    status: str
    text: str
    error: str
    seconds: float


@dataclass
class Student:
    """One simulated student: a browser session (cookies) plus an API token for the kernel."""

    hub: Hub
    name: str
    http: requests.Session = field(default_factory=requests.Session)
    token: str = ""

    @property
    def base(self) -> str:
        return f"{self.hub.url}/user/{self.name}"

    def login(self) -> None:
        """The hub's login form, as a browser posts it (with the form's XSRF token)."""
        self.http.get(f"{self.hub.url}/hub/login", timeout=60).raise_for_status()
        xsrf = self.http.cookies.get("_xsrf", path="/hub/")
        reply = self.http.post(
            f"{self.hub.url}/hub/login?next=",
            data={"username": self.name, "password": "any", "_xsrf": xsrf},
            allow_redirects=False,
            timeout=60,
        )
        if reply.status_code != 302:
            raise RuntimeError(f"login of {self.name} answered {reply.status_code}")
        self.http.get(f"{self.hub.url}/hub/home", timeout=60).raise_for_status()
        xsrf = self.http.cookies.get("_xsrf", path="/hub/")
        made = self.http.post(
            f"{self.hub.url}/hub/api/users/{self.name}/tokens",
            json={"note": "course test", "expires_in": 3600},
            headers={"X-XSRFToken": xsrf or ""},
            timeout=60,
        )
        made.raise_for_status()
        self.token = made.json()["token"]

    def follow_link(self, repo: str, branch: str, targetpath: str, urlpath: str, timeout: float = 300) -> None:
        """Click the nbgitpuller link: the hub starts the server (spawn page), nbgitpuller's page
        loads, and its event stream clones or merges the repository; raises if the pull failed."""
        query = urlencode({"repo": repo, "branch": branch, "targetpath": targetpath, "urlpath": urlpath})
        link = f"{self.hub.url}/hub/user-redirect/git-pull?{query}"
        deadline = time.monotonic() + timeout
        while True:
            page = self.http.get(link, timeout=120)
            if page.status_code == 200 and f"/user/{self.name}/git-pull" in page.url:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name}'s server was not ready after {timeout:.0f} s (last: {page.url})")
            time.sleep(0.5)
        api = f"{self.base}/git-pull/api?" + urlencode({"repo": repo, "branch": branch, "targetpath": targetpath})
        with self.http.get(api, stream=True, timeout=timeout) as stream:
            for line in stream.iter_lines(decode_unicode=True):
                if not line or not line.startswith("data:"):
                    continue
                event = json.loads(line[5:])
                if event.get("phase") == "finished":
                    return
                if event.get("phase") == "error":
                    raise RuntimeError(f"nbgitpuller failed for {self.name}: {event.get('message')}")
        raise RuntimeError(f"nbgitpuller's stream ended without finishing for {self.name}")

    def api(self, method: str, path: str, **kwargs) -> requests.Response:
        headers = {"Authorization": f"token {self.token}"}
        reply = self.http.request(method, f"{self.base}/api/{path}", headers=headers, timeout=120, **kwargs)
        reply.raise_for_status()
        return reply

    def open_notebook(self, path: str) -> dict:
        """The notebook as JupyterLab loads it (contents API)."""
        return self.api("GET", f"contents/{path}", params={"content": "1"}).json()["content"]

    def start_kernel(self, path: str) -> Kernel:
        """A session for the notebook at ``path`` (what opening it in the lab does), and its kernel."""
        session = self.api(
            "POST", "sessions", json={"path": path, "type": "notebook", "name": "", "kernel": {"name": "python3"}}
        ).json()
        return Kernel(self, session["kernel"]["id"], session["id"])

    def stop_server(self) -> None:
        headers = {"Authorization": f"token {self.token}"}
        self.http.delete(f"{self.hub.url}/hub/api/users/{self.name}/server", headers=headers, timeout=120)


class Kernel:
    """A kernel reached through the server's websocket (the JSON form of the Jupyter protocol)."""

    def __init__(self, student: Student, kernel_id: str, session_id: str):
        self.student, self.id, self.session = student, kernel_id, uuid.uuid4().hex
        ws_url = (
            student.base.replace("http://", "ws://") + f"/api/kernels/{kernel_id}/channels?session_id={self.session}"
        )
        self.ws = websocket.create_connection(
            ws_url, header=[f"Authorization: token {student.token}"], timeout=300, suppress_origin=True
        )

    def execute(self, code: str, timeout: float = 300) -> CellRun:
        msg_id = uuid.uuid4().hex
        self.ws.send(
            json.dumps(
                {
                    "header": {
                        "msg_id": msg_id,
                        "username": self.student.name,
                        "session": self.session,
                        "msg_type": "execute_request",
                        "version": "5.3",
                    },
                    "parent_header": {},
                    "metadata": {},
                    "content": {
                        "code": code,
                        "silent": False,
                        "store_history": True,
                        "user_expressions": {},
                        "allow_stdin": False,
                        "stop_on_error": False,
                    },
                    "channel": "shell",
                    "buffers": [],
                }
            )
        )
        started, text, error, status, idle = time.monotonic(), [], "", "", False
        while not (status and idle):
            if time.monotonic() - started > timeout:
                raise TimeoutError(f"a cell ran longer than {timeout:.0f} s")
            msg = json.loads(self.ws.recv())
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "stream":
                text.append(content["text"])
            elif kind in ("execute_result", "display_data"):
                text.append(content.get("data", {}).get("text/plain", ""))
            elif kind == "error":
                error = f"{content['ename']}: {content['evalue']}"
            elif kind == "status" and content["execution_state"] == "idle":
                idle = True
            elif kind == "execute_reply":
                status = content["status"]
        return CellRun(status, "".join(text), error, time.monotonic() - started)

    def alive(self) -> bool:
        try:
            return self.student.api("GET", f"kernels/{self.id}").json().get("execution_state") != "dead"
        except requests.RequestException:
            return False

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.student.api("DELETE", f"kernels/{self.id}")


def check_verdict(kernel: Kernel, check_source: str) -> tuple[bool, str]:
    """Run a check cell's call and read its CheckResult back: (every item passed, the report)."""
    code = f"_course_result = ({check_source.strip()})\nprint('VERDICT', bool(_course_result.ok))"
    run = kernel.execute(code)
    if run.error:
        return False, run.error
    return "VERDICT True" in run.text, run.text
