"""I/O failures end in one line and exit code 2; outputs are written whole or not at all."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from toolgrade.cli import app
from toolgrade.store import save_run

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "examples" / "sample-responses.jsonl"
EVALUATE = ["evaluate", "--suite", "coding-agent", "--responses", str(SAMPLES), "--quiet"]

runner = CliRunner()


def _full_disk(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def _one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), stderr
    return lines[0]


@pytest.mark.parametrize(
    ("code", "reason", "hint"),
    [
        (errno.ENOSPC, "No space left on device", "free some space"),
        (errno.EACCES, "Permission denied", "permission"),
        (errno.EROFS, "Read-only file system", "writable"),
        (errno.EIO, "Input/output error", ""),
    ],
    ids=["enospc", "eacces", "erofs", "other"],
)
def test_app_os_error_is_one_line_with_path_and_exit_2(
    code: int, reason: str, hint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(**kwargs: object) -> None:
        raise OSError(code, reason, "/data/toolgrade/runs")

    monkeypatch.setattr("toolgrade.cli._runs.list_runs", failing)
    result = runner.invoke(app, ["runs", "list"])
    assert result.exit_code == 2
    line = _one_error_line(result.stderr)
    assert line.startswith(f"error: /data/toolgrade/runs: cannot access: {reason}")
    assert hint in line


@pytest.fixture
def stored(make_run) -> str:
    save_run(make_run([{"case_id": "TC-001", "status": "correct"}], run_id="20260101-exp"))
    return "20260101-exp"


def test_runs_export_full_disk_leaves_no_partial_file(
    stored: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out" / "run.json"
    out.parent.mkdir()
    # A full disk usually shows when the data is flushed to it.
    monkeypatch.setattr(os, "fsync", _full_disk)
    result = runner.invoke(app, ["runs", "export", stored, "-o", str(out)])
    assert result.exit_code == 2
    line = _one_error_line(result.stderr)
    assert str(out) in line and "No space left on device" in line
    assert list(out.parent.iterdir()) == []  # neither the file nor a temporary one


def test_runs_export_failure_keeps_the_previous_file(
    stored: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run.json"
    out.write_text("previous export\n")
    monkeypatch.setattr(os, "fsync", _full_disk)
    assert runner.invoke(app, ["runs", "export", stored, "-o", str(out)]).exit_code == 2
    assert out.read_text() == "previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json", "toolgrade-home"]


def test_runs_export_permission_denied_names_the_file_not_a_temporary_one(
    stored: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open

    def denied(path: Any, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
        if Path(path).parent == tmp_path:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, mode, **kwargs)

    monkeypatch.setattr(os, "open", denied)
    out = tmp_path / "run.json"
    result = runner.invoke(app, ["runs", "export", stored, "-o", str(out)])
    assert result.exit_code == 2
    line = _one_error_line(result.stderr)
    assert line.startswith(f"error: {out}: cannot write the export: Permission denied")
    assert ".tmp" not in line


def test_report_file_full_disk_leaves_no_partial_file(
    stored: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "fsync", _full_disk)
    out = tmp_path / "reports" / "r.json"
    result = runner.invoke(app, ["report", stored, "--format", "json", "-o", str(out)])
    assert result.exit_code == 2
    assert "No space left on device" in _one_error_line(result.stderr)
    assert list(out.parent.iterdir()) == []


def test_run_full_disk_at_start_leaves_no_run_folder(
    toolgrade_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "fsync", _full_disk)
    result = runner.invoke(app, [*EVALUATE, "--limit", "3"])
    assert result.exit_code == 2
    line = _one_error_line(result.stderr)
    assert "No space left on device" in line and "run.json" in line
    assert "--resume" not in line  # nothing was started
    runs = toolgrade_home / "runs"
    assert not runs.exists() or list(runs.iterdir()) == []


class _FillingFile:
    """A results file on a disk that fills up after `room` lines."""

    def __init__(self, handle: Any, room: int) -> None:
        self._handle = handle
        self._room = room

    def write(self, text: str) -> int:
        if self._room <= 0:
            self._handle.write(text[: len(text) // 2])  # a torn line, as a real disk leaves
            self._handle.flush()
            raise OSError(errno.ENOSPC, "No space left on device")
        self._room -= 1
        return int(self._handle.write(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)


def test_run_full_disk_mid_run_is_one_line_with_the_resume_command(
    toolgrade_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = Path.open

    def filling_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        handle = real_open(self, *args, **kwargs)
        return _FillingFile(handle, room=2) if self.name == "results.jsonl" else handle

    monkeypatch.setattr(Path, "open", filling_open)
    result = runner.invoke(app, [*EVALUATE, "--limit", "6", "--concurrency", "1"])
    monkeypatch.undo()
    assert result.exit_code == 2, result.output
    line = _one_error_line(result.stderr)
    [folder] = (toolgrade_home / "runs").iterdir()
    assert "results.jsonl" in line and "No space left on device" in line
    assert f"`toolgrade run --resume {folder.name}`" in line
    # The two results written are kept; the torn third line is dropped on reading.
    manifest = json.loads((folder / "run.json").read_text())
    assert manifest["run"]["status"] == "running"
    assert not (folder / "run.lock").exists()  # the lock went with the process's folder


def test_every_boolean_flag_shows_no_metavar_in_help() -> None:
    command = typer.main.get_command(app)
    seen: list[str] = []

    def walk(cmd: Any, path: list[str]) -> None:
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, (path, result.output)
        assert "<bool>" not in result.output, (path, result.output)
        assert "--help" in result.output
        seen.append(" ".join(path))
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            walk(sub, [*path, name])

    walk(command, [])
    assert {"", "runs list", "run", "evaluate", "runs import"} <= set(seen)
    # Options that take a value still show their type.
    listing = runner.invoke(app, ["runs", "list", "--help"], env={"COLUMNS": "200"}).output
    assert "<int range>" in listing and "<path>" in listing
