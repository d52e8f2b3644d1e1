#!/usr/bin/env python3
"""Fail when a notebook's .py and .ipynb differ (see notebooks/AUTHORING.md).

Usage: python scripts/check_sync.py [FOLDER]     (default: notebooks/)

Same test as the project's one-line check, for every pair at once:
  jupytext --to py:percent --opt notebook_metadata_filter=-all \
           --opt cell_metadata_filter=tags,slideshow,-all -o - NB.ipynb | diff -q NB.py -
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbpipeline import NOTEBOOKS, PipelineError, pairs, rel, sync_problems  # noqa: E402


def main(argv):
    folder = Path(argv[0]) if argv else NOTEBOOKS
    if not folder.is_dir():
        print(f"check_sync: {folder} is not a folder")
        return 2
    try:
        problems = sync_problems(folder)
    except PipelineError as exc:
        print(f"check_sync: {exc}")
        return 1
    for p in problems:
        print(p, end="\n\n")
    n = len(pairs(folder))
    if problems:
        print(f"check_sync: {len(problems)} problem(s) in {n} notebook(s) under {rel(folder)}")
        return 1
    print(f"check_sync: {n} notebook pair(s) in {rel(folder)} are in sync")
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
