# The two commands of this course (see README.md):
#   make lab    set up .venv if needed, then open JupyterLab on notebooks/
#   make test   set up .venv if needed, then run every check
# Works on a fresh clone with Python 3.10+, make and git (apt is used only if venv is missing).
# Everything is installed from the hashed lock in requirements/ (see `make lock` below).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8888

.PHONY: lab test demo serve venv clean help notebooks student test-browser bench lock

help:
	@echo "make lab    open the course in JupyterLab (sets up .venv on first run)"
	@echo "make test   run every check (sets up .venv on first run)"
	@echo "make demo   print the lab's demo;  make serve  run the stdio MCP server"
	@echo "make notebooks [NB=03] [FORCE=1]   re-run notebooks from their .py and save outputs"
	@echo "make student [FORCE=1]             write the student edition to build/student/"
	@echo "make test-browser   every notebook in JupyterLab in headless Chromium; screenshots in build/screenshots/"
	@echo "make bench   side-by-side speed measurements (benchmarks/; several minutes)"
	@echo "make lock [UPGRADE=1]   re-resolve requirements/*.txt from pyproject.toml (maintainers)"

venv: $(STAMP)

# pip and setuptools first (requirements/build.txt), then every package at the version CI
# tested (requirements/dev.txt, hash-checked), then the course itself, editable, with no
# dependencies and built by the locked setuptools (no unpinned build environment).
# Editing a lock file or pyproject.toml re-installs on the next make.
PIP_LOCKED := $(BIN)/python -m pip install --quiet --require-hashes -r
PIP_COURSE := $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .

$(STAMP): pyproject.toml requirements/build.txt requirements/dev.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "This course needs Python 3.10 or newer; found " + sys.version.split()[0] + ". Set PYTHON=python3.x to choose another.")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || { \
	  echo "python -m venv failed; trying to install the venv module with apt"; \
	  rm -rf $(VENV); \
	  apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null && $(PYTHON) -m venv $(VENV); }
	$(PIP_LOCKED) requirements/build.txt
	$(PIP_LOCKED) requirements/dev.txt
	$(PIP_COURSE)
	@touch $(STAMP)

# The lock: requirements/*.txt, compiled by a pinned uv from pyproject.toml's extras (dev =
# lab + test; browser and bench add to it, held to dev's versions), for every platform and
# Python 3.10+ at once, with hashes. pins.txt is dev.txt without hashes, for environment.yml.
# Run after editing a version in pyproject.toml, then commit requirements/; UPGRADE=1 also
# moves the transitive packages to their newest releases. requirements/constraints.in holds
# back the few whose newest release lacks a wheel for a platform; tests/test_lock.py checks
# the lock against pyproject.toml and the installed .venv.
UV_VERSION := 0.13.9
UV_VENV    := build/uv-$(UV_VERSION)
UV_COMPILE := $(UV_VENV)/bin/uv pip compile --quiet --no-config --universal --python-version 3.10 \
  --custom-compile-command 'make lock' $(if $(filter 1 yes true,$(UPGRADE)),--upgrade,)
UV_HASHED  := $(UV_COMPILE) --generate-hashes

lock:
	@test -x $(UV_VENV)/bin/uv || { $(PYTHON) -m venv $(UV_VENV) && \
	  $(UV_VENV)/bin/python -m pip install --quiet uv==$(UV_VERSION); }
	$(UV_HASHED) requirements/build.in -o requirements/build.txt
	$(UV_HASHED) pyproject.toml --extra dev -c requirements/constraints.in -o requirements/dev.txt
	$(UV_HASHED) pyproject.toml --extra browser -c requirements/dev.txt -o requirements/browser.txt
	$(UV_HASHED) pyproject.toml --extra bench -c requirements/dev.txt -o requirements/bench.txt
	$(UV_COMPILE) pyproject.toml --extra dev -c requirements/dev.txt --no-annotate -o requirements/pins.txt

# Jupyter refuses to run as root unless told; containers and CI machines often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root,)

lab: $(STAMP)
	$(BIN)/jupyter lab --port=$(PORT) --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks $(ALLOW_ROOT)

# Six steps; any failure stops make. Lint and format (ruff, under a second) and types (mypy, about a
# minute on a first run, a second once .mypy_cache/ exists) come first; their settings live
# in pyproject.toml. pytest's exit code 5 ("no tests collected") is a failure too, so an
# empty notebooks/ cannot pass by accident.
LINT_PATHS := toolkit tests scripts benchmarks notebooks/[0-9][0-9]_*.py
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval_sanitize.cfg

# The stored outputs are the mock-only ones: a real model configured in the shell (README,
# "Using a real model") must not be called by the test run.
NO_REAL_MODEL := env -u TOOLKIT_MODEL_API -u TOOLKIT_MODEL_BASE_URL -u TOOLKIT_MODEL

test: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/mypy
	$(BIN)/python scripts/check_sync.py
	$(NO_REAL_MODEL) $(BIN)/python -m pytest
	$(NO_REAL_MODEL) $(BIN)/python -m pytest $(NBVAL) notebooks/[0-9][0-9]_*.ipynb

# Every notebook run in a throw-away JupyterLab, driven by Playwright in Debian's chromium
# (installed with apt when missing; Playwright downloads no browser). Bounded: SIGINT after
# BROWSER_TIMEOUT seconds lets pytest shut the server down; a kill follows 30 s later.
# The npm packages (axe-core for the accessibility audit, the MCP clients of
# tests/browser/test_mcp_npm.py) are pinned in tests/browser/npm/package-lock.json and installed
# with `npm ci`; Debian's nodejs and npm come from apt when npm is missing.
CHROMIUM ?= /usr/bin/chromium
BROWSER_TIMEOUT ?= 1200
BROWSER_STAMP := $(VENV)/.browser-installed
NPM_DIR := tests/browser/npm
NPM_STAMP := $(NPM_DIR)/node_modules/.installed

$(NPM_STAMP): $(NPM_DIR)/package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: installing Debian's nodejs and npm with apt (needs root)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; }
	cd $(NPM_DIR) && npm ci --ignore-scripts --no-audit --no-fund
	@touch $(NPM_STAMP)

$(BROWSER_STAMP): $(STAMP) requirements/browser.txt
	$(PIP_LOCKED) requirements/browser.txt
	@touch $(BROWSER_STAMP)

test-browser: $(BROWSER_STAMP) $(NPM_STAMP)
	@test -x $(CHROMIUM) || { echo "$(CHROMIUM) not found: installing Debian's chromium with apt (needs root)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	CHROMIUM=$(CHROMIUM) TOOLKIT_BROWSER_TESTS=1 TOOLKIT_NPM_CLIENTS=$(CURDIR)/$(NPM_DIR) \
	  timeout -s INT -k 30 $(BROWSER_TIMEOUT) $(BIN)/python -m pytest tests/browser -p no:cacheprovider -rs

# Side-by-side speed measurements (benchmarks/, README "Performance"); not part of `make test`.
# Every script runs even when one misses its target; make fails at the end if any did.
BENCH_STAMP := $(VENV)/.bench-installed
BENCHES := bench_retrieval bench_scoring bench_mcp bench_course

$(BENCH_STAMP): $(STAMP) requirements/bench.txt
	$(PIP_LOCKED) requirements/bench.txt
	@touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	@status=0; for b in $(BENCHES); do echo "== benchmarks/$$b.py"; \
	  $(BIN)/python benchmarks/$$b.py || status=1; echo; done; exit $$status

# Re-run notebooks from their .py sources, one process each under NOTEBOOK_TIMEOUT seconds.
# Refuses to overwrite a .ipynb edited in Jupyter without its .py (FORCE=1 overrides).
NB ?=
NOTEBOOK_TIMEOUT ?= 120
FORCE_FLAG = $(if $(filter 1 yes true,$(FORCE)),--force,)

notebooks: $(STAMP)
	NOTEBOOK_TIMEOUT=$(NOTEBOOK_TIMEOUT) $(BIN)/python scripts/execute_notebooks.py $(FORCE_FLAG) $(NB)

# The student edition: build/student/ without solutions; never touches notebooks/.
student: $(STAMP)
	$(BIN)/python scripts/make_student.py $(FORCE_FLAG)

demo: $(STAMP)
	$(BIN)/python -m toolkit demo

serve: $(STAMP)
	$(BIN)/python -m toolkit serve

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis .mypy_cache .ruff_cache
