"""`$not`: a value or matcher the actual value must not match."""

from __future__ import annotations

import pytest

from toolgrade.judging._judge import judge
from toolgrade.match import MATCHER_NAMES, compare_arguments, compare_values, matcher_problems
from toolgrade.match._matchers import MatcherError, find_matcher, parse_matcher
from toolgrade.match._values import SEMANTIC
from toolgrade.suite import Case, ToolSpec


def _matches(expected: object, actual: object) -> bool:
    return not compare_values(expected, actual, options=SEMANTIC)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("expected", "actual", "matches"),
    [
        ({"$not": {"$regex": "tmp/.*"}}, "src/a.py", True),
        ({"$not": {"$regex": "tmp/.*"}}, "tmp/a.py", False),
        ({"$not": "w"}, "r", True),
        ({"$not": "w"}, " w ", False),  # trimmed like any string
        ({"$not": 3}, 3.0, False),
        ({"$not": 3}, "3", True),  # no schema: a string is not the number
        ({"$not": {"$any_of": ["a", "b"]}}, "c", True),
        ({"$not": {"$any_of": ["a", "b"]}}, "b", False),
        ({"$not": {"$not": "a"}}, "a", True),
        ({"$not": {"$not": "a"}}, "b", False),
        ({"$not": {"$type": "string"}}, 5, True),
        ({"$not": None}, None, False),
        ({"$not": [1, 2]}, [2, 1], True),
    ],
)
def test_not_reverses_the_operand_verdict(expected: object, actual: object, matches: bool) -> None:
    assert _matches(expected, actual) is matches


def test_not_failure_reports_value_with_operand() -> None:
    (mismatch,) = compare_values({"$not": {"$regex": "tmp/.*"}}, "tmp/x", options=SEMANTIC)
    assert mismatch.reason == "value"
    assert mismatch.path == "$"
    assert mismatch.message == 'matches {"$regex": "tmp/.*"}, which it must not'


def test_not_long_operand_abbreviated_in_message() -> None:
    (mismatch,) = compare_values({"$not": "x" * 200}, "x" * 200, options=SEMANTIC)
    assert mismatch.message.endswith("..., which it must not")
    assert len(mismatch.message) < 100


@pytest.mark.parametrize(
    ("expected", "ok"),
    [
        ({"mode": {"$not": "w"}}, True),  # left out: it is not "w"
        ({"mode": {"$not": {"$absent": True}}}, False),  # must be there
        ({"mode": {"$not": {"$any_of": ["w", {"$absent": True}]}}}, False),
        ({"mode": {"$not": {"$present": True}}}, True),
    ],
)
def test_not_left_out_argument_reverses_absence(expected: dict[str, object], ok: bool) -> None:
    assert (not compare_arguments(expected, {}, options=SEMANTIC)) is ok  # type: ignore[arg-type]


def test_not_present_argument_with_not_absent_matches() -> None:
    assert not compare_arguments(
        {"mode": {"$not": {"$absent": True}}}, {"mode": "r"}, options=SEMANTIC
    )
    assert compare_arguments(
        {"mode": {"$not": {"$present": True}}}, {"mode": "r"}, options=SEMANTIC
    )


def test_not_registered_and_documented() -> None:
    assert "$not" in MATCHER_NAMES
    spec = find_matcher("$not")
    assert spec is not None
    assert spec.nested == "negated"
    assert "does not match" in spec.description


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"$not": {"$regex": "("}}, "$.$not: $regex: invalid pattern"),
        ({"$not": {"$nope": 1}}, "$.$not: unknown matcher $nope"),
        ({"$not": {"$not": {"$type": "str"}}}, "$.$not.$not: $type: unknown type"),
        ({"$not": 1, "tol": 2}, "$: $not: unexpected key(s) tol"),
        ([{"$not": {"$absent": True}}], "$[0].$not: $absent: only an object member"),
    ],
)
def test_not_malformed_operand_reported(value: object, problem: str) -> None:
    problems = matcher_problems(value)
    assert len(problems) == 1
    assert problems[0].startswith(problem)


@pytest.mark.parametrize(
    "value", [{"$not": "a"}, {"$not": None}, {"$not": {"$any_of": [1, {"$absent": True}]}}]
)
def test_not_well_formed_no_problem(value: object) -> None:
    assert matcher_problems(value) == []


def test_not_malformed_operand_raises_when_compared() -> None:
    assert parse_matcher({"$not": {"$regex": "("}}) is not None
    with pytest.raises(MatcherError):
        compare_values({"$not": {"$regex": "("}}, "a", options=SEMANTIC)


def test_not_in_judge_forbids_path_outside_tmp() -> None:
    tool = ToolSpec(
        name="delete_file",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}},
    )
    case = Case(
        id="n1",
        prompt="delete it",
        expected={"name": "delete_file", "arguments": {"path": {"$not": {"$regex": "tmp/.*"}}}},
    )
    good = judge(case, [{"name": "delete_file", "arguments": {"path": "a.txt"}}], tools=[tool])
    bad = judge(case, [{"name": "delete_file", "arguments": {"path": "tmp/a"}}], tools=[tool])
    # A path argument is normalised before the operand sees it.
    dotted = judge(case, [{"name": "delete_file", "arguments": {"path": "./tmp/a"}}], tools=[tool])
    assert good.status.value == "correct"
    assert bad.status.value == "wrong_args"
    assert dotted.status.value == "wrong_args"
    assert bad.details[0].path == "$.path"
