"""BFCL result files -> toolgrade responses, and the CLI around the BFCL import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
from toolgrade.bfcl._results import convert_result
from toolgrade.cli import app
from toolgrade.errors import InputError

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "bfcl" / "fixture"


def test_bfcl_result_prompting_text_becomes_output() -> None:
    line = convert_result("simple_python_0", "[calc.area(base=10, height=5.0)]", 1.5)
    assert line.output == "[calc.area(base=10, height=5.0)]"
    assert line.message is None and line.latency_ms == 1500.0


def test_bfcl_result_function_calls_become_message() -> None:
    line = convert_result("parallel_0", [{"get_weather": '{"city": "Paris"}'}, {"f": {"a": 1}}])
    assert line.message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            },
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "f", "arguments": '{"a": 1}'},
            },
        ],
    }
    empty = convert_result("x", [])
    assert empty.message == {"role": "assistant", "content": ""}


def test_bfcl_result_multi_turn_is_rejected() -> None:
    with pytest.raises(ValueError, match="multi-turn"):
        convert_result("multi_turn_base_0", [[{"f": "{}"}], [{"g": "{}"}]])


def test_bfcl_result_file_bad_line_names_line(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"id": "a", "result": "x"}\n{"result": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 2"):
        toolgrade.convert_bfcl_results(path)


def test_cli_import_bfcl_lists_categories_with_sizes() -> None:
    result = CliRunner().invoke(app, ["import", "bfcl", "--data-dir", str(FIXTURE)])
    assert result.exit_code == 0, result.output
    rows = dict(line.split() for line in result.output.splitlines())
    assert rows["simple_python"] == "2" and rows["live_multiple"] == "missing"
    listed = CliRunner().invoke(app, ["import", "bfcl", "--data-dir", str(FIXTURE), "--json"])
    assert {"category": "parallel", "entries": 1} in json.loads(listed.output)


def test_cli_import_bfcl_out_of_scope_exits_2() -> None:
    args = ["import", "bfcl", "-c", "web_search_base", "-o", "x.json", "--data-dir", str(FIXTURE)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "out of scope" in result.output


def test_cli_import_bfcl_needs_out() -> None:
    result = CliRunner().invoke(
        app, ["import", "bfcl", "-c", "parallel", "--data-dir", str(FIXTURE)]
    )
    assert result.exit_code == 2 and "--out" in result.output


def test_cli_bfcl_import_then_evaluate_with_bfcl_profile(tmp_path: Path) -> None:
    suite_path, results, responses = tmp_path / "s.json", tmp_path / "r.json", tmp_path / "r.jsonl"
    runner = CliRunner()
    args = ["import", "bfcl", "-c", "simple_python", "-c", "parallel", "-c", "irrelevance"]
    imported = runner.invoke(app, [*args, "--data-dir", str(FIXTURE), "-o", str(suite_path)])
    assert imported.exit_code == 0, imported.output
    assert "4 cases, 4 function docs" in imported.output
    rows = [
        # BFCL's checker: passes (int given for a float).
        {"id": "simple_python_0", "result": "[calc.area(base=10, height=5)]"},
        # calc.area again, another entry's doc of that name, function-calling style: passes.
        {"id": "simple_python_1", "result": [{"calc_area": '{"side": 3}'}]},
        # Greedy pairing is not triggered here; any order passes.
        {"id": "parallel_0", "result": "[get_weather(city='london'), get_weather(city='Paris')]"},
        {"id": "irrelevance_0", "result": "Why did the chicken cross the road?"},
    ]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    converted = runner.invoke(app, ["import", "bfcl-results", str(results), "-o", str(responses)])
    assert converted.exit_code == 0, converted.output
    run = runner.invoke(
        app,
        [
            "evaluate",
            "--suite",
            str(suite_path),
            "--responses",
            str(responses),
            "--profile",
            "bfcl",
            "-q",
        ],
    )
    assert run.exit_code == 0, run.output
    (summary,) = toolgrade.list_runs(limit=1)
    stored = toolgrade.load_run_folder(summary.run_id)
    assert stored.profile == "bfcl"
    statuses = {r.case_id: r.status.value for r in stored.results}
    assert statuses == {
        "simple_python_0": "correct",
        "simple_python_1": "correct",
        "parallel_0": "correct",
        "irrelevance_0": "correct",
    }


def test_cli_bfcl_import_evaluate_default_profile_offers_each_case_its_docs(
    tmp_path: Path,
) -> None:
    suite_path, responses = tmp_path / "s.json", tmp_path / "r.jsonl"
    runner = CliRunner()
    args = ["import", "bfcl", "-c", "simple_python", "--data-dir", str(FIXTURE)]
    assert runner.invoke(app, [*args, "-o", str(suite_path)]).exit_code == 0
    # Both entries call BFCL's name calc.area, each with the arguments of its own doc;
    # the default profile extracts only calls of the tools the case offers.
    outputs = {
        "simple_python_0": "[calc.area(base=10, height=5.0)]",
        "simple_python_1": "[calc.area(side=3)]",
    }
    responses.write_text(
        "".join(json.dumps({"case_id": k, "output": v}) + "\n" for k, v in outputs.items()),
        encoding="utf-8",
    )
    run = runner.invoke(
        app, ["evaluate", "--suite", str(suite_path), "--responses", str(responses), "-q"]
    )
    assert run.exit_code == 0, run.output
    (summary,) = toolgrade.list_runs(limit=1)
    stored = toolgrade.load_run_folder(summary.run_id)
    assert stored.profile == "default"
    assert {r.case_id: r.status.value for r in stored.results} == {
        "simple_python_0": "correct",
        "simple_python_1": "correct",
    }
