# The two commands of this course (see README.md):
#   make lab    set up .venv if needed, then open JupyterLab on notebooks/
#   make test   set up .venv if needed, then run every check
# Works on a fresh clone with Python 3.10+, make and git (apt is used only if venv is missing).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8888

.PHONY: lab test demo serve venv clean help

help:
	@echo "make lab    open the course in JupyterLab (sets up .venv on first run)"
	@echo "make test   run every check (sets up .venv on first run)"
	@echo "make demo   print the lab's demo;  make serve  run the stdio MCP server"

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

lab: $(STAMP)
	$(BIN)/jupyter lab --port=$(PORT) --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks

test: $(STAMP)
	$(BIN)/python -m pytest

demo: $(STAMP)
	$(BIN)/python -m toolkit demo

serve: $(STAMP)
	$(BIN)/python -m toolkit serve

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis
