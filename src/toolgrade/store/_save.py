"""Saving runs to the history: waiting out a locked database, and saving a run folder later.

A run is saved when it finishes. Another process may hold the database's write lock
at that moment (saving its own run, or a long `runs` command): saving waits for it, up
to `SAVE_WAIT` seconds. When saving fails for good (still locked, a corrupt or
read-only database, a full disk), `SaveError` says why and gives the command that
saves the run later, `toolgrade runs import FOLDER`: the run folder has everything.
"""

from __future__ import annotations

import logging
import re
import time
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path

from toolgrade._core.files import atomic_write_text
from toolgrade.errors import RunLockedError, SaveError, StoreError
from toolgrade.results import CaseResult, RunResult, Status
from toolgrade.store._db import UPSERT_TAG, DatabaseBusy, db_path, open_db
from toolgrade.store._db_states import write_states
from toolgrade.store._folder import MANIFEST_NAME, RunFolder, load_run_folder
from toolgrade.store._manifest import resume_command
from toolgrade.store._migrations import transaction
from toolgrade.store._paths import runs_dir
from toolgrade.store._states import stored_form

__all__ = ["NOT_SAVED_NAME", "SAVE_WAIT", "import_command", "import_run", "save_run"]

logger = logging.getLogger(__name__)

NOT_SAVED_NAME = "not-saved.txt"
"""In a finished run's folder while the run is not in the history (see `_mark_pending`)."""
SAVE_WAIT = 30.0
"""Seconds saving waits for a database that another process holds locked."""
_STATEMENT_WAIT = 5.0
"""Seconds one attempt waits inside SQLite (its busy timeout) before trying afresh."""

_RUN_COLUMNS = (
    "run_id, suite_name, suite_version, suite_hash, model, toolgrade_version, started_at,"
    " finished_at, status, rubric, total, scored, passed, accuracy, header_json, saved_at"
)
_UPSERT_RUN = (
    f"INSERT INTO runs ({_RUN_COLUMNS}) VALUES ({', '.join('?' * 16)}) "
    "ON CONFLICT(run_id) DO UPDATE SET "
    + ", ".join(f"{c.strip()}=excluded.{c.strip()}" for c in _RUN_COLUMNS.split(",")[1:])
)


def save_run(run: RunResult, *, db: Path | None = None, wait: float | None = None) -> None:
    """Store a run (replacing an earlier save of the same run id) and its tags.

    While another process holds the database locked, saving tries again, for up to
    `wait` seconds in all. Until the run is saved, its run folder (if it has one) holds
    `NOT_SAVED_NAME`, so that `list_runs` shows a run whose save failed or was cut
    short, with the command that saves it.

    Args:
        run: the run.
        db: the database file (default `<TOOLGRADE_HOME>/toolgrade.db`).
        wait: seconds to wait for a locked database (default `SAVE_WAIT`, 30).

    Raises:
        SaveError: the run could not be saved (the message says why, and how to save
            it later from its run folder).

    Examples:
        >>> save_run(run)  # doctest: +SKIP
        >>> resolve_run(run.run_id) == run  # doctest: +SKIP
        True
    """
    pending = _mark_pending(run.run_id, db)
    limit = SAVE_WAIT if wait is None else wait
    deadline = time.monotonic() + limit
    pause = 0.05
    while True:
        left = deadline - time.monotonic()
        try:
            _write(run, db, timeout=min(_STATEMENT_WAIT, max(left, 0.05)))
            if pending is not None:
                with suppress(OSError):  # saved: a mark left behind is ignored then
                    pending.unlink(missing_ok=True)
            return
        except DatabaseBusy as exc:
            if time.monotonic() + pause >= deadline:
                reason = f"the database stayed locked for {limit:g} s (another process holds it)"
                raise _not_saved(run, db, reason) from exc
            logger.info("run history locked; saving %s again in %.2f s", run.run_id, pause)
        except StoreError as exc:
            raise _not_saved(run, db, exc.message) from exc
        time.sleep(pause)
        pause = min(pause * 2, 1.0)


def _mark_pending(run_id: str, db: Path | None) -> Path | None:
    """Leave `NOT_SAVED_NAME` in the run's folder until the run is saved (None: no folder).

    Written before saving starts, so that a save that fails, or a process killed while
    it waits for a locked database, leaves a finished run that `toolgrade runs list`
    shows as not saved, with the command that saves it. A folder that cannot be
    written gets no mark (saving then says the same itself).
    """
    folder = runs_dir() / run_id
    if not (folder / MANIFEST_NAME).is_file():
        return None
    mark = folder / NOT_SAVED_NAME
    text = (
        "This run finished, but it is not in the run history yet (saving it failed or was"
        f" stopped). Save it with:\n\n    {import_command(folder, db)}\n"
    )
    try:
        atomic_write_text(mark, text)
    except OSError as exc:
        logger.debug("cannot mark %s as not saved: %s", folder, exc)
        return None
    return mark


def _case_row(run_id: str, position: int, r: CaseResult) -> tuple[object, ...]:
    return (
        run_id,
        position,
        r.case_id,
        r.repeat,
        r.status.value,
        r.score,
        r.category,
        r.difficulty,
        r.latency_ms,
        r.model_dump_json(),
    )


def _write(run: RunResult, db: Path | None, *, timeout: float) -> None:
    found: dict[str, str] = {}  # the states the results name by hash
    rows = [_case_row(run.run_id, i, stored_form(r, found)) for i, r in enumerate(run.results)]
    scored = [r for r in run.results if r.status.scored]
    passed = sum(r.status is Status.CORRECT for r in scored)
    now = datetime.now(UTC).isoformat()
    header = (
        run.run_id,
        run.suite_name,
        run.suite_version,
        run.suite_hash,
        run.model,
        run.toolgrade_version,
        run.started_at.isoformat(),
        run.finished_at.isoformat() if run.finished_at else None,
        run.status,
        run.rubric,
        len(run.results),
        len(scored),
        passed,
        passed / len(scored) if scored else None,
        run.model_dump_json(exclude={"results", "tags"}),
        now,
    )
    with open_db(db, timeout=timeout) as conn, transaction(conn):
        conn.execute(_UPSERT_RUN, header)
        conn.execute("DELETE FROM case_results WHERE run_id = ?", (run.run_id,))
        write_states(conn, run.run_id, found)
        conn.executemany("INSERT INTO case_results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        conn.executemany(UPSERT_TAG, ((tag, run.run_id, now) for tag in run.tags))


_FIXES: tuple[tuple[str, str], ...] = (
    ("locked", "once the other process is done"),
    ("not a database", "after moving the damaged database aside (or with --db OTHER.db)"),
    ("malformed", "after moving the damaged database aside (or with --db OTHER.db)"),
    ("readonly", "once the database is writable (or with --db OTHER.db)"),
    ("read-only", "once the database is writable (or with --db OTHER.db)"),
    ("full", "once there is free space"),
    ("no space", "once there is free space"),
)


def _not_saved(run: RunResult, db: Path | None, reason: str) -> SaveError:
    path = db if db is not None else db_path()
    folder = runs_dir() / run.run_id
    message = f"run {run.run_id} was not saved to the run history: {reason}"
    if not (folder / MANIFEST_NAME).is_file():
        return SaveError(message, path=str(path), run_id=run.run_id)
    fix = next((f for key, f in _FIXES if key in reason.lower()), "once that is fixed")
    message += (
        f". Nothing is lost, the run folder has everything: save it {fix}"
        f" with `{import_command(folder, db)}`"
    )
    return SaveError(message, path=str(path), run_id=run.run_id, folder=str(folder))


def _quote(text: str) -> str:
    """A path as a shell word: as is when plain, else in double quotes (POSIX and Windows)."""
    return text if re.fullmatch(r"[\w./\\:@%+=,-]+", text) else f'"{text}"'


def import_command(folder: Path, db: Path | None = None) -> str:
    """The command that saves a run folder to the history (`toolgrade runs import`)."""
    command = f"toolgrade runs import {_quote(str(folder))}"
    return command + (f" --db {_quote(str(db))}" if db is not None else "")


def import_run(ref: str | Path, *, db: Path | None = None, wait: float | None = None) -> RunResult:
    """Save a finished run folder to the history: again is harmless, labels are kept.

    Args:
        ref: a run folder, its `run.json`, or a run id (under `<TOOLGRADE_HOME>/runs/`).
        db: the database file (default `<TOOLGRADE_HOME>/toolgrade.db`).
        wait: as for `save_run`.

    Returns:
        The run as saved.

    Raises:
        StoreError: no such run folder, a corrupt one, or a run that did not finish.
        RunLockedError: a process is still writing to the run.
        SaveError: the database cannot be written.

    Examples:
        >>> import_run(".toolgrade/runs/20260101T120000Z-3fa2c1").tags  # doctest: +SKIP
        ('nightly',)
    """
    folder = RunFolder.open(ref)
    owner = folder.locked_by()
    if owner is not None:
        raise RunLockedError(
            f"run {folder.path.name} is still running (pid {owner.pid}): it is saved when it"
            " finishes",
            path=str(folder.path),
            pid=owner.pid,
            host=owner.host,
        )
    run = load_run_folder(folder.path)
    if run.status != "complete":
        raise StoreError(
            f"run {run.run_id} did not finish: finish it with `{resume_command(run.run_id)}`,"
            " which saves it",
            path=str(folder.path),
        )
    save_run(run, db=db, wait=wait)
    return run
