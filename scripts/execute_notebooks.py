#!/usr/bin/env python3
"""Re-run notebooks from their .py sources and save the outputs into the .ipynb files.

Usage: python scripts/execute_notebooks.py [--force] [--timeout SECONDS] [NOTEBOOK ...]
  NOTEBOOK  a name such as 03 or 03_learning_to_call_tools or a path; default: all.
  --force   also rebuild a .ipynb whose cells were edited in Jupyter (the edits are lost).

Each notebook runs in its own process under a time limit (jupytext's own executor has none).
A notebook edited in Jupyter without its .py being updated is never overwritten without
--force: the message says how to keep the edits. `make notebooks` calls this.
"""

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbpipeline import (  # noqa: E402
    DEFAULT_TIMEOUT,
    NOTEBOOKS,
    PipelineError,
    execute_pair,
    pairs,
    plan,
    read_ipynb,
    rel,
    run_and_write,
)

SLOW = 20.0  # seconds: the course's budget for one notebook


def select(names):
    every = pairs(NOTEBOOKS)
    if not names:
        return every
    chosen = []
    for name in names:
        stem = Path(name).stem
        match = [p for p in every if p[0].stem == stem or p[0].stem.startswith(stem + "_")]
        if not match:
            raise PipelineError(
                f"no notebook called {name!r} in {rel(NOTEBOOKS)}; choose from {', '.join(p[0].stem for p in every)}"
            )
        chosen.extend(m for m in match if m not in chosen)
    return chosen


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*")
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--timeout", type=float, default=float(os.environ.get("NOTEBOOK_TIMEOUT") or DEFAULT_TIMEOUT))
    parser.add_argument("--one", nargs=2, metavar=("JOB", "IPYNB"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:  # the child process: run one prepared notebook, write the .ipynb
        job, ipynb = Path(args.one[0]), Path(args.one[1])
        run_and_write(read_ipynb(job), ipynb, ipynb.parent)
        return 0
    try:
        chosen = select(args.notebooks)
        plans = [plan(py, ipynb, args.force) for py, ipynb in chosen]
    except PipelineError as exc:
        print(f"make notebooks: {exc}")
        return 1
    refused = [p for p in plans if p.action == "refuse"]
    for p in refused:
        print(f"make notebooks: refused: {p.reason}")
    if refused:
        print("make notebooks: nothing was rebuilt.")
        return 1
    if not plans:
        print(f"make notebooks: no notebooks in {rel(NOTEBOOKS)}")
        return 1
    failed = 0
    for p in plans:
        try:
            seconds = execute_pair(p.py, p.ipynb, args.timeout)
        except PipelineError as exc:
            print(f"FAILED {exc}")
            failed += 1
            continue
        flag = f"  (over the {SLOW:g} s budget)" if seconds > SLOW else ""
        print(f"ok  {rel(p.ipynb)}  {seconds:5.1f} s  [{p.reason}]{flag}")
    if failed:
        print(f"make notebooks: {failed} of {len(plans)} notebook(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
