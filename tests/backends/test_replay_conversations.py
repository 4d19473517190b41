"""Responses files with conversation steps (`turn`, `step`), and runs exported to them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toolgrade
from runner.convscript import ScriptedModel, call, conversation, good_script, suite, text
from toolgrade.backends import ChatRequest, create_backend, replay_records, write_replay_file
from toolgrade.cli import app
from toolgrade.errors import InputError
from toolgrade.runner import RunOptions, arun_suite


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _steps(case_id: str = "c1") -> list[dict[str, Any]]:
    return [
        {"case_id": case_id, "turn": t, "step": s, "message": message}
        for (_, t, s), message in good_script(case_id).items()
    ]


def _ask(path: Path, case_id: str, turn: int, step: int, repeat: int = 0) -> Any:
    backend = create_backend(f"replay/{path}")
    request = ChatRequest(case_id=case_id, messages=(), repeat=repeat, turn=turn, step=step)
    return asyncio.run(backend.complete(request))


def test_replay_answers_each_turn_and_step(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.jsonl", _steps())
    reply = _ask(path, "c1", 1, 0)
    assert reply.raw["tool_calls"][0]["function"]["name"] == "write_file"
    assert _ask(path, "c1", 1, 2).error == "no recorded response for repeat 0 turn 1 step 2"
    assert _ask(path, "c1", 0, 0, repeat=1).error is not None


def test_replay_run_of_recorded_steps_passes(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.jsonl", _steps())
    run = toolgrade.run_suite(suite(), f"replay/{path}", options=RunOptions(persist=False))
    assert [r.status for r in run.results] == ["correct"]


def test_replay_single_case_lines_unchanged_for_first_step(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.jsonl", [{"case_id": "a", "output": "hi"}])
    assert _ask(path, "a", 0, 0).raw == "hi"
    assert "turn 1 step 0" in _ask(path, "a", 1, 0).error
    assert _ask(path, "b", 0, 0).error == "no recorded response"


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            [
                {"case_id": "c", "turn": 0, "step": 0, "output": "a"},
                {"case_id": "c", "output": "b"},
            ],
            "give 'turn' and 'step' on every line of a conversation or on none",
        ),
        (
            [
                {"case_id": "c", "turn": 0, "step": 0, "output": "a"},
                {"case_id": "c", "turn": 0, "step": 0, "output": "b"},
            ],
            "a second answer to case 'c' repeat 0 turn 0 step 0 (first at line 1)",
        ),
        ([{"case_id": "c", "turn": 0, "output": "a"}], "give 'turn' and 'step' together"),
        ([{"case_id": "c", "turn": -1, "step": 0, "output": "a"}], "turn"),
    ],
)
def test_replay_bad_conversation_lines_are_refused(
    tmp_path: Path, lines: list[dict[str, Any]], message: str
) -> None:
    path = _write(tmp_path / "r.jsonl", lines)
    with pytest.raises(InputError) as info:
        create_backend(f"replay/{path}")
    assert message in str(info.value)


def test_replay_exported_run_rejudges_the_same(tmp_path: Path) -> None:
    s = suite(conversation("c1"), conversation("c2"))
    script = good_script("c1") | good_script("c2")
    script[("c2", 1, 0)] = call("write_file", path="x.txt", text="A")
    script[("c2", 1, 1)] = text("Done.")
    run = asyncio.run(arun_suite(s, ScriptedModel(script), options=RunOptions(persist=False)))
    path = tmp_path / "exported.jsonl"
    assert write_replay_file(path, run.results) == 8
    assert all(r.turn is not None for r in replay_records(run.results))
    again = toolgrade.run_suite(s, f"replay/{path}", options=RunOptions(persist=False))
    assert [r.status for r in again.results] == [r.status for r in run.results]
    assert [r.status for r in again.results] == ["correct", "uncovered_call"]
    suite_file = tmp_path / "suite.json"
    suite_file.write_text(json.dumps(s.to_dict()), encoding="utf-8")
    out = CliRunner().invoke(
        app, ["evaluate", "--suite", str(suite_file), "--responses", str(path), "--quiet"]
    )
    assert out.exit_code in (0, 1), out.output


def test_replay_records_of_single_cases_keep_output_and_error() -> None:
    ok = toolgrade.CaseResult(case_id="a", status="correct", score=1.0, raw_response="hi")
    failed = toolgrade.CaseResult(case_id="b", status="timeout", score=0.0, error="late", repeat=2)
    lines = replay_records([ok, failed])
    assert [(r.case_id, r.output, r.error, r.repeat) for r in lines] == [
        ("a", "hi", None, 0),
        ("b", None, "late", 2),
    ]
