"""The permission gate, taint, and why wording filters are not enough.

Pack §2.10 ("Controls that do not depend on reading the text") and the harness's second job
in §2.2 ("check that this call is allowed now"). The gate looks only at capabilities: which
tool, whether it changes state, whether the run has already read outside content. It never
reads the text of a tool result, so rephrasing an attack does not get past it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Protocol

__all__ = ["PermissionGate", "wrap_untrusted", "looks_like_injection"]

_ALLOWLIST = "not on this task's allowlist"
_CHANGES_STATE = "needs confirmation (changes state) and none was given"
_TAINTED = "needs confirmation (after reading outside content) and none was given"
_DECLINED = "the user said no when asked to confirm"


class _Tool(Protocol):  # what the gate reads of a tool; a registry's Tool has all of it
    name: str
    read_only: bool

    @property
    def carries_outside_text(self) -> bool: ...


class PermissionGate:
    """Decides, call by call, whether a tool may run now.

    Rules, in order (:meth:`decide`): a tool the registry does not know passes (the registry
    will report it); a tool missing from ``allow`` (when an allowlist is set) is denied; a tool
    that is not read-only runs only if it is ``pre_approved`` and the run is not tainted, or if
    ``confirm(call)`` returns true. :meth:`check` appends every decision to ``log`` as
    ``("allow"|"deny", name, reason)``.

    **Taint.** The run is tainted once a tool that carries *outside text* has run: text
    someone outside the system could have written, such as a web page, a support ticket or a
    stored document (a stored injection waits there, pack §2.10). The rule fails closed
    (:attr:`toolkit.Tool.carries_outside_text`): an ``open_world`` tool carries it, and so does
    a read-only tool that declared nothing; only ``outside_text=False`` vouches for a tool.

    The harness (:func:`toolkit.run_agent`) shows the gate the call that will run, decoded,
    repaired and validated, so a gate that reads arguments judges what executes. A call that
    names no known tool or fails validation never runs, and the gate is not asked about it.

    Notebooks 02, 11.
    """

    def __init__(self, allow: Iterable[str] | None = None, pre_approved: Iterable[str] = (),
                 confirm: Callable[[dict], bool] | None = None) -> None:  # fmt: skip
        self.allow = set(allow) if allow is not None else None
        self.pre_approved = set(pre_approved)
        self.confirm = confirm
        self.tainted = False
        self.log: list[tuple[str, str, str]] = []

    def decide(self, call: dict, tool: _Tool | None) -> tuple[bool, str]:
        """``(ok, reason)`` for one call: the first rule that applies wins. Override it to add
        a rule (Exercise 12); :meth:`check` logs whatever it returns."""
        if tool is None:
            return True, ""
        if self.allow is not None and tool.name not in self.allow:
            return False, _ALLOWLIST
        if tool.read_only:
            return True, ""
        if tool.name in self.pre_approved and not self.tainted:
            return True, ""
        if self.confirm is not None:
            return (True, "") if self.confirm(call) else (False, _DECLINED)
        return False, _TAINTED if tool.name in self.pre_approved else _CHANGES_STATE

    def check(self, call: dict, tool: _Tool | None) -> tuple[bool, str]:
        """What the harness asks before a call runs: :meth:`decide`, written to ``log``."""
        ok, reason = self.decide(call, tool)
        name = tool.name if tool is not None else str(call.get("name"))
        self.log.append(("allow" if ok else "deny", name, reason))
        return ok, reason

    def note_result(self, tool: _Tool | None) -> None:
        """Tell the gate a tool ran; a tool that carries outside text taints the rest of the run."""
        if tool is not None and tool.carries_outside_text:
            self.tainted = True


def wrap_untrusted(text: str) -> str:
    """Mark tool output as data, not instructions: a hint a careful model can use, not a
    security boundary (a gullible model still reads and may follow what is inside the tags).

    Notebooks 01, 02, 06, 07, 08, 10, 11, through run_agent.
    """
    return f'<tool_output trust="untrusted">\n{text}\n</tool_output>'


_INJECTION = re.compile(
    r"\b(ignore|disregard|forget)\s+(all\s+|any\s+)?(the\s+|your\s+)?(previous|prior|above|earlier)\s+"
    r"(instructions|prompts?|rules)\b",
    re.IGNORECASE,
)


def looks_like_injection(text: str) -> bool:
    """A deliberately weak detector, kept to show why wording filters lose (pack §2.10).

    It spots the textbook phrase ("IGNORE previous instructions") and misses a polite rewording.

    Notebook 11.
    """
    return bool(_INJECTION.search(text or ""))
