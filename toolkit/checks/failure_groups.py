"""The sorting activity of notebook 12 (pack §2.11, Figure 8): which group is each failure?

The student returns a dict from run id (``"F1"`` …) to one of the three groups: ``"single
call"``, ``"many steps"`` or ``"conversation"`` (common spellings such as ``"single"`` or
``"multi-step"`` are understood). The check marks each run. A wrongly filed run gets a hint
that points at the evidence without naming the group; a rightly filed one gets the reason,
so the report doubles as the answer key once everything passes.
"""

from __future__ import annotations

from collections.abc import Callable

from ..lessons.failure_runs import GROUPS, failed_runs, group_guide, normalise_group
from . import Checker, CheckResult, first_answer

__all__ = ["check", "TITLE"]

TITLE = "Sorting failed runs into the three groups of Figure 8"


def _as_mapping(answer, ids: list[str]) -> tuple[dict, str]:
    """``{run id: group}`` from the forms a student may reasonably give, and "" or what is wrong.

    Accepted: ``{"F1": group, ...}`` (ids in any case); ``{group: ["F1", ...], ...}``; a list of
    ``(id, group)`` pairs; a list of groups in the order the runs are shown (F1 first); run
    numbers (``3``) for ids.
    """
    example = 'return something like {"F1": "many steps", "F2": "single call", ...}'
    if isinstance(answer, (list, tuple)):
        if all(isinstance(x, (list, tuple)) and len(x) == 2 for x in answer) and answer:
            return _as_mapping(dict(answer), ids)
        if len(answer) != len(ids):
            return {}, (
                f"it returned a list of {len(answer)} items; give one group per run, {len(ids)} in all, or {example}"
            )
        return dict(zip(ids, answer)), ""
    if not isinstance(answer, dict):
        return {}, f"it returned {type(answer).__name__}; {example}"
    if answer and all(normalise_group(k) and isinstance(v, (list, tuple, set)) for k, v in answer.items()):
        flipped: dict = {}
        for group, members in answer.items():
            for run_id in members:
                key = _run_key(run_id)
                if key in flipped:
                    return {}, f"{key} is filed under two groups; put each run in exactly one"
                flipped[key] = group
        return flipped, ""
    return {_run_key(k): v for k, v in answer.items()}, ""


def _run_key(key) -> str:
    """A run id as the student wrote it: "f3", " F3 ", 3 and "3" all mean F3."""
    text = str(key).strip().upper()
    return f"F{text}" if text.isdigit() else text


def check(sort_failures: Callable[[], dict]) -> CheckResult:
    """``sort_failures()`` returns ``{run id: group name}`` for every run shown.

    Notebook 12.
    """
    c = Checker(TITLE)
    answer, report = first_answer(c, sort_failures, "sort_failures() returns your groups")
    if report is not None:
        return report
    runs = failed_runs()
    ids = [r.id for r in runs]
    answer, problem = _as_mapping(answer, ids)
    if not c.expect(problem == "", "sort_failures() returns a dict of run id → group", problem):
        return c.done()
    unknown = sorted(k for k in answer if k not in ids)
    c.expect(
        not unknown,
        "every key is one of the runs shown",
        f"there is no run {', '.join(unknown)}; the runs are {ids[0]} to {ids[-1]}",
    )
    for run in runs:
        given = answer.get(run.id)
        group = normalise_group(given)
        if given is None:
            c.expect(False, f"{run.id} ({run.title})", "you have not filed this run yet; add it to the dict")
        elif group is None:
            c.expect(False, f"{run.id} ({run.title})", f"{given!r} is not a group; use one of: {', '.join(GROUPS)}")
        elif group == run.group:
            c.expect(True, f"{run.id} is a {run.group} failure: {run.why}")
        else:
            c.expect(False, f"{run.id} ({run.title})", f"not {group}. Hint: {run.hint}")
    result = c.done()
    if result.ok:
        guide = group_guide()
        lines = ["What helps, group by group:"] + [f"  {g}: {guide[g]['fix']}." for g in GROUPS]
        print("\n".join(lines))
        result.lines += lines
    return result
