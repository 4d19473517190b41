"""BFCL's multi-turn categories, live: imported, run against a play server on 127.0.0.1.

The server (tests/conversation/playserver.py) plays each conversation's reference, BFCL's
ground truth, step by step; the environments are BFCL's own API classes. Every
conversation passes on-policy and teacher-forced, in native and prompt mode, and a
conversation whose model stays silent in a turn that needs calls fails at that turn.
"""

from __future__ import annotations

from typing import Any

import pytest

import toolgrade
from conversation.playserver import Play, PlayServer

pytest.importorskip(
    "bfcl_eval.eval_checker.multi_turn_eval.func_source_code.math_api",
    reason="bfcl-eval is not installed (`make test` installs it)",
)

CATEGORIES = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
PER_CATEGORY = 4


def _suite() -> toolgrade.Suite:
    """The first entries of each category whose opening message is not taken yet."""
    full = toolgrade.import_bfcl(list(CATEGORIES))
    chosen: list[Any] = []
    openings: set[str] = set()
    for category in CATEGORIES:
        taken = 0
        for conversation in full.conversations:
            opening = conversation.turns[0].user
            if conversation.category != category or opening in openings or taken == PER_CATEGORY:
                continue
            openings.add(opening)
            chosen.append(conversation)
            taken += 1
    return full.model_copy(update={"cases": tuple(chosen)})


SUITE = _suite()


def _run(server: PlayServer, **changes: Any) -> toolgrade.RunResult:
    settings: dict[str, Any] = {
        "base_url": server.openai_url,
        "concurrency": 4,
        "timeout": 20.0,
        "persist": False,
        "warmup": False,
    }
    return toolgrade.run_suite(
        SUITE, "openai/play", options=toolgrade.RunOptions(**(settings | changes))
    )


@pytest.mark.parametrize(
    ("mode", "teacher_forcing", "profile"),
    [
        ("native", False, "default"),
        ("prompt", False, "default"),
        ("native", True, "default"),
        ("native", False, "bfcl"),
        ("prompt", False, "bfcl"),
        ("native", True, "bfcl"),
    ],
)
def test_bfcl_multi_turn_reference_play_passes(
    mode: str, teacher_forcing: bool, profile: str
) -> None:
    assert {c.category for c in SUITE.conversations} == set(CATEGORIES)
    # BFCL reads a prompting model's calls in its own format, `[name(key=value)]`.
    with PlayServer(suite=SUITE, pythonic=profile == "bfcl") as server:
        run = _run(server, mode=mode, teacher_forcing=teacher_forcing, profile=profile)
    assert len(run.results) == len(SUITE.conversations)
    failed = {
        r.case_id: r.conversation.first_failure if r.conversation else r.error
        for r in run.results
        if r.status != "correct"
    }
    assert failed == {}
    # miss_func conversations got their withheld function back in a later turn.
    miss = [c for c in SUITE.conversations if c.category == "multi_turn_miss_func"]
    assert miss and all(any(t.add_tools for t in c.turns) for c in miss)


@pytest.mark.parametrize("profile", ["default", "bfcl"])
def test_bfcl_multi_turn_a_silent_turn_fails_there(profile: str) -> None:
    conversation = next(c for c in SUITE.conversations if c.category == "multi_turn_base")
    assert conversation.reference is not None
    turn = next(i for i, t in enumerate(conversation.reference) if t.calls)
    with PlayServer(suite=SUITE, plays={conversation.id: Play(silent_turn=turn)}) as server:
        run = _run(server, profile=profile)
    (result,) = [r for r in run.results if r.case_id == conversation.id]
    assert result.status == "missed_call"
    assert result.conversation is not None and result.conversation.first_failure is not None
    assert result.conversation.first_failure.turn == turn
    if profile == "bfcl":  # BFCL's own words for it
        assert "empty_turn_model_response" in result.conversation.first_failure.message
