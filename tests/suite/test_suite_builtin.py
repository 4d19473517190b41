"""The built-in `coding-agent` suite: it validates, meets the counts, and its expectations
accept the answers a careful engineer would accept and reject the ones they would not."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from toolgrade import Case, Suite, ToolCall, load_suite
from toolgrade.judging._judge import judge
from toolgrade.match import is_matcher

DATA = Path(__file__).parents[1] / "data" / "suite"
ANSWERS: dict[str, dict[str, list[list[dict[str, object]]]]] = json.loads(
    (DATA / "coding_agent_answers.json").read_text(encoding="utf-8")
)
SUITE = load_suite("coding-agent")
BY_ID = {c.id: c for c in SUITE.cases}


def _verdict(case: Case, calls: list[dict[str, object]] | tuple[ToolCall, ...]) -> str:
    result = judge(case, list(calls), tools=SUITE.tools_for(case), defaults=SUITE.defaults)
    return result.status.value


def test_builtin_identity_and_counts() -> None:
    assert (SUITE.name, SUITE.version, SUITE.schema_version) == ("coding-agent", "1.2", 1)
    counts = Counter(c.category for c in SUITE.cases)
    assert len(SUITE.cases) >= 60
    assert counts["simple"] >= 20 and counts["complex"] >= 20 and counts["edge"] >= 15
    assert set(counts) == {"simple", "complex", "edge"} == set(SUITE.categories or ())
    assert len(SUITE.tools) >= 10


def test_builtin_every_tool_expected_in_at_least_four_cases() -> None:
    uses = Counter(name for c in SUITE.cases for name in {call.name for call in c.expected})
    assert {t.name: uses[t.name] for t in SUITE.tools if uses[t.name] < 4} == {}


def test_builtin_every_case_has_tags_difficulty_and_unique_id() -> None:
    raw = json.loads(
        resources.files("toolgrade.suite").joinpath("builtin/coding-agent.json").read_text("utf-8")
    )
    for case in raw["cases"]:
        assert case["tags"] and case["difficulty"] in ("easy", "medium", "hard"), case["id"]
    assert len({c.id for c in SUITE.cases}) == len(SUITE.cases)


def test_builtin_required_kinds_of_cases_present() -> None:
    tags = Counter(t for c in SUITE.cases for t in c.tags)
    for needed in (
        "parallel",
        "no-call",
        "similar-tools",
        "optional-params",
        "arrays",
        "nested-args",
        "spaces",
        "unicode",
        "numbers",
        "booleans",
        "quoting",
        "destructive",
        "no-tool-fits",
        "chit-chat",
        "multi-turn",
    ):
        assert tags[needed] >= 1, needed
    assert sum(c.expects_no_call for c in SUITE.cases) >= 10
    assert any(c.order == "strict" for c in SUITE.cases)
    assert any(c.tools is not None for c in SUITE.cases)


@pytest.mark.parametrize("tool", SUITE.tools, ids=[t.name for t in SUITE.tools])
def test_builtin_tool_schema_is_complete(tool: object) -> None:
    from toolgrade import ToolSpec

    assert isinstance(tool, ToolSpec)
    params = tool.parameters
    assert tool.description and params["type"] == "object"
    assert params.get("additionalProperties") is False
    props = params["properties"]
    assert isinstance(props, dict) and props
    for name, prop in props.items():
        assert isinstance(prop, dict) and prop.get("type") and prop.get("description"), name
    required = params.get("required", [])
    assert isinstance(required, list) and set(required) <= set(props)
    for name in set(props) - set(required):
        prop = props[name]
        assert isinstance(prop, dict)
        # An optional parameter documents its default unless "absent" is itself a choice.
        assert "default" in prop or name in {
            "include",
            "ref",
            "paths",
            "author",
            "since",
            "env",
            "path",
        }, (tool.name, name)


def _has_matcher(value: object) -> bool:
    if is_matcher(value):
        return True
    if isinstance(value, dict):
        return any(_has_matcher(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_matcher(v) for v in value)
    return False


def _concrete_answers(case: Case) -> list[tuple[ToolCall, ...]]:
    answers = [case.expected, *case.alternatives]
    return [a for a in answers if not any(_has_matcher(c.arguments) for c in a)]


@pytest.mark.parametrize("case", SUITE.cases, ids=[c.id for c in SUITE.cases])
def test_builtin_case_accepts_its_own_concrete_answers(case: Case) -> None:
    for answer in _concrete_answers(case):
        assert _verdict(case, answer) == "correct", [c.to_dict() for c in answer]


@pytest.mark.parametrize("case_id", sorted(ANSWERS))
def test_builtin_case_accepts_reasonable_answers(case_id: str) -> None:
    case = BY_ID[case_id]
    for answer in ANSWERS[case_id]["correct"]:
        assert _verdict(case, answer) == "correct", answer


@pytest.mark.parametrize("case_id", sorted(ANSWERS))
def test_builtin_case_rejects_wrong_answers(case_id: str) -> None:
    case = BY_ID[case_id]
    for answer in ANSWERS[case_id]["wrong"]:
        assert _verdict(case, answer) != "correct", answer


def test_builtin_every_matcher_case_has_reviewed_answers() -> None:
    with_matchers = {
        c.id
        for c in SUITE.cases
        for a in (c.expected, *c.alternatives)
        if any(_has_matcher(call.arguments) for call in a)
    }
    assert with_matchers - set(ANSWERS) == set()


def test_builtin_loads_from_package_resources_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no source tree relative to the working directory
    assert load_suite("coding-agent") == SUITE


def test_builtin_suite_is_a_suite() -> None:
    assert isinstance(SUITE, Suite)
