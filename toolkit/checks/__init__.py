"""Exercise checks: run a student's code on hidden cases and say what passed and what to try.

A check never shows a traceback. A stub that still raises ``NotImplementedError`` (or returns
``...``) is reported as "not done yet"; any other exception in student code becomes one
sentence naming it. Each check prints its report and returns a :class:`CheckResult` that
tests can inspect (in a notebook the result itself displays nothing more).

Writing a check::

    def check_exercise_2(fn):
        c = Checker("Exercise 2: valid but wrong")
        out = c.call(fn, {"city": "Paris"})          # NotDone / StudentError handled for you
        c.expect(out == [], "a schema-valid call passes validation", "validate_args returned ...")
        return c.done(next_step="Now explain why no schema can catch it.")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["Checker", "CheckResult", "NotDone", "StudentError", "not_done", "probe_parts", "PASS", "FAIL"]

PASS = "✓"
FAIL = "✗"


class NotDone(Exception):
    """The student's code is still the starter stub."""


class StudentError(Exception):
    """The student's code raised something; the message is one readable sentence."""


@dataclass
class CheckResult:
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


def _is_stub_value(value: Any) -> bool:
    return value is Ellipsis


class Checker:
    """Collects the results of one exercise's checks and prints one short report."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.items: list[tuple[bool, str, str]] = []
        self._not_done: str | None = None
        self._stubbed: list[int] = []  # indexes of items that met a stub

    def call(self, fn: Callable, *args, **kwargs) -> Any:
        """Call student code. Raises :class:`NotDone` for a stub and :class:`StudentError`
        for any other exception; :meth:`done` turns both into a sentence."""
        if not callable(fn):
            raise StudentError(f"expected a function, got {type(fn).__name__}; define it with `def` first")
        try:
            value = fn(*args, **kwargs)
        except NotImplementedError:
            raise NotDone() from None
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

    def run(self, label: str, body: Callable[[], Any], hint: str = "") -> bool:
        """Run ``body`` (which may call student code); a False result or an error is a fail.

        Any other exception inside ``body`` (usually a student's function returning something
        of an unexpected shape, which the check's own code then trips over) is a failed line
        too, never a traceback.
        """
        try:
            try:
                ok = body()
            except NotImplementedError:
                raise NotDone() from None
            except (NotDone, StudentError, AssertionError):
                raise
            except Exception as exc:
                raise AssertionError(f"this part could not be checked, because something your code "
                                     f"returned had an unexpected shape ({type(exc).__name__}: {exc})") from None
        except NotDone:
            self._not_done = self._not_done or label
            self._stubbed.append(len(self.items))
            return self.expect(False, label, "this part still raises NotImplementedError; "
                                             "replace the stub with your code")
        except StudentError as exc:
            return self.expect(False, label, f"{exc}. {hint}".strip())
        except AssertionError as exc:
            return self.expect(False, label, str(exc) or hint)
        return self.expect(ok is not False, label, hint)

    def done(self, next_step: str = "") -> CheckResult:
        result = CheckResult(self.title)
        real = [item for i, item in enumerate(self.items) if i not in self._stubbed]
        if self._not_done is not None and not any(ok for ok, _, _ in real):
            result.status = "not done"
            result.lines = [f"{self.title}: not done yet. Replace the `raise NotImplementedError` "
                            "in the exercise cell with your code, run it, then run this check again."]
            print(result.text)
            return result
        result.total = len(self.items)
        result.passed = sum(ok for ok, _, _ in self.items)
        result.lines = [self.title]
        for ok, label, hint in self.items:
            line = f"  {PASS if ok else FAIL} {label}"
            if not ok and hint:
                line += f": {hint}"
            result.lines.append(line)
        if result.ok:
            result.lines.append(f"All {result.total} checks passed." + (f" {next_step}" if next_step else ""))
        else:
            result.lines.append(f"{result.passed} of {result.total} checks passed. "
                                "Fix the first ✗ above, re-run your cell, then this check.")
        print(result.text)
        return result


def not_done(title: str) -> CheckResult:
    """The report for an exercise the student has not started."""
    c = Checker(title)
    c._not_done = title
    return c.done()


def probe_parts(c: Checker, parts: dict[str, tuple[Callable, tuple]]) -> tuple[list[str], bool]:
    """Call each named part of a student's answer once with sample arguments.

    Returns ``(names that are still stubs, every part is a stub)``. A part that is still a
    stub is recorded as a failed item, so a half-done answer never reads as all passed.
    Other exceptions are left for the real checks to report.
    """
    stubs = []
    for name, (fn, args) in parts.items():
        try:
            c.call(fn, *args)
        except NotDone:
            stubs.append(name)
        except StudentError:
            pass
    if len(stubs) == len(parts):
        return stubs, True
    for name in stubs:
        c.expect(False, f"{name} is written",
                 "it still raises NotImplementedError; replace the stub with your code")
    return stubs, False
