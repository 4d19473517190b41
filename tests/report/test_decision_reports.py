"""The decisions section in every report: the confusion matrix and the rates, each
case's decision, its evidence escaped, and nothing of it on a run without outcomes."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import jsonschema
import pytest

import toolgrade
from toolgrade.report import report_schema
from toolgrade.results import CaseResult, RunResult

EXTENSIONS = {"text": "txt", "json": "json", "markdown": "md", "html": "html"}
CALL = {"name": "read_file", "arguments": {"path": "a.txt"}}
REPLIES = {
    "clarify": "Which <b>file</b> | *do* you mean?",
    "refuse": "I can't book flights with the tools I have.",
    "answer": "The capital of France is Paris.",
    "unclassified": "打开文件",
}


def _result(case_id: str, expect: str, did: str, status: str) -> CaseResult:
    data: dict[str, Any] = {"case_id": case_id, "status": status, "score": 0.0, "expect": expect}
    data["prompt"] = "Open the file"
    if did == "call":
        data["actual"] = [CALL]
    else:
        data["raw_response"] = {"role": "assistant", "content": REPLIES[did]}
    if expect == "call":
        data["expected"] = [CALL]
        data["primary_tools"] = ["read_file"]
    return CaseResult.model_validate(data)


@pytest.fixture(scope="module")
def decisions_run() -> RunResult:
    """One result per expected outcome and decision; the right decisions pass."""
    dids = ("call", "clarify", "refuse", "answer", "unclassified")
    results = [
        _result(
            f"{e}-{d}",
            e,
            d,
            "correct" if e == d else "wrong_tool" if d == "call" else "missed_call",
        )
        for e in ("call", "clarify", "refuse", "answer")
        for d in dids
    ]
    return RunResult(
        run_id="run-decisions",
        suite_name="decisions",
        suite_version="1",
        suite_hash="hash-d",
        model="test/model",
        toolgrade_version="0.0.0",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        results=tuple(results),
    )


def _render(run: RunResult, fmt: str) -> str:
    return toolgrade.render_report(run, fmt)  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_report_decisions_run_matches_golden(
    fmt: str, decisions_run: RunResult, golden: Callable[[str, str], None]
) -> None:
    golden(f"decisions-run.{EXTENSIONS[fmt]}", _render(decisions_run, fmt))


def test_text_report_shows_the_matrix_and_the_rates(decisions_run: RunResult) -> None:
    text = _render(decisions_run, "text")
    section = text.split("\nDecisions:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert section[0].split() == [
        "expected",
        "/",
        "did",
        "call",
        "clarify",
        "refuse",
        "answer",
        "unclassified",
        "total",
    ]
    assert section[1].split() == ["call", "1", "1", "1", "1", "1", "5"]
    names = [line.split(":")[0].strip() for line in section[5:]]
    assert names == [
        "Items",
        "Decision accuracy",
        "call",
        "clarify",
        "refuse",
        "answer",
        "Macro-F1",
        "Call rate",
        "Accuracy when called",
        "Tool hallucination",
    ]
    assert "  Tool hallucination: 20.0% (3/15, 95% CI" in text
    assert "    Decision: expected clarify, did call (calls: 1 call)" in text


def test_json_report_carries_the_section_and_each_decision(decisions_run: RunResult) -> None:
    doc = json.loads(_render(decisions_run, "json"))
    jsonschema.Draft202012Validator(report_schema()).validate(doc)
    assert doc["metrics"]["decisions"]["matrix"]["refuse"]["refuse"] == 1
    cases = {c["case_id"]: c for c in doc["cases"]}
    assert cases["answer-clarify"]["decision"] == {
        "kind": "clarify",
        "rule": "question_to_user",
        "evidence": "which <b>file</b> | *do* you mean?",
    }
    assert cases["answer-clarify"]["expect"] == "answer"


def test_markdown_and_html_escape_the_evidence(decisions_run: RunResult) -> None:
    markdown = _render(decisions_run, "markdown")
    assert "### Decisions" in markdown
    decided = [line for line in markdown.splitlines() if line.startswith("**Decision:**")]
    assert len(decided) == 16  # the failures, in detail
    assert not any("<b>" in line for line in decided)
    assert "&lt;b&gt;file&lt;/b&gt; \\| \\*do\\* you mean?" in markdown
    page = _render(decisions_run, "html")
    assert '<section id="decisions">' in page
    assert "<b>file</b>" not in page
    assert "&lt;b&gt;file&lt;/b&gt;" in page


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_a_run_without_outcomes_shows_nothing_new(fmt: str, run: RunResult) -> None:
    text = _render(run, fmt)
    assert "Decisions" not in text
    assert '"decision' not in text


def test_prometheus_carries_the_matrix_and_the_rates(
    decisions_run: RunResult, run: RunResult
) -> None:
    text = _render(decisions_run, "prometheus")
    assert 'toolgrade_decisions{did="call",expected="refuse",model="test/model"' in text
    assert text.count("\ntoolgrade_decisions{") == 20
    assert "\ntoolgrade_decision_accuracy{" in text
    assert "\ntoolgrade_tool_hallucination_rate{" in text
    assert "toolgrade_decision" not in _render(run, "prometheus")
