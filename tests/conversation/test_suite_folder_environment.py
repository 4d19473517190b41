"""A Python environment next to a suite is found wherever the suite is loaded from a path.

`load_suite(path)` records the suite's folder, so `run_suite`, re-judging a stored run
(`report RUN --suite PATH`) and the pytest plugin find `module.py` beside the suite
without being told the folder again; a built-in or in-memory suite finds installed
modules only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
from toolgrade.cli import app

ENV = """
class Tally:
    def __init__(self, total=0):
        self.total = total

    def add(self, n):
        self.total += n
        return {"total": self.total}
"""


def _suite_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "tally_env.py").write_text(ENV, encoding="utf-8")
    suite = {
        "schema_version": 2,
        "name": "tally",
        "tools": [
            {
                "name": "add",
                "parameters": {
                    "type": "object",
                    "properties": {"n": {"type": "integer"}},
                    "required": ["n"],
                },
            }
        ],
        "environments": {"tally": {"kind": "python", "class": "tally_env:Tally"}},
        "cases": [
            {
                "id": "T-1",
                "environment": "tally",
                "initial_state": {"total": 1},
                "turns": [{"user": "Add 2.", "expected": {"name": "add", "arguments": {"n": 2}}}],
                "checks": {"final_state": {"state": {"total": 3}}},
            }
        ],
    }
    path = folder / "suite.json"
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def _responses(tmp_path: Path) -> Path:
    lines = [
        {
            "case_id": "T-1",
            "turn": 0,
            "step": 0,
            "output": '{"name": "add", "arguments": {"n": 2}}',
        },
        {"case_id": "T-1", "turn": 0, "step": 1, "output": "The total is 3."},
    ]
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_loaded_suite_finds_its_environment_and_a_stored_run_is_judged_again(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    suite = toolgrade.load_suite(_suite_folder(tmp_path))
    assert suite.source_dir == tmp_path / "suite"
    options = toolgrade.RunOptions(warmup=False)
    run = toolgrade.run_suite(suite, f"replay/{_responses(tmp_path)}", options=options)
    (result,) = run.results
    assert result.status == "correct", result.error
    assert result.conversation is not None and result.conversation.final_state == {"total": 3}
    path = str(tmp_path / "suite" / "suite.json")
    report = CliRunner().invoke(app, ["report", run.run_id, "--suite", path, "--format", "json"])
    assert report.exit_code == 0, report.output
    (case,) = json.loads(report.output)["cases"]
    assert case["status"] == "correct", case.get("error")


def test_an_in_memory_suite_does_not_look_in_any_folder(tmp_path: Path) -> None:
    loaded = toolgrade.load_suite(_suite_folder(tmp_path))
    suite = toolgrade.Suite.model_validate(loaded.to_dict())
    assert suite.source_dir is None
    options = toolgrade.RunOptions(warmup=False, persist=False)
    # The environment cannot be loaded: the run stops before it starts (the suite's fault).
    with pytest.raises(toolgrade.SuiteError, match="no module 'tally_env'"):
        toolgrade.run_suite(suite, f"replay/{_responses(tmp_path)}", options=options)
