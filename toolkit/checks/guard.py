"""A safety net for the checks of exercises 3, 4, 5 and 9 (notebooks 08 and 09).

:meth:`Checker.run` turns a stub, a student's exception and a failed assertion into one line.
Anything else that goes wrong inside a check's own code, usually because a student's function
returned something of an unexpected shape, would still surface as a traceback. ``run_guarded``
turns that into a sentence as well, so a check never shows a traceback.
"""

from __future__ import annotations

from typing import Any, Callable

from . import Checker, NotDone, StudentError

__all__ = ["run_guarded"]


def run_guarded(c: Checker, label: str, body: Callable[[], Any], hint: str = "") -> bool:
    """Like ``c.run(label, body, hint)``, but any exception becomes a failed line."""

    def safe():
        try:
            return body()
        except (NotDone, StudentError, AssertionError):
            raise
        except NotImplementedError:
            raise NotDone() from None
        except Exception as exc:
            raise AssertionError(f"this part could not be checked, because something your code returned "
                                 f"had an unexpected shape ({type(exc).__name__}: {exc})") from None

    return c.run(label, safe, hint)
