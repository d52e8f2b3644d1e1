"""Browser tests: only run through ``make test-browser`` (TOOLKIT_BROWSER_TESTS=1).

A plain ``pytest`` (``make test``) collects nothing from this folder, so the unit tests never
need Chromium or Playwright. With the variable set, one JupyterLab and one headless Chromium
serve the whole session; both are shut down in the fixtures' finally blocks.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SCREENSHOTS = ROOT / "build" / "screenshots"
ENABLED = os.environ.get("TOOLKIT_BROWSER_TESTS") == "1"

if not ENABLED:
    collect_ignore_glob = ["*.py"]
else:
    sys.path.insert(0, str(HERE))

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
]


@pytest.fixture(scope="session")
def screenshots() -> Path:
    if SCREENSHOTS.exists():
        shutil.rmtree(SCREENSHOTS)
    SCREENSHOTS.mkdir(parents=True)
    return SCREENSHOTS


@pytest.fixture(scope="session")
def lab(screenshots):
    from labserver import LabServer
    from views import all_notebooks

    server = LabServer(all_notebooks())
    try:
        server.start()
        yield server
    finally:
        log = server.log_path
        if log.exists():
            shutil.copy(log, screenshots / "jupyterlab.log")
        server.stop()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.exit(
            f"{CHROMIUM} is missing. Install Debian's chromium (`apt-get install "
            "chromium`) or run `make test-browser`, which does it.",
            returncode=2,
        )
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    try:
        # launch() gives every run a fresh, temporary user-data-dir; nothing is downloaded
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True, timeout=60_000)
        try:
            yield chromium
        finally:
            chromium.close()
    finally:
        pw.stop()


@pytest.fixture(scope="session")
def page(lab, browser):
    """One JupyterLab tab for the whole session; notebooks are opened and closed inside it."""
    from driver import WIDTH

    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    context.set_default_timeout(30_000)
    tab = context.new_page()
    tab.console_errors = []
    tab.on("pageerror", lambda exc: tab.console_errors.append(str(exc)[:300]))
    try:
        tab.goto(lab.url("/lab"), timeout=90_000)
        tab.wait_for_function("() => window.jupyterapp && window.jupyterapp.started", timeout=90_000)
        tab.wait_for_selector(".jp-LabShell", timeout=60_000)
        yield tab
    finally:
        context.close()


def pytest_terminal_summary(terminalreporter):
    """Per notebook: seconds per step, widgets drawn, live views moved (also in timings.txt)."""
    module = sys.modules.get("test_notebooks_in_lab")
    runs = getattr(module, "RUNS", {}) if module else {}
    if not runs:
        return
    lines = [f"{'notebook':<40} {'total':>6}  steps (s)  widgets  live views"]
    for name, run in sorted(runs.items()):
        steps = " ".join(f"{k}={v}" for k, v in run.phases.items())
        views = ", ".join(f"{k}: {v}" for k, v in run.views.items()) or "-"
        lines.append(f"{name:<40} {run.seconds:6.1f}  {steps}  {run.widgets_rendered}/{run.widgets_expected}  {views}")
    lines.append(f"{'all notebooks':<40} {sum(r.seconds for r in runs.values()):6.1f}")
    terminalreporter.write_sep("-", "browser timings")
    for line in lines:
        terminalreporter.write_line(line)
    if SCREENSHOTS.exists():
        (SCREENSHOTS / "timings.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
