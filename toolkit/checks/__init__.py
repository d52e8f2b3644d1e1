"""Exercise checks: run a student's code on cases they have not seen and say what passed and what to try.

A check never shows a traceback. A stub that still raises ``NotImplementedError`` (or returns
``...``) is reported as "not done yet"; any other exception in student code becomes one
sentence naming it. Each check prints its report and returns a :class:`CheckResult` that
tests can inspect (in a notebook the result itself displays nothing more).

What a check promises the student (pack §2.8 "Retries, timeouts and limits" applies the same
idea to tools):

* Student code runs under a time limit (:data:`STUDENT_TIME_LIMIT` seconds per call,
  :data:`RUN_TIME_LIMIT` for all of one check's items together, so a verdict comes within that
  time whatever the code does). It runs in a thread of its own while the check only waits, so
  nothing in it, a bare ``except:`` around a loop included, can hold the verdict back. A
  function that never returns is named in one sentence (the student function that was
  running, even inside a tool the harness ran in a thread or a model's ``respond``), is not
  called again in that check, and its thread is stopped, or parked for good when it swallows
  the stop, so the kernel stays usable; items left when the time is used up fail at once,
  saying so; threads the check leaves running inside student code are stopped the same way.
* ``TOOLKIT_TIME_SCALE`` (an environment variable, default 1) multiplies both limits (down to
  a floor of 1 s and 3 s) and the deliberate sleeps of exercises 4 and 5 (:func:`scaled`), so a
  test run can shrink the waits; no verdict reads a clock against a constant, so a verdict does
  not change with the scale. The limits work on every system and from any thread.
* Plain-data arguments (dicts, lists, tuples, sets) reach student code as deep copies, so
  editing its input cannot change a later verdict. Objects with behaviour (functions,
  registries, models, environments) and data that cannot be copied are passed as they are.
* An item passes only when its body returns ``True``; anything else is named in the report.
* What student code prints during a check is kept to a few lines, shown once under the report.
* When the cell that ran just before the check failed, the report says so first: the check
  would otherwise grade the definitions from before that cell.

Writing a check (one way, the same in every exercise): each item is a named module-level
function that returns True or fails an ``assert`` with the hint; ``check()`` only lists them::

    def _unseen_city(c: Checker, fn) -> bool:
        assert c.call(fn, {"city": "Lima"}) == [], "validate_args returned ..."  # NotDone / StudentError handled
        return True

    def check(fn):
        c = Checker("Exercise 2: valid but wrong")
        if probe_parts(c, {"valid_but_wrong": (fn, ())})[1]:   # every part still a stub
            return not_done(c.title)
        c.run("it also passes an unseen case", lambda: _unseen_city(c, fn))
        return c.done(next_step="Now explain why no schema can catch it.")

The Checker has the one method each need calls for: :meth:`Checker.call` (student code, time
limited, copies of data), :meth:`Checker.run` (an item), :meth:`Checker.hung` (a tool the
harness gave up on), :meth:`Checker.fail_with` (a failure found outside an item),
:meth:`Checker.not_started` and :meth:`Checker.done`. ``ruff`` holds every function here to a
complexity of 12 and 50 statements, and a test to 60 lines.
"""

from __future__ import annotations

import contextlib
import copy
import io
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Checker",
    "CheckResult",
    "NotDone",
    "StudentError",
    "StudentTimeout",
    "not_done",
    "first_answer",
    "probe_parts",
    "restore_course_data",
    "PASS",
    "FAIL",
    "STUDENT_TIME_LIMIT",
    "RUN_TIME_LIMIT",
    "hard_stop_available",
    "last_cell_problem",
    "TIME_SCALE",
    "scaled",
]

PASS = "✓"
FAIL = "✗"


def _time_scale() -> float:
    """``TOOLKIT_TIME_SCALE`` from the environment (default 1); a value that is not a positive number is 1."""
    try:
        scale = float(os.environ.get("TOOLKIT_TIME_SCALE", "1"))
    except ValueError:
        return 1.0
    return scale if scale > 0 else 1.0


TIME_SCALE = _time_scale()


def scaled(seconds: float) -> float:
    """``seconds`` times :data:`TIME_SCALE`: the waits a test run may shrink.

    Used by: toolkit/checks/ex0*.py.
    """
    return seconds * TIME_SCALE


# A scale may shrink the limits, but never below what a right answer's own work (not its
# sleeps) needs on a busy machine: the floors keep verdicts the same whatever the scale.
STUDENT_TIME_LIMIT = max(scaled(4.0), 1.0)  # seconds one call into student code may take
RUN_TIME_LIMIT = max(scaled(9.0), 3.0)  # seconds all the items of one check may take together
PRINTED_LINES_KEPT = 5  # lines of the student's own printing shown under a report


class NotDone(Exception):
    """The student's code is still the starter stub.

    Used by: toolkit/checks/ex*.py.
    """


class StudentError(Exception):
    """The student's code raised something; the message is one readable sentence.

    Used by: toolkit/checks/ex*.py.
    """


class StudentTimeout(StudentError):
    """Student code did not return within its time limit.

    Used by: toolkit/checks/ex03.py.
    """


# ---- time limits: student code runs in a thread the check can walk away from ---------------
#
# The thread that asks (the kernel's main thread, or a thread of this kind one level up) only
# waits, so nothing the student's code does can hold the verdict past its time: not a bare
# `except:` around a loop, not a wait in C. A thread the check gave up on is then stopped: a
# `_Halt` is raised in it, and creating that exception (which happens in the thread itself)
# installs `_halting_trace`, which parks the thread at the next line of student code it runs
# while it handles the `_Halt` (it swallowed it), or once `_GRACE` seconds have passed. A parked
# thread waits on a lock forever: it uses no processor and runs no more code, and it is a daemon,
# so it does not keep Python from exiting.

_halting: dict[int, tuple[threading.Thread, float]] = {}  # thread id -> (the thread, when the check gave up on it)
_parked: set[int] = set()  # ids of the threads waiting forever
_halt_lock = threading.Lock()  # held while threads are chosen and asked to stop
_GRACE = 0.5  # seconds a halted thread may spend unwinding (its `finally:` blocks) before it is parked


def _wait(done: threading.Event, seconds: float) -> bool:
    """Wait for ``done`` at most ``seconds``."""
    return done.wait(max(seconds, 0.001))


class _Halt(SystemExit):
    """Raised in a thread the check gave up on. A ``SystemExit``, so a student's ``except
    Exception`` lets it through and the threading module ends the thread without a traceback;
    a bare ``except:`` that swallows it gets its thread parked (:func:`_halting_trace`)."""

    def __init__(self, *args: object) -> None:
        super().__init__("stopped by the exercise check: its time was up")
        if threading.get_ident() in _halting:  # created in the halted thread: trace it from here on
            sys.settrace(_halting_trace)
            frame: Any = sys._getframe(1)
            while frame is not None:
                frame.f_trace = _halting_trace
                frame = frame.f_back


def _halting_trace(frame, event: str, arg: object):
    """The trace of a halted thread: park it at a line of student code once it has swallowed
    the ``_Halt`` or had its grace time to unwind. Library and toolkit lines are never parked
    (they may hold a lock the kernel needs)."""
    halted = _halting.get(threading.get_ident())  # never current_thread(): it may run after the thread's end
    if halted is None:
        return None
    began = halted[1]
    if event == "line" and _frame_kind(frame.f_code.co_filename) == "student":
        if isinstance(sys.exc_info()[1], _Halt) or time.monotonic() - began > _GRACE:
            _park()
    return _halting_trace


def _park() -> None:
    """Wait forever, untraced (a traced thread slows every thread from Python 3.12 on)."""
    sys.settrace(None)
    _parked.add(threading.get_ident())
    forever = threading.Lock()
    forever.acquire()
    forever.acquire()


def hard_stop_available() -> bool:
    """True when a thread that runs past its time can be stopped, not only left behind
    (CPython's ``PyThreadState_SetAsyncExc``). Time limits and verdicts do not need it.

    Used by: toolkit/checks/__init__.py.
    """
    try:
        import ctypes

        return hasattr(ctypes.pythonapi, "PyThreadState_SetAsyncExc")
    except (ImportError, AttributeError):
        return False


def _halt(thread: threading.Thread) -> bool:
    """Raise :class:`_Halt` in ``thread`` (once); False when it cannot be done."""
    if thread.ident is None or not thread.is_alive() or not hard_stop_available():
        return False
    if _halting.get(thread.ident, (None,))[0] is thread:  # asked already (a thread id is reused after its thread ends)
        return False
    import ctypes

    for ident, (gone, _) in list(_halting.items()):  # forget the threads that have ended
        if not gone.is_alive():
            del _halting[ident]
            _parked.discard(ident)
    _halting[thread.ident] = (thread, time.monotonic())
    if not _hooks:  # once: a hook put in after this one is left alone
        _hooks.append(threading.excepthook)
        threading.excepthook = _quiet_halt
    pool = sys.modules.get("concurrent.futures.thread")  # a pool's threads are joined when Python exits
    getattr(pool, "_threads_queues", {}).pop(thread, None)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(_Halt))
    return True


_hooks: list = []  # the threading.excepthook that was there before _quiet_halt


def _quiet_halt(args: Any) -> None:
    """``threading.excepthook``: a thread ended by :class:`_Halt` ends as quietly as by ``SystemExit``."""
    if not (isinstance(args.exc_type, type) and issubclass(args.exc_type, _Halt)):
        _hooks[0](args)


class _Runner(threading.Thread):
    """One piece of student code (or a check's item that calls it), run in a daemon thread."""

    def __init__(self, body: Callable[[], Any]) -> None:
        super().__init__(daemon=True, name=f"check:{getattr(body, '__name__', 'item')}")
        self.body, self.done = body, threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self.body()
        except BaseException as exc:  # handed to the thread that waits, which raises it
            self.error = exc
        finally:
            self.done.set()
            self.body = None  # type: ignore[assignment]

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


def _in_runner() -> bool:
    return isinstance(threading.current_thread(), _Runner)


def _timeout_sentence(name: str, seconds: float, inner: str = "") -> str:
    running = f" (it was running {inner} when it was stopped)" if inner and inner != name else ""
    return (
        f"{name} did not return within {seconds:g} s{running}: look for a loop that never ends, a long "
        "`sleep`, or an `input()` waiting for an answer; a check cannot type one"
    )


def _fn_name(fn: Any) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return f"`{name.replace('.<locals>', '')}`"


def _call_sentence(fn: Callable, limit: float | None, inner: str) -> str:
    """The stop sentence for a call: it names ``fn``, or, when ``fn`` is the toolkit's (a check
    calling ``run_agent`` on the student's model), the student function that was running."""
    code = getattr(fn, "__code__", None)
    own = code is None or _frame_kind(code.co_filename) == "student"
    return _timeout_sentence(_fn_name(fn) if own or not inner else inner, limit or 0, inner)


def _code_name(code) -> str:
    return f"`{getattr(code, 'co_qualname', code.co_name).replace('.<locals>', '')}`"


def _student_function_on(frame) -> str:
    """The innermost student function on the stack that ends at ``frame`` ('' if none)."""
    while frame is not None:
        if _frame_kind(frame.f_code.co_filename) == "student":
            return _code_name(frame.f_code)
        frame = frame.f_back
    return ""


def _started_since(before: set) -> list[threading.Thread]:
    me = threading.current_thread()
    return [t for t in threading.enumerate() if t not in before and t is not me and t.ident is not None]


def _running_student_function(runner: threading.Thread, before: set) -> str:
    """The student function ``runner`` is running: the innermost student frame of its stack, or,
    when it waits in toolkit or library code (for an inner runner, or the harness for a tool's
    thread), the student function a thread started since ``before`` is running. '' when none."""
    frames = sys._current_frames()
    top = frames.get(runner.ident or 0)
    here = _student_function_on(top)
    if top is not None and _frame_kind(top.f_code.co_filename) == "student":
        return here
    for thread in _started_since(before):
        name = _student_function_on(frames.get(thread.ident or 0)) if thread is not runner else ""
        if name:
            return name
    return here


def _with_limit(body: Callable[[], Any], seconds: float | None, sentence: str | Callable[[str], str]) -> Any:
    """Run ``body()`` in a :class:`_Runner` and wait for it at most ``seconds`` (None: run it here,
    with no limit); past that, stop the runner and the threads it started and raise
    :class:`StudentTimeout` with ``sentence`` (or ``sentence(name)``, given the student function
    that was running, '' if none was found). Limits nest: a runner may wait for an inner one."""
    if seconds is None:
        return body()
    before = set(threading.enumerate())
    runner = _Runner(body)
    runner.start()
    try:
        finished = _wait(runner.done, seconds)
    except BaseException:  # the kernel was interrupted while it waited
        _stop_runaway_threads(before)
        raise
    if not finished and not runner.done.is_set():
        inner = _running_student_function(runner, before)
        _stop_runaway_threads(before)
        raise StudentTimeout(sentence if isinstance(sentence, str) else sentence(inner))
    return runner.outcome()


def _runs_student_code(frame) -> bool:
    return bool(_student_function_on(frame))


def _stop_runaway_threads(before: set) -> int:
    """Stop each thread started since ``before`` that is still at work: a runner the check gave
    up on, and any other thread inside student code (a tool the harness gave up on keeps
    running in its thread; a loop that never ends there would slow the kernel for the rest of
    the session). See :class:`_Halt`. Returns how many threads were asked.

    A runner that was given up on itself asks nothing: the thread that waited for it has moved
    on, and what started since ``before`` may be that thread's next item. The lock makes the
    two exclusive: a thread is marked as given up on before anything after it starts."""
    with _halt_lock:
        if _halting.get(threading.get_ident(), (None,))[0] is threading.current_thread():
            return 0
        frames = sys._current_frames()
        asked = 0
        for thread in _started_since(before):
            if isinstance(thread, _Runner):
                runaway = not thread.done.is_set()
            else:
                runaway = _runs_student_code(frames.get(thread.ident or 0))
            asked += runaway and _halt(thread)
        return asked


# ---- the student's printing, kept short ---------------------------------------------------


class _CappedOutput(io.TextIOBase):
    """Keeps the first few lines written to it and counts the rest."""

    def __init__(self, keep: int = PRINTED_LINES_KEPT, width: int = 200) -> None:
        self.keep, self.width = keep, width
        self.kept: list[str] = []
        self.partial = ""
        self.extra = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        lines = (self.partial + text).split("\n")
        self.partial = lines.pop()[: self.width * 2]
        for line in lines:
            self._line(line)
        return len(text)

    def _line(self, line: str) -> None:
        if len(self.kept) < self.keep:
            self.kept.append(line[: self.width] + ("…" if len(line) > self.width else ""))
        else:
            self.extra += 1

    def report(self) -> list[str]:
        if self.partial:
            self._line(self.partial)
            self.partial = ""
        if not self.kept and not self.extra:
            return []
        out = ["Your code printed (shown once, after the report):"] + [f"  | {line}" for line in self.kept]
        if self.extra:
            out.append(f"  … {self.extra} more line{'s' if self.extra != 1 else ''} printed by your code")
        return out


# ---- what the last cell did ----------------------------------------------------------------


def last_cell_problem() -> str:
    """One sentence when the cell run just before this check raised an error, else ''.

    The check cell is the current execution, so IPython's ``last_execution_result`` still
    describes the cell before it. Outside IPython there is nothing to say.

    Used by: toolkit/checks/__init__.py.
    """
    try:
        from IPython import get_ipython  # optional: only present in a notebook kernel
    except ImportError:
        return ""
    ip = get_ipython()
    last = getattr(ip, "last_execution_result", None) if ip is not None else None
    if last is None or getattr(last, "success", True):
        return ""
    exc = getattr(last, "error_before_exec", None) or getattr(last, "error_in_exec", None)
    what = f"{type(exc).__name__}: {exc}" if exc is not None else "an error"
    return (
        f"Your last cell did not run ({what}): fix it and run it again before this check; "
        "until then this check grades the definitions from before that cell."
    )


def _copy_arg(value: Any) -> Any:
    """A deep copy of plain data (dicts, lists, tuples, sets), so student code that edits its
    input cannot change what the check compares later. Objects with behaviour (functions,
    registries, models, environments) are handed over as they are: acting on them is the
    exercise. Data that cannot be copied (it holds a lock, say) is handed over as it is too."""
    if not isinstance(value, (dict, list, tuple, set, frozenset)):
        return value
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


@dataclass
class CheckResult:
    """What a check found: its title, how many parts passed out of how many, and the lines it prints.

    Used by: toolkit/checks/ex*.py.
    """

    title: str
    passed: int = 0
    total: int = 0
    lines: list = field(default_factory=list)
    status: str = "checked"  # "checked" or "not done"

    @property
    def ok(self) -> bool:
        return self.status == "checked" and self.total > 0 and self.passed == self.total

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def __str__(self) -> str:
        return self.text

    def _ipython_display_(self) -> None:  # already printed; show nothing twice
        pass


def _not_done_or_error(exc: NotImplementedError) -> Exception:
    """A stub's own ``NotImplementedError`` means "not done"; a subclass is something else,
    such as IPython's StdinNotImplementedError when code asks for ``input()`` where nobody can type."""
    if type(exc) is NotImplementedError:
        return NotDone()
    if "Stdin" in type(exc).__name__:
        return StudentError(
            "your code called `input()`, which a check cannot answer; take the value as a parameter instead"
        )
    return StudentError(f"your code raised {type(exc).__name__}: {exc}")


def _is_stub_value(value: Any) -> bool:
    return value is Ellipsis


def _frame_kind(filename: str) -> str:
    """'toolkit', 'library' (standard library, installed packages) or 'student'."""
    if filename.startswith(_TOOLKIT_DIR):
        return "toolkit"
    if filename.startswith("<frozen") or any(filename.startswith(p) for p in _LIBRARY_DIRS):
        return "library"
    return "student"


def _raised_in_student_code(exc: BaseException) -> bool:
    """True when the innermost frame outside libraries belongs to the student, not the toolkit."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    for filename in reversed(frames):
        kind = _frame_kind(filename)
        if kind != "library":
            return kind == "student"
    return False


def _library_dirs() -> tuple:
    """The standard library's folder and every installed-packages folder on the path."""
    import os

    dirs = {os.path.dirname(os.__file__)}
    dirs |= {p for p in sys.path if p and os.path.basename(p) in ("site-packages", "dist-packages")}
    return tuple(sorted(dirs))


_TOOLKIT_DIR = str(__import__("pathlib").Path(__file__).resolve().parent.parent)
_LIBRARY_DIRS = _library_dirs()


class Checker:
    """Collects the results of one exercise's checks and prints one short report.

    ``time_limit`` is the seconds one call into student code may take (True: the module's
    :data:`STUDENT_TIME_LIMIT` as it is now; None for no limit). With a limit, all the calls
    and items of the check share :data:`RUN_TIME_LIMIT` seconds from the moment it is made.

    Used by: toolkit/checks/ex*.py.
    """

    def __init__(self, title: str, time_limit: float | None | bool = True) -> None:
        self.title = title
        self.time_limit = STUDENT_TIME_LIMIT if time_limit is True else time_limit
        self.items: list[tuple[bool, str, str]] = []
        self._not_done: str | None = None
        self._stubbed: list[int] = []  # indexes of items that met a stub
        self._errors: dict[int, str] = {}  # item index -> the StudentError sentence it failed with
        self._hung: list[tuple[Callable, str]] = []  # functions that ran out of time, and the sentence
        self._printed = _CappedOutput()
        self._notes: list[str] = []
        self._threads = set(threading.enumerate())  # threads that were there before the check
        self._last_cell = last_cell_problem()
        self._deadline = time.monotonic() + RUN_TIME_LIMIT if self.time_limit else None
        self._budget = RUN_TIME_LIMIT
        self._used_up_by = ""  # the sentence of the stop that used the check's time up

    def remaining(self) -> float | None:
        """Seconds left of the check's shared time (None: no limit)."""
        if self._deadline is None:
            return None
        return self._deadline - time.monotonic()

    def _out_of_time(self) -> str:
        return f"not checked: this check's {self._budget:g} s ran out before this part" + (
            " (see the stop above)" if self._used_up_by else ""
        )

    def _already_hung(self, fn: Callable) -> str:
        for other, sentence in self._hung:
            try:
                if other is fn or other == fn:
                    return sentence
            except Exception:  # a student's __eq__ may raise
                continue
        return ""

    def call(
        self, fn: Callable, *args, copy_args: bool = True, time_limit: float | None | bool = True, **kwargs
    ) -> Any:
        """Call student code. Raises :class:`NotDone` for a stub and :class:`StudentError`
        for any other exception; :meth:`done` turns both into a sentence.

        Plain-data arguments are deep copies unless ``copy_args=False`` (for a list the
        student's code is meant to fill). The call stops after ``time_limit`` seconds (True:
        the checker's limit) with :class:`StudentTimeout`, and a function that ran out of time
        once is not called again in this check. What it prints is kept for the report.
        """
        if not callable(fn):
            raise StudentError(f"expected a function, got {type(fn).__name__}; define it with `def` first")
        hung = self._already_hung(fn)
        if hung:
            raise StudentTimeout(hung)
        left = self.remaining()
        if left is not None and left <= 0:
            raise StudentTimeout(self._out_of_time())
        if copy_args:
            args = tuple(_copy_arg(a) for a in args)
            kwargs = {k: _copy_arg(v) for k, v in kwargs.items()}
        limit = self.time_limit if time_limit is True else (time_limit or None)
        if limit is not None and left is not None:
            limit = min(limit, left)
        try:
            with self._captured():
                value = _with_limit(lambda: fn(*args, **kwargs), limit, lambda inner: _call_sentence(fn, limit, inner))
        except StudentTimeout as exc:
            self._hung.append((fn, str(exc)))
            raise
        except NotImplementedError as exc:
            raise _not_done_or_error(exc) from None
        except (NotDone, StudentError):
            raise
        except Exception as exc:  # the student's bug, reported in one line
            raise StudentError(f"your code raised {type(exc).__name__}: {exc}") from None
        if _is_stub_value(value):
            raise NotDone()
        return value

    def _captured(self) -> contextlib.AbstractContextManager:
        """The student's printing goes to the report. Only the thread that waits redirects it: a
        runner the check gave up on could otherwise put the redirection back after the check."""
        return contextlib.nullcontext() if _in_runner() else contextlib.redirect_stdout(self._printed)

    def hung(self, fn: Callable, sentence: str) -> StudentTimeout:
        """Record that ``fn`` (or something it made, such as a tool the harness gave up on) did
        not return: later calls to ``fn`` in this check fail at once with ``sentence``. Returns
        the exception to raise."""
        self._hung.append((fn, sentence))
        return StudentTimeout(sentence)

    def fail_with(self, label: str, error: StudentError) -> bool:
        """Record ``label`` as failed by ``error``; later items stopped by the same error refer to it."""
        self._errors[len(self.items)] = str(error)
        return self.expect(False, label, str(error))

    def not_started(self) -> CheckResult:
        """The report for an exercise the student has not started (every part is still a stub)."""
        self._not_done = self.title
        return self.done()

    def expect(self, ok: bool, label: str, hint: str = "") -> bool:
        """Record one check: ``label`` says what was checked, ``hint`` what to try if it failed."""
        self.items.append((bool(ok), label, hint))
        return bool(ok)

    def _item_sentence(self, inner: str) -> str:
        where = (
            f"{inner} was still running when it was stopped; look in it"
            if inner
            else "look in the code of yours that it calls (a method, a tool, a model's respond)"
        )
        self._used_up_by = (
            f"this part did not finish within the check's {self._budget:g} s: {where} for a loop that never "
            "ends, a long `sleep`, a wait for something that never comes, or an `input()`"
        )
        return self._used_up_by

    def _body(self, body: Callable[[], Any]) -> Any:
        """Run one item's body within the check's time left, sorting out what went wrong."""
        try:
            with self._captured():
                try:
                    return _with_limit(body, self.remaining(), self._item_sentence)
                finally:
                    _stop_runaway_threads(self._threads)
        except NotImplementedError as exc:
            raise _not_done_or_error(exc) from None
        except (NotDone, StudentError, AssertionError):
            raise
        except Exception as exc:
            if _raised_in_student_code(exc):
                raise StudentError(f"your code raised {type(exc).__name__}: {exc}") from None
            raise AssertionError(
                f"this part could not be checked, because something your code "
                f"returned had an unexpected shape ({type(exc).__name__}: {exc})"
            ) from None

    def run(self, label: str, body: Callable[[], Any], hint: str = "") -> bool:
        """Run ``body`` (which may call student code); it passes only by returning ``True``.

        ``False`` or a failed ``assert`` is a fail (the assert's message is the hint). An
        exception from the student's code is "your code raised ..."; any other exception
        inside ``body`` (the check tripping over a returned value of an unexpected shape) is a
        failed line too, never a traceback. Any return value but True or False is a fail
        that names it. Once the check's time is used up, the items left fail at once.
        """
        left = self.remaining()
        if left is not None and left <= 0:
            return self.expect(False, label, self._out_of_time())
        try:
            ok = self._body(body)
        except NotDone:
            self._not_done = self._not_done or label
            self._stubbed.append(len(self.items))
            return self.expect(
                False, label, "this part still raises NotImplementedError; replace the stub with your code"
            )
        except StudentError as exc:
            self._errors[len(self.items)] = str(exc)
            return self.expect(False, label, f"{exc}. {hint}".strip())
        except AssertionError as exc:
            return self.expect(False, label, str(exc) or hint)
        if ok is True or ok is False:
            return self.expect(ok, label, hint)
        shown = repr(ok)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return self.expect(False, label, f"the check got {shown} instead of a yes/no (True or False)")

    def _item_lines(self) -> list[str]:
        lines, shown = [], set()
        for i, (ok, label, hint) in enumerate(self.items):
            line = f"  {PASS if ok else FAIL} {label}"
            error = self._errors.get(i)
            if not ok and error is not None and error in shown:
                hint = "stopped by the same error as above"
            elif error is not None:
                shown.add(error)
            if not ok and hint:
                line += f": {hint}"
            lines.append(line)
        return lines

    def note(self, text: str) -> None:
        """A line shown under the title, before the items (what the check did first)."""
        self._notes.append(text)

    def _print(self, result: CheckResult) -> None:
        _stop_runaway_threads(self._threads)
        result.lines[1:1] = [f"  Note: {n}" for n in self._notes]
        if self._last_cell:
            result.lines.insert(0, self._last_cell)
        result.lines += self._printed.report()
        print(result.text)

    def done(self, next_step: str = "") -> CheckResult:
        result = CheckResult(self.title)
        real = [item for i, item in enumerate(self.items) if i not in self._stubbed]
        if self._not_done is not None and not any(ok for ok, _, _ in real):
            result.status = "not done"
            result.lines = [
                f"{self.title}: not done yet. Replace the `raise NotImplementedError` "
                "in the exercise cell with your code, run it, then run this check again."
            ]
            self._print(result)
            return result
        result.total = len(self.items)
        result.passed = sum(ok for ok, _, _ in self.items)
        result.lines = [self.title] + self._item_lines()
        if result.ok:
            result.lines.append(f"All {result.total} checks passed." + (f" {next_step}" if next_step else ""))
        else:
            result.lines.append(
                f"{result.passed} of {result.total} checks passed. "
                "Fix the first ✗ above, re-run your cell, then this check."
            )
        self._print(result)
        return result


def _course_data() -> dict:
    """Where each piece of shared course data lives, and how to build it afresh from data/."""
    from ..data import load_json
    from ..lessons import catalog, retail

    return {
        "T.RETAIL_TASKS": (retail, "RETAIL_TASKS", lambda: load_json("retail.json")["tasks"]),
        "T.CATALOG_QUERIES": (
            catalog,
            "CATALOG_QUERIES",
            lambda: [tuple(q) for q in load_json("catalog.json")["queries"]],
        ),
        "T.CATALOG_DOMAINS": (catalog, "CATALOG_DOMAINS", lambda: load_json("catalog.json")["domains"]),
        "T.CATALOG_ACTIONS": (catalog, "CATALOG_ACTIONS", lambda: load_json("catalog.json")["actions"]),
    }


def restore_course_data(c: Checker, *names: str, note: bool = True) -> list[str]:
    """Put shared course data (``"T.RETAIL_TASKS"`` …) back as the data files have it, in place,
    before a check reads it; if a cell had changed it, the report says so in a note.

    The toolkit's own functions read these lists (``run_retail_trials`` reads the tasks,
    ``make_catalog`` the domains), and so does the student's code, so a copy inside the check
    would not be enough: both must see the course's data. Returns the names that had changed;
    ``note=False`` leaves the report to the caller (a check that restores after each student call).

    Used by: toolkit/checks/ex*.py.
    """
    table = _course_data()
    changed = []
    for name in names:
        module, attr, fresh = table[name]
        current, pristine = getattr(module, attr), fresh()
        if current == pristine:
            continue
        if isinstance(current, list):
            current[:] = pristine
        else:
            setattr(module, attr, pristine)
        changed.append(name)
        if note:
            c.note(f"{name} had been changed in this kernel; the check put the course's own data back.")
    return changed


def first_answer(
    c: Checker, fn: Callable, label: str, read: Callable[[Any], Any] | None = None
) -> tuple[Any, CheckResult | None]:
    """Call the student's ``fn()`` once: ``(its answer, None)``, or ``(None, the report)`` when
    it is still the stub (not done yet) or raises (``label`` failed, with the error's sentence).
    ``read(answer)``, if given, turns the answer into what the check needs, raising
    :class:`StudentError` when it cannot.

    Used by: toolkit/checks/ex02.py.
    """
    try:
        answer = c.call(fn)
        return (read(answer) if read else answer), None
    except NotDone:
        return None, not_done(c.title)
    except StudentError as exc:
        c.expect(False, label, str(exc))
        return None, c.done()


def not_done(title: str) -> CheckResult:
    """The report for an exercise the student has not started.

    Used by: toolkit/checks/ex*.py.
    """
    return Checker(title).not_started()


def probe_parts(c: Checker, parts: dict[str, tuple[Callable, tuple]]) -> tuple[list[str], bool]:
    """Call each named part of a student's answer once with sample arguments.

    Returns ``(names that are still stubs, every part is a stub)``. A part that is still a
    stub is recorded as a failed item, so a half-done answer never reads as all passed; so is
    a part that does not return in time. Other exceptions are left for the real checks.

    Used by: toolkit/checks/ex*.py.
    """
    stubs = []
    for name, (fn, args) in parts.items():
        try:
            c.call(fn, *args)
        except NotDone:
            stubs.append(name)
        except StudentTimeout as exc:  # said once here; later calls to it fail at once
            c.fail_with(f"{name} returns", exc)
        except StudentError:
            pass
    if len(stubs) == len(parts):
        return stubs, True
    for name in stubs:
        c.expect(False, f"{name} is written", "it still raises NotImplementedError; replace the stub with your code")
    return stubs, False
