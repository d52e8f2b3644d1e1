"""One graded notebook's kernel: its folders, its guard, its pipe, its processes (README "Grading submitted notebooks").

The grader's side of toolkit/course/grade.py, which decides verdicts; the kernel's side is
toolkit/course/grade_guard.py with toolkit/course/grade_integrity.py.

* :class:`Workspace`: a grading run's scratch folder. The guard is copied once into ``guard/``
  (outside every sandbox, so no notebook can rewrite it); each notebook gets ``nb-*/sandbox``
  (its working folder, home and temporary folder) and ``nb-*/private`` (the kernel's connection
  file, the log of its child processes). The kernel may read none of the run's folders but its
  own sandbox and the guard. :func:`remove_tree` never raises: it clears the immutable and
  append-only flags a notebook may have set, retries, and otherwise names the folder it left.
* :class:`Channel`: the key (32 random bytes, written down a pipe the kernel's guard reads
  once at start, never in the environment) and the report pipe, drained by a thread and read
  up to date after each cell (:meth:`Channel.catch_up`). Each line must carry the key's HMAC
  and the next sequence number; any other line is counted as forged.
* :class:`GradingKernel`: a Jupyter kernel started in the sandbox with the guard and both
  pipes, cells run with a time limit (interrupted, then stopped), and, when it closes, every
  process that carries the notebook's sandbox in its environment is killed, whatever session
  it started: with :func:`become_subreaper` (Linux), orphans are reparented to the grader, so
  none escapes to init before it is found.

Used by: toolkit/course/grade.py.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from queue import Empty
from typing import Any

from . import grade_guard, grade_integrity

__all__ = ["Workspace", "Channel", "GradingKernel", "remove_tree", "become_subreaper", "kill_sandbox_processes"]

OUTPUT_KEPT = 20_000  # characters of a cell's output kept for the feedback
FS_IOC_GETFLAGS, FS_IOC_SETFLAGS = 0x80086601, 0x40086602
LOCKED_FLAGS = 0x10 | 0x20  # FS_IMMUTABLE_FL, FS_APPEND_FL


# ---- folders -------------------------------------------------------------------------------------


class Workspace:
    """A grading run's scratch folder (the module's docstring); :meth:`notebook` makes one notebook's part.

    Used by: toolkit/course/grade.py.
    """

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root or tempfile.mkdtemp(prefix="toolkit-grade-")).resolve()
        self.guard = self.root / "guard"
        self.guard.mkdir(parents=True, exist_ok=True)
        here = Path(__file__).resolve().parent
        shutil.copy(here / "grade_guard.py", self.guard / "sitecustomize.py")
        shutil.copy(here / "grade_integrity.py", self.guard / "grade_integrity.py")

    def notebook(self) -> NotebookFolders:
        return NotebookFolders(Path(tempfile.mkdtemp(prefix="nb-", dir=self.root)), self.guard)

    def remove(self, warn: Callable[[str], Any] = print) -> bool:
        return remove_tree(self.root, warn)


class NotebookFolders:
    """One notebook's sandbox (work, home, tmp) and private folder, beside the run's guard."""

    def __init__(self, root: Path, guard: Path) -> None:
        self.root, self.guard = root, guard
        self.sandbox, self.private = root / "sandbox", root / "private"
        self.work, self.home, self.tmp = self.sandbox / "work", self.sandbox / "home", self.sandbox / "tmp"
        for folder in (self.work, self.home, self.tmp):
            folder.mkdir(parents=True, exist_ok=True)
        self.private.mkdir(mode=0o700, exist_ok=True)
        self.child_log = self.private / "children.jsonl"

    def environment(self, protected: Iterable[Path], hidden: Iterable[Path], run_root: Path) -> dict[str, str]:
        """The kernel's environment: the guard first on the path, the sandbox's folders, nothing secret."""
        keep = ("PATH", "LANG", "LC_ALL", "TOOLKIT_DATA", "TOOLKIT_TIME_SCALE", "SYSTEMROOT")
        env = {k: v for k, v in os.environ.items() if k in keep}
        package_parent = Path(__file__).resolve().parents[2]
        env |= {
            "HOME": str(self.home),
            "TMPDIR": str(self.tmp),
            "IPYTHONDIR": str(self.home / ".ipython"),
            "MPLCONFIGDIR": str(self.home / ".mpl"),
            "JUPYTER_RUNTIME_DIR": str(self.tmp / "jupyter"),
            "MPLBACKEND": "agg",
            "PYTHONPATH": os.pathsep.join([str(self.guard), str(package_parent)]),
            "PYTHONNOUSERSITE": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "NO_PROXY": "*",
            "TOOLKIT_GRADE_SANDBOX": str(self.sandbox),
            "TOOLKIT_GRADE_PROTECTED": os.pathsep.join(str(p) for p in protected),
            "TOOLKIT_GRADE_HIDDEN": os.pathsep.join(str(p) for p in [run_root, *hidden]),
            "TOOLKIT_GRADE_READABLE": str(self.guard),
            "TOOLKIT_GRADE_CHILD_LOG": str(self.child_log),
        }
        return env

    def child_records(self) -> list[dict]:
        """What the notebook's child processes' guards wrote (notes and tampering; they hold no key)."""
        try:
            text = self.child_log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        records = []
        for line in text.splitlines()[:500]:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
        return records


def remove_tree(path: Path, warn: Callable[[str], Any] = print) -> bool:
    """Remove a folder and never raise: locked files are unlocked (``chattr -i -a``), the removal is
    retried (a process may still be writing), and a folder that stays is named in a warning.

    Used by: toolkit/course/grade.py.
    """
    for attempt in range(6):
        try:
            if sys.version_info >= (3, 12):
                shutil.rmtree(path, onexc=_unlock)
            else:
                shutil.rmtree(path, onerror=_unlock)
        except OSError:
            pass
        if not os.path.lexists(path):
            return True
        time.sleep(0.1 * (attempt + 1))
    warn(f"grade: could not remove the grading folder {path}; remove it by hand")
    return False


def _unlock(function: Callable, path: str, _exc: Any) -> None:
    """``shutil.rmtree``'s error handler: clear the flags of the path and its folder, make them
    writable, and try once more; a second failure is left to the next attempt."""
    for target in (os.path.dirname(path), path):
        _clear_flags(target)
        try:
            os.chmod(target, 0o700, follow_symlinks=False)
        except (OSError, NotImplementedError):
            pass
    try:
        function(path)
    except OSError:
        pass


def _clear_flags(path: str) -> None:
    try:
        import fcntl
        import struct
    except ImportError:  # not a Unix
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return
    try:
        flags = struct.unpack("l", fcntl.ioctl(fd, FS_IOC_GETFLAGS, b"\0" * 8))[0]
        if flags & LOCKED_FLAGS:
            fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("l", flags & ~LOCKED_FLAGS))
    except OSError:
        pass
    finally:
        os.close(fd)


# ---- processes -------------------------------------------------------------------------------------


def become_subreaper() -> bool:
    """Make orphaned descendants this process's children instead of init's (Linux ``prctl``), so a
    process a notebook started in a new session is still found, and reaped, when it is killed.

    Used by: toolkit/course/grade.py.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _process_table() -> dict[int, tuple[int, bytes]]:
    """``{pid: (parent pid, environment)}`` of every process this grader may see."""
    table = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                parent = int(fh.read().rsplit(b")", 1)[1].split()[1])
            with open(f"/proc/{entry}/environ", "rb") as fh:
                environ = fh.read()
        except (OSError, ValueError, IndexError):
            continue
        table[int(entry)] = (parent, environ)
    return table


def sandbox_processes(marker: bytes, roots: Iterable[int] = ()) -> set[int]:
    """Processes carrying ``marker`` (``TOOLKIT_GRADE_SANDBOX=…``) in their environment, and every
    descendant of ``roots``; never this process."""
    table = _process_table()
    found = {pid for pid, (_, environ) in table.items() if (b"\0" + environ).find(b"\0" + marker + b"\0") >= 0}
    found |= {pid for pid in roots if pid in table}
    grew = True
    while grew:
        more = {pid for pid, (parent, _) in table.items() if parent in found and pid not in found}
        found |= more
        grew = bool(more)
    found.discard(os.getpid())
    return found


def kill_sandbox_processes(marker: bytes, roots: Iterable[int] = (), rounds: int = 50) -> int:
    """SIGKILL every process of a notebook (see :func:`sandbox_processes`) until none is left, reaping
    the ones reparented to this grader; returns how many were killed.

    Used by: toolkit/course/grade_kernel.py.
    """
    killed: set[int] = set()
    roots = set(roots)
    for _ in range(rounds):
        alive = {pid for pid in sandbox_processes(marker, roots) - killed if _alive(pid)}
        if not alive:
            break
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        killed |= alive
        time.sleep(0.02)
        _reap(killed)
    _reap(killed)
    return len(killed)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def _reap(pids: Iterable[int]) -> None:
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except (ChildProcessError, OSError):
            pass


# ---- the report pipe -----------------------------------------------------------------------------------


class Channel:
    """The kernel guard's key and report pipe (the module's docstring).

    Used by: toolkit/course/grade.py.
    """

    def __init__(self) -> None:
        self.key = secrets.token_bytes(grade_integrity.KEY_BYTES)
        self.key_fd, key_writer = os.pipe()
        os.write(key_writer, self.key)
        os.close(key_writer)
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)  # catch_up reads what is there and returns
        self.records: list[dict] = []
        self.forged: list[str] = []
        self._seq = 0
        self._buffer = b""
        self._reading = threading.Lock()  # one reader at a time: the drain thread or catch_up
        self._closed = False  # the pipe's far end is closed (or the grader closed it)
        self._thread: threading.Thread | None = None

    def environment(self) -> dict[str, str]:
        return {grade_guard.KEY_FD: str(self.key_fd), grade_guard.CHANNEL_FD: str(self.write_fd)}

    def child_fds(self) -> tuple[int, int]:
        return self.key_fd, self.write_fd

    def started(self) -> None:
        """The kernel has its ends: close the grader's copies and start draining."""
        for fd in (self.key_fd, self.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self._thread = threading.Thread(target=self._drain, daemon=True, name="grade-channel")
        self._thread.start()

    def mac(self, index: int, source: str) -> str:
        return grade_integrity.sign(self.key, f"{index}\n{source}".encode())

    def _drain(self) -> None:
        """Read lines as they come (so a kernel that reports a lot never waits on a full pipe)."""
        import select

        poll = select.poll()
        poll.register(self.read_fd, select.POLLIN)
        while not self._closed:
            try:
                poll.poll()
            except OSError:
                return
            self.catch_up()

    def catch_up(self) -> None:
        """Take every line the kernel has written so far. A report the guard made before a cell
        finished is in the pipe by the time the cell's reply arrives, so after this call it is
        in :attr:`records`, however busy the machine: no waiting, no time limit."""
        with self._reading:
            while not self._closed:
                try:
                    chunk = os.read(self.read_fd, 1 << 16)
                except BlockingIOError:
                    return
                except OSError:
                    chunk = b""
                if not chunk:
                    self._closed = True
                    return
                self._buffer += chunk
                *lines, self._buffer = self._buffer.split(b"\n")
                for line in lines:
                    self._take(line)

    def _take(self, line: bytes) -> None:
        payload, _, mac = line.rpartition(b" ")
        record: Any = None
        if mac and grade_integrity.sign(self.key, payload).encode() == mac:
            try:
                record = json.loads(payload)
            except ValueError:
                record = None
        if not isinstance(record, dict) or record.get("seq") != self._seq + 1:
            if len(self.forged) < 20:
                self.forged.append(line[:120].decode("utf-8", "replace"))
            return
        self._seq += 1
        self.records.append(record)

    def close(self) -> None:
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._reading:
            self._closed = True
            try:
                os.close(self.read_fd)
            except OSError:
                pass


# ---- the kernel -----------------------------------------------------------------------------------------


class GradingKernel:
    """A fresh python3 kernel for one notebook, in its sandbox, with the guard and its pipes.

    Used by: toolkit/course/grade.py.
    """

    def __init__(self, folders: NotebookFolders, env: dict[str, str], channel: Channel) -> None:
        from jupyter_client.manager import KernelManager

        self.folders, self.channel = folders, channel
        self.marker = f"TOOLKIT_GRADE_SANDBOX={env['TOOLKIT_GRADE_SANDBOX']}".encode()
        self.pid: int | None = None
        self.km = KernelManager(kernel_name="python3")
        self.km.connection_file = str(folders.private / f"kernel-{secrets.token_hex(4)}.json")
        try:
            self.km.start_kernel(
                env=env | channel.environment(),
                cwd=str(folders.work),
                extra_arguments=["--HistoryManager.enabled=False"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=channel.child_fds(),
            )
        finally:
            channel.started()
        self.pid = getattr(self.km.provisioner, "pid", None)
        self.kc = self.km.client()
        try:
            self.kc.start_channels()
            self.kc.wait_for_ready(timeout=120)
        except BaseException:
            self.close()  # a kernel that started but never answered is stopped with its children
            raise

    def run(self, code: str, timeout: float, silent: bool = False, interrupt: bool = True) -> dict[str, Any]:
        """Run ``code``; ``{"status": ok|error|timeout|dead, "text": ..., "error": ..., "stopped": bool}``.
        A cell that runs out of time is interrupted (``interrupt``), and the kernel stopped if that
        fails (``stopped``: the kernel died because the cell ran out of time, not by itself)."""
        msg_id = self.kc.execute(code, silent=silent, store_history=not silent, allow_stdin=False, stop_on_error=False)
        deadline, size, error = time.monotonic() + timeout, 0, ""
        text: list[str] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                status = self._interrupt() if interrupt else "timeout"
                return {
                    "status": status,
                    "text": "".join(text),
                    "error": f"ran longer than {timeout:g} s",
                    "stopped": True,
                }
            try:
                msg = self.kc.get_iopub_msg(timeout=min(left, 2.0))
            except Empty:
                if not self.km.is_alive():
                    return {"status": "dead", "text": "".join(text), "error": "the kernel stopped (crashed or exited)"}
                continue
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            piece = ""
            if kind == "stream":
                piece = content.get("text", "")
            elif kind in ("execute_result", "display_data"):
                piece = str(content.get("data", {}).get("text/plain", ""))
            elif kind == "error":
                error = f"{content.get('ename')}: {content.get('evalue')}"[:500]
            elif kind == "status" and content.get("execution_state") == "idle":
                return {"status": "error" if error else "ok", "text": "".join(text), "error": error}
            if size < OUTPUT_KEPT:
                text.append(piece[: OUTPUT_KEPT - size])
            size += len(piece)

    def _interrupt(self) -> str:
        """Interrupt a cell that ran too long; if the kernel does not come back, stop it."""
        try:
            self.km.interrupt_kernel()
            reply = self.run("pass", 10.0, silent=True, interrupt=False) if self.km.is_alive() else {"status": "dead"}
        except RuntimeError:
            reply = {"status": "dead"}
        if reply["status"] != "ok":
            self.close()
            return "dead"
        return "timeout"

    def close(self) -> None:
        """Kill the kernel and every process the notebook started, whatever session it made."""
        kill_sandbox_processes(self.marker, [self.pid] if self.pid else [])
        try:
            self.kc.stop_channels()
            if self.km.has_kernel:
                self.km.shutdown_kernel(now=True)
        except Exception:  # a kernel that is already gone
            pass
        try:
            self.km.cleanup_resources()
        except Exception:
            pass
