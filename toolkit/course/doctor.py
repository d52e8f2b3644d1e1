"""``python -m toolkit doctor``: check that this computer can run the course, in plain words.

Each check prints one line: ``OK`` when all is well, ``FIX`` with the command that mends it,
or ``NOTE`` for something only some people need (slides, for instance). The exit status is 1
when any line says FIX, so a lab setup script can stop early.

Standard library only, like the rest of the toolkit's core: every third-party package is
looked up by name, never imported unless it is present, and the kernel is tried in a child
process so a broken kernel cannot take the check down with it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Finding", "run_checks", "report", "main", "detect_front_end", "check_front_end"]

MIN_PYTHON = (3, 10)
SETUP = "run `make lab` in the course folder (or `pip install -e '.[lab]'`)"
REPO = Path(__file__).resolve().parents[2]


@dataclass
class Finding:
    """One line of the report: ``status`` is "OK", "FIX" or "NOTE".

    Used by: python -m toolkit doctor.
    """

    status: str
    topic: str
    message: str

    def line(self) -> str:
        return f"  {self.status:<5} {self.topic}: {self.message}"


# --- small lookups, kept apart so tests can replace them --------------------------------------


def installed_version(dist: str) -> str | None:
    """The installed version of a distribution, or None when it is not installed."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def labextension_dirs() -> list[Path]:
    """Folders where JupyterLab looks for prebuilt extensions, this environment's first."""
    if importlib.util.find_spec("jupyter_core") is not None:
        from jupyter_core.paths import jupyter_path

        return [Path(p) for p in jupyter_path("labextensions")]
    return [Path(sys.prefix) / "share" / "jupyter" / "labextensions"]


def find_kernel(name: str = "python3") -> list[str] | None:
    """The command line of kernel ``name`` as Jupyter would start it, or None if absent."""
    if importlib.util.find_spec("jupyter_client") is None:
        return None
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        argv = list(KernelSpecManager().get_kernel_spec(name).argv)
    except NoSuchKernel:
        return None
    # Jupyter starts a kernel whose command is plain "python" with its own interpreter
    if argv and argv[0] in {"python", f"python{sys.version_info[0]}", "python{}.{}".format(*sys.version_info[:2])}:
        argv[0] = sys.executable
    return argv


def try_kernel_python(executable: str) -> tuple[bool, str]:
    """Ask the kernel's Python to import what the notebooks need; (ok, what it said)."""
    code = "import toolkit, ipywidgets, matplotlib; print(toolkit.__file__)"
    try:
        done = subprocess.run(
            [executable, "-c", code], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"could not run {executable}: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no error text"])[-1]
        return False, last
    return True, done.stdout.strip()


def pinned_versions(pyproject: Path = REPO / "pyproject.toml") -> dict[str, str]:
    """``name == version`` pins from pyproject.toml that apply to this Python (empty if absent)."""
    if not pyproject.exists():
        return {}
    pins = {}
    for name, version, marker in re.findall(
        r'"([A-Za-z0-9_.\-]+)==([0-9][^;"\s]*)\s*(?:;\s*([^"]*))?"', pyproject.read_text()
    ):
        if marker and not _marker_holds(marker):
            continue
        pins[_norm(name)] = version
    return pins


def _marker_holds(marker: str) -> bool:
    """Evaluate the one kind of marker the project uses: python_version >= / < 'X.Y'."""
    m = re.fullmatch(r"\s*python_version\s*(>=|<|==|>|<=)\s*'(\d+)\.(\d+)'\s*", marker)
    if not m:
        return True
    here, there = sys.version_info[:2], (int(m.group(2)), int(m.group(3)))
    return {">=": here >= there, "<": here < there, "==": here == there, ">": here > there, "<=": here <= there}[
        m.group(1)
    ]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _major(version: str | None) -> int:
    """The leading number of a version string; 0 when there is none."""
    m = re.match(r"(\d+)", version or "")
    return int(m.group(1)) if m else 0


# --- the checks -------------------------------------------------------------------------------


def check_python(version=sys.version_info) -> Finding:
    shown = ".".join(str(v) for v in version[:3])
    if tuple(version[:2]) >= MIN_PYTHON:
        return Finding("OK", "Python", f"{shown} (the course needs 3.10 or newer)")
    return Finding(
        "FIX",
        "Python",
        f"{shown} is too old; the course needs 3.10 or newer. Install "
        "a newer Python, then set up again with `make PYTHON=python3.11 lab`.",
    )


def check_toolkit() -> Finding:
    from .. import data

    folder = data.data_dir()
    if not folder.is_dir():
        return Finding(
            "FIX",
            "course data",
            f"the folder {folder} is missing. Install the "
            "toolkit from a clone of the course (`pip install -e .`) or set TOOLKIT_DATA "
            "to a folder with the course's data files.",
        )
    bad = []
    files = sorted(folder.glob("*.json"))
    for path in files:
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, OSError) as exc:
            bad.append(f"{path.name} ({exc.__class__.__name__})")
    if not files:
        return Finding(
            "FIX",
            "course data",
            f"{folder} has no .json files; restore data/ from "
            "the course repository (`git checkout -- data` in your clone).",
        )
    if bad:
        return Finding(
            "FIX",
            "course data",
            f"cannot read {', '.join(bad)}; restore them from the course repository (`git checkout -- data`).",
        )
    return Finding("OK", "toolkit", f"from {Path(__file__).parent}; data/ has {len(files)} readable files")


def check_packages(pins: dict[str, str]) -> list[Finding]:
    """The libraries the notebooks import; a different version than the tested one is a NOTE."""
    needed = [
        ("jupyterlab", "JupyterLab"),
        ("ipykernel", "the Python kernel"),
        ("ipywidgets", "the live views"),
        ("matplotlib", "plots"),
        ("pandas", "tables"),
        ("numpy", "plots and tables"),
    ]
    found = []
    for dist, why in needed:
        have = installed_version(dist)
        if have is None:
            found.append(Finding("FIX", dist, f"not installed (needed for {why}); {SETUP}."))
        elif dist in pins and pins[dist] != have:
            found.append(
                Finding(
                    "NOTE",
                    dist,
                    f"{have} installed; the course is tested with {pins[dist]}. If something looks wrong, {SETUP}.",
                )
            )
        else:
            found.append(Finding("OK", dist, have))
    return found


def check_widgets() -> Finding:
    """ipywidgets needs its JupyterLab half, of the matching generation, to draw anything."""
    lab, widgets = installed_version("jupyterlab"), installed_version("ipywidgets")
    front = installed_version("jupyterlab_widgets")
    if widgets is None or lab is None:
        return Finding(
            "NOTE", "widgets in JupyterLab", "skipped until JupyterLab and ipywidgets are installed (see above)."
        )
    if front is None:
        return Finding(
            "FIX",
            "widgets in JupyterLab",
            f"jupyterlab_widgets is missing, so sliders would show as plain text; {SETUP}.",
        )
    want = {8: 3, 7: 1}.get(_major(widgets))
    if want is not None and _major(front) != want:
        return Finding(
            "FIX",
            "widgets in JupyterLab",
            f"ipywidgets {widgets} needs jupyterlab_widgets {want}.x, but {front} is installed; {SETUP}.",
        )
    if _major(lab) >= 4 and _major(front) < 3:
        return Finding(
            "FIX",
            "widgets in JupyterLab",
            f"JupyterLab {lab} needs jupyterlab_widgets 3 or newer (found {front}); {SETUP}.",
        )
    ext = next(
        (
            d / "@jupyter-widgets" / "jupyterlab-manager"
            for d in labextension_dirs()
            if (d / "@jupyter-widgets" / "jupyterlab-manager" / "package.json").exists()
        ),
        None,
    )
    if ext is None:
        return Finding(
            "FIX",
            "widgets in JupyterLab",
            "the JupyterLab widget extension is not in "
            f"any extension folder; reinstall it: pip install --force-reinstall "
            f"jupyterlab_widgets=={front}",
        )
    return Finding(
        "OK", "widgets in JupyterLab", f"ipywidgets {widgets} with jupyterlab_widgets {front} (JupyterLab {lab})"
    )


def check_kernel() -> Finding:
    argv = find_kernel("python3")
    if argv is None:
        register = f"{Path(sys.executable).name} -m ipykernel install --sys-prefix"
        return Finding("FIX", "kernel", f"no 'python3' kernel is registered, so notebooks cannot run. Run: {register}")
    ok, said = try_kernel_python(argv[0])
    if not ok:
        return Finding(
            "FIX",
            "kernel",
            f"the 'python3' kernel runs {argv[0]}, which cannot "
            f"load the course ({said}). Install the course into that Python, or "
            f"register this one: {sys.executable} -m ipykernel install --sys-prefix",
        )
    return Finding("OK", "kernel", f"'python3' runs {argv[0]} and loads the toolkit")


def check_slides() -> Finding:
    have = installed_version("jupyterlab-slideshow")
    if have is None:
        return Finding(
            "NOTE",
            "slides (instructors)",
            "jupyterlab-slideshow is not installed; "
            f"students do not need it. To present the notebooks as slides, {SETUP}.",
        )
    return Finding("OK", "slides (instructors)", f"jupyterlab-slideshow {have}")


# --- the front-end: where the student opened the notebooks -----------------------------------

# ipywidgets releases a front-end is known to draw nothing with: front-end -> {version: why}
WIDGETS_BROKEN_IN = {
    "VS Code": {
        "8.1.9": "VS Code's Jupyter extension draws no widget with ipywidgets 8.1.9 (microsoft/vscode-jupyter#17504)"
    },
}


def detect_front_end(environ: dict | None = None, modules: dict | None = None) -> str | None:
    """The front-end running this Python, as far as it can be told: "Colab" (its
    ``google.colab`` module is loaded), "VS Code" (``VSCODE_PID``, or a ``VSCODE_*`` variable its
    Jupyter extension sets), "JupyterLab" (``JPY_SESSION_NAME`` or ``JUPYTERHUB_USER``), else None.

    Used by: python -m toolkit doctor.
    """
    environ = dict(os.environ) if environ is None else environ
    modules = sys.modules if modules is None else modules
    if "google.colab" in modules or "COLAB_RELEASE_TAG" in environ:
        return "Colab"
    if "VSCODE_PID" in environ or any(k.startswith("VSCODE_") for k in environ):
        return "VS Code"
    if "JPY_SESSION_NAME" in environ or "JUPYTERHUB_USER" in environ:
        return "JupyterLab"
    return None


def check_front_end(front: str | None = None, widgets: str | None = None) -> Finding:
    """Name the front-end found and the known problems there (a widget release it cannot draw).

    Used by: python -m toolkit doctor.
    """
    front = detect_front_end() if front is None else front
    widgets = installed_version("ipywidgets") if widgets is None else widgets
    if front is None:
        return Finding("NOTE", "front-end", "none detected (a terminal); JupyterLab, VS Code and Colab are supported.")
    broken = WIDGETS_BROKEN_IN.get(front, {}).get(widgets or "")
    if broken:
        return Finding("FIX", "front-end", f"{front}: {broken}; install ipywidgets==8.1.8 ({SETUP}).")
    if front == "Colab":
        return Finding(
            "OK",
            "front-end",
            "Colab: the views switch on its custom widget manager themselves (toolkit/widgets/_base.py).",
        )
    return Finding("OK", "front-end", f"{front}, with ipywidgets {widgets or 'not installed'}.")


def run_checks() -> list[Finding]:
    """Every check, in the order a student would fix them.

    Used by: python -m toolkit doctor.
    """
    findings = [check_python(), check_toolkit()]
    findings += check_packages(pinned_versions())
    findings += [check_widgets(), check_front_end(), check_kernel(), check_slides()]
    return findings


def report(findings: list[Finding]) -> str:
    """The findings as the text the doctor prints, ending with what to do next.

    Used by: python -m toolkit doctor.
    """
    fixes = sum(f.status == "FIX" for f in findings)
    lines = ["Course environment check (python -m toolkit doctor)"]
    lines += [f.line() for f in findings]
    lines.append(
        "All set: open the course with `make lab`."
        if not fixes
        else f"{fixes} thing{'s' if fixes > 1 else ''} to fix: follow the FIX lines above, then run this check again."
    )
    return "\n".join(lines)


def main() -> int:
    """Run the checks and print the report; the exit status is 1 when something needs fixing.

    Used by: python -m toolkit doctor.
    """
    findings = run_checks()
    print(report(findings))
    return 1 if any(f.status == "FIX" for f in findings) else 0
