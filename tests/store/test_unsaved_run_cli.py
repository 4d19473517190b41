"""The trial: a run whose save failed (exit 2) was then missing from `toolgrade runs list`."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from toolgrade.cli import app

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "examples" / "sample-responses.jsonl"
EVALUATE = ["evaluate", "--suite", "coding-agent", "--responses", str(SAMPLES), "--quiet"]

runner = CliRunner()


def test_cli_runs_list_shows_a_run_that_could_not_be_saved(toolgrade_home: Path) -> None:
    # A folder where the database should be: no process (root included) can open it.
    (toolgrade_home / "toolgrade.db").mkdir(parents=True)
    failed = runner.invoke(app, [*EVALUATE, "--limit", "3"])
    assert failed.exit_code == 2, failed.output
    assert "was not saved" in failed.stderr
    [folder] = (toolgrade_home / "runs").iterdir()

    (toolgrade_home / "toolgrade.db").rmdir()
    listed = runner.invoke(app, ["runs", "list"])
    assert listed.exit_code == 0, listed.output
    [row] = [line for line in listed.stdout.splitlines() if line.startswith(folder.name)]
    assert "3/3" in row and "complete (not saved)" in row
    assert listed.stdout.endswith(
        f"\nsave a finished run that is not in the history with: toolgrade runs import {folder}\n"
    )
    [data] = json.loads(runner.invoke(app, ["runs", "list", "--json"]).stdout)
    assert (data["status"], data["saved"], data["resume"]) == ("complete", False, None)
    assert data["save"] == f"toolgrade runs import {folder}"

    imported = runner.invoke(app, ["runs", "import", str(folder)])
    assert imported.exit_code == 0, imported.output
    [data] = json.loads(runner.invoke(app, ["runs", "list", "--json"]).stdout)
    assert (data["saved"], data["save"]) == (True, None)
