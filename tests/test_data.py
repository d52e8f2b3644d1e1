"""toolkit/data.py: the data folder is found through importlib.resources on first use, not at
import, so `import toolkit` and `python -m toolkit doctor` work without it (issue 13, point 2)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolkit import data

ROOT = Path(__file__).resolve().parent.parent


def run_python(code_or_args, env_extra=None, pythonpath=None, cwd=None):
    """A child Python (its own imports), with TOOLKIT_DATA and PYTHONPATH as given."""
    env = {k: v for k, v in os.environ.items() if k not in ("TOOLKIT_DATA", "PYTHONPATH")}
    env.update(env_extra or {})
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    args = ["-c", code_or_args] if isinstance(code_or_args, str) else code_or_args
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd or ROOT, timeout=120
    )


def test_a_clone_reads_its_own_data_folder(monkeypatch):
    monkeypatch.delenv("TOOLKIT_DATA", raising=False)
    assert data.data_dir() == ROOT / "data"
    assert data.load_json("retail.json")["tasks"][0]["id"] == "T1"


def test_the_folder_is_looked_up_when_used_not_at_import(monkeypatch, tmp_path):
    (tmp_path / "weather.json").write_text('{"celsius": {"Oslo": -3}}', encoding="utf-8")
    monkeypatch.setenv("TOOLKIT_DATA", str(tmp_path))
    assert data.data_dir() == tmp_path
    assert data.load_json("weather.json") == {"celsius": {"Oslo": -3}}
    monkeypatch.delenv("TOOLKIT_DATA")
    assert data.load_json("weather.json")["celsius"] != {"Oslo": -3}  # not a stale cache


def test_a_missing_file_says_how_to_get_the_data(monkeypatch, tmp_path):
    monkeypatch.setenv("TOOLKIT_DATA", str(tmp_path / "gone"))
    with pytest.raises(FileNotFoundError, match="TOOLKIT_DATA"):
        data.load_json("retail.json")


def test_import_toolkit_works_without_the_data_folder(tmp_path):
    code = (
        "import toolkit as T\n"
        "print('imported', len(T.__all__))\n"
        "try:\n"
        "    T.RETAIL_TASKS\n"
        "except FileNotFoundError as exc:\n"
        "    print('on use:', exc)\n"
    )
    out = run_python(code, {"TOOLKIT_DATA": str(tmp_path / "gone")})
    assert out.returncode == 0, out.stderr
    assert "imported" in out.stdout
    assert "on use:" in out.stdout and "TOOLKIT_DATA" in out.stdout


def test_doctor_reports_a_missing_data_folder_as_a_finding(tmp_path):
    out = run_python(["-m", "toolkit", "doctor"], {"TOOLKIT_DATA": str(tmp_path / "gone")})
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == 1
    line = next(x for x in out.stdout.splitlines() if "course data" in x)
    assert line.split()[0] == "FIX" and str(tmp_path / "gone") in line


def test_lesson_names_keep_one_identity_through_the_facade():
    import toolkit as T
    from toolkit import scoring
    from toolkit.lessons import retail

    assert T.RETAIL_TASKS is retail.RETAIL_TASKS and T.BFCL_CASES is scoring.BFCL_CASES
    assert set(T.__all__) <= set(dir(T))
    with pytest.raises(AttributeError):
        _ = T.no_such_name


# --- packaging: a wheel carries data/ as toolkit/_data -----------------------------------------


def pyproject():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_the_wheel_lists_every_package_and_every_data_file():
    cfg = pyproject()
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "toolkit").rglob("__init__.py")}
    # data/'s sub-folders are packages of their own in the wheel (setuptools warns otherwise)
    data_packages = {"toolkit._data"} | {f"toolkit._data.{d.name}" for d in (ROOT / "data").iterdir() if d.is_dir()}
    assert set(cfg["packages"]) == on_disk | data_packages
    assert cfg["package-dir"] == {"toolkit._data": "data"}
    shipped = {
        p
        for package, patterns in cfg["package-data"].items()
        for pat in patterns
        for p in (ROOT / "data" / Path(*package.split(".")[2:])).glob(pat)
        if p.is_file()
    }
    assert shipped == {p for p in (ROOT / "data").rglob("*") if p.is_file()}


def test_an_installed_copy_reads_its_packaged_data(tmp_path):
    """The layout `pip install .` makes (checked by hand with a real wheel too): toolkit/ with
    data/ copied to toolkit/_data, and no clone beside it."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "toolkit", site / "toolkit", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "data", site / "toolkit" / "_data")
    code = (
        "import toolkit as T, toolkit.data as d\n"
        "print(d.data_dir()); print(len(T.RETAIL_TASKS), len(T.load_bfcl('simple_python')))\n"
    )
    out = run_python(code, pythonpath=site, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    where, sizes = out.stdout.splitlines()
    assert Path(where) == site / "toolkit" / "_data"
    assert sizes.split()[0] == str(len(data.load_json("retail.json")["tasks"]))
