"""Binder and nbgitpuller links (toolkit/course/deploy.py), checked by taking them apart again."""

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
