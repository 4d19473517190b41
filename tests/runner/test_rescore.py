"""rescore_run and `toolgrade report --profile/--rubric/--suite`: new verdicts, no model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
from toolgrade.cli import app

SAMPLES = Path(__file__).parents[2] / "examples" / "sample-responses.jsonl"


def _suite(tmp_path: Path) -> tuple[toolgrade.Suite, Path]:
    tool = {
        "name": "set_limit",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    }
    cases = [
        {
            "id": "a",
            "prompt": "Set the limit to 5",
            "expected": {"name": "set_limit", "arguments": {"n": 5}},
        },
        {
            "id": "b",
            "prompt": "Set the limit to 7",
            "expected": {"name": "set_limit", "arguments": {"n": 7}},
        },
        {
            "id": "c",
            "prompt": "Set the limit to 9",
            "expected": {"name": "set_limit", "arguments": {"n": 9}},
        },
        {
            "id": "d",
            "prompt": "Set the limit to 3",
            "expected": {"name": "set_limit", "arguments": {"n": 3}},
        },
    ]
    path = tmp_path / "suite.json"
    path.write_text(
        json.dumps({"schema_version": 1, "name": "limits", "tools": [tool], "cases": cases}),
        "utf-8",
    )
    responses = tmp_path / "r.jsonl"
    lines = [
        {
            "case_id": "a",
            "output": '<tool_call>{"name": "set_limit", "arguments": {"n": "5"}}</tool_call>',
        },
        {
            "case_id": "b",
            "output": '<tool_call>{"name": "set_limit", "arguments": {"n": 7}}</tool_call>',
        },
        {"case_id": "c", "error": "server fell over"},
        {
            "case_id": "d",
            "output": '<tool_call>{"name": "set_limit", "arguments": {"n": 4}}</tool_call>',
        },
    ]
    responses.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return toolgrade.load_suite(path), responses


def _run(suite: toolgrade.Suite, responses: Path) -> toolgrade.RunResult:
    options = toolgrade.RunOptions(persist=False)
    return toolgrade.run_suite(suite, f"replay/{responses}", options=options, progress="none")


def test_rescore_same_profile_reproduces_verdicts() -> None:
    suite = toolgrade.load_suite("coding-agent")
    run = _run(suite, SAMPLES)
    again = toolgrade.rescore_run(run, suite)
    assert [(r.case_id, r.status, r.score) for r in again.results] == [
        (r.case_id, r.status, r.score) for r in run.results
    ]


def test_rescore_bfcl_profile_changes_schema_coerced_verdict(tmp_path: Path) -> None:
    suite, responses = _suite(tmp_path)
    run = _run(suite, responses)
    by_id = {r.case_id: r for r in run.results}
    assert (
        by_id["a"].status is toolgrade.Status.CORRECT
    )  # "5" equals 5 where the schema says integer
    strict = {r.case_id: r for r in toolgrade.rescore_run(run, suite, profile="bfcl").results}
    assert strict["a"].status is toolgrade.Status.WRONG_ARGS  # BFCL: a string is not an int
    assert strict["b"].status is toolgrade.Status.CORRECT
    assert strict["c"] == by_id["c"]  # unscored results are kept as they were
    assert strict["a"].raw_response == by_id["a"].raw_response
    assert strict["a"].latency_ms == by_id["a"].latency_ms


def test_rescore_rubric_override_changes_scores(tmp_path: Path) -> None:
    suite, responses = _suite(tmp_path)
    run = _run(suite, responses)
    binary = toolgrade.rescore_run(run, suite, rubric="binary")
    assert binary.rubric == "binary" and binary.profile == "default"
    assert {r.case_id: r.score for r in run.results}["d"] == 0.5  # partial: right tool, wrong value
    assert {r.case_id: r.score for r in binary.results}["d"] == 0.0


def test_rescore_case_missing_from_suite_names_it(tmp_path: Path) -> None:
    suite, responses = _suite(tmp_path)
    run = _run(suite, responses)
    smaller = toolgrade.select_cases(suite, toolgrade.Selection(ids=("a",)))
    with pytest.raises(
        toolgrade.InputError, match=r"3 case\(s\) of run .* are not in the suite: b, c, d"
    ):
        toolgrade.rescore_run(run, smaller)


def test_cli_report_profile_rejudges_stored_run(tmp_path: Path) -> None:
    suite_path = tmp_path / "suite.json"
    _, responses = _suite(tmp_path)
    runner = CliRunner()
    done = runner.invoke(
        app,
        [
            "evaluate",
            "--suite",
            str(suite_path),
            "--responses",
            str(responses),
            "--label",
            "r1",
            "--quiet",
        ],
    )
    assert done.exit_code == 0, done.output
    plain = runner.invoke(app, ["report", "r1", "--suite", str(suite_path)])
    assert "Passed: 2" in plain.output and "Failed: 1" in plain.output
    strict = runner.invoke(app, ["report", "r1", "--suite", str(suite_path), "--profile", "bfcl"])
    assert strict.exit_code == 0, strict.output
    assert "Passed: 1" in strict.output
    missing = runner.invoke(app, ["report", "r1", "--profile", "bfcl"])
    assert missing.exit_code == 2
    assert "limits: no such suite file, directory or built-in suite" in missing.output
