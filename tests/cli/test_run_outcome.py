"""How `run` and `evaluate` end: exit codes when nothing was scored, the run id, --db."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toolgrade
from runner import loopy
from runner.fakeserver import FakeServer, Step
from toolgrade.cli import app


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def test_run_in_which_every_request_failed_exits_3(tmp_path: Path) -> None:
    suite = loopy.write_suite(tmp_path)
    script = {f"read file {i}": [Step(status=500)] for i in range(4)}
    with FakeServer(script) as server:
        result = _cli(
            "run", "--suite", str(suite), "--model", "openai/m", "--base-url",
            server.openai_url, "--max-retries", "0", "--no-warmup",
        )  # fmt: skip
    assert result.exit_code == 3, result.output
    assert "error: no case could be scored: all 4 failed (4 errors, 0 timed out)" in result.output
    assert "HTTP 500" in result.output
    assert "toolgrade doctor --model openai/m" in result.output


@pytest.mark.parametrize("url", ["not-a-url", "ftp://host/v1", "http://", "http://h:port/v1"])
def test_run_bad_base_url_exits_2_naming_the_option(tmp_path: Path, url: str) -> None:
    suite = loopy.write_suite(tmp_path)
    result = _cli("run", "--suite", str(suite), "--model", "openai/m", "--base-url", url)
    assert result.exit_code == 2, result.output
    assert "error: --base-url must be an http:// or https:// URL with a host" in result.output
    assert repr(url) in result.output
    assert toolgrade.list_runs() == []  # refused before anything started


def test_evaluate_responses_for_other_cases_exits_2_and_says_why(tmp_path: Path) -> None:
    suite = loopy.write_suite(tmp_path)
    responses = tmp_path / "other.jsonl"
    lines = [json.dumps({"case_id": f"X-{i}", "output": loopy.answer(i)}) for i in range(3)]
    responses.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = _cli("evaluate", "--suite", str(suite), "--responses", str(responses), "--quiet")
    assert result.exit_code == 2, result.output
    message = result.output
    assert "none of the 4 selected cases has a response in" in message
    assert str(responses) in message
    assert "3 lines, 3 case ids: 'X-0', 'X-1', 'X-2'" in message
    assert "the suite's: 'T-0', 'T-1', 'T-2', ..." in message


def test_evaluate_empty_responses_file_exits_2(tmp_path: Path) -> None:
    suite = loopy.write_suite(tmp_path)
    responses = tmp_path / "empty.jsonl"
    responses.write_text("", encoding="utf-8")
    result = _cli("evaluate", "--suite", str(suite), "--responses", str(responses))
    assert result.exit_code == 2, result.output
    assert f"{responses} has no recorded response" in result.output


def test_evaluate_partly_matching_responses_warns_and_passes(tmp_path: Path) -> None:
    suite = loopy.write_suite(tmp_path)
    responses = tmp_path / "some.jsonl"
    responses.write_text(
        json.dumps({"case_id": "T-0", "output": loopy.answer(0)}) + "\n", encoding="utf-8"
    )
    result = _cli("evaluate", "--suite", str(suite), "--responses", str(responses), "--quiet")
    assert result.exit_code == 0, result.output
    assert "warning: 3 of 4 cases have no recorded response in" in result.output


def test_run_prints_the_run_id_and_how_to_see_it(tmp_path: Path) -> None:
    suite = loopy.write_suite(tmp_path)
    responses = loopy.write_responses(tmp_path, looping=())
    result = _cli("evaluate", "--suite", str(suite), "--responses", str(responses))
    assert result.exit_code == 0, result.output
    run_id = toolgrade.list_runs()[0].run_id
    assert f"run {run_id} saved; see it with: toolgrade runs show {run_id}" in result.output
    quiet = _cli("evaluate", "--suite", str(suite), "--responses", str(responses), "--quiet")
    assert quiet.exit_code == 0 and quiet.output == ""


@pytest.mark.parametrize("command", ["run", "evaluate"])
def test_run_and_evaluate_take_db(tmp_path: Path, command: str) -> None:
    suite = loopy.write_suite(tmp_path)
    responses = loopy.write_responses(tmp_path, looping=())
    db = tmp_path / "elsewhere" / "history.db"
    source = (
        ["--model", f"replay/{responses}"] if command == "run" else ["--responses", str(responses)]
    )
    result = _cli(command, "--suite", str(suite), *source, "--db", str(db), "--label", "mine")
    assert result.exit_code == 0, result.output
    assert db.exists()
    assert toolgrade.list_runs() == []  # not in the default history
    (summary,) = toolgrade.list_runs(db=db)
    assert f"toolgrade runs show {summary.run_id} --db {db}" in result.output
    assert toolgrade.resolve_run("mine", db=db).run_id == summary.run_id


AGENT = """
def answer(messages, tools):
    return [{"name": "read_file", "arguments": {"path": messages[-1]["content"][-1] + ".txt"}}]
"""


def test_python_agent_imports_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = loopy.write_suite(tmp_path)
    folder = tmp_path / "agent"
    folder.mkdir()
    (folder / "my_tg_agent.py").write_text(AGENT, encoding="utf-8")
    monkeypatch.chdir(folder)
    monkeypatch.delitem(sys.modules, "my_tg_agent", raising=False)
    before = list(sys.path)
    result = _cli("run", "--suite", str(suite), "--model", "python/my_tg_agent:answer", "--quiet")
    assert result.exit_code == 0, result.output
    run = toolgrade.resolve_run(toolgrade.list_runs()[0].run_id)
    assert [r.status for r in run.results] == ["correct"] * 4
    assert sys.path == before  # the folder was on the path for the run only
    monkeypatch.delitem(sys.modules, "my_tg_agent", raising=False)
