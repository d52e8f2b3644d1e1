"""The course apparatus: references, reading guide and glossary (issue 12, points 1 and 3).

data/references.json holds the pack's reference list (pack §9) under the pack's numbers, so
every "[n]" a notebook cites can be resolved; data/reading_guide.json places each reading
(pack §3) in a notebook; data/glossary.json defines the course's terms and points to the
notebook that teaches each one.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
NOTEBOOKS = ROOT / "notebooks"
PACK = ROOT.parent / "shared" / "pack" / "week3-tool-use.md"

CITATION = re.compile(r"\[(\d+)\]")
INLINE_CODE = re.compile(r"`[^`]*`")
PACK_ENTRY = re.compile(r"^\s*•\s*\[(\d+)\]\s*(.*)$")


def load(name):
    with open(DATA / name, encoding="utf-8") as f:
        return json.load(f)


REFS = load("references.json")["references"]
GUIDE = load("reading_guide.json")["readings"]
GLOSSARY = load("glossary.json")["terms"]


def markdown_lines(source: str):
    """Prose lines of the markdown cells of a jupytext percent script.

    A markdown cell starts at a "# %% [markdown]" marker and ends at the next "# %%"; its lines
    are comments ("# text" or a bare "#"). Fenced code blocks and inline code spans inside the
    prose are dropped, so an index such as `args[0]` is not read as a citation.
    """
    in_markdown = in_fence = False
    for line in source.splitlines():
        if line.startswith("# %%"):
            in_markdown, in_fence = "[markdown]" in line, False
            continue
        if not in_markdown or not (line.startswith("# ") or line.rstrip() == "#"):
            continue
        text = line[2:]
        if text.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if not in_fence:
            yield INLINE_CODE.sub("", text)


def citations(source: str) -> set:
    return {int(n) for line in markdown_lines(source) for n in CITATION.findall(line)}


def notebook_sources():
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
    assert len(paths) == 12, f"expected the twelve lesson scripts in notebooks/, found {len(paths)}"
    return {p.stem: p.read_text(encoding="utf-8") for p in paths}


def mentions(text: str, word: str) -> bool:
    """True when `word` occurs in `text` as a whole word (case-insensitive)."""
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


# ---------------------------------------------------------------- the citation parser itself

def test_citation_parser_reads_markdown_prose_only():
    source = "\n".join([
        "# %% [markdown]",
        "# Toolformer [1] and MCP [3] [26]; `args[0]` and `x[7]` are code, not citations.",
        "# ```",
        "# {\"ids\": [5]}",
        "# ```",
        "#",
        "# %%",
        "values = x[0] + y[2]  # [9]",
        "# %% [markdown] slideshow={\"slide_type\": \"slide\"}",
        "# ## A heading citing [29]",
    ])
    assert citations(source) == {1, 3, 26, 29}


# ---------------------------------------------------------------- references.json

def test_reference_numbers_are_one_to_n_without_gaps():
    numbers = sorted(int(k) for k in REFS)
    assert numbers == list(range(1, len(numbers) + 1)), numbers


@pytest.mark.parametrize("number", sorted(REFS, key=int))
def test_reference_entry_is_complete(number):
    ref = REFS[number]
    assert isinstance(ref["title"], str) and ref["title"].strip(), f"[{number}] has no title"
    assert isinstance(ref["authors"], list) and ref["authors"], f"[{number}] has no authors"
    assert all(isinstance(a, str) and a.strip() for a in ref["authors"])
    assert ref["status"] in ("required", "added", None)
    missing = set(ref.get("missing_in_pack", []))
    for field in ("venue", "year", "link", "status"):
        # a null field must be declared as missing from the pack, and a declared gap must be null
        assert (ref[field] is None) == (field in missing), f"[{number}] {field}: null iff listed as missing"
    if ref["year"] is not None:
        assert isinstance(ref["year"], int) and 1990 <= ref["year"] <= 2030, f"[{number}] year {ref['year']!r}"
    if ref["in_pack_list"]:
        # everything in the pack's list has a link that a References section can show
        assert isinstance(ref["link"], str) and ref["link"].startswith("https://"), f"[{number}] link"
    else:
        assert ref.get("note"), f"[{number}] is not in the pack's list: its note must say where it comes from"


def test_required_readings_are_the_three_of_the_schedule():
    assert {int(k) for k, r in REFS.items() if r["status"] == "required"} == {1, 2, 3}


def pack_entries():
    if not PACK.exists():
        pytest.skip(f"course pack not found at {PACK}")
    entries = {}
    for line in PACK.read_text(encoding="utf-8").splitlines():
        m = PACK_ENTRY.match(line)
        if m:
            entries[int(m.group(1))] = m.group(2)
    return entries


def test_every_number_of_the_pack_list_is_held_with_its_title_and_link():
    entries = pack_entries()
    assert entries, "no '• [n]' entries found in the pack's reference list"
    assert set(entries) <= {int(k) for k in REFS}, f"missing: {sorted(set(entries) - {int(k) for k in REFS})}"
    for n, line in entries.items():
        ref = REFS[str(n)]
        assert ref["in_pack_list"], f"[{n}] is in the pack's list"
        assert ref["title"] in line, f"[{n}] title not transcribed exactly: {ref['title']!r}"
        assert ref["link"] in line, f"[{n}] link not as given in the pack: {ref['link']!r}"
        if ref["year"] is not None:
            assert str(ref["year"]) in line, f"[{n}] year {ref['year']} not in the pack's entry"
        for field in ("venue", "arxiv", "code"):
            if ref.get(field):
                assert ref[field] in line, f"[{n}] {field} {ref[field]!r} not as given in the pack"
        assert all(a in line for a in ref["authors"]), f"[{n}] an author is not as given in the pack"
        assert ref["et_al"] == ("et al." in line), f"[{n}] et_al: the pack's entry says otherwise"
        mark = re.search(r"\((required|added)\)\s*$", line)
        assert ref["status"] == (mark.group(1) if mark else None), f"[{n}] status"


def test_numbers_outside_the_pack_list_are_cited_in_the_pack_text():
    entries = pack_entries()
    text = PACK.read_text(encoding="utf-8")
    for key, ref in REFS.items():
        if int(key) not in entries:
            assert not ref["in_pack_list"]
            assert f"[{key}]" in text, f"[{key}] is neither in the pack's list nor cited in its text"


def test_every_citation_in_the_notebooks_resolves():
    unresolved = {stem: sorted(n for n in citations(src) if str(n) not in REFS)
                  for stem, src in notebook_sources().items()}
    unresolved = {stem: ns for stem, ns in unresolved.items() if ns}
    assert not unresolved, f"cited but not in data/references.json: {unresolved}"


# ---------------------------------------------------------------- reading_guide.json

def test_reading_guide_places_each_reading_in_a_notebook_that_cites_it():
    sources = notebook_sources()
    for entry in GUIDE:
        ref, stem = entry["ref"], entry["notebook"]
        assert str(ref) in REFS, f"reading [{ref}] is not in data/references.json"
        assert stem in sources, f"reading [{ref}]: no notebook notebooks/{stem}.py"
        assert ref in citations(sources[stem]), f"reading [{ref}] belongs to {stem}, which never cites it"
        assert entry["role"] in ("required", "optional")
        assert entry["why"].strip()
        assert all(q.strip().endswith("?") for q in entry["questions"]), f"[{ref}]: questions end with '?'"


def test_reading_guide_covers_the_required_readings_with_three_to_five_questions():
    required = {e["ref"]: e for e in GUIDE if e["role"] == "required"}
    assert set(required) == {1, 2, 3}
    for ref, entry in required.items():
        assert 3 <= len(entry["questions"]) <= 5, f"[{ref}] has {len(entry['questions'])} questions"
    assert len({e["ref"] for e in GUIDE}) == len(GUIDE), "a reading is listed twice"


def test_reading_guide_lists_spec_pages_of_the_cited_revision():
    mcp = next(e for e in GUIDE if e["ref"] == 3)
    base = REFS["3"]["link"]
    pages = mcp["pages"]
    assert len(pages) >= 5
    for p in pages:
        assert p["page"].strip() and p["look_for"].strip()
        assert p["url"].startswith(base + "/"), f"{p['page']}: {p['url']} is not under {base}"
    assert {"lifecycle", "transports", "server tools"} <= {p["page"] for p in pages}


# ---------------------------------------------------------------- glossary.json

def test_glossary_has_at_least_thirty_distinct_terms():
    terms = [t["term"].strip().lower() for t in GLOSSARY]
    assert len(terms) >= 30, len(terms)
    duplicates = sorted({t for t in terms if terms.count(t) > 1})
    assert not duplicates, f"terms listed twice: {duplicates}"


@pytest.mark.parametrize("entry", GLOSSARY, ids=[t["term"] for t in GLOSSARY])
def test_glossary_term_is_taught_where_it_points(entry):
    sources = notebook_sources()
    stem = entry["notebook"]
    assert stem in sources, f"{entry['term']}: no notebook notebooks/{stem}.py"
    spellings = [entry["term"], *entry.get("aliases", [])]
    assert any(mentions(sources[stem], s) for s in spellings), \
        f"{stem}.py never mentions {entry['term']!r} (nor any of {entry.get('aliases', [])})"
    definition = entry["definition"].strip()
    assert len(definition) >= 30 and definition.endswith((".", ")")), f"{entry['term']}: definition"
    for n in entry.get("refs", []):
        assert str(n) in REFS, f"{entry['term']} cites [{n}], which is not in data/references.json"
