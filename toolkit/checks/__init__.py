"""Exercise checks: run a student's code on cases they have not seen and say what passed and what to try.

A check never shows a traceback. A stub that still raises ``NotImplementedError`` (or returns
``...``) is reported as "not done yet"; any other exception in student code becomes one
sentence naming it. Each check prints its report and returns a :class:`CheckResult` that
tests can inspect (in a notebook the result itself displays nothing more).

What a check promises the student (pack §2.8 "Retries, timeouts and limits" applies the same
idea to tools):

* Student code runs under a time limit (:data:`STUDENT_TIME_LIMIT` seconds per call,
  :data:`RUN_TIME_LIMIT` per item). A function that never returns is stopped with one sentence
  naming it, is not called again in that check, and the kernel stays usable; threads the check
  leaves running inside student code are asked to stop. The limit uses ``SIGALRM``, so it works
  in the main thread on Linux and macOS (where Jupyter runs cells); elsewhere (Windows, or a
  check run from another thread) calls run without a hard stop.
* Plain-data arguments (dicts, lists, tuples, sets) reach student code as deep copies, so
  editing its input cannot change a later verdict. Objects with behaviour (functions,
  registries, models, environments) and data that cannot be copied are passed as they are.
* An item passes only when its body returns ``True``; anything else is named in the report.
* What student code prints during a check is kept to a few lines, shown once under the report.
* When the cell that ran just before the check failed, the report says so first: the check
  would otherwise grade the definitions from before that cell.

Writing a check::

    def check_exercise_2(fn):
        c = Checker("Exercise 2: valid but wrong")
        out = c.call(fn, {"city": "Paris"})          # NotDone / StudentError handled for you
        c.expect(out == [], "a schema-valid call passes validation", "validate_args returned ...")
        c.run("it also passes an unseen case", lambda: c.call(fn, {"city": "Lima"}) == [])  # True or it fails
        return c.done(next_step="Now explain why no schema can catch it.")
"""

from __future__ import annotations

import contextlib
import copy
import io
import signal
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
]

PASS = "✓"
FAIL = "✗"
STUDENT_TIME_LIMIT = 5.0  # seconds one call into student code may take
RUN_TIME_LIMIT = 10.0  # seconds one checked item (which may call student code several times) may take
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


class _TimeUp(BaseException):
    """Raised by the alarm in the main thread. A BaseException, so a student's
    ``except Exception`` cannot swallow it (and the alarm repeats if a bare ``except`` does)."""

    def __init__(self, token: object) -> None:
        super().__init__("time limit")
        self.token = token


# ---- time limits (SIGALRM; main thread of Linux/macOS only) ------------------------------

_deadlines: list = []  # [deadline, token] of every active limit, outermost first
_saved: dict = {}  # the handler and timer that were there before the outermost limit
_REPEAT = 0.25  # once a limit has passed, the alarm repeats this often


def hard_stop_available() -> bool:
    """True when a call into student code can be stopped (main thread, a system with SIGALRM).

    Used by: toolkit/checks/__init__.py.
    """
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _arm() -> None:
    if _deadlines:
        wait = min(d for d, _ in _deadlines) - time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, max(wait, 0.001), _REPEAT)


def _on_alarm(signum, frame) -> None:
    now = time.monotonic()
    for deadline, token in list(_deadlines):
        if deadline <= now:
            raise _TimeUp(token)
    _arm()  # woken early (an inner limit just ended): wait for the next deadline


def _release(entry: list) -> None:
    """Drop one limit; with none left, put back the handler and timer found at the start.
    The alarm is blocked meanwhile, and a pending one discarded, so it cannot fire half-way."""
    if entry not in _deadlines:
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    try:
        _deadlines.remove(entry)
        if _deadlines:
            _arm()
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)  # discards an alarm already pending
        signal.signal(signal.SIGALRM, _saved.pop("handler", signal.SIG_DFL))
        remaining, interval, started = _saved.pop("timer", (0.0, 0.0, 0.0))
        if remaining > 0:
            signal.setitimer(signal.ITIMER_REAL, max(remaining - (time.monotonic() - started), 0.001), interval)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})


def _timeout_sentence(name: str, seconds: float) -> str:
    return (
        f"{name} did not return within {seconds:g} s: look for a loop that never ends, a long "
        "`sleep`, or an `input()` waiting for an answer; a check cannot type one"
    )


def _fn_name(fn: Any) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return f"`{name.replace('.<locals>', '')}`"


def _with_limit(body: Callable[[], Any], seconds: float | None, sentence: str) -> Any:
    """Run ``body()``; after ``seconds`` raise :class:`StudentTimeout` with ``sentence``.

    Limits nest: an inner call keeps the outer deadline, which fires first if it comes first.
    Without SIGALRM (Windows) or outside the main thread, ``body`` runs with no hard stop.
    """
    if seconds is None or not hard_stop_available():
        return body()
    token = object()
    entry = [time.monotonic() + seconds, token]
    if not _deadlines:
        _saved["handler"] = signal.signal(signal.SIGALRM, _on_alarm)
        remaining, interval = signal.setitimer(signal.ITIMER_REAL, 0)
        _saved["timer"] = (remaining, interval, time.monotonic())
    _deadlines.append(entry)
    try:
        try:
            _arm()
            return body()
        finally:
            _release(entry)
    except _TimeUp as exc:
        _release(entry)
        if exc.token is not token:
            raise
        raise StudentTimeout(sentence) from None


def _runs_student_code(frame) -> bool:
    while frame is not None:
        if _frame_kind(frame.f_code.co_filename) == "student":
            return True
        frame = frame.f_back
    return False


def _stop_runaway_threads(before: set) -> int:
    """Ask each thread started since ``before`` that is still inside student code to stop.

    A tool the harness gave up on (its call timed out) keeps running in its thread; a loop that
    never ends there would slow the kernel for the rest of the session. Python cannot kill a
    thread, but it can raise ``SystemExit`` in it at its next step (ignored quietly by the
    threading module); a thread blocked in ``sleep`` stops when the sleep ends. Returns how
    many threads were asked."""
    try:
        import ctypes

        set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    except (ImportError, AttributeError):  # not CPython
        return 0
    frames = sys._current_frames()
    asked = 0
    for thread in threading.enumerate():
        if thread in before or thread is threading.current_thread() or not thread.is_alive():
            continue
        if thread.ident is None or not _runs_student_code(frames.get(thread.ident)):
            continue
        set_async_exc(ctypes.c_ulong(thread.ident), ctypes.py_object(SystemExit))
        asked += 1
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
    :data:`STUDENT_TIME_LIMIT` as it is now; None for no limit).

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
        if copy_args:
            args = tuple(_copy_arg(a) for a in args)
            kwargs = {k: _copy_arg(v) for k, v in kwargs.items()}
        limit = self.time_limit if time_limit is True else (time_limit or None)
        try:
            with contextlib.redirect_stdout(self._printed):
                sentence = _timeout_sentence(_fn_name(fn), limit or 0)
                value = _with_limit(lambda: fn(*args, **kwargs), limit, sentence)
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

    def expect(self, ok: bool, label: str, hint: str = "") -> bool:
        """Record one check: ``label`` says what was checked, ``hint`` what to try if it failed."""
        self.items.append((bool(ok), label, hint))
        return bool(ok)

    def _body(self, body: Callable[[], Any]) -> Any:
        """Run one item's body under :data:`RUN_TIME_LIMIT`, sorting out what went wrong."""
        sentence = (
            f"this part did not finish within {RUN_TIME_LIMIT:g} s: some code of yours that it "
            "calls (a method, a tool, a model's respond) may loop forever, `sleep`, or wait on `input()`"
        )
        try:
            with contextlib.redirect_stdout(self._printed):
                try:
                    return _with_limit(body, RUN_TIME_LIMIT if self.time_limit else None, sentence)
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
        that names it.
        """
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


def restore_course_data(c: Checker, *names: str) -> None:
    """Put shared course data (``"T.RETAIL_TASKS"`` …) back as the data files have it, in place,
    before a check reads it; if a cell had changed it, the report says so in a note.

    The toolkit's own functions read these lists (``run_retail_trials`` reads the tasks,
    ``make_catalog`` the domains), and so does the student's code, so a copy inside the check
    would not be enough: both must see the course's data.

    Used by: toolkit/checks/ex*.py.
    """
    table = _course_data()
    for name in names:
        module, attr, fresh = table[name]
        current, pristine = getattr(module, attr), fresh()
        if current == pristine:
            continue
        if isinstance(current, list):
            current[:] = pristine
        else:
            setattr(module, attr, pristine)
        c.note(f"{name} had been changed in this kernel; the check put the course's own data back.")


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
    c = Checker(title)
    c._not_done = title
    return c.done()


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
            c._errors[len(c.items)] = str(exc)
            c.expect(False, f"{name} returns", str(exc))
        except StudentError:
            pass
    if len(stubs) == len(parts):
        return stubs, True
    for name in stubs:
        c.expect(False, f"{name} is written", "it still raises NotImplementedError; replace the stub with your code")
    return stubs, False
