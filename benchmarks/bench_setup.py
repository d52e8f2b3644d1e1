"""A fresh clone's set-up (README, first paragraph; docs/developing.md): the old recipe and the new one, side by side.

Each pair clones the repository twice into a temporary folder, once at the old commit (pip
installs requirements/build.txt, then requirements/dev.txt) and once at the new one (the venv's
pip installs the pinned uv from requirements/uv.txt, uv installs the rest), and times `make venv`
in each: what the first `make test` or `make lab` does before anything else. The two run one
after the other, in alternating order, so both see the same load; the 1-minute load average is
printed beside each run.

Both install the same packages: the old clone is given the new commit's requirements/build.txt
and dev.txt, and after each run the script lists the venv's distributions and checks the two
lists agree (the new venv has uv besides).

What a student's machine has, and nothing more: every run gets an empty pip cache and an empty
uv cache of its own (PIP_CACHE_DIR, UV_CACHE_DIR in a fresh folder), no pip configuration file
(PIP_CONFIG_FILE=/dev/null), no other PIP_* or UV_* variable (this machine's find-links and
local indexes are dropped) and no uv configuration (UV_NO_CONFIG=1). Everything is fetched from
PyPI. Target: the new set-up under 60 s. Exits 1 when it is missed or the package lists differ.

    python benchmarks/bench_setup.py [--pairs 2] [--old 8c50e7a] [--new HEAD]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
from common import ROOT, median, table, verdict

# The last commit whose `make venv` installed everything with pip alone.
OLD = "8c50e7a14d66eb111c68c66d2ba60bf3c63a1b54"
TARGET_S = 60.0
STEP = ".venv/bin/"  # the install commands make echoes (the venv itself is made before the first)
LOCK_FILES = ["requirements/build.txt", "requirements/dev.txt"]
DISTRIBUTIONS = (
    "import importlib.metadata as m, json; "
    "print(json.dumps(sorted({d.metadata['Name'].lower().replace('_', '-') + '==' + d.version "
    "for d in m.distributions()})))"
)


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def student_environment(scratch: Path) -> dict[str, str]:
    """os.environ without this machine's pip and uv settings, with empty caches of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "VIRTUAL_ENV"))}
    env.update(
        PIP_CONFIG_FILE=os.devnull,
        PIP_CACHE_DIR=str(scratch / "pip-cache"),
        UV_CACHE_DIR=str(scratch / "uv-cache"),
        UV_NO_CONFIG="1",
        XDG_CACHE_HOME=str(scratch / "cache"),
    )
    return env


def clone(commit: str, folder: Path, lock_from: str | None) -> None:
    """A fresh clone at ``commit``; with ``lock_from``, that commit's lock files laid over it."""
    git("clone", "--quiet", "--no-checkout", str(ROOT), str(folder))
    git("checkout", "--quiet", commit, cwd=folder)
    for name in LOCK_FILES if lock_from else []:
        (folder / name).write_text(git("show", f"{lock_from}:{name}") + "\n", encoding="utf-8")


def set_up(recipe: str, commit: str, new: str) -> tuple[float, float, list[str]]:
    """Seconds `make venv` took in a fresh clone, the load average before it, and what it installed."""
    scratch = Path(tempfile.mkdtemp(prefix=f"bench-setup-{recipe}-"))
    try:
        folder = scratch / "clone"
        clone(commit, folder, lock_from=new if recipe == "old" else None)
        load = os.getloadavg()[0]
        start = time.perf_counter()
        make = subprocess.Popen(
            ["make", "venv"],
            cwd=folder,
            env=student_environment(scratch),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        lines = [(time.perf_counter() - start, line.rstrip()) for line in make.stdout or []]
        seconds = time.perf_counter() - start
        if make.wait() != 0:
            sys.exit(f"`make venv` failed in the {recipe} clone:\n" + "\n".join(line for _, line in lines))
        steps = [(0.0, "(python -m venv .venv)")]
        steps += [(t, line) for t, line in lines if line.startswith(STEP)]  # make echoes each install step
        for (t, line), end in zip(steps, [t for t, _ in steps[1:]] + [seconds]):
            print(f"    {end - t:5.1f} s  {line[:100]}")
        listed = subprocess.run(
            [str(folder / ".venv" / "bin" / "python"), "-c", DISTRIBUTIONS], check=True, capture_output=True, text=True
        )
        return seconds, load, json.loads(listed.stdout)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2, help="old/new pairs to run (default 2)")
    parser.add_argument("--old", default=OLD, help="commit with the pip-only set-up")
    parser.add_argument("--new", default="HEAD", help="commit with the uv set-up (default HEAD)")
    args = parser.parse_args(argv)
    old, new = git("rev-parse", args.old), git("rev-parse", args.new)
    print(common.machine())
    print(f"old {old[:10]} (pip), new {new[:10]} (uv); empty caches, no pip config, packages from PyPI\n")

    rows, seconds, installed = [], {"old": [], "new": []}, {}
    for pair in range(args.pairs):
        order = ("old", "new") if pair % 2 == 0 else ("new", "old")
        for recipe in order:
            took, load, dists = set_up(recipe, old if recipe == "old" else new, new)
            seconds[recipe].append(took)
            installed.setdefault(recipe, dists)
            rows.append([f"pair {pair + 1}", recipe, f"{took:.1f}", f"{load:.2f}"])
            print(f"  pair {pair + 1} {recipe}: {took:.1f} s (load {load:.2f})", flush=True)
    print()
    table(["run", "set-up", "make venv (s)", "load avg before"], rows)
    print(f"\nmedian: old {median(seconds['old']):.1f} s, new {median(seconds['new']):.1f} s")
    print(
        f"range:  old {min(seconds['old']):.0f}–{max(seconds['old']):.0f} s, "
        f"new {min(seconds['new']):.0f}–{max(seconds['new']):.0f} s"
    )
    print(f"load average now: {os.getloadavg()[0]:.2f} (1 min), {os.getloadavg()[2]:.2f} (15 min)")

    only_new = sorted(set(installed["new"]) - set(installed["old"]))
    only_old = sorted(set(installed["old"]) - set(installed["new"]))
    same = not only_old and all(d.startswith("uv==") for d in only_new)
    print(
        f"installed: {len(installed['old'])} distributions (old), {len(installed['new'])} (new); "
        f"only in new: {', '.join(only_new) or 'none'}; only in old: {', '.join(only_old) or 'none'}"
    )
    return verdict(
        [
            (
                f"new set-up under {TARGET_S:.0f} s (median {median(seconds['new']):.1f} s)",
                median(seconds["new"]) < TARGET_S,
            ),
            ("both install the same packages (the new one adds uv)", same),
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
