"""Collect and grade: ``python -m toolkit grade SUBMISSIONS/ [--out grades.csv]`` (issue 22, point 4).

README "Grading submitted notebooks". Each submitted notebook is copied into a fresh sandbox
folder and run top to bottom in a fresh kernel, with a time limit per cell and per notebook
(a check cell has the notebook's time: the check limits the student's code in it itself),
and with the guard of toolkit/course/grade_guard.py installed before the student's first cell
(no network, no writes outside the sandbox, no reading the course's or other students' files,
no program but a guarded Python, tampering recorded). The check cells are not taken from the
submission: the course's own copy of each check (notebooks/NN_*.ipynb, cells tagged ``check``)
runs where the student's was, and its verdict comes from the guard, signed, on a pipe only the
grader reads (toolkit/course/grade_integrity.py): a pass counts only when the course's
unmodified check gave it, with the toolkit as it was before the student's code ran.

* ``graded``: the check ran (``passed`` of ``total`` items);
* ``not_done``: the check found the starter stub;
* ``error``: the check could not run (the kernel died by itself, the check raised, the notebook
  is not one of the course's or could not be read, the kernel did not start);
* ``timeout``: the check cell, a cell before it whose kernel had to be stopped, or the
  notebook's time ran out;
* ``tampered``: a check cell was edited, or the guard saw what decides the verdict being
  changed or reached into (the feedback says what).

Output: one CSV row per student, notebook and exercise (``student,notebook,exercise,passed,
total,status``) and a JSON file beside it with what each check printed (the lines the
student saw) and the guard's notes; both are rewritten as each notebook finishes, so a run that
stops loses nothing already graded. Layouts: ``SUBMISSIONS/alice.ipynb`` (student = file stem;
the notebook is recognised by its check cells) or ``SUBMISSIONS/alice/NN_name.ipynb`` and
nbgrader's ``submitted/alice/ASSIGNMENT/NN_name.ipynb`` (student = folder name). One bad
submission gives its own ``error`` rows and the run goes on.

Used by: python -m toolkit grade.
"""

from __future__ import annotations

import argparse
import ast
import csv
import hashlib
import json
import os
import re
import secrets
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import grade_integrity
from .grade_kernel import Channel, GradingKernel, NotebookFolders, Workspace, become_subreaper, remove_tree

__all__ = ["CheckCell", "course_checks", "find_submissions", "grade_notebook", "grade_folder", "main"]

STATUSES = ("graded", "not_done", "error", "timeout", "tampered")
COLUMNS = ["student", "notebook", "exercise", "passed", "total", "status"]
CELL_TIMEOUT = 120.0  # seconds one of the student's cells may run
NOTEBOOK_TIMEOUT = 900.0  # seconds one notebook may run
CHECK_CALL = re.compile(r"\b(ex\d\d)\.check\w*\s*\(")
PACKAGE = Path(__file__).resolve().parents[1]


@dataclass
class CheckCell:
    """One check cell of a course notebook: the exercise's number (the pack's), its source and
    the solution cells since the check before it (the reference answer, for tests and benchmarks).

    Used by: toolkit/course/grade.py.
    """

    number: int
    source: str
    solutions: list[str] = field(default_factory=list)


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
    """The check cells of a course notebook, in order (cells tagged ``check`` that call ``exNN.check…``).

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
            found.append(CheckCell(int(match.group(1)[2:]), cell["source"].strip(), solutions))
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
    numbers = {int(m[2:]) for c in cells for m in CHECK_CALL.findall(c["source"])}
    for name, checks in course.items():
        scores[name] += sum(ch.number in numbers for ch in checks) / 100
    best = max(scores, key=lambda n: scores[n], default=None)
    return best if best is not None and scores[best] > 0 else None


@dataclass
class Step:
    """One thing to run: a student's cell, or the course's check number ``check`` (an index)."""

    source: str
    check: int | None = None
    edited: bool = False


def _plan(cells: list[dict], checks: list[CheckCell]) -> list[Step]:
    """The student's code cells in order, each check cell replaced by the course's own; a check
    cell the student deleted runs at the end; one they edited is run as the course's and marked."""
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
        if "check" in _tags(cell) or match:
            number = int(match.group(1)[2:]) if match else None
            free = [i for i, ch in enumerate(checks) if i not in used and (number is None or ch.number == number)]
            if free:
                steps.append(Step(checks[free[0]].source, free[0], edited=True))
                used.add(free[0])
                continue
        steps.append(Step(source))
    steps += [Step(ch.source, i) for i, ch in enumerate(checks) if i not in used]
    return steps


def _assign_last(source: str, name: str) -> str:
    """The check cell, one statement per line (``ast.unparse``), its last expression kept in ``name``."""
    tree = ast.parse(source)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        tree.body[-1] = ast.Assign(targets=[ast.Name(name, ast.Store())], value=last.value, lineno=last.lineno)
        ast.fix_missing_locations(tree)
    return ast.unparse(tree)


# The grader's first cell: every toolkit module imported, then the guard's fingerprint taken
# (with the attributes a Checker has, so one given an attribute of its own is seen).
SETUP = """\
import importlib as _i, pkgutil as _p, sys as _s
import toolkit as _t
for _m in _p.walk_packages(_t.__path__, "toolkit."):
    if not _m.name.endswith("__main__") and not _m.name.startswith("toolkit.course.grade"):
        try:
            _i.import_module(_m.name)
        except Exception:
            pass
for _m in [m for n, m in list(_s.modules.items()) if n.startswith("toolkit") and hasattr(m, "__getattr__")]:
    for _n in getattr(_m, "__all__", []):  # a lazy package keeps a name once looked up: look them all up now
        getattr(_m, _n, None)
from toolkit.checks import Checker as _C
_s.audit("toolkit.grade.baseline", get_ipython(), sorted(vars(_C("the grader's baseline", time_limit=None))))
del _i, _p, _s, _t, _m, _n, _C
"""
FINISH = '__import__("sys").audit("toolkit.grade.finish")'


def _tree_hash(roots: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _data_root() -> Path:
    from ..data import data_dir

    return data_dir().resolve()


def _hidden_paths(extra: Iterable[Path] = ()) -> list[Path]:
    """What a graded kernel may not read: the course's notebooks (the teacher's solutions), the
    repository's history and tests, the submissions (``extra``)."""
    repo = PACKAGE.parent
    found = [repo / name for name in ("notebooks", ".git", "tests") if (repo / name).exists()]
    return found + [Path(p).resolve() for p in extra]


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
    hidden: Iterable[Path] = (),
    workspace: Workspace | None = None,
) -> list[dict]:
    """Grade one submitted notebook: one record per exercise (CSV columns plus feedback and notes).
    Never raises: a notebook the grader cannot handle gets ``error`` rows saying why.

    Used by: python -m toolkit grade.
    """
    try:
        return _grade_notebook(sub, course, (cell_timeout, notebook_timeout), list(hidden), workspace)
    except Exception as exc:  # one submission never stops a class's run
        why = f"the grader could not grade this notebook ({type(exc).__name__}: {str(exc)[:300]})"
        return [_row(sub, sub.path.stem, "", "error", lines=[why])]


def _grade_notebook(
    sub: Submission,
    course: dict[str, list[CheckCell]],
    timeouts: tuple[float, float],
    hidden: list[Path],
    workspace: Workspace | None,
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
    protected = [PACKAGE, _data_root()]
    before = _tree_hash(protected)
    own = workspace is None
    workspace = workspace or Workspace()
    folders = workspace.notebook()
    try:
        shutil.copy(sub.path, folders.work / sub.path.name)  # the kernel sees a copy, never the original
        session = Session(checks, timeouts)
        session.grade(folders, _plan(cells, checks), protected, hidden, workspace.root)
    finally:
        remove_tree(folders.root)
        if own:
            workspace.remove()
    if _tree_hash(protected) != before:
        session.taint_all("the toolkit's or the course data's files changed during the run")
    return _merge(sub, name, [part | {"number": check.number} for check, part in zip(checks, session.parts)])


class Session:
    """One notebook's run: its steps through a kernel, the guard's reports, one part per check."""

    def __init__(self, checks: list[CheckCell], timeouts: tuple[float, float]) -> None:
        self.checks = checks
        self.cell_timeout, self.notebook_timeout = timeouts
        self.parts: list[dict] = [{} for _ in checks]
        self.tainted: list[str] = []  # tampering the guard reported at once: it taints every later check
        self.seen = 0  # records of the guard's already read
        self.stopped = ""  # why the kernel was stopped, if it was stopped for running out of time
        self.started = time.monotonic()
        self.kernel: Any = None
        self.channel: Any = None

    # -- the run --

    def grade(
        self, folders: NotebookFolders, steps: list[Step], protected: list[Path], hidden: list[Path], root: Path
    ) -> None:
        """Start the kernel, run the steps, stop every process the notebook started."""
        self.channel = Channel()
        try:
            self.kernel = GradingKernel(folders, folders.environment(protected, hidden, root), self.channel)
        except Exception as exc:
            self.channel.close()
            self._fill("error", f"the kernel did not start ({type(exc).__name__}: {str(exc)[:200]})")
            return
        try:
            if self._setup():
                self._run(steps)
                self._finish()
        finally:
            self.kernel.close()
            self.channel.close()
        self._children(folders.child_records())

    def _setup(self) -> bool:
        ran = self.kernel.run(SETUP, 120.0, silent=True)
        self.channel.catch_up()
        ready = any(r.get("kind") == "ready" for r in self.channel.records)
        if ran["status"] == "ok" and ready:
            return True
        why = ran["error"] or "the guard did not answer"
        self._fill("error", f"the grader could not prepare the kernel: {why}")
        return False

    def _run(self, steps: list[Step]) -> None:
        for step in steps:
            left = self.notebook_timeout - (time.monotonic() - self.started)
            if left <= 0:
                return
            if step.check is None:
                ran = self.kernel.run(step.source, min(self.cell_timeout, left))
            else:  # a check limits the student's code itself; the guard's share grows with the load
                ran = self._check(step, left)
            self._read_reports()
            if ran["status"] == "dead":
                if ran.get("stopped"):
                    self.stopped = f"a cell before this check ran longer than {self.cell_timeout:g} s and its kernel had to be stopped"
                return

    def _finish(self) -> None:
        """The guard's last look (a check's result replaced afterwards), then the checks that never ran."""
        if self.kernel.km.is_alive():
            self.kernel.run(FINISH, 30.0, silent=True)
            self.channel.catch_up()
            self._read_reports()

    def _fill(self, status: str, why: str) -> None:
        for part in self.parts:
            if not part:
                part.update(status=status, lines=[why])

    # -- one check --

    def _check(self, step: Step, timeout: float) -> dict:
        """Run the course's check cell between the guard's events and take the verdict it reports."""
        index = step.check
        assert index is not None
        source = _assign_last(step.source, f"_grade_{secrets.token_hex(8)}")
        cell = grade_integrity.check_cell(index, source, self.channel.mac(index, source))
        ran = self.kernel.run(cell, timeout)
        if ran.get("stopped") or ran["status"] == "timeout":
            ran["error"] = f"the notebook's {self.notebook_timeout:g} s ran out during this check"
        if ran["status"] == "dead":  # no report can come: stopped for its time, or crashed
            self.parts[index] = {"status": "timeout" if ran.get("stopped") else "error", "lines": [ran["error"]]}
            return ran
        self.channel.catch_up()
        part = self._verdict(step, ran)
        if ran["status"] == "timeout" and part["status"] != "tampered":
            part = {"status": "timeout", "lines": [ran["error"]], "notes": part.get("notes", [])}
        self.parts[index] = part
        return ran

    def _verdict(self, step: Step, ran: dict) -> dict:
        index = step.check
        end = _record(self.channel.records, "end", index)
        begin = _record(self.channel.records, "begin", index)
        edited = ["the check cell was edited"] if step.edited else []
        known = edited + self.tainted + self._forged()  # tampering seen before this check's end
        if end is None and ran["status"] == "timeout":
            # the grader interrupted it, maybe half way through the guard's report: only what was
            # reported before the interrupt counts as tampering
            return {"status": "tampered", "lines": known} if known else {"status": "timeout", "lines": [ran["error"]]}
        if end is None:
            why = "the check's end was not reported" if begin else "the check cell never reached the grading guard"
            return {"status": "tampered", "lines": [f"{why} (something intercepted it)"] + known}
        notes = [str(n) for n in end.get("notes", [])]
        tampered = edited + [str(t) for t in end.get("tampered", [])] + self.tainted + self._forged()
        if tampered:
            return {"status": "tampered", "lines": list(dict.fromkeys(tampered)), "notes": notes}
        result = end.get("result")
        if not isinstance(result, dict):
            return {"status": "error", "lines": [ran["error"] or "the check did not return a result"], "notes": notes}
        status = "not_done" if result.get("status") == "not done" else "graded"
        lines = [str(x) for x in result.get("lines", [])]
        return {
            "status": status,
            "passed": result.get("passed", 0),
            "total": result.get("total", 0),
            "lines": lines,
            "notes": notes,
        }

    def _forged(self) -> list[str]:
        if not self.channel.forged:
            return []
        return [f"something other than the guard wrote to its report pipe ({len(self.channel.forged)} lines)"]

    # -- reports that arrive between checks --

    def _read_reports(self) -> None:
        """Tampering the guard reported at once (``alert``) taints every later check; a check's result
        replaced in the namespace afterwards (``late``) taints that check."""
        records = self.channel.records
        for record in records[self.seen :]:
            tampered = [str(t) for t in record.get("tampered", [])]
            if record.get("kind") == "alert":
                self.tainted += [t for t in tampered if t not in self.tainted]
            elif record.get("kind") == "late" and isinstance(record.get("check"), int):
                self._taint(record["check"], tampered)
        self.seen = len(records)

    def _taint(self, index: int, why: list[str]) -> None:
        if 0 <= index < len(self.parts) and self.parts[index]:
            part = self.parts[index]
            part["status"] = "tampered"
            part["lines"] = why + [line for line in part.get("lines", []) if line not in why]

    def taint_all(self, why: str) -> None:
        for part in self.parts:
            if part:
                part["status"] = "tampered"
                part.setdefault("notes", []).append(why)
        self._fill("tampered", why)

    def _children(self, records: list[dict]) -> None:
        """What the notebook's child processes' guards noted (they cannot sign: they can only add)."""
        self._fill_unrun()
        notes = [str(n) for r in records for n in r.get("notes", [])]
        tampered = [str(t) for r in records for t in r.get("tampered", [])]
        for part in self.parts:
            part.setdefault("notes", []).extend(n for n in dict.fromkeys(notes) if n not in part["notes"])
        if tampered:
            self.taint_all(f"a process the notebook started: {tampered[0]}")

    def _fill_unrun(self) -> None:
        """Checks that never ran: the notebook's time, a kernel stopped for time, or one that died."""
        if time.monotonic() - self.started >= self.notebook_timeout:
            self._fill("timeout", "the notebook's time ran out before this check")
        elif self.stopped:
            self._fill("timeout", self.stopped)
        else:
            self._fill("error", "the kernel stopped before this check")


def _record(records: list[dict], kind: str, index: int | None) -> dict | None:
    for record in records:
        if record.get("kind") == kind and record.get("check") == index:
            return record
    return None


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
) -> list[dict]:
    """Grade every submission under ``folder`` against the course notebooks in ``course``,
    ``jobs`` notebooks at a time (each in its own kernel); the rows come in submission order
    whatever order the kernels finish in, and, with ``out``, the CSV and JSON are rewritten as
    each notebook finishes. With ``jobs`` above 1, a change to the toolkit's or the data's files
    (which the guard exists to stop) marks every notebook being graded at that moment as
    tampered, not only the one that made it.

    Used by: python -m toolkit grade.
    """
    known = _course_notebooks(course)
    if not any(known.values()):
        raise FileNotFoundError(f"no course notebooks with check cells in {course}")
    subs = find_submissions(folder)
    become_subreaper()  # a process a notebook leaves behind is reparented here, found and killed
    hidden = _hidden_paths([folder, course])
    finished: dict[int, list[dict]] = {}
    lock = threading.Lock()
    workspace = Workspace()

    def grade_one(index: int) -> None:
        sub, began = subs[index], time.monotonic()
        graded = grade_notebook(sub, known, cell_timeout, notebook_timeout, hidden, workspace)
        summary = ", ".join(f"ex{r['exercise']} {r['status']} {r['passed']}/{r['total']}" for r in graded)
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
        workspace.remove(warn=progress)
    return _in_order(finished)


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
        help="seconds per cell of the student's (a check cell has the notebook's time)",
    )
    parser.add_argument("--notebook-timeout", type=float, default=NOTEBOOK_TIMEOUT, help="seconds per notebook")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks graded at once, one kernel each (default 1)")
    args = parser.parse_args(argv)
    if not args.submissions.is_dir():
        print(f"grade: {args.submissions} is not a folder of submitted notebooks", file=sys.stderr)
        return 2
    try:
        rows = grade_folder(
            args.submissions,
            args.course,
            args.cell_timeout,
            args.notebook_timeout,
            progress=lambda line: print(line, flush=True),
            jobs=args.jobs,
            out=args.out,
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
