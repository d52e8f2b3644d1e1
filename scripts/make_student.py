#!/usr/bin/env python3
"""Write the student edition: solutions out, exercise outputs cleared.

Usage: python scripts/make_student.py [--out build/student] [--force]

Reads notebooks/*.ipynb (never writes there) and writes OUT/notebooks/*.ipynb plus a copy of
figures/. Code cells tagged `solution` become a one-line pointer to the starter cell, markdown
cells tagged `solution` become "Your answer:", and starter/solution/check cells lose their
outputs. So does every later cell that uses a name a solution defined (its saved output would
show what the reference solution computed), and saved widget state is kept only for widgets
that a remaining output shows. A student notebook in OUT changed since the last build is not
replaced without --force. `make student` calls this; scripts/nbpipeline.py does the work.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbpipeline import ROOT, PipelineError, build_student, rel  # noqa: E402


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "student"))
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args(argv)
    try:
        written = build_student(Path(args.out), force=args.force)
    except PipelineError as exc:
        print(f"make student: {exc}")
        return 1
    print(f"make student: wrote {len(written)} notebook(s) to {rel(Path(args.out) / 'notebooks')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
