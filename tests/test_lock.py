"""The lock in requirements/ (issue 13, point 5): `make venv` installs requirements/dev.txt with
its hashes, so a clone years from now gets the versions CI tested. These tests fail when the
running venv has drifted from the lock, or when pyproject.toml's pins and the lock disagree
(a version edited in pyproject.toml without `make lock`)."""

import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # the lock installs tomli on Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
REQS = ROOT / "requirements"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
EXTRAS = PYPROJECT["project"]["optional-dependencies"]
SELF = canonicalize_name(PYPROJECT["project"]["name"])
# The Pythons the lock is resolved for (README: Python 3.10 or newer).
PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
# Each lock file and the pyproject.toml extra it is compiled from (see the Makefile's `lock`).
LOCKS = {"dev.txt": "dev", "browser.txt": "browser", "bench.txt": "bench", "hub.txt": "hub"}
FIX = "run `make lock` (after editing pyproject.toml) or `make venv` (to reinstall from the lock)"

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+?)\s*(?:;\s*(.+?))?\s*\\?$")


def read_lock(name):
    """[(name, version, marker or None, number of hashes)] for each pin of a requirements file."""
    pins = []
    for line in (REQS / name).read_text(encoding="utf-8").splitlines():
        match = PIN.match(line)
        if match:
            marker = Marker(match[3]) if match[3] else None
            pins.append([canonicalize_name(match[1]), match[2], marker, 0])
        elif line.strip().startswith("--hash=") and pins:
            pins[-1][3] += 1
    assert pins, f"requirements/{name} holds no pins"
    return [tuple(pin) for pin in pins]


def environment(python):
    """This machine's marker environment, as if it ran the given Python."""
    return {"python_version": python, "python_full_version": python + ".0"}


def applies(marker, env=None):
    return marker is None or marker.evaluate(env)


def locked_version(pins, package, env=None):
    """The version a lock installs of one package under env, or None if it installs none."""
    found = {version for name, version, marker, _ in pins if name == package and applies(marker, env)}
    assert len(found) <= 1, f"the lock gives {package} two versions at once: {sorted(found)}"
    return found.pop() if found else None


def top_level_pins(extra):
    """The requirements pyproject.toml's extra pins, its own extras (tooluse-course[x]) expanded."""
    pins = []
    for text in EXTRAS[extra]:
        req = Requirement(text)
        if canonicalize_name(req.name) == SELF:
            for inner in sorted(req.extras):
                pins += top_level_pins(inner)
        else:
            pins.append(req)
    return pins


@pytest.mark.parametrize("lock", ["uv.txt", "build.txt", *LOCKS])
def test_every_pin_of_a_lock_is_exact_and_hashed(lock):
    for name, version, _, hashes in read_lock(lock):
        assert hashes, f"requirements/{lock}: {name}=={version} has no --hash; {FIX}"


@pytest.mark.parametrize("lock, extra", LOCKS.items())
@pytest.mark.parametrize("python", PYTHONS)
def test_each_version_pyproject_pins_is_the_locked_one(lock, extra, python):
    pins, env = read_lock(lock), environment(python)
    for req in top_level_pins(extra):
        if not applies(req.marker, env):
            continue
        got = locked_version(pins, canonicalize_name(req.name), env)
        assert got is not None and req.specifier.contains(got, prereleases=True), (
            f"pyproject.toml's [{extra}] asks for {req} but requirements/{lock} has "
            f"{req.name}=={got} on Python {python}; {FIX}"
        )


def lower_end(req):
    """The version a range's >= clause names, or None for an exact pin or no lower end."""
    found = [spec.version for spec in req.specifier if spec.operator == ">="]
    return found[0] if found else None


def test_each_range_is_tested_at_its_lower_end():
    """A range's lower end is the release series the lock runs on the oldest Python, so
    `make test` there runs it (pyproject.toml's widgets extra; docs/running-a-class.md)."""
    pins, env = read_lock("dev.txt"), environment(PYTHONS[0])
    ranges = [req for req in top_level_pins("dev") if lower_end(req)]
    assert ranges, "pyproject.toml declares no compatible range; the widgets extra should"
    for req in ranges:
        got = locked_version(pins, canonicalize_name(req.name), env)
        series = ".".join(got.split(".")[:2]) if got else None
        assert series == lower_end(req), (
            f"pyproject.toml says {req} but on Python {PYTHONS[0]} the lock runs "
            f"{req.name}=={got}: the lower end is not the release tested; {FIX}"
        )


@pytest.mark.parametrize("lock", ["browser.txt", "bench.txt", "hub.txt"])
def test_browser_and_bench_locks_keep_dev_versions(lock):
    dev = {(name, str(marker)): version for name, version, marker, _ in read_lock("dev.txt")}
    for name, version, marker, _ in read_lock(lock):
        if (name, str(marker)) in dev:
            assert dev[name, str(marker)] == version, (
                f"requirements/{lock} has {name}=={version}, dev.txt {dev[name, str(marker)]}; {FIX}"
            )


def test_pins_for_conda_are_dev_lock_without_hashes():
    """environment.yml installs with requirements/pins.txt as constraints."""

    def without_hashes(lock):
        return sorted((name, version, str(marker)) for name, version, marker, _ in read_lock(lock))

    assert without_hashes("pins.txt") == without_hashes("dev.txt"), FIX


def test_the_build_backend_is_the_locked_one():
    backend = [Requirement(text) for text in PYPROJECT["build-system"]["requires"]]
    pins = read_lock("build.txt")
    for req in backend:
        got = locked_version(pins, canonicalize_name(req.name))
        assert got == str(req.specifier).removeprefix("=="), (
            f"[build-system] requires {req}, requirements/build.txt has {got}; "
            "edit requirements/build.in, then run `make lock`"
        )


@pytest.mark.parametrize("lock", ["uv.txt", "build.txt", "dev.txt"])
def test_the_running_venv_has_the_locked_versions(lock):
    """A venv that drifted from the lock (a hand-installed upgrade, an old .venv) fails here."""
    drifted = []
    for name, version, marker, _ in read_lock(lock):
        if not applies(marker):
            continue
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = "not installed"
        if installed != version:
            drifted.append(f"{name}: lock {version}, installed {installed}")
    assert not drifted, (
        f"{sys.prefix} differs from requirements/{lock}: "
        + "; ".join(drifted)
        + ". Reinstall with `rm .venv/.installed && make venv`."
    )


def test_pre_commit_runs_the_locked_tools():
    """.pre-commit-config.yaml installs its own ruff and jupytext: the versions make test uses."""
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    pins = read_lock("dev.txt")
    checked = set()
    for repo in config["repos"]:
        for hook in repo["hooks"]:
            for text in hook.get("additional_dependencies", []):
                req = Requirement(text)
                locked = locked_version(pins, canonicalize_name(req.name))
                if locked is not None:
                    checked.add(req.name)
                    assert str(req.specifier) == f"=={locked}", (
                        f".pre-commit-config.yaml's hook {hook['id']} installs {req}, "
                        f"requirements/dev.txt has {locked}: make them equal"
                    )
    assert {"ruff", "jupytext"} <= checked


def test_make_venv_installs_with_the_uv_that_compiles_the_lock():
    """requirements/uv.txt is the hashed uv `make venv` bootstraps; `make lock` writes it from the
    Makefile's UV_VERSION, so a version bumped there without `make lock` fails here."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    version = re.search(r"^UV_VERSION\s*:=\s*(\S+)", makefile, re.M)
    assert version, "the Makefile names no UV_VERSION"
    assert locked_version(read_lock("uv.txt"), "uv") == version[1], FIX
