#!/usr/bin/env python3
"""Write the student edition: a repository a class can clone, pull with nbgitpuller or launch on Binder.

Usage: python scripts/make_student.py [--out build/student] [--force] [--git]

Reads notebooks/*.ipynb (never writes there) and writes OUT/notebooks/*.ipynb. Code cells tagged
`solution` become a one-line pointer to the starter cell, markdown cells tagged `solution`
become "Your answer:", and starter/solution/check cells lose their outputs. So does every later
cell that uses a name a solution defined (its saved output would show what the reference
solution computed), and saved widget state is kept only for widgets that a remaining output
shows. A student notebook in OUT changed since the last build is not replaced without --force.
scripts/nbpipeline.py does that part.

Around the notebooks it writes what makes OUT a repository that works on its own (issue 22,
docs/running-a-class.md): the toolkit, data/ and figures/, pyproject.toml, LICENSE,
environment.yml with requirements/pins.txt (what Binder builds from), a README for students,
a .gitignore, and the link ``notebooks/toolkit -> ../toolkit`` so that a notebook's kernel,
which starts in notebooks/, imports the toolkit of the same commit without installing it or
setting PYTHONPATH. With --git, OUT is also a git repository (created on the first run) and
each build that changed something is one new commit on top of the last: students' copies are
updated by nbgitpuller's merge, which needs new commits, never rewritten history.
`make student` calls this.
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from nbpipeline import ROOT, PipelineError, build_student, rel  # noqa: E402

# Copied as they are from the course repository (folders without __pycache__).
COPIED = [
    "toolkit",
    "data",
    "docs/glossary.md",
    "pyproject.toml",
    "LICENSE",
    "environment.yml",
    "requirements/pins.txt",
]
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")
TOOLKIT_LINK = Path("notebooks") / "toolkit"

STUDENT_README = """\
# Week 3: Tool Use and Function Calling (student edition)

Twelve notebooks under `notebooks/`, from `01_why_tools.ipynb` to
`12_failures_project_review.ipynb`. Each exercise has a starter cell (replace its
`raise NotImplementedError` with your code) followed by a check cell: run the check and it
says which cases passed and what to try next. A check that still finds the stub says
"not done yet".

**Where to run it**

- *On your class's JupyterHub*: click the link your instructor gave you. It copies this
  repository into your home folder the first time and brings in the instructor's fixes on
  later clicks. Your own edits are kept: a file you changed keeps your version where you and
  the instructor changed the same lines; delete a notebook and click the link again to get
  a fresh copy of it.
- *On Binder*: the launch link builds this repository from `environment.yml`. A Binder
  session is temporary: download your notebooks before you close the tab.
- *On your own computer* (Python 3.10 or newer):

  ```
  python -m venv .venv
  .venv/bin/pip install -c requirements/pins.txt -e ".[lab]"
  .venv/bin/jupyter lab notebooks/
  ```

  (`.venv\\Scripts\\pip` on Windows.) `python -m toolkit doctor` says what is missing, if
  anything.

The course's terms are explained in `docs/glossary.md`, which every notebook links.
The notebooks import the course's `toolkit` package from this folder (`notebooks/toolkit`
is a link to `toolkit/`), so the code always matches the notebooks you have. Hand in the
`.ipynb` files themselves; your instructor grades them by running them again.
"""

GITIGNORE = ".student-edition.json\n.ipynb_checkpoints/\n__pycache__/\n*.pyc\n*.egg-info/\n.venv/\n"


def copy_course_files(out: Path, root: Path = ROOT) -> None:
    """Copy the toolkit, data and packaging files into ``out``, replacing older copies."""
    for name in COPIED:
        src, dest = root / name, out / name
        if src.is_dir():
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(src, dest, ignore=IGNORED)
        else:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
    (out / "README.md").write_text(STUDENT_README, encoding="utf-8")
    (out / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    link = out / TOOLKIT_LINK
    if link.is_symlink() or link.exists():
        link.unlink()
    os.symlink(Path("..") / "toolkit", link, target_is_directory=True)


def _git(out: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "make student", "GIT_AUTHOR_EMAIL": "course@localhost"}
    env |= {"GIT_COMMITTER_NAME": env["GIT_AUTHOR_NAME"], "GIT_COMMITTER_EMAIL": env["GIT_AUTHOR_EMAIL"]}
    done = subprocess.run(["git", *args], cwd=out, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise PipelineError(f"`git {' '.join(args)}` failed in {rel(out)}: {done.stderr.strip()}")
    return done.stdout.strip()


def commit_edition(out: Path, root: Path = ROOT) -> str | None:
    """Commit what changed in ``out`` (a git repository, made on the first call); return the new
    commit's hash, or None when the build changed nothing."""
    if not (out / ".git").exists():
        _git(out, "init", "--quiet", "--initial-branch", "main")
    _git(out, "add", "--all")
    if not _git(out, "status", "--porcelain"):
        return None
    try:
        source = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        source = "an unversioned copy"
    _git(out, "commit", "--quiet", "-m", f"Student edition built from {source}")
    return _git(out, "rev-parse", "HEAD")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "student"))
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--git", action="store_true", help="make OUT a git repository and commit the build")
    args = parser.parse_args(argv)
    out = Path(args.out)
    try:
        written = build_student(out, force=args.force)
        copy_course_files(out.resolve())
        commit = commit_edition(out.resolve()) if args.git else None
    except PipelineError as exc:
        print(f"make student: {exc}")
        return 1
    print(f"make student: wrote {len(written)} notebook(s), the toolkit and data/ to {rel(out)}")
    if args.git:
        print(
            f"make student: {'committed ' + commit[:12] if commit else 'nothing changed, no new commit'} in {rel(out)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
