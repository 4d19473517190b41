"""Saving waits out a locked database, then fails loudly with the command that saves later."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from toolgrade.errors import RunLockedError, SaveError, StoreError
from toolgrade.results import RunResult
from toolgrade.store import (
    RunFolder,
    RunManifest,
    db_path,
    get_run,
    import_command,
    import_run,
    list_runs,
    save_run,
)
from toolgrade.store import _db as db_module

ROWS = [
    {"case_id": "TC-001", "status": "correct"},
    {"case_id": "TC-002", "status": "wrong_tool"},
]


def _folder(run: RunResult) -> Path:
    """The run folder a finished run leaves (what `runs import` reads)."""
    folder = RunFolder.create(
        RunManifest(run=run.model_copy(update={"results": ()}), case_ids=("TC-001", "TC-002"))
    )
    for result in run.results:
        folder.append_result(result)
    folder.close()
    return folder.path


@pytest.fixture
def finished(make_run) -> RunResult:
    run: RunResult = make_run(ROWS, run_id="20260101-done", status="complete", tags=("nightly",))
    return run


@pytest.fixture
def locked_db(make_run):
    """A history database that a second connection holds with an exclusive lock."""
    save_run(make_run(ROWS, run_id="20250101-old"))
    holder = sqlite3.connect(db_path(), isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    yield holder
    holder.execute("ROLLBACK")
    holder.close()


def test_save_locked_database_waits_then_fails_with_the_import_command(
    finished: RunResult, locked_db: sqlite3.Connection
) -> None:
    folder = _folder(finished)
    began = time.monotonic()
    with pytest.raises(SaveError) as caught:
        save_run(finished, wait=0.6)
    waited = time.monotonic() - began
    assert 0.5 <= waited < 5
    message = str(caught.value)
    assert "\n" not in message
    assert "locked" in message
    assert f"`toolgrade runs import {folder}`" in message
    assert caught.value.run_id == "20260101-done"
    assert caught.value.folder == str(folder)
    assert isinstance(caught.value, StoreError)


def test_save_locked_database_released_while_waiting_saves(
    finished: RunResult, locked_db: sqlite3.Connection
) -> None:
    threading.Timer(0.4, lambda: locked_db.execute("ROLLBACK")).start()
    save_run(finished, wait=10)
    locked_db.execute("BEGIN")  # for the fixture's ROLLBACK
    assert get_run("20260101-done") == finished


def test_save_corrupt_database_fails_at_once_naming_the_fix(
    finished: RunResult, toolgrade_home: Path
) -> None:
    folder = _folder(finished)
    db_path().write_bytes(b"this is not SQLite at all" * 200)
    began = time.monotonic()
    with pytest.raises(SaveError) as caught:
        save_run(finished)
    assert time.monotonic() - began < 5  # not worth waiting for
    message = str(caught.value)
    assert "not a database" in message and "moving the damaged database aside" in message
    assert import_command(folder) in message


def test_save_read_only_database_fails_naming_the_fix(
    finished: RunResult, make_run, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_run(make_run(ROWS, run_id="20250101-old"))
    _folder(finished)
    connect = sqlite3.connect

    def read_only(database: str, **kwargs: object) -> sqlite3.Connection:
        # Root ignores file permissions: open the file read-only the way SQLite does
        # for a file it may not write.
        kwargs.pop("uri", None)
        return connect(f"file:{database}?mode=ro", uri=True, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(db_module.sqlite3, "connect", read_only)
    with pytest.raises(SaveError, match=r"readonly.*once the database is writable"):
        save_run(finished)


def test_save_without_run_folder_still_says_why(finished: RunResult) -> None:
    db_path().parent.mkdir(parents=True)
    db_path().write_bytes(b"garbage" * 1000)
    with pytest.raises(SaveError, match="not a database") as caught:
        save_run(finished)
    assert caught.value.folder is None and "runs import" not in str(caught.value)


def test_import_command_quotes_a_path_with_spaces() -> None:
    assert import_command(Path("/a b/r1")) == 'toolgrade runs import "/a b/r1"'
    assert import_command(Path("/x/r1"), Path("/y/h.db")) == (
        "toolgrade runs import /x/r1 --db /y/h.db"
    )


def test_import_run_saves_a_folder_with_its_labels_and_is_idempotent(
    finished: RunResult,
) -> None:
    folder = _folder(finished)
    assert import_run(folder) == finished
    assert import_run(str(folder)) == finished  # again: nothing changes
    assert import_run("20260101-done") == finished  # by run id
    assert [(r.run_id, r.tags) for r in list_runs()] == [("20260101-done", ("nightly",))]
    assert get_run("nightly") == finished


def test_import_run_refuses_an_unfinished_run_with_the_resume_command(make_run) -> None:
    run = make_run(ROWS, run_id="20260101-cut", status="interrupted")
    _folder(run)
    with pytest.raises(StoreError, match=r"did not finish.*toolgrade run --resume 20260101-cut"):
        import_run("20260101-cut")


def test_import_run_refuses_a_run_another_process_writes(
    finished: RunResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = RunFolder.open(_folder(finished))
    folder.lock()  # a live writer: this very object
    with pytest.raises(RunLockedError, match="still running"):
        import_run(folder.path)
    folder.close()
    assert import_run(folder.path) == finished
