"""`toolgrade suite check` and `suite show` on suites with conversations (CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from toolgrade.cli._app import app

runner = CliRunner()
READ = {"name": "read_file", "arguments": {"path": "a.txt"}}


def _write_suite(folder: Path, reference_path: str = "a.txt", *, reference: bool = True) -> Path:
    conversation: dict[str, Any] = {
        "id": "C-1",
        "environment": "ws",
        "initial_state": {"files": {"a.txt": "hello"}},
        "turns": [{"user": "Read a.txt", "expected": [READ]}],
    }
    if reference:
        call = {"name": "read_file", "arguments": {"path": reference_path}}
        conversation["reference"] = [{"calls": [call], "reply": "hello"}]
    data = {
        "schema_version": 2,
        "name": "tiny",
        "tools": [
            {
                "name": "read_file",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            }
        ],
        "environments": {
            "ws": {"kind": "python", "class": "toolgrade.environments._workspace:Workspace"}
        },
        "cases": [conversation],
    }
    path = folder / "tiny.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_cli_suite_check_builtin_multiturn_is_ok() -> None:
    result = runner.invoke(app, ["suite", "check", "coding-agent-multiturn"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok: coding-agent-multiturn (")
    assert "conversations replayed" in result.output


def test_cli_suite_check_broken_reference_is_refused_with_exit_2(tmp_path: Path) -> None:
    path = _write_suite(tmp_path, reference_path="b.txt")
    result = runner.invoke(app, ["suite", "check", str(path)])
    assert result.exit_code == 2
    assert f"refused: {path} (1 problem)" in result.output
    assert "case C-1: the reference fails its own checks: turn 1" in result.output


def test_cli_suite_check_json_lists_problems(tmp_path: Path) -> None:
    path = _write_suite(tmp_path, reference_path="b.txt")
    result = runner.invoke(app, ["suite", "check", str(path), "coding-agent", "--json"])
    assert result.exit_code == 2
    broken, single = json.loads(result.output)
    assert broken["ok"] is False and broken["problems"][0]["kind"] == "reference_fails"
    assert single == {"source": "coding-agent", "ok": True, "conversations": 0, "problems": []}


def test_cli_suite_check_missing_reference_warns_but_passes(tmp_path: Path) -> None:
    path = _write_suite(tmp_path, reference=False)
    result = runner.invoke(app, ["suite", "check", str(path)])
    assert result.exit_code == 0
    assert "warning: case C-1: has no reference" in result.output


def test_cli_suite_check_invalid_suite_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"schema_version": 2, "name": "x", "cases": [{"id": "c"}]}', "utf-8")
    result = runner.invoke(app, ["suite", "check", str(path)])
    assert result.exit_code == 2 and result.output.startswith(f"refused: {path}")


def test_cli_suite_show_lists_conversations_with_their_turns() -> None:
    args = ["suite", "show", "coding-agent-multiturn", "--cases", "--id", "MT-LONG-01"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "MT-LONG-01  long/hard" in result.output and "[9 turns] What's in this" in result.output
    rows = json.loads(runner.invoke(app, [*args, "--json"]).output)["case_list"]
    assert rows[0]["id"] == "MT-LONG-01" and rows[0]["prompt"].startswith("[9 turns]")
