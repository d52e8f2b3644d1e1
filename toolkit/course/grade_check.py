"""One of the course's check cells, run in a fresh sandboxed Python on a student's answers
(docs/running-a-class.md, "Grading"): ``python -m toolkit.course.grade_check`` reads
``{"cell": ..., "modules": [...], "answers": base64}`` on stdin, where ``answers`` is the
cloudpickle of the names the check cell uses, taken from the student's kernel when their check
cell ran. It imports the checks before loading the answers, runs the cell, and writes one JSON
verdict line (``status``, ``passed``, ``total``, ``lines``) to its stdout; anything else printed
goes to stderr. Nothing the student's earlier cells did in their kernel is here. A check's own
objects changed while it ran (its module, ``Checker``, ``CheckResult``) make the verdict
``tampered``.

Used by: toolkit/course/grade.py.
"""

from __future__ import annotations

import ast
import base64
import importlib
import json
import os
import sys
from typing import Any

RESULT = "_grade_result"


def _fingerprint(objects: list[Any]) -> dict[str, int]:
    """The identity of every attribute of the check's own objects, to see one replaced."""
    return {f"{getattr(o, '__name__', o)}.{k}": id(v) for o in objects for k, v in list(vars(o).items())}


def _assign_last(source: str) -> str:
    tree = ast.parse(source)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        tree.body[-1] = ast.Assign(targets=[ast.Name(RESULT, ast.Store())], value=last.value, lineno=last.lineno)
        ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def grade(job: dict) -> dict:
    """The verdict of ``job``'s check cell on ``job``'s answers."""
    import cloudpickle  # type: ignore[import-untyped]

    import toolkit.checks as base

    modules = {name: importlib.import_module(f"toolkit.checks.{name}") for name in job["modules"]}
    watched = [base, base.Checker, base.CheckResult, *modules.values()]
    before = _fingerprint(watched)
    try:
        answers = cloudpickle.loads(base64.b64decode(job["answers"]))
    except Exception as exc:  # the student's objects could not be rebuilt
        return {"status": "error", "lines": [f"your answers could not be loaded: {type(exc).__name__}: {exc}"]}
    namespace = {"__name__": "__main__", **answers, **modules}
    try:
        exec(compile(_assign_last(job["cell"]), "<check cell>", "exec"), namespace)
    except Exception as exc:  # a name the check needs is missing, or the check itself failed
        return {"status": "error", "lines": [f"the check raised {type(exc).__name__}: {exc}"]}
    changed = sorted(k for k, v in _fingerprint(watched).items() if before.get(k) != v)
    if changed:
        return {
            "status": "tampered",
            "lines": [f"the check's own code was changed while it ran ({', '.join(changed[:5])})"],
        }
    result = namespace.get(RESULT)
    if type(result) is not base.CheckResult:
        return {"status": "error", "lines": ["the check did not return a result"]}
    return {
        "status": "not_done" if result.status == "not done" else "graded",
        "passed": int(result.passed),
        "total": int(result.total),
        "lines": [str(line) for line in result.lines],
    }


def main() -> None:
    verdict = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # what the check or the student's code prints is not the verdict
    sys.stdout = sys.stderr
    job = json.loads(sys.stdin.read())
    verdict.write(json.dumps(grade(job)) + "\n")
    verdict.flush()
    os._exit(0)  # threads the student's code left running do not keep the process alive


if __name__ == "__main__":
    main()
