"""The course from a pip install (issue 32): the built wheel, installed with its lab extra into a
fresh venv outside the checkout, runs every notebook from a copied ``notebooks/`` folder.

Nothing points into the checkout: the venv is in a temporary folder, the notebooks are copies,
the kernel's working folder is the copy, PYTHONPATH is cleared, and the run fails unless the
kernel's ``toolkit`` and its data come from the venv. Versions are held to the lock
(``requirements/pins.txt`` as constraints), so the packages come from uv's cache on a warm machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UV = Path(sys.executable).with_name("uv")
pytestmark = pytest.mark.kernel


def run(argv: list, **kw) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{' '.join(map(str, argv))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the fresh venv's python, a copy of notebooks/), both outside the checkout."""
    base = tmp_path_factory.mktemp("pip-install")
    assert ROOT not in base.parents
    dist = base / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", dist, ROOT])
    wheel = next(dist.glob("tooluse_course-*.whl"))
    run([sys.executable, "-m", "venv", base / "venv"])
    python = base / "venv" / "bin" / "python"
    run(
        [UV, "pip", "install", "--quiet", "--python", python, f"{wheel}[lab]", "-c", ROOT / "requirements" / "pins.txt"]
    )
    course = base / "course"
    shutil.copytree(ROOT / "notebooks", course / "notebooks", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return python, course


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "TOOLKIT_", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT)))
    return env


def test_the_installed_toolkit_and_its_data_come_from_the_venv(installed):
    python, course = installed
    code = "import toolkit, toolkit.data as d; print(toolkit.__file__); print(d.load_json('retail.json')['orders'])"
    out = run([python, "-c", code], cwd=course, env=clean_env()).stdout
    assert str(python.parent.parent) in out.splitlines()[0] and str(ROOT) not in out
    assert "'A1': 'pending'" in out


@pytest.mark.parametrize("number", [f"{n:02d}" for n in range(1, 13)])
def test_every_notebook_runs_from_the_copy(installed, number):
    python, course = installed
    notebook = next((course / "notebooks").glob(f"{number}_*.ipynb"))
    run(
        [python, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", "--output-dir", course / "out",
         "--ExecutePreprocessor.timeout=600", "--ExecutePreprocessor.kernel_name=python3", notebook],
        cwd=course / "notebooks",
        env=clean_env(),
        timeout=1200,
    )  # fmt: skip
    assert (course / "out" / notebook.name).exists()
