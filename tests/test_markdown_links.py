"""Every relative link in the repository's Markdown resolves (issue 28, point 5).

The Markdown pages (README.md, CONTRIBUTING.md, docs/, notebooks/AUTHORING.md, data/ and the
tiers' READMEs) and the notebooks' Markdown cells link each other; a moved page or a renamed
heading would leave a reader at a dead link. Each ``[text](target)`` whose target is not a URL
must name a file or folder that exists, and a ``#fragment`` must be the anchor of a heading of
that page, as GitHub and JupyterLab make it (lower case, punctuation dropped, spaces to hyphens).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIPPED_DIRS = {".git", ".venv", "build", "node_modules", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`\n]*`")


def markdown_pages() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.md") if not SKIPPED_DIRS.intersection(p.relative_to(ROOT).parts))


def notebook_markdown(path: Path) -> str:
    """The Markdown cells of a jupytext percent-format notebook, without their comment marks."""
    cells = re.split(r"^# %%", path.read_text(encoding="utf-8"), flags=re.M)
    text = []
    for cell in cells:
        if cell.startswith(" [markdown]"):
            text += [line[2:] if line.startswith("# ") else line.lstrip("#") for line in cell.splitlines()[1:]]
    return "\n".join(text)


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans."""
    kept, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(INLINE_CODE.sub("", line))
    return "\n".join(kept)


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = notebook_markdown(page) if page.suffix == ".py" else page.read_text(encoding="utf-8")
    return {anchor(m) for m in re.findall(r"^#{1,6} +(.+?)\s*#*\s*$", prose(text), re.M)}


def broken_links(text: str, base: Path, page: Path) -> list[str]:
    """The links of ``text`` (a page in folder ``base``) that lead nowhere, each with why."""
    broken = []
    for match in LINK.finditer(prose(text)):
        target = match.group(1) or match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:, ...
            continue
        path, _, fragment = target.partition("#")
        dest = (base / path).resolve() if path else page
        if path and not dest.exists():
            broken.append(f"{target}: no such file")
            continue
        if fragment and dest.is_file() and dest.suffix == ".md" and fragment not in anchors(dest):
            broken.append(f"{target}: {dest.name} has no heading with anchor #{fragment}")
    return broken


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_of_a_markdown_page_resolves(page):
    broken = broken_links(page.read_text(encoding="utf-8"), page.parent, page)
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")), ids=lambda p: p.stem[:2])
def test_every_relative_link_of_a_notebook_resolves(notebook):
    broken = broken_links(notebook_markdown(notebook), notebook.parent, notebook)
    assert not broken, f"{notebook.name}: " + "; ".join(broken)


def test_the_link_checker_finds_a_missing_page_and_a_missing_heading(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## Using a real model\n", encoding="utf-8")
    text = (
        "[ok](page.md#using-a-real-model) [gone](nowhere.md) [bad](page.md#no-such-part) "
        "[web](https://example.org/x) `[code](ignored.md)`\n```\n[fenced](ignored.md)\n```\n"
    )
    assert broken_links(text, tmp_path, page) == [
        "nowhere.md: no such file",
        "page.md#no-such-part: page.md has no heading with anchor #no-such-part",
    ]
    assert anchor("No key, no network: a small local model") == "no-key-no-network-a-small-local-model"
