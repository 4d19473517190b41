"""Extraction problems are values in memory and `reason: message` text in a file."""

from __future__ import annotations

import json

from toolgrade import CaseResult, ExtractionProblem, Status
from toolgrade._core.problems import problem_from_text
from toolgrade._core.transcript import Step


def test_a_step_reads_both_stored_forms_and_writes_each_back_as_it_was() -> None:
    written = ["block #1: invalid JSON: extra data", "too_large: output over 1 MB"]
    step = Step.model_validate({"extraction_errors": written})
    assert [e.reason for e in step.extraction_errors] == [None, "too_large"]
    assert [e.message for e in step.extraction_errors] == [written[0], "output over 1 MB"]
    assert step.model_dump(mode="json")["extraction_errors"] == written
    assert json.loads(step.model_dump_json())["extraction_errors"] == written


def test_a_result_keeps_values_and_writes_text() -> None:
    problem = ExtractionProblem(reason="parse_error", message="call #2: missing name")
    result = CaseResult(
        case_id="c", status=Status.PARSE_ERROR, score=0.0, extraction_errors=(problem,)
    )
    assert result.extraction_errors[0] is problem
    line = result.model_dump(mode="json")
    assert line["extraction_errors"] == ["parse_error: call #2: missing name"]
    assert CaseResult.model_validate(line) == result


def test_text_that_only_looks_like_a_reason_is_a_bare_message() -> None:
    assert problem_from_text("parse_error:no space").reason is None
    assert problem_from_text("unknown: x").reason is None
    assert problem_from_text("too_deep: ").reason is None
    assert str(problem_from_text("too_deep: 40 levels")) == "too_deep: 40 levels"
