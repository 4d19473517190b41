"""The conversations of a baseline comparison in every report: their own verdict and MDE."""

from __future__ import annotations

import json

import jsonschema
import pytest

import toolgrade
from toolgrade.compare import Comparison, compare_runs
from toolgrade.report import report_schema
from toolgrade.results import CaseResult, ConversationRecord


def _talk(case_id: str, passed: bool) -> CaseResult:
    record = ConversationRecord.model_validate(
        {
            "mode": "on_policy",
            "turns": [{"index": 0, "user": "u0", "passed": passed, "checked": True}],
            "total_turns": 1,
            "passed": passed,
            "progress": 1.0 if passed else 0.0,
            "first_failure": None if passed else {"cause": "wrong_args", "message": "x"},
        }
    )
    return CaseResult(
        case_id=case_id,
        status="correct" if passed else "wrong_args",
        score=1.0 if passed else 0.0,
        conversation=record,
    )


def _comparison(make_run, broken: int) -> tuple[toolgrade.RunResult, Comparison]:
    """300 unchanged single cases and 12 conversations, `broken` of them broken."""
    singles = [{"case_id": f"s{i:03d}", "status": "correct"} for i in range(300)]
    base = make_run([*singles, *(_talk(f"c{i:02d}", True) for i in range(12))], run_id="base")
    talks = [_talk(f"c{i:02d}", i >= broken) for i in range(12)]
    cand = make_run([*singles, *talks], run_id="cand")
    return cand, compare_runs(base, cand)


@pytest.mark.parametrize(("broken", "verdict"), [(3, "Inconclusive"), (12, "Regression")])
@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_reports_show_the_conversations_verdict_and_mde(
    make_run, fmt: str, broken: int, verdict: str
) -> None:
    run, comparison = _comparison(make_run, broken)
    conv = comparison.conversations
    assert conv is not None and conv.status.startswith(verdict)
    page = toolgrade.render_report(run, fmt, comparison=comparison)
    assert "Conversations" in page
    status = conv.status if fmt != "html" else conv.status.split(";")[0]
    assert status in page
    assert f"{broken} of 12 conversations flipped" in page


def test_report_without_paired_conversations_has_no_conversation_verdict(make_run) -> None:
    rows = [{"case_id": f"s{i}", "status": "correct"} for i in range(5)]
    base, cand = make_run(rows, run_id="base"), make_run(rows, run_id="cand")
    comparison = compare_runs(base, cand)
    for fmt in ("text", "markdown", "html"):
        assert "conversations flipped" not in toolgrade.render_report(
            cand, fmt, comparison=comparison
        )


@pytest.mark.parametrize("broken", [0, 3, 12])
def test_json_report_conversation_verdict_validates_and_schema_lists_every_field(
    make_run, broken: int
) -> None:
    run, comparison = _comparison(make_run, broken)
    doc = json.loads(toolgrade.render_report(run, "json", comparison=comparison))
    errors = [e.message for e in jsonschema.Draft202012Validator(report_schema()).iter_errors(doc)]
    assert errors == []
    conv = doc["comparison"]["conversations"]
    assert conv["broken"] == broken and conv["verdict"] == comparison.conversations.verdict
    schema = report_schema()["$defs"]["comparison"]["properties"]["conversations"]
    assert set(schema["properties"]) == set(conv)
