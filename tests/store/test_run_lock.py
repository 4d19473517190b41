"""One writer per run folder: a second process is refused, a dead one's lock taken over."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from toolgrade.errors import RunLockedError
from toolgrade.results import CaseResult, RunResult, Status
from toolgrade.store import RunFolder, RunManifest, list_runs, lock_run_folder
from toolgrade.store._folder import LOCK_NAME
from toolgrade.store._lock import FolderLock, pid_alive

RUN_ID = "20260101-lock"

# Holds the run's lock until its standard input closes.
_HOLDER = """
import sys
from toolgrade.store import lock_run_folder
with lock_run_folder(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.read()
"""


def _result(case_id: str) -> CaseResult:
    return CaseResult(case_id=case_id, status=Status.CORRECT, score=1.0)


@pytest.fixture
def folder_path() -> Path:
    header = RunResult(
        run_id=RUN_ID,
        suite_name="s",
        suite_version="1",
        suite_hash="h",
        model="m/x",
        toolgrade_version="0",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        status="running",
    )
    folder = RunFolder.create(RunManifest(run=header, case_ids=("A", "B")))
    folder.append_result(_result("A"))
    folder.close()
    return folder.path


@pytest.fixture
def holder(folder_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process that holds the run's lock."""
    process = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(folder_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "locked"
    yield process
    if process.poll() is None:
        process.communicate(timeout=30)


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    return int(done.stdout)


def test_lock_second_process_is_refused_naming_the_pid(
    folder_path: Path, holder: subprocess.Popen[str]
) -> None:
    folder = RunFolder.open(folder_path)
    with pytest.raises(RunLockedError) as caught:
        folder.append_result(_result("B"))
    assert caught.value.pid == holder.pid
    message = str(caught.value)
    assert f"pid {holder.pid}" in message and "\n" not in message
    # A resume repairs the file first: refused too, before touching it.
    with pytest.raises(RunLockedError):
        folder.read_results(repair=True)
    assert [r.case_id for r in folder.read_results()] == ["A"]  # reading is fine
    assert folder.locked_by() is not None and folder.locked_by().pid == holder.pid  # type: ignore[union-attr]


def test_lock_released_when_the_other_process_ends(
    folder_path: Path, holder: subprocess.Popen[str]
) -> None:
    holder.communicate(timeout=30)
    assert not (folder_path / LOCK_NAME).exists()
    with lock_run_folder(folder_path) as folder:
        folder.append_result(_result("B"))
        assert json.loads((folder_path / LOCK_NAME).read_text())["pid"] == os.getpid()
    assert not (folder_path / LOCK_NAME).exists()


def test_lock_of_a_dead_process_is_taken_over(folder_path: Path) -> None:
    dead = _dead_pid()
    assert not pid_alive(dead)
    lock = folder_path / LOCK_NAME
    lock.write_text(json.dumps({"pid": dead, "host": socket.gethostname(), "token": "old"}))
    folder = RunFolder.open(folder_path)
    assert folder.locked_by() is None
    folder.append_result(_result("B"))
    assert json.loads(lock.read_text())["pid"] == os.getpid()
    folder.close()
    assert not lock.exists()


def test_lock_garbled_old_file_is_taken_over(folder_path: Path) -> None:
    lock = folder_path / LOCK_NAME
    lock.write_text("")
    os.utime(lock, (0, 0))  # old: not a lock being written right now
    with lock_run_folder(folder_path):
        assert json.loads(lock.read_text())["pid"] == os.getpid()


def test_lock_two_writers_in_one_process_are_refused(folder_path: Path) -> None:
    first = RunFolder.open(folder_path)
    first.append_result(_result("B"))
    second = RunFolder.open(folder_path)
    with pytest.raises(RunLockedError, match=f"pid {os.getpid()}"):
        second.log("info", "x", "y")
    first.close()
    second.log("info", "x", "y")  # free now
    second.close()


def test_lock_forgotten_by_a_collected_folder_is_released(folder_path: Path) -> None:
    RunFolder.open(folder_path).lock()  # never closed: the object is collected at once
    assert not (folder_path / LOCK_NAME).exists()


def test_lock_of_another_host_is_respected(folder_path: Path) -> None:
    lock = folder_path / LOCK_NAME
    lock.write_text(json.dumps({"pid": 1, "host": "elsewhere.example", "token": "t"}))
    with pytest.raises(RunLockedError, match=r"pid 1 on elsewhere\.example.*delete"):
        FolderLock(folder_path).acquire()


def test_list_runs_shows_a_folder_being_written_as_running(
    folder_path: Path, holder: subprocess.Popen[str]
) -> None:
    [summary] = list_runs()
    assert (summary.run_id, summary.status, summary.resume) == (RUN_ID, "running", None)
    holder.communicate(timeout=30)
    [summary] = list_runs()
    assert summary.status == "interrupted" and summary.resume is not None


def test_create_failing_to_write_run_json_leaves_no_folder(
    toolgrade_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    header = RunResult(
        run_id="20260101-full",
        suite_name="s",
        suite_version="1",
        suite_hash="h",
        model="m/x",
        toolgrade_version="0",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    with pytest.raises(Exception, match="No space left on device") as caught:
        RunFolder.create(RunManifest(run=header))
    assert "resume" not in str(caught.value)  # nothing started: nothing to resume
    assert list((toolgrade_home / "runs").iterdir()) == []
