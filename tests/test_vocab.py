"""The shared vocabulary (`toolgrade._core.vocab`) is declared once and re-exported unchanged."""

from __future__ import annotations

from typing import get_args

import pytest
from pydantic import BaseModel, ValidationError

import toolgrade
from toolgrade import judging, match, results, suite
from toolgrade._core import transcript
from toolgrade._core import verdict as _verdict
from toolgrade._core import vocab as _vocab
from toolgrade.agent._tools import mcp_tools
from toolgrade.match import CallJudge


def test_public_paths_serve_the_one_declaration() -> None:
    assert toolgrade.ToolCall is _vocab.ToolCall
    assert toolgrade.Status is results.Status is _vocab.Status
    assert toolgrade.Mismatch is match.Mismatch is _vocab.Mismatch
    assert toolgrade.PairResult is results.PairResult is _vocab.PairResult
    assert results.Verdict is _verdict.Verdict
    assert suite.Rubric is _vocab.Rubric


def test_call_judge_gives_the_one_verdict_with_the_one_pair() -> None:
    call = toolgrade.ToolCall(name="f", arguments={"x": 1})
    judged = CallJudge([call], schemas={}, offered=None).verdict(
        [toolgrade.ToolCall(name="f", arguments={"x": 2})], rubric="partial", ordered=False
    )
    assert type(judged) is _verdict.Verdict
    assert judged.status is _vocab.Status.WRONG_ARGS
    (pair,) = judged.pairs
    assert type(pair) is _vocab.PairResult
    assert (pair.verdict, pair.credit) == ("wrong_args", 0.5)
    assert judged.closeness == 0.5


def test_failure_causes_are_every_status_but_correct_and_extra_calls() -> None:
    everything = set(_vocab.Status) - {_vocab.Status.CORRECT, _vocab.Status.EXTRA_CALLS}
    assert set(transcript.FAILURE_CAUSES) == everything
    assert len(transcript.FAILURE_CAUSES) == len(everything)
    assert all(type(c) is _vocab.Status for c in transcript.FAILURE_CAUSES)


class _Caused(BaseModel):
    cause: transcript.FailureCause


def test_failure_cause_is_a_status_written_as_its_value() -> None:
    caused = _Caused.model_validate_json('{"cause": "wrong_args"}')
    assert caused.cause is _vocab.Status.WRONG_ARGS
    assert caused.model_dump_json() == '{"cause":"wrong_args"}'
    schema = _Caused.model_json_schema()["properties"]["cause"]
    assert schema["enum"] == [c.value for c in transcript.FAILURE_CAUSES]


@pytest.mark.parametrize("status", ["correct", "extra_calls", "no_such_status"])
def test_failure_cause_refuses_what_is_not_a_failure_cause(status: str) -> None:
    with pytest.raises(ValidationError):
        _Caused(cause=status)  # type: ignore[arg-type]


def test_trajectory_causes_are_statuses() -> None:
    reference = [toolgrade.ToolCall(name="ls")]
    match_ = judging.compare_trajectory([], reference, "exact")
    assert match_.cause is _vocab.Status.MISSED_CALL


def test_not_scored_verdict_is_unscored_and_says_why() -> None:
    made = _verdict.Verdict.not_scored(_vocab.Status.TIMEOUT, "no answer")
    assert (made.status, made.score, made.message) == (_vocab.Status.TIMEOUT, 0.0, "no answer")
    assert not made.passed
    with pytest.raises(ValueError, match="scored"):
        _verdict.Verdict.not_scored(_vocab.Status.WRONG_ARGS, "no")


def test_mcp_judge_tool_offers_every_rubric() -> None:
    (schema,) = [schema for name, _, schema in mcp_tools() if name == "judge"]
    rubric = schema["properties"]["rubric"]
    assert rubric["enum"] == list(get_args(_vocab.Rubric))
