"""The shared vocabulary (`toolgrade._core.vocab`) is declared once and re-exported unchanged."""

from __future__ import annotations

from typing import get_args

import toolgrade
from toolgrade import match, results, suite
from toolgrade._core import vocab as _vocab
from toolgrade.agent._tools import mcp_tools
from toolgrade.match._calls import CaseStatus, PairKind, RubricName


def test_public_paths_serve_the_one_declaration() -> None:
    assert toolgrade.ToolCall is _vocab.ToolCall
    assert toolgrade.Status is results.Status is _vocab.Status
    assert toolgrade.Mismatch is match.Mismatch is _vocab.Mismatch
    assert suite.Rubric is RubricName is _vocab.Rubric
    assert PairKind is _vocab.PairKind


def test_call_judge_statuses_are_the_scored_statuses() -> None:
    # The statuses only a conversation can have are not a single case's.
    scored = {s.value for s in _vocab.Status if s.scored and not s.conversational}
    assert set(get_args(CaseStatus)) == scored


def test_mcp_judge_tool_offers_every_rubric() -> None:
    (schema,) = [schema for name, _, schema in mcp_tools() if name == "judge"]
    rubric = schema["properties"]["rubric"]
    assert rubric["enum"] == list(get_args(_vocab.Rubric))
