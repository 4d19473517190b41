"""Fixtures of the report tests: two stored runs and golden-file comparison.

Regenerate every golden file after an intended change of a report's layout with:

    TOOLGRADE_UPDATE_GOLDENS=1 .venv/bin/pytest tests/report -q

then review the diff of tests/data/report/golden/ before committing it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

import toolgrade

DATA = Path(__file__).resolve().parent.parent / "data" / "report"
GOLDEN = DATA / "golden"


def load_run(name: str) -> toolgrade.RunResult:
    return toolgrade.RunResult.model_validate_json((DATA / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def run() -> toolgrade.RunResult:
    """The candidate run: every status, chat prompts, HTML and ANSI payloads."""
    return load_run("run.json")


@pytest.fixture(scope="session")
def baseline() -> toolgrade.RunResult:
    """The same suite on another model, tagged v1.2."""
    return load_run("baseline.json")


@pytest.fixture(scope="session")
def comparison(baseline: toolgrade.RunResult, run: toolgrade.RunResult) -> toolgrade.Comparison:
    return toolgrade.compare_runs(baseline, run)


@pytest.fixture
def golden() -> Callable[[str, str], None]:
    """Compare text with a golden file (or rewrite it when TOOLGRADE_UPDATE_GOLDENS=1)."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if os.environ.get("TOOLGRADE_UPDATE_GOLDENS") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
        assert path.exists(), f"missing golden {path}; run with TOOLGRADE_UPDATE_GOLDENS=1"
        expected = path.read_text(encoding="utf-8")
        assert text == expected, f"{name} differs from its golden file"

    return check
