"""``python -m toolkit doctor``: each problem a student can have gets a FIX line and exit 1."""

import subprocess
import sys
from pathlib import Path

import pytest

from toolkit.course import doctor

ROOT = Path(__file__).resolve().parent.parent


def statuses(findings):
    return {f.topic: f.status for f in findings}


def test_old_python_is_a_fix_with_a_way_forward():
    f = doctor.check_python((3, 9, 18))
    assert f.status == "FIX" and "3.9.18" in f.message and "3.10" in f.message
    assert "make PYTHON=" in f.message
    assert doctor.check_python((3, 10, 0)).status == "OK"


def test_a_missing_package_is_named_with_the_command_to_install_it(monkeypatch):
    real = doctor.installed_version
    monkeypatch.setattr(doctor, "installed_version", lambda d: None if d == "ipywidgets" else real(d))
    found = {f.topic: f for f in doctor.check_packages({})}
    assert found["ipywidgets"].status == "FIX"
    assert "make lab" in found["ipywidgets"].message
    assert found["matplotlib"].status in ("OK", "FIX")  # unaffected by the patch


def test_a_version_other_than_the_tested_one_is_only_a_note(monkeypatch):
    monkeypatch.setattr(doctor, "installed_version", lambda d: "1.0.0")
    found = {f.topic: f for f in doctor.check_packages({"pandas": "3.1.1"})}
    assert found["pandas"].status == "NOTE" and "3.1.1" in found["pandas"].message
    assert found["numpy"].status == "OK"


@pytest.mark.parametrize(
    "versions, expected, words",
    [
        (
            {"jupyterlab": "4.6.6", "ipywidgets": "8.1.9", "jupyterlab_widgets": None},
            "FIX",
            "jupyterlab_widgets is missing",
        ),
        (
            {"jupyterlab": "4.6.6", "ipywidgets": "8.1.9", "jupyterlab_widgets": "1.1.7"},
            "FIX",
            "needs jupyterlab_widgets 3.x",
        ),
        (
            {"jupyterlab": "4.6.6", "ipywidgets": "7.8.5", "jupyterlab_widgets": "1.1.7"},
            "FIX",
            "JupyterLab 4.6.6 needs jupyterlab_widgets 3",
        ),
        ({"jupyterlab": None, "ipywidgets": "8.1.9", "jupyterlab_widgets": "3.0.17"}, "NOTE", "skipped"),
    ],
)
def test_widget_versions_that_cannot_work_together(monkeypatch, versions, expected, words):
    monkeypatch.setattr(doctor, "installed_version", lambda d: versions.get(d))
    f = doctor.check_widgets()
    assert f.status == expected and words in f.message, f.message


def test_a_missing_widget_extension_folder_is_a_fix(monkeypatch, tmp_path):
    versions = {"jupyterlab": "4.6.6", "ipywidgets": "8.1.9", "jupyterlab_widgets": "3.0.17"}
    monkeypatch.setattr(doctor, "installed_version", lambda d: versions.get(d))
    monkeypatch.setattr(doctor, "labextension_dirs", lambda: [tmp_path])
    f = doctor.check_widgets()
    assert f.status == "FIX" and "--force-reinstall jupyterlab_widgets==3.0.17" in f.message
    ext = tmp_path / "@jupyter-widgets" / "jupyterlab-manager"
    ext.mkdir(parents=True)
    (ext / "package.json").write_text("{}")
    assert doctor.check_widgets().status == "OK"


def test_no_kernel_and_a_broken_kernel_are_fixes(monkeypatch):
    monkeypatch.setattr(doctor, "find_kernel", lambda name="python3": None)
    f = doctor.check_kernel()
    assert f.status == "FIX" and "ipykernel install" in f.message
    monkeypatch.setattr(doctor, "find_kernel", lambda name="python3": ["/nowhere/python", "-m"])
    f = doctor.check_kernel()
    assert f.status == "FIX" and "/nowhere/python" in f.message and "cannot load" in f.message


def test_the_kernel_check_really_runs_the_kernels_python():
    ok, said = doctor.try_kernel_python(sys.executable)
    if ok:
        assert said.endswith("__init__.py")
    else:  # this environment lacks ipywidgets or matplotlib: the reason must say which
        assert "No module named" in said
    ok, said = doctor.try_kernel_python(str(ROOT / "no-such-python"))
    assert not ok and "could not run" in said


def test_missing_data_folder_is_a_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("TOOLKIT_DATA", str(tmp_path / "gone"))
    assert doctor.check_toolkit().status == "FIX"
    monkeypatch.setenv("TOOLKIT_DATA", str(tmp_path))
    (tmp_path / "broken.json").write_text("{not json")
    f = doctor.check_toolkit()
    assert f.status == "FIX" and "broken.json" in f.message


def test_slides_are_optional(monkeypatch):
    monkeypatch.setattr(doctor, "installed_version", lambda d: None)
    assert doctor.check_slides().status == "NOTE"
    monkeypatch.setattr(doctor, "installed_version", lambda d: "0.3.4")
    assert doctor.check_slides().message == "jupyterlab-slideshow 0.3.4"


def test_pins_follow_python_version_markers(tmp_path):
    py = tmp_path / "pyproject.toml"
    py.write_text(
        'x = [\n "ipywidgets==8.1.9",\n'
        " \"numpy==9.9.9; python_version < '3.0'\",\n"
        " \"numpy==2.4.6; python_version >= '3.0'\",\n]\n"
    )
    assert doctor.pinned_versions(py) == {"ipywidgets": "8.1.9", "numpy": "2.4.6"}
    assert doctor.pinned_versions(tmp_path / "absent.toml") == {}


def test_report_and_exit_status(monkeypatch):
    monkeypatch.setattr(
        doctor,
        "run_checks",
        lambda: [doctor.Finding("OK", "Python", "3.11"), doctor.Finding("FIX", "kernel", "do this")],
    )
    assert doctor.main() == 1
    text = doctor.report(doctor.run_checks())
    assert "FIX   kernel: do this" in text and "1 thing to fix" in text
    monkeypatch.setattr(doctor, "run_checks", lambda: [doctor.Finding("OK", "Python", "3.11")])
    assert doctor.main() == 0


def test_command_line_runs_every_check():
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "doctor"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Course environment check")
    for topic in ("Python", "toolkit", "ipywidgets", "kernel", "slides (instructors)"):
        assert any(f" {topic}:" in line for line in lines), (topic, done.stdout)
    assert done.returncode == (1 if any(" FIX " in line for line in lines) else 0)


# --- the front-end (issue 32): which one, and its known problems --------------------------------


@pytest.mark.parametrize(
    "environ,modules,expected",
    [
        ({}, {"google.colab": object()}, "Colab"),
        ({"VSCODE_PID": "4242"}, {}, "VS Code"),
        ({"VSCODE_CWD": "/home/s"}, {}, "VS Code"),
        ({"JPY_SESSION_NAME": "/home/s/01.ipynb"}, {}, "JupyterLab"),
        ({"HOME": "/home/s"}, {}, None),
    ],
)
def test_the_front_end_is_named_from_what_it_leaves_behind(environ, modules, expected):
    assert doctor.detect_front_end(environ, modules) == expected


def test_vs_code_with_the_widgets_release_it_cannot_draw_is_a_fix_naming_the_issue():
    finding = doctor.check_front_end("VS Code", "8.1.9")
    assert finding.status == "FIX" and "vscode-jupyter#17504" in finding.message and "8.1.8" in finding.message
    assert doctor.check_front_end("VS Code", "8.1.8").status == "OK"
    assert doctor.check_front_end("JupyterLab", "8.1.9").status == "OK"
    assert doctor.check_front_end("Colab", "8.1.8").message.startswith("Colab: the views switch on")


def test_colab_gets_its_widget_manager_switched_on_and_nothing_happens_elsewhere():
    import types

    from toolkit.widgets._base import enable_colab_widgets

    calls = []
    colab = types.SimpleNamespace(output=types.SimpleNamespace(enable_custom_widget_manager=lambda: calls.append(1)))
    assert enable_colab_widgets({"google.colab": colab}) is True and calls == [1]
    assert enable_colab_widgets({}) is False and calls == [1]
    assert enable_colab_widgets({"google.colab": types.SimpleNamespace()}) is False
