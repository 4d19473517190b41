"""A run that cannot be saved fails loudly; `runs import` saves it later; one writer per run."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.cli import app
from toolgrade.store import db_path, get_run, list_runs, save_run

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "examples" / "sample-responses.jsonl"
EVALUATE = ["evaluate", "--suite", "coding-agent", "--responses", str(SAMPLES), "--quiet"]

runner = CliRunner()


@pytest.fixture(autouse=True)
def short_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wait 0.5 s for a locked database instead of 30 s."""
    monkeypatch.setattr("toolgrade.store._save.SAVE_WAIT", 0.5)


@pytest.fixture
def locked(make_run) -> Iterator[sqlite3.Connection]:
    save_run(make_run([{"case_id": "TC-001", "status": "correct"}], run_id="20250101-old"))
    holder = sqlite3.connect(db_path(), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    yield holder
    holder.close()


def _only_folder(home: Path) -> Path:
    [folder] = (home / "runs").iterdir()
    return folder


def test_evaluate_locked_database_exits_2_with_the_import_command(
    locked: sqlite3.Connection, toolgrade_home: Path
) -> None:
    result = runner.invoke(app, [*EVALUATE, "--limit", "3", "--label", "nightly"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    folder = _only_folder(toolgrade_home)
    assert "was not saved" in lines[0] and "locked" in lines[0]
    assert f"`toolgrade runs import {folder}`" in lines[0]
    locked.execute("ROLLBACK")
    # The command given saves it, label included.
    imported = runner.invoke(app, ["runs", "import", str(folder)])
    assert imported.exit_code == 0, imported.output
    assert imported.output == f"imported {folder.name} (3 results) [nightly]\n"
    assert get_run("nightly").run_id == folder.name


def test_evaluate_corrupt_database_exits_2(toolgrade_home: Path) -> None:
    toolgrade_home.mkdir()
    db_path().write_bytes(b"\x00garbage" * 500)
    result = runner.invoke(app, [*EVALUATE, "--limit", "2"])
    assert result.exit_code == 2
    assert "not a database" in result.stderr and "toolgrade runs import" in result.stderr


def test_runs_import_many_folders_is_idempotent_and_keeps_labels(toolgrade_home: Path) -> None:
    for label in ("a", "b"):
        assert runner.invoke(app, [*EVALUATE, "--limit", "2", "--label", label]).exit_code == 0
    db_path().unlink()  # the history is lost; the run folders are not
    folders = sorted(str(p) for p in (toolgrade_home / "runs").iterdir())
    for _ in range(2):
        result = runner.invoke(app, ["runs", "import", *folders, "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        # Run ids made in the same second order by their random part: compare as sets.
        assert sorted(r["tags"] for r in data["imported"]) == [["a"], ["b"]]
        assert data["failed"] == []
    assert sorted(r.tags for r in list_runs()) == [("a",), ("b",)]


def test_runs_import_bad_folder_exits_2_after_importing_the_others(
    toolgrade_home: Path,
) -> None:
    assert runner.invoke(app, [*EVALUATE, "--limit", "2"]).exit_code == 0
    db_path().unlink()
    good = _only_folder(toolgrade_home)
    result = runner.invoke(app, ["runs", "import", str(toolgrade_home / "nope"), str(good)])
    assert result.exit_code == 2
    assert "no run folder" in result.stderr
    assert result.stdout.startswith(f"imported {good.name}")
    assert [r.run_id for r in list_runs()] == [good.name]


_HOLDER = """
import sys
from toolgrade.store import lock_run_folder
with lock_run_folder(sys.argv[1]):
    print("locked", flush=True)
    sys.stdin.read()
"""


def test_resume_while_another_process_writes_the_run_is_refused(toolgrade_home: Path) -> None:
    assert runner.invoke(app, [*EVALUATE, "--limit", "2"]).exit_code == 0
    folder = _only_folder(toolgrade_home)
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        result = runner.invoke(app, ["run", "--resume", folder.name, "--quiet"])
        assert result.exit_code == 2, result.output
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and f"pid {holder.pid}" in lines[0], result.stderr
    finally:
        holder.communicate(timeout=30)
    assert runner.invoke(app, ["run", "--resume", folder.name, "--quiet"]).exit_code == 0
