"""The grading sandbox's guard: an audit hook in every Python process a graded notebook starts.

README "Grading submitted notebooks". ``python -m toolkit grade`` (toolkit/course/grade.py)
copies this file as ``sitecustomize.py``, with toolkit/course/grade_integrity.py beside it, into
a folder outside the sandbox that the kernel's ``PYTHONPATH`` starts with, so it is installed
before any of the student's code runs, in the kernel and in every Python program the notebook
starts. An audit hook (:pep:`578`) cannot be removed once added. The hook

* refuses the network: any address but loopback, for streams, datagrams (``sendto``,
  ``sendmsg``), listening sockets and name lookups; a Unix socket only inside the sandbox;
* refuses writes, deletions, renames, links, permission and time changes outside the sandbox
  (paths resolved as the system will: against their ``dir_fd``, through symbolic links; both
  ends of a link or rename), and ``sqlite3`` databases (their SQL writes files no event reports),
  and records an attempt on the toolkit or the
  course data as tampering; refuses reading the grader's folders, the other submissions and the
  course's own notebooks (the teacher's solutions), device files and other processes' memory;
* refuses programs other than Python, and a Python that would run without this guard (``-I``,
  ``-E``, ``-S``, or an environment without it: a ``subprocess`` environment is given the
  guard's settings instead), and signals to processes outside the notebook's own;
* refuses, and records as tampering, what could reach a check's inner state or this guard from
  the student's code: walking the heap (``gc``), ``ctypes``, a compiled extension that is not an
  installed library's, tracing, other threads' frames, frames of the guard itself, new audit
  hooks; and refuses the immutable-file flag;
* hands the rest to :class:`~toolkit.course.grade_integrity.Integrity` (fingerprints, frames
  during a check, the check's verdict and the signed reports to the grader).

The guard keeps its own bindings of the built-ins and of the ``os`` functions it uses, taken
before any student code ran, and removes both modules from ``sys.modules``: a student's
``builtins.len = ...`` or ``os.path.realpath = ...`` never runs inside it.

Standard library only. Used by: toolkit/course/grade.py.
"""

from __future__ import annotations

import os
import sys

# The guard's own bindings of the built-ins: a student's ``builtins.len = ...`` never reaches it.
from builtins import (  # noqa: UP029 (on purpose: see the comment above)
    BaseException,
    Exception,
    OSError,
    PermissionError,
    RuntimeError,
    ValueError,
    all,
    any,
    bytes,
    dict,
    enumerate,
    frozenset,
    getattr,
    int,
    len,
    list,
    set,
    sorted,
    str,
    tuple,
    type,
    zip,
)
from typing import Any

if __name__ == "sitecustomize":  # beside its other half in the guard folder
    import grade_integrity as integrity  # type: ignore[import-not-found]
else:
    from . import grade_integrity as integrity

__all__ = ["install", "GUARD_VARIABLES"]

# The environment a grading kernel gets (toolkit/course/grade_kernel.py sets it; a Python child must keep it).
GUARD_VARIABLES = (
    "TOOLKIT_GRADE_SANDBOX",
    "TOOLKIT_GRADE_PROTECTED",
    "TOOLKIT_GRADE_HIDDEN",
    "TOOLKIT_GRADE_READABLE",
    "TOOLKIT_GRADE_CHILD_LOG",
    "PYTHONPATH",
    "PYTHONNOUSERSITE",
)
KEY_FD, CHANNEL_FD = "TOOLKIT_GRADE_KEY_FD", "TOOLKIT_GRADE_CHANNEL_FD"

# os functions as they were before any student code ran (C functions: no Python inside)
_lstat, _stat, _readlink, _getcwd, _access = os.lstat, os.stat, os.readlink, os.getcwd, os.access
_open, _read, _write, _close, _fspath, _getpid = os.open, os.read, os.write, os.close, os.fspath, os.getpid
_getframe = sys._getframe
_S_IFMT, _S_IFLNK, _S_IFDIR, _S_IFCHR, _S_IFBLK = 0o170000, 0o120000, 0o040000, 0o020000, 0o060000
FS_IOC_SETFLAGS = {0x40086602, 0x40046602}  # chattr +i / +a (64- and 32-bit request numbers)
DEVICES_ALLOWED = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")

PATH_EVENTS: dict[str, tuple[tuple[int, int | None], ...]] = {  # event: ((path arg, its dir_fd arg), ...)
    "os.remove": ((0, 1),),
    "os.rmdir": ((0, 1),),
    "os.rename": ((0, 2), (1, 3)),
    "os.link": ((0, 2), (1, 3)),
    "os.symlink": ((1, 2),),
    "os.mkdir": ((0, 2),),
    "os.mkfifo": ((0, 2),),
    "os.chmod": ((0, 2),),
    "os.chown": ((0, 3),),
    "os.utime": ((0, 3),),
    "os.truncate": ((0, None),),
    "os.chflags": ((0, None),),
    "os.lchflags": ((0, None),),
    "os.setxattr": ((0, None),),
    "os.removexattr": ((0, None),),
    "shutil.rmtree": ((0, 1),),
    "sqlite3.connect": ((0, None),),
}
SPY_EVENTS = {  # event: library packages whose own wrappers are skipped to find who asked
    "gc.get_objects": (),
    "gc.get_referrers": (),
    "gc.get_referents": (),
    "sys._current_frames": (),
    "sys.settrace": ("threading",),
    "sys.setprofile": ("threading",),
}
PROCESS_EVENTS = ("subprocess.Popen", "os.posix_spawn", "os.exec", "os.spawn", "os.system", "os.startfile")
NETWORK_EVENTS = ("socket.connect", "socket.sendto", "socket.sendmsg", "socket.bind")
LOOKUP_EVENTS = ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo")


class Refused(BaseException):
    """Raised inside the guard's rules: the operation is refused with this sentence."""


# ---- paths -------------------------------------------------------------------------------------


def _is(st_mode: int, kind: int) -> bool:
    return (st_mode & _S_IFMT) == kind


def realpath(path: str, depth: int = 0) -> str:
    """``os.path.realpath`` for an absolute path, written with the guard's own ``os`` functions."""
    out = ""
    parts = path.split("/")
    for i, part in enumerate(parts):
        if part in ("", "."):
            continue
        if part == "..":
            out = out.rsplit("/", 1)[0]
            continue
        candidate = out + "/" + part
        try:
            is_link = _is(_lstat(candidate).st_mode, _S_IFLNK)
        except (OSError, ValueError):
            return _lexical(candidate, parts[i + 1 :])
        if not is_link or depth > 40:
            out = candidate
            continue
        target = _readlink(candidate)
        out = realpath(target if target.startswith("/") else out + "/" + target, depth + 1)
    return out or "/"


def _lexical(base: str, rest: list[str]) -> str:
    for part in rest:
        if part == "..":
            base = base.rsplit("/", 1)[0] or "/"
        elif part not in ("", "."):
            base = base.rstrip("/") + "/" + part
    return base


def _under(path: str, roots: tuple[str, ...]) -> bool:
    for root in roots:
        if path == root or path.startswith(root.rstrip("/") + "/"):
            return True
    return False


class PathReader:
    """Turns the path argument of an event into text, refusing objects whose ``__fspath__`` could lie."""

    def __init__(self) -> None:
        import pathlib

        self.kinds = (pathlib.PosixPath, pathlib.PurePosixPath)
        self.entry = os.DirEntry
        self.classes = [k for k in pathlib.PosixPath.__mro__ if k is not object] + [pathlib.PurePosixPath]
        self.flavour = getattr(pathlib.PurePosixPath, "_flavour", None)  # 3.10-3.11: an object; 3.12: posixpath
        self.snapshot = self._state()

    def _state(self) -> list:
        """The pathlib classes' dicts (and its flavour's), whose methods turn a path into text."""
        owners = list(self.classes)
        if self.flavour is not None:
            owners += [self.flavour, type(self.flavour)]
        return [tuple(integrity._items(integrity._vars(owner))) for owner in owners]

    def _pristine(self) -> bool:
        """Whether pathlib is as it was at start (else its ``__fspath__`` could answer one thing here, another to open)."""
        now = self._state()
        if len(now) != len(self.snapshot):
            return False
        for a, b in zip(now, self.snapshot):
            if len(a) != len(b) or any([x[0] != y[0] or x[1] is not y[1] for x, y in zip(a, b)]):
                return False
        return True

    def text(self, path: Any) -> str | None:
        """The path as text; None for a file descriptor; :class:`Refused` for anything unsafe."""
        kind = type(path)
        if kind is str:
            return path
        if kind is bytes:
            return bytes.decode(path, "utf-8", "surrogateescape")
        if kind is int:
            return None
        if kind is self.entry or (kind in self.kinds and self._pristine()):
            found = _fspath(path)
            if type(found) is str:
                return found
        raise Refused(f"a path given as a {integrity._text(integrity._type_name(kind))} object is refused here")


def fd_path(fd: Any) -> str:
    if type(fd) is not int:
        raise Refused("a directory descriptor that is not a number")
    try:
        return _readlink(f"/proc/self/fd/{fd}")
    except OSError:
        raise Refused("a directory descriptor the guard cannot follow") from None


# ---- the sandbox's rules -------------------------------------------------------------------------


class Sandbox:
    """The sandbox's folders and rules, read from the environment the grader gave the kernel."""

    def __init__(self, environ: dict[str, str], integrity_: Any) -> None:
        def roots(name: str) -> tuple[str, ...]:
            return tuple([realpath(p) for p in environ.get(name, "").split(os.pathsep) if p.startswith("/")])

        self.sandbox = realpath(environ["TOOLKIT_GRADE_SANDBOX"])
        self.protected, self.hidden = roots("TOOLKIT_GRADE_PROTECTED"), roots("TOOLKIT_GRADE_HIDDEN")
        self.readable = roots("TOOLKIT_GRADE_READABLE")
        self.required = tuple([(k, environ[k]) for k in GUARD_VARIABLES if k in environ])
        self.marker = ("TOOLKIT_GRADE_SANDBOX=" + environ["TOOLKIT_GRADE_SANDBOX"] + "\0").encode()
        self.pythons = frozenset([realpath(p) for p in (sys.executable, getattr(sys, "_base_executable", "")) if p])
        self.path = environ.get("PATH", "")
        self.environ = os.environ
        self.paths = PathReader()
        self.integrity = integrity_
        self.pid = _getpid()

    def refuse(self, why: str, tampering: bool = False, quiet: bool = False) -> Refused:
        """Note (or record as tampering) a refusal, and the exception that refuses it; ``quiet``:
        no note (what a library tries for itself, such as a bytecode cache or ``fc-list``)."""
        if tampering:
            self.integrity.tamper(why)
        elif not quiet:
            self.integrity.note(why + " refused")
        return Refused(f"grading sandbox: {why} is not allowed while grading")

    # -- files --

    def resolve(self, path: Any, dir_fd: Any = None) -> str | None:
        text = self.paths.text(path)
        if text is None:
            return None
        if not text.startswith("/"):
            base = _getcwd() if dir_fd in (None, -1, -100) else fd_path(dir_fd)  # -1: no dir_fd given
            text = base + "/" + text
        return realpath(text)

    def check_write(self, what: str, real: str) -> None:
        if _under(real, (self.sandbox,)) or real == "/dev/null":
            return
        cache = "/__pycache__/" in real + "/"
        if _under(real, self.protected) and not cache:
            raise self.refuse(f"{what} on the course's own files ({real})", tampering=True)
        raise self.refuse(f"{what} outside the grading folder ({real})", quiet=cache)

    def check_read(self, what: str, real: str) -> None:
        if _under(real, (self.sandbox,) + self.readable):
            return self._check_device(what, real)
        if _under(real, self.hidden) and not self.integrity.starting():
            raise self.refuse(f"{what} {real} (the grader's, the course's or another student's files)")
        if real.startswith("/proc/") and _secret_proc(real):
            raise self.refuse(f"{what} {real} (a process's memory, descriptors or environment)")
        self._check_device(what, real)

    def _check_device(self, what: str, real: str) -> None:
        """Device files (a disk read raw bypasses every folder rule), wherever they were made."""
        if real in DEVICES_ALLOWED or real.startswith("/dev/pts/"):
            return
        try:
            mode = _stat(real).st_mode
        except (OSError, ValueError):
            return
        if _is(mode, _S_IFBLK) or _is(mode, _S_IFCHR):
            raise self.refuse(f"{what} the device {real}")

    def on_open(self, path: Any, mode: Any, flags: Any) -> None:
        low_level = mode is None
        writing = (type(mode) is str and any([c in mode for c in "wax+"])) or (
            low_level
            and type(flags) is int
            and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
        )
        text = self.paths.text(path)
        if text is None:
            return
        if low_level and not text.startswith("/") and ".." in text.split("/"):
            raise self.refuse(f"os.open of a relative path with '..' ({text})")
        real = self.resolve(text)
        assert real is not None
        if writing:
            self.check_write("writing", real)
        self.check_read("opening", real)
        if low_level and not _under(real, (self.sandbox,)) and _is_directory(real):
            raise self.refuse(f"a directory descriptor outside the grading folder ({real})")

    def on_path_event(self, event: str, args: tuple) -> None:
        what = event.split(".")[-1]
        if event == "sqlite3.connect" and not self.integrity.starting():
            raise self.refuse("a sqlite3 database (its SQL can write files anywhere: ATTACH, VACUUM INTO)")
        if event == "sqlite3.connect" and _sqlite_memory(args[0]):
            return
        for index, fd_index in PATH_EVENTS[event]:
            if index < len(args):
                dir_fd = args[fd_index] if fd_index is not None and fd_index < len(args) else None
                path = _sqlite_path(args[index]) if event == "sqlite3.connect" else args[index]
                real = self.resolve(path, dir_fd)
                if real is not None:
                    self.check_write(what, real)
        if event == "os.symlink":
            self._check_link_target(args)

    def _check_link_target(self, args: tuple) -> None:
        """A symbolic link made in the sandbox must point inside it, and not upward ('..')."""
        target = self.paths.text(args[0]) or ""
        link = self.resolve(args[1], args[2] if len(args) > 2 else None) or ""
        where = realpath(target) if target.startswith("/") else realpath(link.rsplit("/", 1)[0] + "/" + target)
        if ".." in target.split("/") or not _under(where, (self.sandbox,)):
            raise self.refuse(f"a symbolic link to {target} (outside the grading folder)")

    def on_listing(self, event: str, args: tuple) -> None:
        real = self.resolve(args[0]) if args and args[0] is not None else None
        if real is not None:
            self.check_read("listing", real)

    # -- processes --

    def on_process(self, event: str, args: tuple, caller: Any) -> None:
        if event in ("os.system", "os.startfile"):
            raise self.refuse(f"{event} (a shell)")
        program, argv, env = _process_parts(event, args)
        real = self._program(program)
        if real not in self.pythons:
            library = self.integrity.trust.started_by_library(caller)
            raise self.refuse(f"running the program {integrity._text(program)[:80]}", quiet=library)
        problem = _python_flags(argv)
        if problem:
            raise self.refuse(f"a Python run with {problem}, which would leave out the guard")
        if env is None or env is self.environ:  # the process's own environment, which keeps the guard's
            return
        if type(env) is not dict:
            raise self.refuse("a Python started with an environment that is not a dict")
        missing = [k for k, v in self.required if _env_get(env, k) != v]
        if _env_get(env, "PYTHONHOME") is not None or (missing and event != "subprocess.Popen"):
            raise self.refuse("a Python started without the guard's environment")
        for key, value in self.required:  # the child gets the guard whatever environment it was given
            for other in [k for k in dict.keys(env) if type(k) is bytes and bytes.decode(k, "utf-8", "replace") == key]:
                del env[other]
            env[key] = value

    def _program(self, program: Any) -> str:
        text = self.paths.text(program) or ""
        if "/" in text:
            return realpath(text if text.startswith("/") else _getcwd() + "/" + text)
        for folder in self.path.split(os.pathsep):
            candidate = folder + "/" + text
            if folder and _access(candidate, os.X_OK) and not _is_directory(candidate):
                return realpath(candidate)
        return ""

    def on_putenv(self, args: tuple) -> None:
        key = args[0]
        name = bytes.decode(key, "utf-8", "replace") if type(key) is bytes else integrity._text(key)
        if name in GUARD_VARIABLES or name in ("PYTHONHOME", "PYTHONSTARTUP", "LD_PRELOAD"):
            raise self.refuse(f"changing the environment variable {name}")

    def on_signal(self, event: str, args: tuple) -> None:
        target, signal = args[0], args[1] if len(args) > 1 else None
        if event == "resource.prlimit":
            if target not in (0, self.pid):
                raise self.refuse("changing another process's limits")
            return
        if signal == 0 or target == self.pid or (type(target) is int and target > 0 and self._ours(target)):
            return
        raise self.refuse(f"a signal to process {target}, which is not the notebook's")

    def _ours(self, pid: int) -> bool:
        """Whether a process belongs to this notebook (it carries the sandbox in its environment)."""
        try:
            fd = _open(f"/proc/{pid}/environ", os.O_RDONLY)
        except OSError:
            return False
        try:
            data = _read(fd, 1 << 20)
        finally:
            _close(fd)
        return (b"\0" + data).find(b"\0" + self.marker) >= 0

    # -- the network --

    def on_network(self, event: str, args: tuple) -> None:
        address = args[1] if len(args) > 1 else None
        if event == "socket.sendmsg" and address is None:
            return
        if type(address) is tuple and address:
            host = address[0]
            if event == "socket.bind" and type(host) is str and host in ("", "0.0.0.0", "::"):
                raise self.refuse("listening on every network interface")
            if not _loopback(host):
                raise self.refuse(f"network access ({integrity._text(host)[:60]})")
            return
        if type(address) in (str, bytes):  # a Unix socket: a file like any other
            text = self.paths.text(address) or ""
            if text.startswith("\0") or not text:
                raise self.refuse("an abstract Unix socket")
            self.check_write("a Unix socket", self.resolve(text) or "")
            return
        raise self.refuse("a network address of an unknown kind")

    def on_lookup(self, event: str, args: tuple) -> None:
        host = args[0] if args else None
        if type(host) is tuple:
            host = host[0] if host else None
        if not _loopback(host):
            raise self.refuse(f"network access ({integrity._text(host)[:60]})")


def _is_directory(path: str) -> bool:
    try:
        return _is(_stat(path).st_mode, _S_IFDIR)
    except (OSError, ValueError):
        return False


def _secret_proc(real: str) -> bool:
    """/proc/PID/mem, /proc/PID/fd/N, /proc/PID/environ and the like: memory, descriptors, environment."""
    parts = real.split("/")
    if len(parts) > 4 and parts[3] == "task":
        parts = parts[:2] + parts[4:]
    return len(parts) > 3 and parts[3] in ("mem", "environ", "fd", "map_files", "fdinfo", "pagemap", "syscall")


def _sqlite_memory(database: Any) -> bool:
    return type(database) is str and (database in ("", ":memory:") or database.startswith("file::memory:"))


def _sqlite_path(database: Any) -> Any:
    if type(database) is str and database.startswith("file:"):
        return database[5:].split("?", 1)[0] or ":memory:"
    return database


def _env_get(env: dict, key: str) -> Any:
    for k, v in integrity._items(env):
        if k == key:
            return v
    for k, v in dict.items(env):
        if type(k) is bytes and bytes.decode(k, "utf-8", "replace") == key and type(v) is bytes:
            return bytes.decode(v, "utf-8", "surrogateescape")
    return None


def _process_parts(event: str, args: tuple) -> tuple[Any, Any, Any]:
    """(program, argv, env) of a process-starting event."""
    if event == "subprocess.Popen":
        executable, argv, _cwd, env = args
        if type(argv) not in (list, tuple):
            argv = [argv]
        return (executable if executable is not None else (argv[0] if argv else "")), argv, env
    if event == "os.spawn":
        _mode, program, argv, env = args
        return program, argv, env
    program, argv, env = args  # os.posix_spawn, os.exec
    return program, argv, env


def _python_flags(argv: Any) -> str:
    """The option of a Python command line that would leave out the guard (``-I``, ``-E``, ``-S``), or ''."""
    if type(argv) not in (list, tuple):
        return "a command line that is not a list"
    for raw in list(argv)[1:]:
        arg = bytes.decode(raw, "utf-8", "replace") if type(raw) is bytes else integrity._text(raw)
        if arg == "--" or arg == "-" or not arg.startswith("-") or arg.startswith("--"):
            return ""
        for flag in arg[1:]:
            if flag in "IES":
                return f"-{flag}"
            if flag in "cm":
                return ""  # the rest is the program
            if flag in "WX":
                break  # the rest is this option's value
    return ""


def _loopback(host: Any) -> bool:
    """Whether a host names this machine (by number, or as localhost), so no packet leaves it."""
    if host is None:
        return True
    if type(host) is bytes:
        host = bytes.decode(host, "ascii", "replace")
    if type(host) is not str:
        return False
    host = host.lower()
    if host in ("", "localhost", "localhost.localdomain", "ip6-localhost", "::1", "0:0:0:0:0:0:0:1", "::"):
        return True
    parts = host.removeprefix("::ffff:").split(".")
    return len(parts) == 4 and all([p.isdigit() and int(p) < 256 for p in parts]) and parts[0] in ("127", "0")


# ---- spying: what reaches a check's inner state or the guard itself ------------------------------


class Spying:
    """Heap walks, ctypes, tracing, frames: refused when the student's code asks, and tampering."""

    def __init__(self, sandbox: Sandbox, integrity_: Any, guard_codes: frozenset) -> None:
        self.sandbox, self.integrity, self.guard_codes = sandbox, integrity_, guard_codes

    def on_spy(self, event: str, skip: tuple[str, ...], caller: Any) -> None:
        who = self.integrity.trust.student_origin(caller, skip)
        if who is not None:
            raise self.sandbox.refuse(f"{event} from {who}", tampering=True)

    def on_ctypes(self, event: str, caller: Any) -> None:
        who = self.integrity.trust.student_origin(caller, ("ctypes",))
        if who is not None:
            raise self.sandbox.refuse(f"ctypes ({event}) from {who}", tampering=True)

    def on_attribute(self, obj: Any, name: Any, caller: Any) -> None:
        if type(name) is not str or name not in integrity.FRAME_ATTRS:
            return
        frame = _frame_of(obj, name)
        if frame is not None and frame.f_code in self.guard_codes:
            # IPython or logging may print a refusal's traceback; the student's code may not hold its frames
            if self.integrity.trust.frame_reader(caller, None) is not None:
                raise self.sandbox.refuse("reading the grading guard's own frames", tampering=True)
            return
        self.integrity.frame_read(f"{name}", caller)

    def on_getframe(self, args: tuple, caller: Any) -> None:
        frame: Any = args[0] if args else None
        if type(frame) is integrity._FRAME and frame.f_code in self.guard_codes:
            raise self.sandbox.refuse("reading the grading guard's own frames", tampering=True)
        self.integrity.frame_read("sys._getframe", caller)

    def on_setattr(self, args: tuple) -> None:
        """``__code__``, ``__defaults__``, ``__class__``, ``__bases__`` … of a toolkit function or class."""
        target, name = args[0], integrity._text(args[1]) if len(args) > 1 else "?"
        if self.integrity.baseline is None:
            return  # the toolkit is still being imported
        if type(target) is integrity._FUNCTION and target.__code__ in self.integrity.trust.toolkit_codes:
            self.integrity.tamper(f"{name} of the toolkit's function {integrity._text(target.__qualname__)} was set")
        elif any([target is klass for klass in self.integrity.classes]):
            label = integrity._text(integrity._type_name(target))
            self.integrity.tamper(f"{name} of the toolkit's class {label} was set")


def _frame_of(obj: Any, name: str) -> Any:
    try:
        return getattr(obj, name)
    except Exception:
        return None


# ---- the hook ----------------------------------------------------------------------------------------


def make_hook(sandbox: Sandbox, spying: Spying, checks: Any) -> Any:
    """The audit hook: one dispatcher, never re-entered on a thread that is already inside it."""
    import _thread

    get_ident, inside = _thread.get_ident, set()
    routes = _routes(sandbox, spying, checks)

    def hook(event: str, args: tuple) -> None:
        me = get_ident()
        if me in inside:
            return
        route = routes.get(event) if type(event) is str else None
        if route is None and not (type(event) is str and event.startswith("ctypes.")):
            return
        inside.add(me)
        try:
            refusal = _run(route, event, args, _caller(), spying, sandbox)
        finally:
            inside.discard(me)
        if refusal is not None:
            raise refusal

    return hook


def _caller() -> Any:
    """The Python frame whose code raised the event (None for one raised by C code alone)."""
    try:
        return _getframe(2)  # 0 is _caller, 1 the hook, 2 the code that raised the event
    except ValueError:
        return None


def _run(route: Any, event: str, args: tuple, caller: Any, spying: Spying, sandbox: Sandbox) -> BaseException | None:
    """Apply one rule; the exception that refuses the operation, or None. A rule that fails refuses."""
    try:
        if route is None:
            spying.on_ctypes(event, caller)
        else:
            route(event, args, caller)
    except Refused as refused:
        return (RuntimeError if event == "sys.addaudithook" else PermissionError)(str(refused))
    except Exception as exc:
        what = f"the grading guard could not check {event} ({type(exc).__name__})"
        sandbox.integrity.tamper(what) if event.startswith("toolkit.") else sandbox.integrity.note(what)
        return PermissionError(f"grading sandbox: {what}")
    return None


def _routes(sandbox: Sandbox, spying: Spying, checks: Any) -> dict[str, Any]:
    routes: dict[str, Any] = {"open": lambda e, a, c: sandbox.on_open(*a[:3])}
    for event in PATH_EVENTS:
        routes[event] = lambda e, a, c: sandbox.on_path_event(e, a)
    for event in ("os.listdir", "os.scandir"):
        routes[event] = lambda e, a, c: sandbox.on_listing(e, a)
    for event in PROCESS_EVENTS:
        routes[event] = lambda e, a, c: sandbox.on_process(e, a, c)
    for event in NETWORK_EVENTS:
        routes[event] = lambda e, a, c: sandbox.on_network(e, a)
    for event in LOOKUP_EVENTS:
        routes[event] = lambda e, a, c: sandbox.on_lookup(e, a)
    for event in ("os.kill", "os.killpg", "resource.prlimit"):
        routes[event] = lambda e, a, c: sandbox.on_signal(e, a)
    for event in ("os.putenv", "os.unsetenv"):
        routes[event] = lambda e, a, c: sandbox.on_putenv(a)
    for event, skip in SPY_EVENTS.items():
        routes[event] = lambda e, a, c, skip=skip: spying.on_spy(e, skip, c)
    routes["fcntl.ioctl"] = lambda e, a, c: _on_ioctl(sandbox, a)
    routes["import"] = lambda e, a, c: _on_extension(sandbox, a)
    routes["sys.addaudithook"] = lambda e, a, c: _on_new_hook(sandbox, c)
    routes["sys._getframe"] = lambda e, a, c: spying.on_getframe(a, c)
    routes["object.__getattr__"] = lambda e, a, c: spying.on_attribute(a[0], a[1], c)
    routes["object.__setattr__"] = routes["object.__delattr__"] = lambda e, a, c: spying.on_setattr(a)
    routes["toolkit.grade.baseline"] = lambda e, a, c: checks.take_baseline(*a[:2])
    routes["toolkit.grade.begin"] = lambda e, a, c: checks.begin(*a[:3], c)
    routes["toolkit.grade.end"] = lambda e, a, c: checks.end(a[0] if a else None, c)
    routes["toolkit.grade.finish"] = lambda e, a, c: checks.finish()
    routes["toolkit.checks.result"] = lambda e, a, c: checks.result(*a[:2], c)
    routes["toolkit.checks.returned"] = lambda e, a, c: checks.returned()
    return routes


def _on_ioctl(sandbox: Sandbox, args: tuple) -> None:
    if len(args) > 1 and type(args[1]) is int and (args[1] & 0xFFFFFFFF) in FS_IOC_SETFLAGS:
        raise sandbox.refuse("setting a file's attributes (chattr)")


def _on_extension(sandbox: Sandbox, args: tuple) -> None:
    """A compiled extension (the ``import`` event with a file, raised when one is loaded) runs C code
    no audit hook sees: only the installed libraries' are loaded."""
    filename = args[1] if len(args) > 1 else None
    if type(filename) is not str:
        return  # an ordinary import: the file is read through ``open``, checked there
    real = realpath(filename if filename.startswith("/") else _getcwd() + "/" + filename)
    if not _under(real, sandbox.integrity.trust.library_dirs):
        raise sandbox.refuse(f"loading the compiled extension {real}", tampering=True)


def _on_new_hook(sandbox: Sandbox, caller: Any) -> None:
    sandbox.integrity.tamper("another audit hook was added")
    raise Refused("no audit hook may be added while grading")


# ---- installing --------------------------------------------------------------------------------------


def _take_key(environ: Any) -> tuple[bytes | None, int | None]:
    """The grader's key and the write end of its pipe (the kernel only): read once, then forgotten
    by the environment, so no child and no cell can find them there."""
    key_fd, channel = environ.pop(KEY_FD, None), environ.pop(CHANNEL_FD, None)
    if key_fd is None or channel is None:
        return None, None
    key = b""
    try:
        while len(key) < integrity.KEY_BYTES:
            chunk = _read(int(key_fd), integrity.KEY_BYTES - len(key))
            if not chunk:
                break
            key += chunk
        _close(int(key_fd))
        os.set_inheritable(int(channel), False)
    except (OSError, ValueError):
        return None, None
    return (key if len(key) == integrity.KEY_BYTES else None), int(channel)


def _environment_reader(environ: Any) -> Any:
    """A reader of the live environment (``os.environ``'s own dict, which ``toolkit.data`` reads),
    that runs no method a student could have replaced."""

    def value(name: str) -> str | None:
        data = integrity._get(integrity._vars(environ), "_data")
        key = name.encode()
        for k, v in dict.items(data) if type(data) is dict else ():
            if type(k) is bytes and k == key and type(v) is bytes:
                return bytes.decode(v, "utf-8", "surrogateescape")
        return None

    return value


def _library_dirs() -> list[str]:
    import sysconfig

    paths = sysconfig.get_paths()
    found = {realpath(os.path.abspath(paths[k])) for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    return sorted(found)


def _child_log(path: str) -> Any:
    """A child process's notes go to a file the grader reads (a child has no key: they can only add)."""

    def write(line: str) -> None:
        try:
            fd = _open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError:
            return
        try:
            _write(fd, line.encode("utf-8", "replace") + b"\n")
        finally:
            _close(fd)

    return write


def install() -> None:
    """Add the hook, once per process; does nothing outside a grading run (no sandbox set).

    Used by: toolkit/course/grade_guard.py.
    """
    if not os.environ.get("TOOLKIT_GRADE_SANDBOX"):
        return
    key, channel = _take_key(os.environ)
    environ = dict(os.environ)
    guard_codes: set = set()
    for module in (sys.modules[__name__], integrity):
        integrity.codes_of_module(module, guard_codes)
    trust = integrity.Trust(_library_dirs(), frozenset(guard_codes), realpath)
    log = (
        _child_log(environ["TOOLKIT_GRADE_CHILD_LOG"])
        if key is None and environ.get("TOOLKIT_GRADE_CHILD_LOG")
        else None
    )
    checks = integrity.Integrity(trust, key, channel, _write, _environment_reader(os.environ), log)
    sandbox = Sandbox(environ, checks)
    spying = Spying(sandbox, checks, trust.guard_codes)
    sys.addaudithook(make_hook(sandbox, spying, checks))
    # Nothing outside the hook refers to the guard: an empty module stands in for sitecustomize
    # (site.py is still importing it), and grade_integrity is forgotten.
    if __name__ == "sitecustomize" and __name__ in sys.modules:
        sys.modules[__name__] = type(sys)(__name__)
    if sys.modules.get("grade_integrity") is integrity:
        del sys.modules["grade_integrity"]


if __name__ == "sitecustomize":
    install()
