"""``python -m scripts.figures`` (from the repository's root): draw the pack's nine figures into figures/ (SVG and PNG).

``--check`` draws them in a scratch folder instead and exits with status 1 if any committed
file differs, which is how the test suite catches a figure edited by hand.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from toolkit.figures import FIGURES, FIGURES_DIR


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.figures", description="Draw the pack's Figures 1-9 as SVG and PNG."
    )
    parser.add_argument("numbers", nargs="*", type=int, help="figures to draw (default: all)")
    parser.add_argument("--out", type=Path, default=FIGURES_DIR, help="folder to write into")
    parser.add_argument(
        "--check", action="store_true", help="do not write; exit 1 if the committed files differ from the code"
    )
    args = parser.parse_args(argv)
    try:
        from .draw import check, draw_all
    except ImportError as exc:
        print(
            f"Drawing the figures needs matplotlib ({exc}). Install the course's extras: "
            "pip install -e '.[widgets]' (or run `make lab` once).",
            file=sys.stderr,
        )
        return 2
    start = time.perf_counter()
    if args.check:
        problems = check(args.out, args.numbers or None)
        for line in problems:
            print(line)
        if problems:
            print(
                "Redraw with `python -m scripts.figures` and commit figures/, or undo the hand edit.", file=sys.stderr
            )
            return 1
        print(
            f"all {2 * len(args.numbers or FIGURES)} figure files in {args.out} match the code "
            f"({time.perf_counter() - start:.1f} s)"
        )
        return 0
    try:
        paths = draw_all(args.out, args.numbers or None)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    for p in paths:
        print(f"wrote {p} ({p.stat().st_size // 1024} KB)")
    print(f"drew {len(paths) // 2} figures in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
