"""Deploying to a class: Binder and nbgitpuller links (toolkit/course/deploy.py, taken apart again), the
student edition as a repository of its own, and the image recipe and Kubernetes values in deploy/."""

import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from toolkit.course import deploy

ROOT = Path(__file__).resolve().parent.parent


def test_binder_link_for_a_github_repository_opens_the_first_notebook_in_lab():
    url = deploy.binder_url("https://github.com/acme/tool-course.git", "main")
    parts = urlsplit(url)
    assert parts.netloc == "mybinder.org"
    assert parts.path == "/v2/gh/acme/tool-course/main"
    assert parse_qs(parts.query)["urlpath"] == ["lab/tree/notebooks/01_why_tools.ipynb"]


def test_binder_link_for_another_git_host_escapes_the_whole_address():
    url = deploy.binder_url("https://git.example.edu/course/week3", "v1.0")
    spec = urlsplit(url).path.split("/")
    assert spec[:3] == ["", "v2", "git"]
    assert unquote(spec[3]) == "https://git.example.edu/course/week3" and spec[4] == "v1.0"


def test_badge_wraps_the_link():
    badge = deploy.binder_badge("https://github.com/acme/tool-course")
    assert badge.startswith("[![Binder](https://mybinder.org/badge_logo.svg)](https://mybinder.org/v2/gh/")


def test_nbgitpuller_link_names_the_cloned_folder_in_its_urlpath():
    url = deploy.nbgitpuller_url(
        "https://hub.example.edu/",
        "https://github.com/acme/tool-course.git",
        "student",
        "notebooks/04_thousands_of_tools.ipynb",
    )
    parts = urlsplit(url)
    assert parts.path == "/hub/user-redirect/git-pull"
    q = parse_qs(parts.query)
    assert q["repo"] == ["https://github.com/acme/tool-course.git"]
    assert q["branch"] == ["student"]
    assert q["urlpath"] == ["lab/tree/tool-course/notebooks/04_thousands_of_tools.ipynb"]


@pytest.mark.parametrize("bad", ["github.com/acme/x", "ftp://host/x", "", "https://"])
def test_addresses_that_are_not_full_urls_are_refused_with_an_example(bad):
    with pytest.raises(ValueError, match="https://github.com/OWNER/REPO"):
        deploy.binder_url(bad)


def test_command_line_prints_all_three_and_refuses_a_bad_hub():
    ok = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkit.course.deploy",
            "--repo",
            "https://github.com/acme/tool-course",
            "--hub",
            "https://hub.example.edu",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert ok.returncode == 0
    assert ok.stdout.count("https://") >= 4 and "git-pull?repo=" in ok.stdout
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolkit.course.deploy",
            "--repo",
            "https://github.com/acme/tool-course",
            "--hub",
            "hub.example.edu",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert bad.returncode == 2 and "JupyterHub address" in bad.stderr


# -- the student edition as a repository of its own (issue 22, point 1) ---------------------------


def test_student_edition_holds_what_binder_and_a_hub_need(student_edition):
    for name in ["README.md", "LICENSE", "pyproject.toml", "environment.yml", "requirements/pins.txt"]:
        assert (student_edition / name).is_file(), name
    # every notebook links the glossary from its first cell (tests/test_lesson_content.py)
    assert (student_edition / "docs" / "glossary.md").is_file()
    assert (student_edition / "toolkit" / "__init__.py").is_file()
    assert (student_edition / "data" / "retail.json").is_file()
    assert "-c requirements/pins.txt" in (student_edition / "environment.yml").read_text()
    assert not list(student_edition.rglob("__pycache__"))
    assert "pip install" in (student_edition / "README.md").read_text()


def test_a_kernel_started_in_the_editions_notebooks_folder_imports_its_own_toolkit_and_data(student_edition):
    """No PYTHONPATH, no install: what a hub's kernel does after nbgitpuller cloned the edition."""
    code = (
        "import sys; sys.path.insert(0, '');"  # what ipykernel puts first: the notebook's folder
        "import toolkit, toolkit.data as d; print(toolkit.__file__); print(d.data_dir());"
        "print(len(d.load_json('retail.json')['tasks']))"
    )
    env = {"PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-I", "-c", code],
        cwd=student_edition / "notebooks",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    module, data, tasks = done.stdout.split()
    assert Path(module).resolve().is_relative_to(student_edition.resolve())
    assert Path(data).resolve() == (student_edition / "data").resolve()
    assert int(tasks) >= 3


def test_the_edition_is_a_git_repository_and_a_rebuild_without_changes_adds_no_commit(
    student_edition, tmp_path, run_make_student
):
    out = tmp_path / "student"
    shutil.copytree(student_edition, out, symlinks=True)
    log = subprocess.run(["git", "log", "--format=%s"], cwd=out, capture_output=True, text=True, check=True)
    assert log.stdout.startswith("Student edition built from ")
    again = run_make_student(out)
    assert again.returncode == 0 and "no new commit" in again.stdout, again.stdout
    status = subprocess.run(["git", "status", "--porcelain"], cwd=out, capture_output=True, text=True, check=True)
    assert status.stdout == ""


# -- deploy/: the image recipe and the Kubernetes values (issue 22, point 2) ----------------------


def test_the_image_installs_the_hub_lock_with_hashes_and_runs_the_single_user_server():
    recipe = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "--require-hashes -r /tmp/lock/hub.txt" in recipe and "requirements/hub.txt" in recipe
    assert recipe.rstrip().endswith('CMD ["jupyterhub-singleuser"]')
    base = re.search(r"^FROM python:(3\.\d+)", recipe, re.M)
    assert base and tuple(map(int, base.group(1).split("."))) >= (3, 10)
    hub_lock = (ROOT / "requirements" / "hub.txt").read_text()
    for package in ("jupyterhub==", "nbgitpuller==", "jupyterlab=="):
        assert package in hub_lock


def test_kubernetes_values_hold_the_measured_sizes_and_the_cullers():
    yaml = pytest.importorskip("yaml")
    values = yaml.safe_load((ROOT / "deploy" / "config.yaml").read_text())
    user = values["singleuser"]
    assert user["image"]["name"].endswith("tooluse-course-singleuser")
    assert (user["memory"]["guarantee"], user["memory"]["limit"]) == ("384M", "512M")
    assert 0 < user["cpu"]["guarantee"] <= user["cpu"]["limit"]
    culling = user["extraFiles"]["kernel-culling"]["data"]["MappingKernelManager"]
    assert culling["cull_idle_timeout"] > 0
    assert values["cull"]["enabled"] is True and values["cull"]["timeout"] > 0
    config = (ROOT / "deploy" / "jupyterhub_config.py").read_text()
    assert 'COURSE_MEM_GUARANTEE", "384M"' in config and 'COURSE_MEM_LIMIT", "512M"' in config
    guide = (ROOT / "docs" / "running-a-class.md").read_text()
    assert "guarantee (384 MiB) and limit (512 MiB)" in guide
