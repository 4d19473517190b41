"""Shared fixtures: every test gets its own TOOLGRADE_HOME."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from toolgrade.results import CaseResult, RunResult


@pytest.fixture(autouse=True)
def toolgrade_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point TOOLGRADE_HOME at a fresh temporary folder."""
    home = tmp_path / "toolgrade-home"
    monkeypatch.setenv("TOOLGRADE_HOME", str(home))
    return home


RunFactory = Callable[..., RunResult]


def _build_run(
    results: Sequence[Mapping[str, object] | CaseResult],
    *,
    run_id: str = "run-a",
    suite_hash: str = "hash-1",
    model: str = "test/model",
    **fields: object,
) -> RunResult:
    """A RunResult from result rows; a row's `score` defaults to 1 when correct, else 0."""
    built = []
    for row in results:
        if isinstance(row, CaseResult):
            built.append(row)
            continue
        data = dict(row)
        data.setdefault("score", 1.0 if data.get("status") == "correct" else 0.0)
        built.append(CaseResult.model_validate(data))
    return RunResult.model_validate(
        {
            "run_id": run_id,
            "suite_name": "test-suite",
            "suite_version": "1",
            "suite_hash": suite_hash,
            "model": model,
            "toolgrade_version": "0.0.0",
            "started_at": datetime(2026, 1, 1, tzinfo=UTC),
            "results": built,
            **fields,
        }
    )


@pytest.fixture
def make_run() -> RunFactory:
    """Build a RunResult directly from the result models (no runner involved)."""
    return _build_run
