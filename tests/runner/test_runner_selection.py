"""Runs of a selection (--limit, --id, --tag, ...) resume and re-score against the whole suite."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toolgrade
from runner.fakeserver import FakeServer, Step
from toolgrade.cli import app

CASES: list[dict[str, Any]] = [
    {"id": "S-00", "tags": ["git"], "category": "simple", "difficulty": "easy"},
    {"id": "S-01", "tags": ["git", "fs"], "category": "simple", "difficulty": "hard"},
    {"id": "S-02", "tags": ["fs"], "category": "edge", "difficulty": "medium"},
    {"id": "S-03", "tags": ["fs"], "category": "edge", "difficulty": "hard"},
    {"id": "S-10", "tags": ["git"], "category": "complex", "difficulty": "easy"},
    {"id": "S-11", "tags": ["git", "fs"], "category": "complex", "difficulty": "hard"},
    {"id": "S-12", "tags": [], "category": "edge", "difficulty": "easy"},
    {"id": "S-13", "tags": ["fs"], "category": "simple", "difficulty": "medium"},
]

SELECTIONS: dict[str, list[str]] = {
    "limit": ["--limit", "3"],
    "id": ["--id", "S-1*"],
    "tag": ["--tag", "git"],
    "all-tags": ["--tag", "git", "--tag", "fs", "--all-tags"],
    "category": ["--category", "edge"],
    "difficulty": ["--difficulty", "hard"],
    "sample": ["--sample", "3", "--seed", "5"],
    "combined": ["--tag", "fs", "--difficulty", "hard", "--limit", "2"],
}


def _suite_data() -> dict[str, Any]:
    return {
        "schema_version": 1,
        "name": "picky",
        "tools": [
            {
                "name": "read_file",
                "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}},
            }
        ],
        "cases": [
            {
                **case,
                "prompt": f"read number {i}",
                "expected": {"name": "read_file", "arguments": {"n": i}},
            }
            for i, case in enumerate(CASES)
        ],
    }


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _script() -> dict[str, list[Step]]:
    return {
        f"read number {i}": [Step(calls=[{"name": "read_file", "arguments": {"n": i}}])]
        for i in range(len(CASES))
    }


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def _cut_to_first_result(home: Path, run_id: str) -> None:
    results = home / "runs" / run_id / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(lines[0])


@pytest.mark.parametrize("how", sorted(SELECTIONS))
def test_resume_run_of_a_selection_finishes_it(
    how: str, tmp_path: Path, toolgrade_home: Path
) -> None:
    suite_file = _write(tmp_path / "suite.json", _suite_data())
    with FakeServer(_script()) as server:
        done = _cli(
            "run", "--suite", str(suite_file), "--model", "openai/m",
            "--base-url", server.openai_url, "--quiet", *SELECTIONS[how],
        )  # fmt: skip
        assert done.exit_code == 0, done.output
        run_id = toolgrade.list_runs()[0].run_id
        selected = [r.case_id for r in toolgrade.load_run_folder(run_id).results]
        assert 1 < len(selected) < len(CASES)
        _cut_to_first_result(toolgrade_home, run_id)
        resumed = _cli("run", "--resume", run_id, "--quiet")
    assert resumed.exit_code == 0, resumed.output
    run = toolgrade.load_run_folder(run_id)
    assert run.status == "complete"
    assert [r.case_id for r in run.results] == selected
    assert all(r.status == toolgrade.Status.CORRECT for r in run.results)


def test_resume_of_a_selection_refused_when_a_selected_case_changed(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    data = _suite_data()
    suite_file = _write(tmp_path / "suite.json", data)
    with FakeServer(_script()) as server:
        options = toolgrade.RunOptions(base_url=server.openai_url, suite_source=str(suite_file))
        chosen = toolgrade.select_cases(
            toolgrade.load_suite(suite_file), toolgrade.Selection(limit=3)
        )
        run = toolgrade.run_suite(chosen, "openai/m", options=options, handle_signals=False)
        _cut_to_first_result(toolgrade_home, run.run_id)
        data["cases"][7]["prompt"] = "an unselected case changed"
        _write(suite_file, data)
        assert toolgrade.resume_run(run.run_id, handle_signals=False).status == "complete"
        _cut_to_first_result(toolgrade_home, run.run_id)
        data["cases"][1]["prompt"] = "a selected case changed"
        _write(suite_file, data)
        with pytest.raises(toolgrade.ConfigError, match=r"suite changed .* for the same cases"):
            toolgrade.resume_run(run.run_id, handle_signals=False)


def test_resume_refused_when_a_case_of_the_run_is_gone(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    data = _suite_data()
    suite_file = _write(tmp_path / "suite.json", data)
    with FakeServer(_script()) as server:
        done = _cli(
            "run", "--suite", str(suite_file), "--model", "openai/m",
            "--base-url", server.openai_url, "--quiet", "--id", "S-0*",
        )  # fmt: skip
        assert done.exit_code == 0, done.output
    run_id = toolgrade.list_runs()[0].run_id
    _cut_to_first_result(toolgrade_home, run_id)
    data["cases"] = [c for c in data["cases"] if c["id"] != "S-02"]
    _write(suite_file, data)
    resumed = _cli("run", "--resume", run_id)
    assert resumed.exit_code == 2
    assert "suite changed" in resumed.output and "S-02" in resumed.output


def _responses(path: Path) -> Path:
    # The arguments as strings: right under the default profile, wrong under bfcl.
    lines = [
        {
            "case_id": c["id"],
            "output": json.dumps({"name": "read_file", "arguments": {"n": str(i)}}),
        }
        for i, c in enumerate(CASES)
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("how", sorted(SELECTIONS))
def test_rescore_run_of_a_selection_with_another_profile(
    how: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    suite_file = _write(tmp_path / "suite.json", _suite_data())
    responses = _responses(tmp_path / "r.jsonl")
    done = _cli(
        "evaluate", "--suite", str(suite_file), "--responses", str(responses),
        "--label", "picked", "--quiet", *SELECTIONS[how],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    run = toolgrade.resolve_run("picked")
    assert all(r.status == toolgrade.Status.CORRECT for r in run.results)
    with caplog.at_level(logging.WARNING, logger="toolgrade.runner"):
        strict = toolgrade.rescore_run(run, toolgrade.load_suite(suite_file), profile="bfcl")
    assert not [r for r in caplog.records if "differs" in r.getMessage()]
    assert strict.profile == "bfcl"
    assert [r.case_id for r in strict.results] == [r.case_id for r in run.results]
    assert all(r.status == toolgrade.Status.WRONG_ARGS for r in strict.results)
    shown = _cli("report", "picked", "--suite", str(suite_file), "--profile", "bfcl")
    assert shown.exit_code == 0, shown.output
    assert f"Failed: {len(run.results)}" in shown.output


def test_rescore_still_warns_when_the_selected_cases_changed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data = _suite_data()
    suite_file = _write(tmp_path / "suite.json", data)
    responses = _responses(tmp_path / "r.jsonl")
    done = _cli(
        "evaluate", "--suite", str(suite_file), "--responses", str(responses),
        "--label", "picked", "--quiet", "--limit", "2",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    data["cases"][0]["prompt"] = "changed"
    with caplog.at_level(logging.WARNING, logger="toolgrade.runner"):
        toolgrade.rescore_run(
            toolgrade.resolve_run("picked"), toolgrade.Suite.model_validate(data), profile="bfcl"
        )
    assert [r for r in caplog.records if "differs" in r.getMessage()]
