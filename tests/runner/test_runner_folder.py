"""Run folders: torn lines, corruption, loading, data_dir, progress display."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

import toolgrade
from toolgrade.results import CaseResult, RunResult, Status
from toolgrade.runner import make_progress
from toolgrade.store import RunFolder, RunManifest


def _header(run_id: str = "run-1") -> RunResult:
    return RunResult(
        run_id=run_id,
        suite_name="s",
        suite_version="1",
        suite_hash="sha256:x",
        model="replay/x",
        toolgrade_version="0",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        status="running",
    )


def _result(case_id: str, status: Status = Status.CORRECT, repeat: int = 0) -> CaseResult:
    return CaseResult(case_id=case_id, status=status, score=1.0, repeat=repeat)


def _folder(n: int = 3) -> RunFolder:
    manifest = RunManifest(run=_header(), case_ids=tuple(f"C-{i}" for i in range(n)))
    folder = RunFolder.create(manifest)
    for i in range(n):
        folder.append_result(_result(f"C-{i}"))
    folder.close()
    return folder


def test_data_dir_honours_toolgrade_home(toolgrade_home: Path) -> None:
    assert toolgrade.data_dir() == toolgrade_home.absolute()


def test_data_dir_defaults_to_dot_toolgrade(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLGRADE_HOME")
    assert toolgrade.data_dir() == Path(".toolgrade").absolute()


def test_folder_torn_last_line_is_dropped_and_repaired() -> None:
    folder = _folder()
    data = folder.results_path.read_bytes()
    folder.results_path.write_bytes(data + b'{"case_id": "C-9", "sta')
    assert [r.case_id for r in folder.read_results()] == ["C-0", "C-1", "C-2"]
    assert folder.read_results(repair=True) and folder.results_path.read_bytes() == data


def test_folder_complete_last_line_without_newline_is_kept() -> None:
    folder = _folder()
    data = folder.results_path.read_bytes()
    folder.results_path.write_bytes(data.rstrip(b"\n"))
    assert len(folder.read_results(repair=True)) == 3
    assert folder.results_path.read_bytes() == data


def test_folder_corrupt_middle_line_is_a_store_error() -> None:
    folder = _folder()
    lines = folder.results_path.read_bytes().splitlines(keepends=True)
    folder.results_path.write_bytes(lines[0] + b"garbage\n" + b"".join(lines[1:]))
    with pytest.raises(toolgrade.StoreError, match="line 2"):
        folder.read_results()


def test_load_run_folder_by_id_path_and_manifest() -> None:
    folder = _folder()
    by_id = toolgrade.load_run_folder("run-1")
    assert [r.case_id for r in by_id.results] == ["C-0", "C-1", "C-2"]
    assert toolgrade.load_run_folder(folder.path) == by_id
    assert toolgrade.load_run_folder(folder.manifest_path) == by_id


def test_load_run_folder_orders_by_case_then_repeat_last_wins() -> None:
    manifest = RunManifest(run=_header(), case_ids=("B", "A"))
    folder = RunFolder.create(manifest)
    for result in (_result("A", repeat=1), _result("A"), _result("B"), _result("B", Status.ERROR)):
        folder.append_result(result)
    folder.close()
    run = toolgrade.load_run_folder("run-1")
    assert [(r.case_id, r.repeat, r.status) for r in run.results] == [
        ("B", 0, Status.ERROR),
        ("A", 0, Status.CORRECT),
        ("A", 1, Status.CORRECT),
    ]


def test_load_run_folder_missing_is_a_store_error() -> None:
    with pytest.raises(toolgrade.StoreError, match="no run folder"):
        toolgrade.load_run_folder("nope")


def test_folder_create_twice_is_a_store_error() -> None:
    _folder()
    with pytest.raises(toolgrade.StoreError, match="exists"):
        RunFolder.create(RunManifest(run=_header()))


def test_progress_plain_prints_accuracy_and_final_line() -> None:
    out = io.StringIO()
    progress = make_progress("auto", stream=out)  # a StringIO is not a terminal
    progress.start(total=3, done=(_result("A"),))
    progress.update(_result("B", Status.WRONG_ARGS))
    progress.update(_result("C", Status.TIMEOUT))
    progress.close()
    assert out.getvalue().splitlines()[-1].startswith("[3/3] accuracy 50.0% (scored 2)")


def test_progress_none_prints_nothing() -> None:
    out = io.StringIO()
    progress = make_progress("none", stream=out)
    progress.start(total=1, done=())
    progress.update(_result("A"))
    assert out.getvalue() == ""


def test_progress_bar_runs_without_a_terminal() -> None:
    progress = make_progress("bar")
    progress.start(total=2, done=())
    progress.update(_result("A"))
    progress.update(_result("B"))
    progress.close()
