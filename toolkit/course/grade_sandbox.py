"""The operating-system sandbox a graded notebook runs in (docs/running-a-class.md, "Grading").

Each notebook gets a :class:`Sandbox`: a scratch folder outside every other notebook's, holding
``work/`` (the only folder its code may write: the submission's copy) and ``sock/`` (the kernel's
Unix sockets and connection file). :meth:`Sandbox.command` wraps a command in bubblewrap
(``bwrap``): new user, pid, network, ipc and uts namespaces (no network but loopback, no process
of the host in sight), a read-only view of the system folders, Python, the venv, ``toolkit/`` and
``data/`` (nothing else of the course: not its notebooks, not the submissions), its own ``/tmp``
and ``/proc``, and ``--die-with-parent``. Around it: ``prlimit`` (address space, file size, open
files, CPU seconds) and, when the grader is root, a cgroup (tasks and memory; ``RLIMIT_NPROC``
does not bind root) that every process of the notebook joins and that :meth:`Sandbox.close`
empties with SIGKILL; the fresh check processes get cgroups of their own, and the kernel's is
frozen while they run. As root the sandbox runs its command as ``nobody`` (``setpriv``).

Where bwrap cannot run, :func:`unavailable` says why, and ``grade`` refuses without ``--no-sandbox``.

Used by: toolkit/course/grade.py.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from queue import Empty
from typing import Any

__all__ = ["Sandbox", "Kernel", "unavailable", "UNPROTECTED", "ANSWERS"]

PACKAGE = Path(__file__).resolve().parents[1]
NOBODY = 65534
ADDRESS_SPACE = 4 << 30  # bytes of virtual memory a process may map (numpy's threads reserve a lot)
MEMORY = 1536 << 20  # bytes of memory the whole notebook may use (cgroup)
TASKS = 256  # processes and threads the whole notebook may have (cgroup; RLIMIT_NPROC when not root)
FILE_SIZE = 64 << 20  # bytes, the largest file it may write
OPEN_FILES = 512
TMP_SIZE = 256 << 20  # bytes of its /tmp
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc")
OUTPUT_KEPT = 20_000  # characters of a cell's output kept for the feedback
ANSWERS = "application/x-toolkit-answers"  # the display type a check cell hands its arguments over in
UNPROTECTED = (
    "grade: --no-sandbox: the students' code runs as you, with your files, your network and no "
    "resource limits; it can read the course's solutions and other submissions, change the toolkit "
    "and the grades file, and leave processes running. Use it only for code you trust."
)


def unavailable() -> str:
    """Why bubblewrap cannot run here ("" when it can): not installed, or no namespaces allowed.

    Used by: python -m toolkit grade.
    """
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    probe = subprocess.run(
        ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "true"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return "" if probe.returncode == 0 else f"bwrap cannot make a sandbox here: {probe.stderr.strip()[:300]}"


def _root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


class Sandbox:
    """One notebook's scratch folder, cgroup and bwrap command line (the module's docstring).

    Used by: toolkit/course/grade.py.
    """

    def __init__(self, parent: Path, sandboxed: bool = True, cpu_seconds: float = 900.0) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="nb-", dir=parent)).resolve()
        self.work, self.sock = self.root / "work", self.root / "sock"
        self.sandboxed, self.cpu = sandboxed, int(cpu_seconds) + 1
        self.cgroups: list[Path] = []  # the kernel's and everything it starts
        self.checking: list[Path] = []  # the fresh check processes'
        for folder in (self.work, self.sock):
            folder.mkdir()
            if sandboxed and _root():
                os.chown(folder, NOBODY, NOBODY)
        if sandboxed and _root():
            self.cgroups = _cgroups(self.root.name, freezer=True)
            self.checking = _cgroups(self.root.name + "-check") if self.cgroups else []

    @property
    def inside(self) -> str:
        """The writable folder as the sandbox's code sees it."""
        return "/submission" if self.sandboxed else str(self.work)

    def environment(self) -> dict[str, str]:
        home = "/tmp/home" if self.sandboxed else str(self.root / "home")
        keep = ("PATH", "LANG", "LC_ALL", "TOOLKIT_DATA", "TOOLKIT_TIME_SCALE")
        return {k: v for k, v in os.environ.items() if k in keep} | {
            "HOME": home,
            "IPYTHONDIR": home + "/.ipython",
            "MPLCONFIGDIR": home + "/.mpl",
            "MPLBACKEND": "agg",
            "PYTHONNOUSERSITE": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "OPENBLAS_NUM_THREADS": "1",
        }

    def command(self, argv: list[str], check: bool = False) -> list[str]:
        """``argv`` run in this notebook's sandbox, limits and cgroups, the kernel's or (``check``) the
        check's own (as it is with ``--no-sandbox``)."""
        if not self.sandboxed:
            return argv
        limits = [f"--as={ADDRESS_SPACE}", f"--fsize={FILE_SIZE}", f"--nofile={OPEN_FILES}", f"--cpu={self.cpu}"]
        if not self.cgroups:
            limits.append(f"--nproc={TASKS * 4}")
        box = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
        readable = sorted({*SYSTEM, sys.base_prefix, sys.prefix, str(PACKAGE), str(_data_root())})
        box += _folders(readable)
        for path in readable:
            box += ["--ro-bind-try", path, path]
        box += ["--proc", "/proc", "--dev", "/dev", "--size", str(TMP_SIZE), "--tmpfs", "/tmp"]
        box += _folders([str(self.sock)])
        box += ["--bind", str(self.work), "/submission", "--bind", str(self.sock), str(self.sock)]
        box += ["--dir", "/tmp/home", "--chdir", "/submission", "--clearenv"]
        for key, value in self.environment().items():
            box += ["--setenv", key, value]
        if _root():  # no user namespace: bwrap as root, the command as nobody with no capabilities
            box[1:2] = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
            box += ["--", "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
            box += ["--inh-caps=-all", "--bounding-set=-all"]
        else:
            box += ["--"]
        wrapped = ["prlimit", *limits, "--", *box, *argv]
        groups = self.checking if check else self.cgroups
        if groups:  # join the cgroups first, so every process the notebook makes is counted
            joins = " && ".join(f'echo $$ > "{g}/cgroup.procs"' for g in groups)
            wrapped = ["/bin/sh", "-c", joins + ' && exec "$@"', "sandbox", *wrapped]
        return wrapped

    def kill(self) -> int:
        """SIGKILL every process left in the notebook's cgroups; how many there were."""
        killed: set[int] = set()
        for _ in range(100):
            alive = {int(p) for g in self.cgroups + self.checking for p in _read(g / "cgroup.procs").split()}
            if not alive:
                break
            for pid in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            killed |= alive
            time.sleep(0.02)
        return len(killed)

    def freeze(self, frozen: bool) -> None:
        """Stop (or restart) every process of the kernel's cgroup, so that while a check runs nothing
        the notebook left running (a fork bomb, a busy thread) competes with it for the machine."""
        for group in self.cgroups:
            _write(group / "cgroup.freeze", str(int(frozen)))  # cgroup v2
            _write(group / "freezer.state", "FROZEN" if frozen else "THAWED")  # v1's freezer group

    def close(self) -> None:
        """Kill what is left, remove the cgroups and the folder."""
        self.freeze(False)
        self.kill()
        for group in self.cgroups + self.checking:
            for _ in range(50):
                try:
                    group.rmdir()
                    break
                except OSError:
                    time.sleep(0.05)
        shutil.rmtree(self.root, ignore_errors=True)


def _folders(paths: list[str]) -> list[str]:
    """bwrap options making the folders above ``paths`` traversable by anyone (bwrap makes them 0700 as root)."""
    above = sorted({str(p) for path in paths for p in Path(path).parents if str(p) != "/"})
    return [arg for folder in above for arg in ("--perms", "0755", "--dir", folder)]


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _data_root() -> Path:
    from ..data import data_dir

    return data_dir().resolve()


def _cgroups(name: str, freezer: bool = False) -> list[Path]:
    """Cgroups with the notebook's limits (v2: one; v1: pids, memory and, with ``freezer``, one to
    freeze them with); [] if none can be made."""
    top = Path("/sys/fs/cgroup")
    plan: dict[Path, dict[str, int]]
    if (top / "cgroup.controllers").exists():
        _write(top / "cgroup.subtree_control", "+pids +memory")
        plan = {top / f"toolkit-grade-{name}": {"pids.max": TASKS, "memory.max": MEMORY, "memory.swap.max": 0}}
    else:
        plan = {
            top / "pids" / f"toolkit-grade-{name}": {"pids.max": TASKS},
            top / "memory" / f"toolkit-grade-{name}": {"memory.limit_in_bytes": MEMORY},
        }
        if freezer and (top / "freezer").is_dir():
            plan[top / "freezer" / f"toolkit-grade-{name}"] = {}
    made = []
    for group, limits in plan.items():
        try:
            group.mkdir()
        except OSError:
            continue
        made.append(group)
        for key, value in limits.items():
            _write(group / key, str(value))
    return made if any(_read(g / "pids.max").strip() == str(TASKS) for g in made) else _drop(made)


def _drop(groups: list[Path]) -> list[Path]:
    for group in groups:
        try:
            group.rmdir()
        except OSError:
            pass
    return []


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError:
        pass


class Kernel:
    """A python3 kernel in a notebook's sandbox, reached over Unix sockets in ``sock/``; cells run
    with a time limit (interrupted, then the sandbox stopped).

    Used by: toolkit/course/grade.py.
    """

    def __init__(self, box: Sandbox, timeout: float = 120.0) -> None:
        from jupyter_client.blocking import BlockingKernelClient
        from jupyter_client.connect import write_connection_file

        self.box = box
        path, info = write_connection_file(
            str(box.sock / "kernel.json"), ip=str(box.sock / "k"), transport="ipc", key=secrets.token_hex(16).encode()
        )
        if box.sandboxed and _root():
            os.chown(path, NOBODY, NOBODY)
        argv = [sys.executable, "-m", "ipykernel_launcher", "-f", path, "--HistoryManager.enabled=False"]
        env = box.environment() | {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        with open(box.root / "kernel.log", "wb") as log:
            self.proc = subprocess.Popen(
                box.command(argv), env=env, cwd=box.work, stdin=subprocess.DEVNULL, stdout=log, stderr=log
            )
        self.kc = BlockingKernelClient()
        self.kc.load_connection_info(info)
        self.kc.start_channels()
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.kc.wait_for_ready(timeout=2)
                break
            except RuntimeError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                why = _read(box.root / "kernel.log").strip().splitlines()[-1:] or ["no answer"]
                self.close()
                raise RuntimeError(why[0][:300])
        import psutil  # type: ignore[import-untyped]

        tree = [psutil.Process(self.proc.pid), *psutil.Process(self.proc.pid).children(recursive=True)]
        found = [p.pid for p in tree if "ipykernel_launcher" in " ".join(p.cmdline())]  # before any cell ran
        self.schedstat = Path(f"/proc/{found[0]}/schedstat") if found else None

    def waited(self) -> float:
        """Seconds the kernel's main thread has spent ready to run but waiting for a CPU (0 if unknown):
        a cell's time limit does not count them, so a busy machine does not stop an honest cell."""
        fields = _read(self.schedstat).split() if self.schedstat else []
        return int(fields[1]) / 1e9 if len(fields) > 1 else 0.0

    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(self, code: str, timeout: float, interrupt: bool = True) -> dict[str, Any]:
        """Run ``code``: ``{"status": ok|error|timeout|dead, "text", "error", "answers", "stopped"}``.
        ``timeout`` is seconds of the cell's own time: the time it ran or waited for something, not
        the time the machine kept it waiting for a CPU (:meth:`waited`). A cell out of time is
        interrupted, and the sandbox stopped if that does not work (``stopped``: the kernel is gone
        because of the time limit, not by itself)."""
        msg_id = self.kc.execute(code, store_history=False, allow_stdin=False, stop_on_error=False)
        began, queued, size, error, answers = time.monotonic(), self.waited(), 0, "", None
        text: list[str] = []
        while True:
            left = timeout - (time.monotonic() - began - (self.waited() - queued))
            if left <= 0:
                status = self._interrupt() if interrupt else "timeout"
                return {
                    "status": status,
                    "text": "".join(text),
                    "error": f"ran longer than {timeout:g} s",
                    "stopped": True,
                }
            try:
                msg = self.kc.get_iopub_msg(timeout=min(left, 1.0))
            except Empty:
                if not self.alive():
                    return {"status": "dead", "text": "".join(text), "error": "the kernel stopped (crashed or exited)"}
                continue
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content, piece = msg["msg_type"], msg["content"], ""
            if kind == "stream":
                piece = str(content.get("text", ""))
            elif kind in ("execute_result", "display_data"):
                data = content.get("data", {})
                answers = data[ANSWERS] if ANSWERS in data else answers
                piece = str(data.get("text/plain", ""))
            elif kind == "error":
                error = f"{content.get('ename')}: {content.get('evalue')}"[:500]
            elif kind == "status" and content.get("execution_state") == "idle":
                status = "error" if error else "ok"
                return {"status": status, "text": "".join(text), "error": error, "answers": answers}
            if size < OUTPUT_KEPT:
                text.append(piece[: OUTPUT_KEPT - size])
            size += len(piece)

    def _interrupt(self) -> str:
        """Interrupt the cell (a message to the kernel); if it does not come back, stop the sandbox."""
        self.kc.control_channel.send(self.kc.session.msg("interrupt_request", {}))
        if self.alive() and self.run("pass", 10.0, interrupt=False)["status"] == "ok":
            return "timeout"
        self.close()
        return "dead"

    def close(self) -> None:
        """Stop the kernel and everything it started (its pid namespace dies with bwrap)."""
        try:
            self.kc.stop_channels()
        except Exception:  # channels already closed
            pass
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.box.kill()
