"""The `bfcl` profile decides a verdict; `judge` alone turns verdicts into results."""

from __future__ import annotations

from toolgrade.bfcl._data import BfclCategory, BfclEntry
from toolgrade.bfcl._import import entry_to_case
from toolgrade.bfcl._profile import judge_bfcl
from toolgrade.judging._judge import case_result, judge
from toolgrade.results import Status, Verdict
from toolgrade.suite import Case

DOC = {
    "name": "get_weather",
    "description": "d",
    "parameters": {
        "type": "dict",
        "properties": {"city": {"type": "string", "description": "x"}},
        "required": ["city"],
    },
}


def _case() -> Case:
    entry = BfclEntry(
        "seam",
        [[{"role": "user", "content": "?"}]],
        (DOC,),
        ({"get_weather": {"city": ["Paris"]}},),
    )
    return entry_to_case(entry, BfclCategory.SIMPLE_PYTHON)


def test_bfcl_profile_returns_verdict_judge_builds_result() -> None:
    case = _case()
    calls = [{"name": "get_weather", "arguments": {"city": "Berlin"}}]
    verdict = judge_bfcl(case, calls, tools=case.tool_definitions)
    assert isinstance(verdict, Verdict)
    result = judge(case, calls, tools=case.tool_definitions, profile="bfcl")
    assert (result.status, result.score) == (verdict.status, verdict.score)
    assert (result.pairs, result.details) == (verdict.pairs, verdict.details)
    assert result.case_id == "seam" and result.category == "simple_python"
    assert result.primary_tools == ("get_weather",)
    assert [c.name for c in result.actual] == ["get_weather"]


def test_case_result_unscored_status_carries_message_not_primary_tools() -> None:
    case = _case()
    result = case_result(
        case, Verdict(Status.TIMEOUT, 0.0), rubric="binary", error="late", latency_ms=5.0
    )
    assert (result.status, result.score, result.error) == (Status.TIMEOUT, 0.0, "late")
    assert (result.rubric, result.latency_ms, result.primary_tools) == ("binary", 5.0, None)
    assert result.expected == case.expected and result.actual == ()
