"""Collect and grade: ``python -m toolkit grade SUBMISSIONS/ [--out grades.csv]`` (issue 22, point 4).

docs/running-a-class.md, "Grading". Each submitted notebook runs top to bottom in a fresh kernel
inside its own operating-system sandbox (toolkit/course/grade_sandbox.py: bubblewrap, no
network, a read-only toolkit, only a copy of the submission writable, resource limits), with a
time limit per cell and per notebook. The check cells are not taken from the submission: where
the student's check cell was (or at the end, if it was deleted), the kernel only hands the names
the course's check cell uses over to the grader (cloudpickle), and the course's check cell runs
on them in a fresh sandboxed Python (toolkit/course/grade_check.py), whose verdict is the one
recorded: nothing the student's code did to its own kernel reaches it.

* ``graded``: the check ran (``passed`` of ``total`` items);
* ``not_done``: the check found the starter stub;
* ``error``: the check could not run (the kernel died by itself, the answers could not be handed
  over, the check raised, the notebook is not one of the course's or could not be read);
* ``timeout``: the check, or a cell before it whose kernel had to be stopped, or the notebook ran
  out of time; or a cell that binds a name the check reads ran out of time (named; the check does
  not run); or the check failed, in part or whole, after a cell of the student's ran out of time;
* ``tampered``: the check's own code was changed while it ran (by the student's functions).

Output: one CSV row per student, notebook and exercise (``student,notebook,exercise,passed,
total,status``) and a JSON file beside it with what each check printed; both are rewritten as
each notebook finishes, so a run that stops loses nothing already graded. Layouts:
``SUBMISSIONS/alice.ipynb`` (student = file stem; the notebook is recognised by its check cells)
or ``SUBMISSIONS/alice/NN_name.ipynb`` and nbgrader's ``submitted/alice/ASSIGNMENT/NN_name.ipynb``
(student = folder name). One bad submission gives its own ``error`` rows and the run goes on.

Used by: python -m toolkit grade.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .grade_sandbox import ANSWERS, NOBODY, UNPROTECTED, Kernel, Sandbox, unavailable

__all__ = ["CheckCell", "course_checks", "find_submissions", "grade_notebook", "grade_folder", "main"]

STATUSES = ("graded", "not_done", "error", "timeout", "tampered")
COLUMNS = ["student", "notebook", "exercise", "passed", "total", "status"]
CELL_TIMEOUT = 120.0  # seconds one of the student's cells may run
NOTEBOOK_TIMEOUT = 900.0  # seconds one notebook may run
# a check call: ``ex10.check(`` (an exercise of the pack) or ``opt04_pick_k.check(`` (an optional section)
CHECK_CALL = re.compile(r"\b(ex\d\d|opt\d\d_\w+?)\.(check\w*)\s*\(")
PACKAGE = Path(__file__).resolve().parents[1]


@dataclass
class CheckCell:
    """One check cell of a course notebook: the exercise (the pack's number, or an optional
    section's module name), the checks module and call, its source and the solution cells since
    the check before it (the reference answer, for tests and benchmarks).

    Used by: toolkit/course/grade.py.
    """

    number: int | str
    source: str
    solutions: list[str] = field(default_factory=list)
    module: str = ""
    call: str = ""


def _exercise(module: str) -> int | str:
    return int(module[2:]) if module.startswith("ex") else module


def _cells(path: Path) -> list[dict]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a notebook (no cell list)")
    for cell in cells:
        source = cell.get("source", "") if isinstance(cell, dict) else ""
        if isinstance(source, list):
            cell["source"] = "".join(str(s) for s in source)
        elif not isinstance(source, str):
            cell["source"] = ""
    return [c for c in cells if isinstance(c, dict)]


def _tags(cell: dict) -> list:
    tags = cell.get("metadata", {}).get("tags", []) if isinstance(cell.get("metadata"), dict) else []
    return tags if isinstance(tags, list) else []


def course_checks(notebook: Path) -> list[CheckCell]:
    """The check cells of a course notebook, in order (cells tagged ``check`` that call ``exNN.check…``
    or ``optNN_topic.check…``).

    Used by: benchmarks/bench_class.py.
    """
    found, solutions = [], []
    for cell in _cells(notebook):
        if cell.get("cell_type") != "code":
            continue
        if "solution" in _tags(cell):
            solutions.append(cell["source"])
        match = CHECK_CALL.search(cell["source"])
        if "check" in _tags(cell) and match:
            module = match.group(1)
            found.append(CheckCell(_exercise(module), cell["source"].strip(), solutions, module, match.group(0)))
            solutions = []
    return found


def _course_notebooks(course: Path) -> dict[str, list[CheckCell]]:
    """Every course notebook and its checks (an empty list: a lesson without exercises)."""
    return {p.stem: course_checks(p) for p in sorted(course.glob("[0-9][0-9]_*.ipynb"))}


@dataclass
class Submission:
    student: str
    path: Path


def find_submissions(folder: Path) -> list[Submission]:
    """Every notebook under ``folder`` and whose it is (see the module's docstring for the layouts).

    Used by: python -m toolkit grade.
    """
    found = []
    for path in sorted(folder.rglob("*.ipynb")):
        parts = path.relative_to(folder).parts
        if any(p.startswith(".") for p in parts):  # .ipynb_checkpoints and the like
            continue
        if parts[0] == "submitted" and len(parts) > 2:
            parts = parts[1:]
        found.append(Submission(parts[0] if len(parts) > 1 else path.stem, path))
    return found


def _normal(source: str) -> str:
    return "\n".join(line.rstrip() for line in source.strip().splitlines())


def _identify(cells: list[dict], path: Path, course: dict[str, list[CheckCell]]) -> str | None:
    if path.stem in course:
        return path.stem
    sources = {_normal(c["source"]) for c in cells if c.get("cell_type") == "code"}
    scores = {name: float(sum(_normal(ch.source) in sources for ch in checks)) for name, checks in course.items()}
    modules = {m.group(1) for c in cells for m in CHECK_CALL.finditer(c["source"])}
    for name, checks in course.items():
        scores[name] += sum(ch.module in modules for ch in checks) / 100
    best = max(scores, key=lambda n: scores[n], default=None)
    return best if best is not None and scores[best] > 0 else None


@dataclass
class Step:
    """One thing to run: a student's cell, or the course's check number ``check`` (an index)."""

    source: str
    check: int | None = None
    edited: bool = False


def _plan(cells: list[dict], checks: list[CheckCell]) -> list[Step]:
    """The student's code cells in order, each check cell replaced by the course's own of the same
    call (else of the same module); a check cell the student deleted runs at the end."""
    steps, used = [], set()
    pristine = {_normal(ch.source): i for i, ch in enumerate(checks)}
    for cell in cells:
        if cell.get("cell_type") != "code" or not cell["source"].strip():
            continue
        source = cell["source"]
        index = pristine.get(_normal(source))
        if index is not None and index not in used:
            steps.append(Step(checks[index].source, index))
            used.add(index)
            continue
        match = CHECK_CALL.search(source)
        if match:
            free = [i for i, ch in enumerate(checks) if i not in used and ch.module == match.group(1)]
            free.sort(key=lambda i: checks[i].call != match.group(0))  # the same call first
            if free:
                steps.append(Step(checks[free[0]].source, free[0], edited=True))
                used.add(free[0])
                continue
        steps.append(Step(source))
    steps += [Step(ch.source, i) for i, ch in enumerate(checks) if i not in used]
    return steps


def _reads(check: CheckCell) -> list[str]:
    """The names of the student's that the course's check cell reads (its answers)."""
    modules = {m.group(1) for m in CHECK_CALL.finditer(check.source)}
    return sorted({n.id for n in ast.walk(ast.parse(check.source)) if isinstance(n, ast.Name)} - modules)


def _binds(source: str) -> set[str]:
    """The names a student's cell binds in the notebook (assigns, defines, imports; not inside its
    functions); none if it is not Python even after IPython's own rewriting of magics."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        todo: list[ast.AST] = list(ast.parse(TransformerManager().transform_cell(source)).body)
    except (SyntaxError, ValueError):
        return set()
    names = set()
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        todo.extend(ast.iter_child_nodes(node))
    return names


def _hand_over(check: CheckCell) -> str:
    """The cell the student's kernel runs in place of a check: it publishes the cloudpickle of the
    names the course's check cell reads (its answers), for the grader to take to the fresh check."""
    names = _reads(check)
    return (
        f"__import__('IPython.display').display.publish_display_data({{{ANSWERS!r}: __import__('base64')"
        f".b64encode(__import__('cloudpickle').dumps({{_n: _v for _n, _v in globals().items() if _n in {names!r}}}))"
        ".decode()})"
    )


def _row(sub: Submission, notebook: str, number: int | str, status: str, passed=0, total=0, lines=(), notes=()):
    return {
        "student": sub.student,
        "notebook": notebook,
        "exercise": number,
        "passed": passed,
        "total": total,
        "status": status,
        "feedback": list(lines),
        "notes": list(notes),
        "file": str(sub.path),
    }


def grade_notebook(
    sub: Submission,
    course: dict[str, list[CheckCell]],
    cell_timeout: float = CELL_TIMEOUT,
    notebook_timeout: float = NOTEBOOK_TIMEOUT,
    workspace: Path | None = None,
    sandboxed: bool = True,
) -> list[dict]:
    """Grade one submitted notebook: one record per exercise (CSV columns plus feedback and notes).
    Never raises: a notebook the grader cannot handle gets ``error`` rows saying why.

    Used by: python -m toolkit grade.
    """
    try:
        return _grade_notebook(sub, course, (cell_timeout, notebook_timeout), workspace, sandboxed)
    except Exception as exc:  # one submission never stops a class's run
        why = f"the grader could not grade this notebook ({type(exc).__name__}: {str(exc)[:300]})"
        return [_row(sub, sub.path.stem, "", "error", lines=[why])]


def _grade_notebook(
    sub: Submission,
    course: dict[str, list[CheckCell]],
    timeouts: tuple[float, float],
    workspace: Path | None,
    sandboxed: bool,
) -> list[dict]:
    try:
        cells = _cells(sub.path)
    except Exception as exc:  # unreadable, not JSON, nested too deep (RecursionError) …
        return [
            _row(sub, sub.path.stem, "", "error", lines=[f"could not read the notebook: {type(exc).__name__}: {exc}"])
        ]
    if sub.path.stem in course and not course[sub.path.stem]:
        return []  # a lesson without exercises: nothing to grade
    name = _identify(cells, sub.path, {k: v for k, v in course.items() if v})
    if name is None:
        return [_row(sub, sub.path.stem, "", "error", lines=["not one of the course's notebooks with exercises"])]
    checks = course[name]
    scratch = Path(tempfile.mkdtemp(prefix="toolkit-grade-")) if workspace is None else workspace
    box = Sandbox(scratch, sandboxed, timeouts[1])
    try:
        copy = box.work / sub.path.name
        shutil.copy(sub.path, copy)  # the kernel sees a copy, never the original
        if sandboxed and box.cgroups:
            os.chown(copy, NOBODY, NOBODY)
        session = Session(checks, timeouts, box)
        session.grade(_plan(cells, checks))
    finally:
        box.close()
        if workspace is None:
            shutil.rmtree(scratch, ignore_errors=True)
    return _merge(sub, name, [part | {"number": check.number} for check, part in zip(checks, session.parts)])


class Session:
    """One notebook's run: its steps through a sandboxed kernel, one part per check."""

    def __init__(self, checks: list[CheckCell], timeouts: tuple[float, float], box: Any = None) -> None:
        self.checks, self.box = checks, box
        self.cell_timeout, self.notebook_timeout = timeouts
        self.parts: list[dict] = [{} for _ in checks]
        self.late: list[str] = []  # the student's cells that ran out of time since the last check
        self.unfinished: dict[str, str] = {}  # a name bound by a cell that ran out of time: that cell
        self.stopped = ""  # why the kernel was stopped, if it was stopped for running out of time
        self.started = time.monotonic()
        self.kernel: Any = None

    def left(self) -> float:
        return self.notebook_timeout - (time.monotonic() - self.started)

    def grade(self, steps: list[Step]) -> None:
        """Start the kernel, run the steps, stop every process the notebook started."""
        try:
            self.kernel = Kernel(self.box)
        except Exception as exc:
            self._fill("error", f"the kernel did not start ({type(exc).__name__}: {str(exc)[:200]})")
            return
        try:
            self._run(steps)
        finally:
            self.kernel.close()
        self._fill_unrun()

    def _run(self, steps: list[Step]) -> None:
        for step in steps:
            if self.left() <= 0:
                return
            if step.check is not None:
                ran = self._check(step)
            else:
                ran = self.kernel.run(step.source, min(self.cell_timeout, self.left()))
                if ran.get("stopped"):
                    first = step.source.strip().splitlines()[0][:60]
                    self.late.append(f"your cell `{first}` ran longer than {self.cell_timeout:g} s and was stopped")
                    self.unfinished |= dict.fromkeys(_binds(step.source), self.late[-1])
                elif ran["status"] == "ok" and self.unfinished:  # a cell that finished binds them afresh
                    self.unfinished = {k: v for k, v in self.unfinished.items() if k not in _binds(step.source)}
            if ran["status"] == "dead":
                if ran.get("stopped"):
                    self.stopped = self.late[-1] if self.late else "the kernel was stopped for its time"
                return

    def _fill(self, status: str, why: str) -> None:
        for part in self.parts:
            if not part:
                part.update(status=status, lines=[why])

    def _fill_unrun(self) -> None:
        """Checks that never ran: the notebook's time, a kernel stopped for time, or one that died."""
        if self.left() <= 0:
            self._fill("timeout", "the notebook's time ran out before this check")
        elif self.stopped:
            self._fill("timeout", self.stopped)
        else:
            self._fill("error", "the kernel stopped before this check")

    def _check(self, step: Step) -> dict:
        """Take the answers from the kernel, run the course's check on them in a fresh process."""
        index = step.check
        assert index is not None
        check = self.checks[index]
        unfinished = sorted({self.unfinished[n] for n in _reads(check) if n in self.unfinished})
        ran = {"status": "ok"} if unfinished else self.kernel.run(_hand_over(check), min(self.left(), 120.0))
        if ran["status"] == "dead":
            return ran
        if unfinished:  # what it defined may be half made: the check does not run on it
            part: dict[str, Any] = {"status": "timeout", "lines": [*unfinished, "the check did not run"]}
        elif ran.get("answers") is None:
            why = ran["error"] or "nothing came back"
            part = {"status": "timeout" if ran.get("stopped") else "error"}
            part["lines"] = [f"your answers could not be handed to the check: {why}"]
        else:
            part = self._verdict(check, ran["answers"])
        failed = part["status"] != "graded" or part.get("passed", 0) < part.get("total", 0)
        if self.late and failed and part["status"] != "timeout":  # it may have failed for want of time
            part = {"status": "timeout", "lines": self.late + part.get("lines", [])}
        if step.edited:
            part.setdefault("notes", []).append("the check cell was edited; the course's ran in its place")
        self.parts[index], self.late = part, []
        return ran

    def _verdict(self, check: CheckCell, answers: str) -> dict:
        modules = sorted({m.group(1) for m in CHECK_CALL.finditer(check.source)})
        job = json.dumps({"cell": check.source, "modules": modules, "answers": answers})
        argv = self.box.command([sys.executable, "-m", "toolkit.course.grade_check"], check=True)
        env = self.box.environment() | {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        env["PYTHONPATH"] = str(PACKAGE.parent)  # --no-sandbox: the toolkit this grader runs
        self.box.freeze(True)  # nothing the notebook left running competes with its check
        try:
            done = subprocess.run(
                argv, input=job, capture_output=True, text=True, timeout=max(self.left(), 1), env=env, cwd=self.box.work
            )
        except subprocess.TimeoutExpired:
            return {
                "status": "timeout",
                "lines": [f"the notebook's {self.notebook_timeout:g} s ran out during this check"],
            }
        finally:
            self.box.freeze(False)
        try:
            verdict = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            tail = done.stderr.strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
            return {"status": "error", "lines": [f"the check ended without a verdict ({tail[0][:300]})"]}
        return verdict if isinstance(verdict, dict) and verdict.get("status") in STATUSES else {"status": "error"}


def _merge(sub: Submission, notebook: str, parts: list[dict]) -> list[dict]:
    """One record per exercise: the parts' items added up; the status is the worst part's
    (tampered, timeout, error, not_done, graded in that order)."""
    order = {s: i for i, s in enumerate(reversed(STATUSES))}
    rows: dict[int, dict] = {}
    for part in parts:
        number = part["number"]
        row = rows.setdefault(number, _row(sub, notebook, number, "graded"))
        row["passed"] += part.get("passed", 0)
        row["total"] += part.get("total", 0)
        row["feedback"] += part.get("lines", [])
        row["notes"] += [n for n in part.get("notes", []) if n not in row["notes"]]
        if order[part["status"]] < order[row["status"]]:
            row["status"] = part["status"]
    return list(rows.values())


def grade_folder(
    folder: Path,
    course: Path,
    cell_timeout: float = CELL_TIMEOUT,
    notebook_timeout: float = NOTEBOOK_TIMEOUT,
    progress: Callable[[str], Any] = print,
    jobs: int = 1,
    out: Path | None = None,
    sandboxed: bool = True,
) -> list[dict]:
    """Grade every submission under ``folder`` against the course notebooks in ``course``,
    ``jobs`` notebooks at a time (each in its own sandbox); the rows come in submission order
    whatever order the kernels finish in, and, with ``out``, the CSV and JSON are rewritten as
    each notebook finishes.

    Used by: python -m toolkit grade.
    """
    known = _course_notebooks(course)
    if not any(known.values()):
        raise FileNotFoundError(f"no course notebooks with check cells in {course}")
    subs = find_submissions(folder)
    finished: dict[int, list[dict]] = {}
    lock = threading.Lock()
    workspace = Path(tempfile.mkdtemp(prefix="toolkit-grade-"))

    def grade_one(index: int) -> None:
        sub, began = subs[index], time.monotonic()
        graded = grade_notebook(sub, known, cell_timeout, notebook_timeout, workspace, sandboxed)
        summary = ", ".join(f"{_label(r['exercise'])} {r['status']} {r['passed']}/{r['total']}" for r in graded)
        summary = summary or "a lesson without exercises, nothing to grade"
        with lock:
            finished[index] = graded
            progress(
                f"[{len(finished)}/{len(subs)}] {sub.student} {sub.path.name}: {summary} ({time.monotonic() - began:.0f} s)"
            )
            if out is not None:
                _write_safely(_in_order(finished), out, progress)

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="grade") as pool:
            list(pool.map(grade_one, range(len(subs))))
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    return _in_order(finished)


def _label(exercise: int | str) -> str:
    return f"ex{exercise}" if isinstance(exercise, int) else str(exercise)


def _in_order(finished: dict[int, list[dict]]) -> list[dict]:
    return [row for index in sorted(finished) for row in finished[index]]


def _write_safely(rows: list[dict], out: Path, progress: Callable[[str], Any]) -> None:
    try:
        write_results(rows, out)
    except OSError as exc:
        progress(f"grade: could not write {out} ({exc}); the rows are kept for the next try")


def write_results(rows: list[dict], out: Path) -> Path:
    """The CSV at ``out`` and the feedback JSON beside it (``out`` with ``.json``), each replaced
    whole (written beside, then renamed); returns the JSON's path."""
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    with open(partial, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(partial, out)
    feedback = out.with_suffix(".json")
    partial = feedback.with_name(feedback.name + ".partial")
    partial.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, feedback)
    return feedback


def main(argv: list[str] | None = None) -> int:
    """``python -m toolkit grade SUBMISSIONS/ [--out grades.csv]``.

    Used by: python -m toolkit grade.
    """
    parser = argparse.ArgumentParser(prog="python -m toolkit grade", description="Grade submitted notebooks.")
    parser.add_argument("submissions", type=Path, help="a folder of .ipynb files, or nbgrader's submitted/")
    parser.add_argument("--out", type=Path, default=Path("grades.csv"), help="the CSV to write (default grades.csv)")
    parser.add_argument("--course", type=Path, default=PACKAGE.parent / "notebooks", help="the course's notebooks")
    parser.add_argument(
        "--cell-timeout",
        type=float,
        default=CELL_TIMEOUT,
        help="seconds a cell of the student's may take, not counting its waits for a CPU",
    )
    parser.add_argument("--notebook-timeout", type=float, default=NOTEBOOK_TIMEOUT, help="seconds per notebook")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks graded at once, one sandbox each (default 1)")
    parser.add_argument(
        "--no-sandbox", action="store_true", help="run the students' code unprotected (trusted code only)"
    )
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        print(f"grade: {args.submissions} is not a folder of submitted notebooks", file=sys.stderr)
        return 2
    why = "" if args.no_sandbox else unavailable()
    if why:
        print(
            f"grade: {why}; refusing to run students' code unprotected (--no-sandbox to do it anyway)", file=sys.stderr
        )
        return 2
    if args.no_sandbox:
        print(UNPROTECTED, file=sys.stderr)
    try:
        rows = grade_folder(
            args.submissions,
            args.course,
            args.cell_timeout,
            args.notebook_timeout,
            progress=lambda line: print(line, flush=True),
            jobs=args.jobs,
            out=args.out,
            sandboxed=not args.no_sandbox,
        )
    except FileNotFoundError as exc:
        print(f"grade: {exc}", file=sys.stderr)
        return 2
    if not rows:
        print(f"grade: no notebooks found under {args.submissions}", file=sys.stderr)
        return 2
    feedback = write_results(rows, args.out)
    counts = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
    print(
        f"grade: {len(rows)} rows to {args.out}, feedback in {feedback}: "
        + ", ".join(f"{n} {s}" for s, n in counts.items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
