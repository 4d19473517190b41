"""`toolgrade run`, `evaluate` and `doctor` through the command line."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
from runner import scripted
from runner.fakeserver import FakeServer, Step
from toolgrade.cli import app

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "examples" / "sample-responses.jsonl"
PROBE = "What is the weather in Paris right now? Use the tool."


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cli(*args: str) -> object:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    return scripted.write_suite(tmp_path / "suite.json")


def test_cli_run_against_server_writes_reports(suite_file: Path, tmp_path: Path) -> None:
    _, script, _ = scripted.load()
    junit = tmp_path / "out.xml"
    report = tmp_path / "out.json"
    with FakeServer(script) as server:
        result = _cli(
            "run", "--suite", str(suite_file), "--model", "openai/test-model",
            "--base-url", server.openai_url, "--id", "R-structured", "--id", "R-hermes",
            "--junit", str(junit), "--report", f"json={report}", "--label", "nightly",
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Accuracy" in result.output
    assert junit.read_text(encoding="utf-8").startswith("<?xml")
    assert json.loads(report.read_text(encoding="utf-8"))
    run = toolgrade.resolve_run("nightly")
    assert [r.case_id for r in run.results] == ["R-structured", "R-hermes"]
    assert run.selection["ids"] == ["R-structured", "R-hermes"]


def test_cli_run_quiet_prints_nothing(suite_file: Path) -> None:
    _, script, _ = scripted.load()
    with FakeServer(script) as server:
        result = _cli(
            "run", "--suite", str(suite_file), "--model", "ollama/test-model",
            "--base-url", server.ollama_url, "--limit", "2", "--quiet",
        )  # fmt: skip
    assert result.exit_code == 0
    assert result.output == ""


def test_cli_run_refused_port_exits_3_with_clear_message(suite_file: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    result = _cli("run", "--suite", str(suite_file), "--model", "vllm/m", "--base-url", url)
    assert result.exit_code == 3
    assert "cannot connect to the model server" in result.output
    assert url in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--model", "openai/m"],
        ["run", "--suite", "coding-agent", "--model", "nope"],
        ["run", "--suite", "coding-agent", "--model", "openai/m", "--report", "junit"],
        ["run", "--suite", "coding-agent", "--model", "openai/m", "--option", "novalue"],
        ["run", "--suite", "coding-agent", "--model", "openai/m", "--id", "NOPE-*"],
        ["run", "--resume", "no-such-run"],
    ],
)
def test_cli_run_bad_usage_exits_2(args: list[str]) -> None:
    result = _cli(*args)
    assert result.exit_code == 2, result.output
    assert "error" in result.output.lower()


def test_cli_evaluate_sample_responses_scores_them() -> None:
    result = _cli("evaluate", "--suite", "coding-agent", "--responses", str(SAMPLES))
    assert result.exit_code == 0, result.output
    run = toolgrade.resolve_run(toolgrade.list_runs()[0].run_id)
    wrong = {
        json.loads(line)["case_id"]
        for line in SAMPLES.read_text(encoding="utf-8").splitlines()
        if "deliberately" in json.loads(line).get("note", "")
    }
    assert wrong
    for r in run.results:
        assert (r.status in ("correct",)) == (r.case_id not in wrong), r.case_id
    assert run.model.startswith("replay/")


def test_cli_evaluate_equals_run_with_replay() -> None:
    args = ["--suite", "coding-agent", "--limit", "12", "--quiet"]
    assert _cli("evaluate", *args, "--responses", str(SAMPLES)).exit_code == 0
    assert _cli("run", *args, "--model", f"replay/{SAMPLES}").exit_code == 0
    first, second = (toolgrade.resolve_run(s.run_id) for s in toolgrade.list_runs()[:2])
    assert [(r.case_id, r.status, r.score) for r in first.results] == [
        (r.case_id, r.status, r.score) for r in second.results
    ]


def test_cli_doctor_structured_call_is_ready() -> None:
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    with FakeServer({PROBE: [Step(calls=[call])]}, models=("m",)) as server:
        result = _cli("doctor", "--model", "openai/m", "--base-url", server.openai_url)
    assert result.exit_code == 0, result.output
    assert "[ok  ] native tool-call probe" in result.output
    assert "[ok  ] model listed" in result.output


def test_cli_doctor_text_call_warns_and_model_missing_fails() -> None:
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    with FakeServer({PROBE: [Step(content=text)]}, models=("other",)) as server:
        result = _cli("doctor", "--model", "vllm/m", "--base-url", server.openai_url)
    assert result.exit_code == 0, result.output
    assert "[warn] native tool-call probe" in result.output
    assert "--tool-call-parser" in result.output
    assert "[FAIL] model listed" in result.output


def test_cli_doctor_no_call_exits_1() -> None:
    with FakeServer({PROBE: [Step(content="It is sunny.")]}) as server:
        result = _cli("doctor", "--model", "ollama/test-model", "--base-url", server.ollama_url)
    assert result.exit_code == 1, result.output
    assert "no tool call" in result.output


def test_cli_doctor_unreachable_exits_3() -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    result = _cli("doctor", "--model", "ollama/m", "--base-url", url)
    assert result.exit_code == 3
    assert "ollama serve" in result.output
