# The two commands of this course (see README.md):
#   make lab    set up .venv if needed, then open JupyterLab on notebooks/
#   make test   set up .venv if needed, then run every check
# Works on a fresh clone with Python 3.10+, make and git (apt is used only if venv is missing).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8888

.PHONY: lab test demo serve venv clean help notebooks student test-browser bench

help:
	@echo "make lab    open the course in JupyterLab (sets up .venv on first run)"
	@echo "make test   run every check (sets up .venv on first run)"
	@echo "make demo   print the lab's demo;  make serve  run the stdio MCP server"
	@echo "make notebooks [NB=03] [FORCE=1]   re-run notebooks from their .py and save outputs"
	@echo "make student [FORCE=1]             write the student edition to build/student/"
	@echo "make test-browser   every notebook in JupyterLab in headless Chromium; screenshots in build/screenshots/"
	@echo "make bench   side-by-side speed measurements (benchmarks/; several minutes)"

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "This course needs Python 3.10 or newer; found " + sys.version.split()[0] + ". Set PYTHON=python3.x to choose another.")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || { \
	  echo "python -m venv failed; trying to install the venv module with apt"; \
	  rm -rf $(VENV); \
	  apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null && $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# Jupyter refuses to run as root unless told; containers and CI machines often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root,)

lab: $(STAMP)
	$(BIN)/jupyter lab --port=$(PORT) --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks $(ALLOW_ROOT)

# Three steps; any failure stops make. pytest's exit code 5 ("no tests collected") is a
# failure too, so an empty notebooks/ cannot pass by accident.
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/nbval_sanitize.cfg

# The stored outputs are the mock-only ones: a real model configured in the shell (README,
# "Using a real model") must not be called by the test run.
NO_REAL_MODEL := env -u TOOLKIT_MODEL_API -u TOOLKIT_MODEL_BASE_URL -u TOOLKIT_MODEL

test: $(STAMP)
	$(BIN)/python scripts/check_sync.py
	$(NO_REAL_MODEL) $(BIN)/python -m pytest
	$(NO_REAL_MODEL) $(BIN)/python -m pytest $(NBVAL) notebooks/[0-9][0-9]_*.ipynb

# Every notebook run in a throw-away JupyterLab, driven by Playwright in Debian's chromium
# (installed with apt when missing; Playwright downloads no browser). Bounded: SIGINT after
# BROWSER_TIMEOUT seconds lets pytest shut the server down; a kill follows 30 s later.
CHROMIUM ?= /usr/bin/chromium
BROWSER_TIMEOUT ?= 840
BROWSER_STAMP := $(VENV)/.browser-installed

$(BROWSER_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[browser]'
	@touch $(BROWSER_STAMP)

test-browser: $(BROWSER_STAMP)
	@test -x $(CHROMIUM) || { echo "$(CHROMIUM) not found: installing Debian's chromium with apt (needs root)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	CHROMIUM=$(CHROMIUM) TOOLKIT_BROWSER_TESTS=1 timeout -s INT -k 30 $(BROWSER_TIMEOUT) \
	  $(BIN)/python -m pytest tests/browser -p no:cacheprovider -rs

# Side-by-side speed measurements (benchmarks/, README "Performance"); not part of `make test`.
# Every script runs even when one misses its target; make fails at the end if any did.
BENCH_STAMP := $(VENV)/.bench-installed
BENCHES := bench_retrieval bench_scoring bench_mcp bench_course

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
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
	rm -rf $(VENV) build .pytest_cache .hypothesis
