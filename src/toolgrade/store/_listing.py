"""`list_runs`: the saved runs, and the run folders an interruption or a failed save left.

A run is saved to the history (`toolgrade.db`) only when it finishes: an interrupted or
killed run exists only as its run folder (`<TOOLGRADE_HOME>/runs/<run_id>/`), and so
does a finished run whose save failed (a locked, read-only or damaged database, a full
disk, a process killed while saving). Listing those beside the saved runs shows the
runs a `toolgrade run --resume` can finish and those `toolgrade runs import` can save.
The history is opened read-only: listing works in a home folder that cannot be written.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.errors import StoreError
from toolgrade.results import CaseResult, RunResult, Status
from toolgrade.store._db import db_path, open_db, tags_of
from toolgrade.store._folder import MANIFEST_NAME, RunFolder
from toolgrade.store._manifest import resume_command, sort_results
from toolgrade.store._paths import runs_dir
from toolgrade.store._save import NOT_SAVED_NAME, import_command

__all__ = ["RunSummary", "list_runs", "resume_command"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One line of `toolgrade runs list`."""

    run_id: str
    suite_name: str
    suite_version: str
    suite_hash: str
    model: str
    started_at: str
    """ISO 8601 start time."""
    status: str
    """`complete`, `interrupted` (a run left unfinished: resume it) or `running` (an
    unsaved run folder another live process is writing to right now)."""
    total: int
    """Results recorded."""
    scored: int
    passed: int
    accuracy: float | None
    """passed / scored (None when nothing was scored)."""
    tags: tuple[str, ...]
    mode: str | None = None
    """`native` or `prompt` (from the run's backend settings); None when not recorded."""
    saved: bool = True
    """Whether the run is in the history database; False for an unsaved run folder
    (unfinished, or finished but its save failed: `save` gives the command)."""
    folder: str | None = None
    """The run folder of an unsaved run."""
    planned: int | None = None
    """For an unsaved run: how many results the finished run will have."""

    @property
    def resume(self) -> str | None:
        """The command that finishes the run; None when it is complete or still running."""
        return None if self.status in ("complete", "running") else resume_command(self.run_id)

    @property
    def save(self) -> str | None:
        """For a finished run that is not in the history: the command that saves it."""
        if self.saved or self.status != "complete" or self.folder is None:
            return None
        return import_command(Path(self.folder))

    def to_dict(self) -> JsonObject:
        """Return the summary as a JSON object."""
        return {
            "run_id": self.run_id,
            "suite_name": self.suite_name,
            "suite_version": self.suite_version,
            "suite_hash": self.suite_hash,
            "model": self.model,
            "mode": self.mode,
            "started_at": self.started_at,
            "status": self.status,
            "total": self.total,
            "planned": self.planned,
            "scored": self.scored,
            "passed": self.passed,
            "accuracy": self.accuracy,
            "tags": list(self.tags),
            "saved": self.saved,
            "folder": self.folder,
            "resume": self.resume,
            "save": self.save,
        }


def list_runs(
    *,
    db: Path | None = None,
    limit: int | None = 20,
    model: str | None = None,
    folders: bool = True,
) -> list[RunSummary]:
    """The saved runs and (with `folders`) the unsaved interrupted runs, newest first.

    Args:
        db: the database file.
        limit: at most this many (None: all).
        model: only runs of this model specification.
        folders: also list the run folders under `<TOOLGRADE_HOME>/runs/` that are not
            in the history and did not finish (interrupted, or killed while running).

    Returns:
        One summary per run; empty when there is none.

    Examples:
        >>> [(r.run_id, r.status) for r in list_runs()]  # doctest: +SKIP
        [('20260102-cand', 'complete'), ('20260101-base', 'interrupted')]
    """
    path = db if db is not None else db_path()
    saved: list[RunSummary] = []
    saved_ids: set[str] = set()
    if str(path) == ":memory:" or path.exists():
        query = "SELECT * FROM runs" + (" WHERE model = ?" if model else "")
        query += " ORDER BY started_at DESC, run_id DESC"
        query += " LIMIT ?" if limit is not None else ""
        params: list[object] = [p for p in (model, limit) if p is not None]
        with open_db(path, readonly=True) as conn:
            saved = [_summary(conn, row) for row in conn.execute(query, params).fetchall()]
            if folders:
                saved_ids = {str(r[0]) for r in conn.execute("SELECT run_id FROM runs")}
    unsaved = _unsaved_folders(saved_ids, model) if folders else []
    runs = sorted([*saved, *unsaved], key=lambda r: (r.started_at, r.run_id), reverse=True)
    return runs[:limit] if limit is not None else runs


def _mode(backend: JsonValue) -> str | None:
    mode = backend.get("mode") if isinstance(backend, dict) else None
    return mode if isinstance(mode, str) else None


def _summary(conn: sqlite3.Connection, row: sqlite3.Row) -> RunSummary:
    try:
        header: JsonValue = json.loads(row["header_json"])
    except ValueError:
        header = None
    return RunSummary(
        run_id=row["run_id"],
        suite_name=row["suite_name"],
        suite_version=row["suite_version"],
        suite_hash=row["suite_hash"],
        model=row["model"],
        started_at=row["started_at"],
        status=row["status"],
        total=row["total"],
        scored=row["scored"],
        passed=row["passed"],
        accuracy=row["accuracy"],
        tags=tags_of(conn, row["run_id"]),
        mode=_mode(header.get("backend") if isinstance(header, dict) else None),
    )


def _unsaved_folders(saved_ids: set[str], model: str | None) -> list[RunSummary]:
    root = runs_dir()
    if not root.is_dir():
        return []
    found = []
    for path in sorted(root.iterdir()):
        if path.name in saved_ids or not (path / MANIFEST_NAME).is_file():
            continue
        try:
            summary = _folder_summary(RunFolder(path))
        except StoreError as exc:
            logger.warning("skipping unreadable run folder %s: %s", path, exc)
            continue
        if summary is not None and (model is None or summary.model == model):
            found.append(summary)
    return found


def _folder_summary(folder: RunFolder) -> RunSummary | None:
    """An unsaved run's summary: unfinished, or finished but not saved (its save failed).

    None for a finished run that nothing tried to save (a library `run_suite`): only a
    save that did not complete leaves `NOT_SAVED_NAME` behind.
    """
    manifest = folder.read_manifest()
    run: RunResult = manifest.run
    if run.status == "complete" and not (folder.path / NOT_SAVED_NAME).is_file():
        return None
    stored = folder.read_results(states=False)  # statuses only: the states are not needed
    results: tuple[CaseResult, ...] = sort_results(stored, manifest.case_ids)
    scored = [r for r in results if r.status.scored]
    passed = sum(r.status is Status.CORRECT for r in scored)
    return RunSummary(
        run_id=run.run_id,
        suite_name=run.suite_name,
        suite_version=run.suite_version,
        suite_hash=run.suite_hash,
        model=run.model,
        started_at=run.started_at.isoformat(),
        status=_folder_status(folder, run),
        total=len(results),
        scored=len(scored),
        passed=passed,
        accuracy=passed / len(scored) if scored else None,
        tags=run.tags,
        mode=_mode(run.backend),
        saved=False,
        folder=str(folder.path),
        planned=len(manifest.case_ids) * run.repeat if manifest.case_ids else None,
    )


def _folder_status(folder: RunFolder, run: RunResult) -> str:
    if folder.locked_by() is not None:
        return "running"
    # A run killed outright never wrote its final status: it still says `running`;
    # only the lock of a live process tells a run that is really going on.
    return "complete" if run.status == "complete" else "interrupted"
