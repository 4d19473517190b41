"""Deeply nested matchers are a suite problem, never a RecursionError; RE2 meets no surrogate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolgrade.match import compare_values, matcher_problems
from toolgrade.match._evaluate import accepts_absent
from toolgrade.match._matchers import MAX_MATCHER_DEPTH, MatcherError, parse_matcher
from toolgrade.match._values import SEMANTIC


def _nested(name: str, depth: int, inner: Any = "x") -> Any:
    value = inner
    for _ in range(depth):
        value = {name: value} if name == "$not" else {name: [value]}
    return value


@pytest.mark.parametrize("name", ["$not", "$any_of", "$unordered"])
def test_matchers_nested_490_deep_are_one_problem(name: str) -> None:
    problems = matcher_problems({"a": _nested(name, 490)}, "$.arguments")
    assert len(problems) == 1
    assert problems[0].endswith(": matchers nested deeper than 32 levels")
    assert problems[0].startswith("$.arguments.a." + name)


def test_matchers_nested_32_deep_are_accepted_33_refused() -> None:
    assert matcher_problems({"a": _nested("$not", MAX_MATCHER_DEPTH)}) == []
    assert len(matcher_problems({"a": _nested("$not", MAX_MATCHER_DEPTH + 1)})) == 1


def test_values_nested_900_deep_are_one_problem() -> None:
    (problem,) = matcher_problems({"a": _nested("$literal", 0, json.loads("[" * 900 + "]" * 900))})
    assert problem.endswith(": nested deeper than 100 levels")


def test_matchers_nested_490_deep_evaluation_raises_matcher_error() -> None:
    with pytest.raises(MatcherError, match="matchers nested deeper than 32 levels"):
        compare_values(_nested("$not", 490), "y", options=SEMANTIC)
    with pytest.raises(MatcherError, match="matchers nested deeper than 32 levels"):
        compare_values({"a": _nested("$any_of", 490)}, {"a": "y"}, options=SEMANTIC)
    matcher = parse_matcher(_nested("$not", 490))
    assert matcher is not None
    with pytest.raises(MatcherError):
        accepts_absent(matcher)


def test_matchers_nested_32_deep_still_evaluate() -> None:
    assert compare_values(_nested("$not", 32, "x"), "x", options=SEMANTIC) == []  # even count
    assert compare_values(_nested("$not", 31, "x"), "y", options=SEMANTIC) == []


def _suite(tmp_path: Path, depth: int) -> tuple[Path, Path]:
    suite = {
        "schema_version": 1,
        "name": "deep",
        "tools": [{"name": "f", "description": "d", "parameters": {"type": "object"}}],
        "cases": [
            {
                "id": "c1",
                "prompt": "p",
                "expected": [{"name": "f", "arguments": {"a": _nested("$not", depth)}}],
            }
        ],
    }
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"a": "y"}'}}
    line = {
        "case_id": "c1",
        "message": {"role": "assistant", "content": None, "tool_calls": [call]},
    }
    (tmp_path / "suite.json").write_text(json.dumps(suite), encoding="utf-8")
    (tmp_path / "responses.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    return tmp_path / "suite.json", tmp_path / "responses.jsonl"


def test_cli_suite_validate_and_evaluate_deep_not_is_a_suite_error(tmp_path: Path) -> None:
    from toolgrade.cli import app

    suite, responses = _suite(tmp_path, 490)
    runner = CliRunner()
    result = runner.invoke(app, ["suite", "validate", str(suite)])
    assert result.exit_code == 2, result.output
    assert "matchers nested deeper than 32 levels" in result.output
    assert "Traceback" not in result.output and "RecursionError" not in result.output
    result = runner.invoke(
        app, ["evaluate", "--suite", str(suite), "--responses", str(responses), "-q"]
    )
    assert result.exit_code == 2, result.output
    assert "matchers nested deeper than 32 levels" in result.output


def test_regex_lone_surrogate_in_text_or_pattern_does_not_raise() -> None:
    (found,) = compare_values({"$regex": "a[a-z]*"}, "ab\ud83d", options=SEMANTIC)
    assert found.reason == "value"
    assert compare_values({"$regex": "ab."}, "ab\ud83d", options=SEMANTIC) == []
    assert matcher_problems({"q": {"$regex": "a\udc00"}}) == []
    assert compare_values({"$regex": "a\udc00"}, "a\ud83d", options=SEMANTIC) == []
