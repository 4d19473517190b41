"""`list_runs`: saved runs with their mode, and unsaved run folders left unfinished."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from toolgrade.results import RunResult
from toolgrade.store import RunFolder, RunManifest, list_runs, resolve_run, save_run

ROWS = [
    {"case_id": "TC-001", "status": "correct"},
    {"case_id": "TC-002", "status": "wrong_tool"},
    {"case_id": "TC-003", "status": "timeout", "error": "slow"},
]


def _folder(run: RunResult, *, case_ids: tuple[str, ...] = ()) -> RunFolder:
    """A run folder as the runner leaves it: header in run.json, results appended."""
    header = run.model_copy(update={"results": ()})
    folder = RunFolder.create(RunManifest(run=header, case_ids=case_ids))
    for result in run.results:
        folder.append_result(result)
    folder.close()
    return folder


@pytest.mark.parametrize(
    ("backend", "mode"),
    [
        ({"provider": "ollama", "mode": "native"}, "native"),
        ({"provider": "openai", "mode": "prompt"}, "prompt"),
        ({"provider": "python", "callable": "m:f"}, None),
        ({}, None),
    ],
    ids=["native", "prompt", "no_mode", "no_backend"],
)
def test_list_runs_saved_run_reports_its_mode(make_run, backend, mode) -> None:
    save_run(make_run(ROWS, run_id="r", backend=backend))
    (summary,) = list_runs()
    assert summary.mode == mode
    assert summary.to_dict()["mode"] == mode
    assert (summary.saved, summary.folder, summary.resume) == (True, None, None)


@pytest.mark.parametrize("status", ["interrupted", "running"])
def test_list_runs_unsaved_unfinished_folder_is_listed_interrupted(
    make_run, status: str, toolgrade_home: Path
) -> None:
    save_run(make_run(ROWS, run_id="20260101-saved", started_at=datetime(2026, 1, 1, tzinfo=UTC)))
    _folder(
        make_run(
            ROWS[:2],
            run_id="20260102-cut",
            status=status,
            finished_at=None,
            started_at=datetime(2026, 1, 2, tzinfo=UTC),
            backend={"mode": "prompt"},
            tags=("wip",),
        ),
        case_ids=("TC-001", "TC-002", "TC-003", "TC-004"),
    )
    first, second = list_runs()
    assert (first.run_id, second.run_id) == ("20260102-cut", "20260101-saved")
    assert (first.status, first.saved, first.mode, first.tags) == (
        "interrupted",
        False,
        "prompt",
        ("wip",),
    )
    assert (first.total, first.planned, first.scored, first.passed, first.accuracy) == (
        2,
        4,
        2,
        1,
        0.5,
    )
    assert first.folder == str(toolgrade_home / "runs" / "20260102-cut")
    data = json.loads(json.dumps(first.to_dict()))
    assert data["resume"] == "toolgrade run --resume 20260102-cut"
    assert data["status"] == "interrupted" and data["saved"] is False
    assert [r.run_id for r in list_runs(folders=False)] == ["20260101-saved"]


def test_list_runs_folder_of_saved_or_complete_run_is_not_repeated(make_run) -> None:
    saved = make_run(ROWS, run_id="saved", status="interrupted")
    _folder(saved)
    save_run(saved)
    _folder(make_run(ROWS, run_id="no-save"))  # complete, saving turned off: not history
    assert [(r.run_id, r.saved) for r in list_runs()] == [("saved", True)]


def test_list_runs_folders_without_database_limit_and_model(make_run, toolgrade_home) -> None:
    for day in (1, 2, 3):
        _folder(
            make_run(
                ROWS,
                run_id=f"d{day}",
                status="interrupted",
                started_at=datetime(2026, 1, day, tzinfo=UTC),
                model="m/a" if day != 2 else "m/b",
            )
        )
    assert not (toolgrade_home / "toolgrade.db").exists()
    assert [r.run_id for r in list_runs()] == ["d3", "d2", "d1"]
    assert [r.run_id for r in list_runs(limit=2)] == ["d3", "d2"]
    assert [r.run_id for r in list_runs(model="m/b")] == ["d2"]
    assert resolve_run("d2").status == "interrupted"


def test_list_runs_unreadable_folder_is_skipped(make_run, toolgrade_home: Path) -> None:
    _folder(make_run(ROWS, run_id="good", status="interrupted"))
    broken = toolgrade_home / "runs" / "broken"
    broken.mkdir()
    (broken / "run.json").write_text("{not json", encoding="utf-8")
    (toolgrade_home / "runs" / "stray").mkdir()  # no run.json: not a run folder
    assert [r.run_id for r in list_runs()] == ["good"]


def test_list_runs_finished_run_whose_save_failed_is_listed_with_the_save_command(
    make_run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that could not be saved was missing from `runs list` (its folder says complete)."""
    from toolgrade.errors import SaveError
    from toolgrade.store import _save

    save_run(make_run(ROWS, run_id="20260101-saved", started_at=datetime(2026, 1, 1, tzinfo=UTC)))
    run = make_run(ROWS, run_id="20260102-unsaved", started_at=datetime(2026, 1, 2, tzinfo=UTC))
    folder = _folder(run, case_ids=("TC-001", "TC-002", "TC-003"))

    def disk_full(*args: object, **kwargs: object) -> None:
        raise _save.StoreError("database or disk is full")

    with monkeypatch.context() as patch, pytest.raises(SaveError):
        patch.setattr(_save, "_write", disk_full)
        save_run(run)
    first, second = list_runs()
    assert (first.run_id, first.status, first.saved) == ("20260102-unsaved", "complete", False)
    assert first.resume is None
    assert first.save == f"toolgrade runs import {folder.path}"
    assert first.to_dict()["save"] == first.save
    assert (second.run_id, second.saved, second.save) == ("20260101-saved", True, None)
    # Saving it later (what the command does) takes it off the unsaved list.
    save_run(run)
    assert [(r.run_id, r.saved) for r in list_runs()] == [
        ("20260102-unsaved", True),
        ("20260101-saved", True),
    ]
    assert not (folder.path / "not-saved.txt").exists()


def test_list_runs_process_killed_while_saving_leaves_the_run_listed(
    make_run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mark is written before saving starts: a process stopped mid-save is covered."""
    from toolgrade.store import _save

    run = make_run(ROWS, run_id="20260102-killed")
    _folder(run)

    def stopped(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_save, "_write", stopped)
    with pytest.raises(KeyboardInterrupt):
        save_run(run)
    (summary,) = list_runs()
    assert (summary.run_id, summary.status, summary.saved) == ("20260102-killed", "complete", False)
    assert summary.save is not None and summary.save.startswith("toolgrade runs import ")
