"""The built-in conversation suite, live, against a model server on 127.0.0.1.

The server (`playserver.PlayServer`) follows a script per conversation: its reference
solution, with deliberate mistakes and faults where a test asks for them. Every run
goes through the whole stack: HTTP, streaming, extraction, the environment, judging,
the run folder.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toolgrade
from conversation.playserver import Play, PlayServer
from runner.children import killed_run
from toolgrade.cli import app

pytestmark = pytest.mark.slow  # subprocesses, servers or corpora: `make test` runs it

SUITE = toolgrade.load_suite("coding-agent-multiturn")


def _options(url: str, **changes: Any) -> toolgrade.RunOptions:
    settings: dict[str, Any] = {
        "base_url": url,
        "concurrency": 8,
        "timeout": 5.0,
        "max_retries": 2,
        "retry_base_delay": 0.01,
        "persist": False,
        "warmup": False,
    }
    return toolgrade.RunOptions(**(settings | changes))


def _run(server: PlayServer, **changes: Any) -> toolgrade.RunResult:
    return toolgrade.run_suite(SUITE, "openai/play", options=_options(server.openai_url, **changes))


def _by_id(run: toolgrade.RunResult) -> dict[str, toolgrade.CaseResult]:
    return {r.case_id: r for r in run.results}


def _comparable(run: toolgrade.RunResult) -> list[tuple[Any, ...]]:
    return [
        (
            r.case_id,
            r.status,
            r.score,
            r.actual,
            r.conversation.progress if r.conversation else None,
            r.conversation.final_state if r.conversation else None,
        )
        for r in run.results
    ]


@pytest.mark.parametrize("mode", ["native", "prompt"])
@pytest.mark.parametrize("teacher_forcing", [False, True])
def test_reference_play_passes_every_conversation(mode: str, teacher_forcing: bool) -> None:
    with PlayServer(suite=SUITE) as server:
        run = _run(server, mode=mode, teacher_forcing=teacher_forcing)
    assert len(run.results) == len(SUITE.conversations) >= 40
    failed = {r.case_id: r.conversation.first_failure for r in run.results if r.status != "correct"}  # type: ignore[union-attr]
    assert failed == {}
    wanted = "teacher_forced" if teacher_forcing else "on_policy"
    assert {r.conversation.mode for r in run.results if r.conversation} == {wanted}
    if mode == "prompt":  # the tools went in the system prompt, the results as text
        bodies = [b for b in server.requests if len(b["messages"]) > 3]
        assert bodies and all("tools" not in b for b in bodies)
        assert any(
            "<tool_response>" in str(m.get("content")) for b in bodies for m in b["messages"]
        )


def _long() -> toolgrade.Conversation:
    return max(SUITE.conversations, key=lambda c: len(c.turns))


def _first_calling_turn(conversation: toolgrade.Conversation) -> int:
    assert conversation.reference is not None
    return next(i for i, t in enumerate(conversation.reference) if t.calls)


def test_an_early_mistake_costs_less_under_teacher_forcing() -> None:
    conversation = _long()
    turn = _first_calling_turn(conversation)
    plays = {conversation.id: Play(silent_turn=turn)}
    with PlayServer(suite=SUITE, plays=plays) as server:
        on_policy = _by_id(_run(server))[conversation.id]
    with PlayServer(suite=SUITE, plays=plays) as server:
        forced = _by_id(_run(server, teacher_forcing=True))[conversation.id]
    assert on_policy.status != "correct" and forced.status != "correct"
    assert on_policy.conversation is not None and forced.conversation is not None
    assert on_policy.conversation.first_failure is not None
    assert on_policy.conversation.first_failure.turn == turn
    assert all(t.forced for t in forced.conversation.turns)
    # Teacher forcing starts every later turn from the reference, so only the silent
    # turn fails; on-policy, the missing change can fail later turns too.
    assert [t.passed for t in forced.conversation.turns].count(False) == 1
    assert forced.conversation.progress >= on_policy.conversation.progress


def test_faults_mid_conversation_are_retried_or_reported() -> None:
    retried, dropped, slow = [c for c in SUITE.conversations if c.reference and len(c.turns) > 1][
        :3
    ]
    plays = {
        retried.id: Play(faults={(0, 0): "500"}),
        dropped.id: Play(faults={(1, 0): "drop"}),
        slow.id: Play(faults={(1, 0): "slow"}),
    }
    # Generous against a loaded machine: only the slow step may take 3 s.
    with PlayServer(suite=SUITE, plays=plays, slow=10.0) as server:
        run = _run(server, timeout=3.0)
    results = _by_id(run)
    assert results[retried.id].status == "correct"
    assert results[dropped.id].status == "correct"
    late = results[slow.id]
    assert late.status == "timeout"
    assert late.conversation is not None and late.conversation.first_failure is not None
    assert late.conversation.first_failure.cause == "timeout"
    assert late.conversation.first_failure.turn == 1
    others = [r for r in run.results if r.case_id not in plays]
    assert all(r.status == "correct" for r in others)


def test_a_wrong_call_fails_with_its_cause() -> None:
    conversation = next(
        c
        for c in SUITE.conversations
        if c.reference
        and c.turns[_first_calling_turn(c)].expected
        and "path" in c.reference[_first_calling_turn(c)].calls[0].arguments
    )
    turn = _first_calling_turn(conversation)
    with PlayServer(suite=SUITE, plays={conversation.id: Play(wrong_args_turn=turn)}) as server:
        result = _by_id(_run(server))[conversation.id]
    assert result.conversation is not None and result.conversation.first_failure is not None
    assert result.conversation.first_failure.turn == turn
    assert result.status in ("wrong_args", "wrong_tool", "missed_call", "unexpected_call")


def test_a_stored_run_exported_as_responses_is_judged_again_alike(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    conversation = _long()
    plays = {conversation.id: Play(silent_turn=_first_calling_turn(conversation))}
    with PlayServer(suite=SUITE, plays=plays) as server:
        run = _run(server, persist=True)
    responses = tmp_path / "responses.jsonl"
    runner = CliRunner()
    exported = runner.invoke(app, ["runs", "export", run.run_id, "--responses", str(responses)])
    assert exported.exit_code == 0, exported.output
    steps = sum(len(t.steps) for r in run.results if r.conversation for t in r.conversation.turns)
    assert len(responses.read_text().splitlines()) == steps
    again = toolgrade.run_suite(
        SUITE, f"replay/{responses}", options=toolgrade.RunOptions(persist=False, warmup=False)
    )
    assert _comparable(again) == _comparable(run)
    assert _by_id(again)[conversation.id].status != "correct"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX-only")
def test_sigkill_then_resume_gives_the_uninterrupted_results(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    with PlayServer(suite=SUITE, default_delay=0.01) as server:
        reference = _run(server, concurrency=2)
        command = [
            sys.executable, "-m", "toolgrade", "run", "--suite", "coding-agent-multiturn",
            "--model", "openai/play", "--base-url", server.openai_url,
            "--concurrency", "2", "--no-warmup", "--quiet",
        ]  # fmt: skip
        results = killed_run(command, toolgrade_home, minimum=5)
        kept = len(results.read_bytes().splitlines())
        assert kept < len(SUITE.conversations)
        run_id = results.parent.name
        outcome = CliRunner().invoke(app, ["run", "--resume", run_id, "--quiet"])
        assert outcome.exit_code == 0, outcome.output
    resumed = toolgrade.load_run_folder(run_id)
    assert resumed.status == "complete"
    assert _comparable(resumed) == _comparable(reference)
