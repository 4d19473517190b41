"""`run.json`'s model, run ids, the order of a run's results, and the resume command."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from toolgrade._core.json_data import JsonObject
from toolgrade.results import CaseResult, RunResult

__all__ = ["RunManifest", "new_run_id", "resume_command", "sort_results"]


def new_run_id(now: datetime | None = None) -> str:
    """A sortable unique run id: UTC time plus 6 random hex digits (a run's, a merge's)."""
    when = now or datetime.now(UTC)
    return f"{when:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:6]}"


def resume_command(run_id: str) -> str:
    """The command that finishes an interrupted run."""
    return f"toolgrade run --resume {run_id}"


class RunManifest(BaseModel):
    """The content of `run.json`: the run's settings, and what a resume needs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[2] = 2
    """Version of this format."""
    run: RunResult
    """The run's header: settings, server identity, status (its `results` stay empty)."""
    suite_source: str | None = None
    """Where the suite came from (a path or a built-in name), to reload it on resume."""
    case_ids: tuple[str, ...] = ()
    """The selected cases, in run order."""
    options: JsonObject = {}
    """The runner options, to resume with exactly the same settings."""


def sort_results(results: Iterable[CaseResult], case_ids: Sequence[str]) -> tuple[CaseResult, ...]:
    """Order results by case (in `case_ids` order) then repetition; the last of duplicates wins.

    Results of cases missing from `case_ids` come last, by id.
    """
    position = {case_id: i for i, case_id in enumerate(case_ids)}
    unique = {(r.case_id, r.repeat): r for r in results}
    return tuple(
        sorted(
            unique.values(),
            key=lambda r: (position.get(r.case_id, len(position)), r.case_id, r.repeat),
        )
    )
