# toolscore: `make run` sets up and runs the main job; `make test` sets up and runs the checks.
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

.PHONY: run test lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	$(PY) -c "import pathlib; pathlib.Path('$(STAMP)').touch()"

run: $(STAMP)
	$(BIN)/toolscore score examples/score-example.json

test: $(STAMP) lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(PY) scripts/check_module_size.py src

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

clean:
	$(PYTHON) -c "import shutil; [shutil.rmtree(p, ignore_errors=True) for p in ('$(VENV)', '.pytest_cache', '.mypy_cache', '.ruff_cache')]"
