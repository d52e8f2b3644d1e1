#!/usr/bin/env python3
"""Estimate each notebook's core path in minutes and compare it with the time plan.

Usage: python scripts/time_plan.py [--cells NN]

The rule (CONTRIBUTING.md, "How long a notebook may be"): a typical student reads the core
prose at about 175 words a minute and spends about a minute on each core code cell. The
budget is the notebook's "notes" plus "running the cells" in docs/teaching.md's time plan, and
an estimate may exceed its budget by at most a quarter.

What is *not* core, as the sources mark it:

- a `##` section headed "Exercise N: ..." (it has the time plan's exercises column);
- a section or subsection whose heading carries "(beyond the pack" or "(optional" (the optional
  sections, timed in their own table), and any paragraph labelled "(beyond the pack";
- the quiz ("Quiz" or "Check your understanding" in a heading, or a cell starting
  "**Quiz"), the discussion prompts (a cell starting "**For discussion.**" or "**Question.**",
  or a section headed "Discussion" / "For discussion"), the graded assignment's brief, the
  reading guide and the reference list (each has its own column);
- every cell tagged `starter`, `solution` or `check` (exercises, your turns, model answers and
  instructor's notes).

`--cells NN` prints every cell of notebook NN with the part it was counted in.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
TEACHING = ROOT / "docs" / "teaching.md"

WORDS_PER_MINUTE = 175
MINUTES_PER_CODE_CELL = 1.0
ALLOWED_OVERRUN = 0.25  # an estimate may exceed its budget by a quarter, no more
PLAN_TOTAL = 230  # the pack's 2.5 h of notes plus the 80 min of the lab for running cells
PLAN_TOLERANCE = 0.05

CELL_START = re.compile(r"^# %%(.*)$")
TAGS = re.compile(r"tags=\[([^\]]*)\]")
HEADING = re.compile(r"^(#{1,6}) (.+)$")
SKIPPED_TAGS = {"starter", "solution", "check"}

# Headings whose section is not core, and the part of the time plan they belong to.
SECTION_PARTS = [
    (re.compile(r"^Exercise \d+:"), "exercise"),
    (re.compile(r"\((beyond the pack|optional)", re.I), "optional"),
    (re.compile(r"\bquiz\b|check your understanding", re.I), "quiz"),
    (re.compile(r"^(for )?discussion$", re.I), "discussion"),
    (re.compile(r"graded assignment", re.I), "assignment"),
    (re.compile(r"^reading guide$|^references$", re.I), "reading"),
]
# A paragraph that opens with one of these is a prompt, not notes, and so is the rest of its cell.
PROMPTS = [
    (re.compile(r"^\*\*For discussion\.\*\*"), "discussion"),
    (re.compile(r"^\*\*Question\.\*\*"), "discussion"),
    (re.compile(r"^\*\*Quiz"), "quiz"),
]
OPTIONAL_PARAGRAPH = re.compile(r"\(beyond the pack", re.I)
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
HTML_TAG = re.compile(r"<[^>]+>")
URL = re.compile(r"https?://\S+")


@dataclass
class Cell:
    kind: str  # "markdown" or "code"
    tags: set
    text: str  # markdown without the leading "# ", or code
    line: int  # where the cell starts in the .py (1-based)


@dataclass
class Estimate:
    notebook: str
    words: int = 0
    code_cells: int = 0
    parts: list = field(default_factory=list)  # (line, part, words, is_code) per counted piece

    @property
    def minutes(self) -> float:
        return self.words / WORDS_PER_MINUTE + self.code_cells * MINUTES_PER_CODE_CELL


def cells(source: str) -> list[Cell]:
    """The cells of a jupytext percent-format script."""
    found: list[Cell] = []
    header, body, start = None, [], 0
    for number, line in enumerate(source.splitlines() + ["# %%"], start=1):
        m = CELL_START.match(line)
        if not m:
            body.append(line)
            continue
        if header is not None:
            markdown = "[markdown]" in header
            tags_m = TAGS.search(header)
            tags = {t.strip().strip("\"'") for t in tags_m.group(1).split(",")} if tags_m else set()
            if markdown:
                text = "\n".join(b[2:] if b.startswith("# ") else b.lstrip("#") for b in body)
            else:
                text = "\n".join(body)
            found.append(Cell("markdown" if markdown else "code", tags, text.strip(), start))
        header, body, start = m.group(1), [], number
    return found


def count_words(markdown: str) -> int:
    """Words a reader reads: link text, not addresses; no markup; table cells count."""
    text = URL.sub(" ", HTML_TAG.sub(" ", LINK.sub(r"\1", markdown)))
    return sum(1 for token in text.split() if any(ch.isalnum() for ch in token))


def part_of_heading(title: str) -> str:
    for pattern, part in SECTION_PARTS:
        if pattern.search(title.strip()):
            return part
    return "core"


def estimate(path: Path) -> Estimate:
    """Core words and code cells of one notebook, each counted piece recorded in `parts`."""
    result = Estimate(path.stem)
    section = subsection = "core"  # the parts of the current ## and ### headings
    for cell in cells(path.read_text(encoding="utf-8")):
        if cell.kind == "code":
            part = "tagged" if cell.tags & SKIPPED_TAGS else (subsection if section == "core" else section)
            result.parts.append((cell.line, part, 0, True))
            if part == "core":
                result.code_cells += 1
            continue
        prompt = None  # a prompt paragraph makes the rest of its cell a prompt too
        for paragraph in re.split(r"\n\s*\n", cell.text):
            prompt = prompt or next((p for pat, p in PROMPTS if pat.match(paragraph.strip())), None)
            heading = HEADING.match(paragraph.strip())
            if heading:
                level, title = len(heading.group(1)), heading.group(2)
                if level <= 2:
                    section, subsection = part_of_heading(title), "core"
                elif level == 3:
                    subsection = part_of_heading(title)
            if cell.tags & SKIPPED_TAGS:
                part = "tagged"
            elif section != "core":
                part = section
            elif subsection != "core":
                part = subsection
            elif prompt:
                part = prompt
            elif OPTIONAL_PARAGRAPH.search(paragraph):
                part = "optional"
            else:
                part = "core"
            words = count_words(paragraph)
            result.parts.append((cell.line, part, words, False))
            if part == "core":
                result.words += words
    return result


def estimates(folder: Path = NOTEBOOKS) -> dict[str, Estimate]:
    """Every notebook's estimate, keyed by its two-digit number."""
    return {p.stem[:2]: estimate(p) for p in sorted(folder.glob("[0-9][0-9]_*.py"))}


def budgets(page: Path = TEACHING) -> dict[str, int]:
    """Each notebook's budget from the time plan: its notes plus its running of the cells."""
    text = page.read_text(encoding="utf-8")
    m = re.search(r"^## Time plan\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        raise ValueError(f"{page}: no '## Time plan' section")
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in m.group(1).splitlines() if line.startswith("|")]
    header = [h.lower() for h in rows[0]]
    notes, running = header.index("notes"), header.index("running the cells")

    def number(cell: str) -> int:
        cell = cell.strip("* ")
        return 0 if cell in ("", "-", "–") else int(cell)

    return {r[0][:2]: number(r[notes]) + number(r[running]) for r in rows[2:] if re.match(r"\d\d\b", r[0])}


def problems(found: dict[str, Estimate], plan: dict[str, int]) -> list[str]:
    """One sentence per notebook over its budget by more than a quarter, and for a total off 230."""
    out = []
    if sorted(found) != sorted(plan):
        out.append(f"the time plan lists notebooks {sorted(plan)}, the folder has {sorted(found)}")
    for nb in sorted(set(found) & set(plan)):
        limit = plan[nb] * (1 + ALLOWED_OVERRUN)
        if found[nb].minutes > limit:
            out.append(
                f"notebook {nb}: its core path takes about {found[nb].minutes:.1f} min "
                f"({found[nb].words} words, {found[nb].code_cells} code cells), more than a quarter "
                f"over its budget of {plan[nb]} min (limit {limit:.1f}); trim it, or move what an "
                "undergraduate does not need into an instructor's note or an optional section"
            )
    total = sum(plan.values())
    if abs(total - PLAN_TOTAL) > PLAN_TOTAL * PLAN_TOLERANCE:
        out.append(f"the budgets add up to {total} min; the pack's notes and running cells are {PLAN_TOTAL} min (±5%)")
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", metavar="NN", help="print how each cell of notebook NN was counted")
    args = parser.parse_args(argv)
    found = estimates()
    if args.cells:
        if args.cells not in found:
            print(f"time_plan: no notebook numbered {args.cells!r} in {NOTEBOOKS}")
            return 2
        for line, part, words, is_code in found[args.cells].parts:
            print(f"{line:5d}  {part:10s}  {'code cell' if is_code else f'{words} words'}")
        return 0
    plan = budgets()
    print(f"{'nb':3s} {'words':>6s} {'cells':>5s} {'estimate':>8s} {'budget':>6s} {'ratio':>5s}")
    for nb, e in found.items():
        b = plan.get(nb, 0)
        ratio = f"{e.minutes / b:.2f}" if b else "-"
        print(f"{nb:3s} {e.words:6d} {e.code_cells:5d} {e.minutes:8.1f} {b:6d} {ratio:>5s}")
    est_total = sum(e.minutes for e in found.values())
    print(
        f"all {sum(e.words for e in found.values()):6d} {sum(e.code_cells for e in found.values()):5d} "
        f"{est_total:8.1f} {sum(plan.values()):6d}"
    )
    bad = problems(found, plan)
    for sentence in bad:
        print(sentence)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
