"""Trajectory comparison: each mode passes and fails, messages, matchers, P/R/F1."""

from __future__ import annotations

import pytest

from toolgrade._core.vocab import ToolCall
from toolgrade.judging._trajectory import compare_trajectory, trajectory_prf
from toolgrade.suite import SuiteDefaults, ToolSpec


def _c(name: str, **arguments: object) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


LS, PWD = _c("ls"), _c("pwd")
READ_A, READ_B = _c("read", path="a"), _c("read", path="b")


@pytest.mark.parametrize(
    ("mode", "actual", "reference", "passed"),
    [
        ("exact", [LS, READ_A], [LS, READ_A], True),
        ("exact", [READ_A, LS], [LS, READ_A], False),
        ("exact", [LS, READ_A, PWD], [LS, READ_A], False),
        ("exact", [LS], [LS, READ_A], False),
        ("in_order", [LS, PWD, READ_A], [LS, READ_A], True),
        ("in_order", [READ_A, LS], [LS, READ_A], False),
        ("in_order", [LS], [LS, READ_A], False),
        ("unordered", [READ_A, LS], [LS, READ_A], True),
        ("unordered", [READ_A, LS, PWD], [LS, READ_A], False),
        ("unordered", [READ_A], [LS, READ_A], False),
        ("subset", [READ_A], [LS, READ_A], True),
        ("subset", [], [LS, READ_A], True),
        ("subset", [READ_A, PWD], [LS, READ_A], False),
        ("subset", [READ_A, READ_A], [LS, READ_A], False),  # each reference call once
        ("superset", [PWD, READ_A, LS], [LS, READ_A], True),
        ("superset", [PWD, READ_A], [LS, READ_A], False),
        ("superset", [LS], [LS, LS], False),  # two distinct calls needed
    ],
)
def test_trajectory_mode_verdict(
    mode: str, actual: list[ToolCall], reference: list[ToolCall], passed: bool
) -> None:
    verdict = compare_trajectory(actual, reference, mode)  # type: ignore[arg-type]
    assert verdict.passed is passed
    assert (verdict.message is None) is passed
    assert (verdict.cause is None) is passed


def test_trajectory_exact_reports_wrong_tool_position() -> None:
    verdict = compare_trajectory([LS, PWD], [LS, READ_A], "exact")
    assert verdict.message == "call 2: expected read, got pwd"
    assert verdict.matched == ((0, 0),)
    assert verdict.missing == (1,)
    assert verdict.unexpected == (1,)
    assert verdict.cause == "missed_call"


def test_trajectory_exact_wrong_args_names_argument() -> None:
    verdict = compare_trajectory([LS, READ_B], [LS, READ_A], "exact")
    assert verdict.message == 'call 2: $.path: expected "a", got "b"'
    assert verdict.wrong_args == (1,)
    assert verdict.cause == "wrong_args"


def test_trajectory_exact_too_many_names_extra_call() -> None:
    verdict = compare_trajectory([LS, READ_A, PWD], [LS, READ_A], "exact")
    assert verdict.message == "3 calls instead of 2: call 3 (pwd) is not in the reference"
    assert verdict.cause == "unexpected_call"
    assert verdict.unexpected == (2,)


def test_trajectory_exact_too_few_names_missing_call() -> None:
    verdict = compare_trajectory([LS], [LS, READ_A], "exact")
    assert verdict.message == "1 call instead of 2: reference call 2 (read) was not made"
    assert verdict.missing == (1,)


def test_trajectory_in_order_out_of_order_message() -> None:
    verdict = compare_trajectory([READ_A, LS], [LS, READ_A], "in_order")
    assert verdict.message == (
        "reference call 2 (read) was not made after call 2: only before it, as call 1 "
        "(out of order)"
    )
    assert verdict.matched == ((0, 1),)
    assert verdict.missing == (1,)
    assert verdict.cause == "missed_call"


def test_trajectory_in_order_wrong_args_message() -> None:
    verdict = compare_trajectory([LS, READ_B], [LS, READ_A], "in_order")
    assert verdict.message == (
        "reference call 2 (read) was not made after call 1: call 2 (read) differs: "
        '$.path: expected "a", got "b"'
    )
    assert verdict.cause == "wrong_args"


def test_trajectory_in_order_earliest_match_finds_subsequence() -> None:
    reference = [READ_A, READ_A, LS]
    verdict = compare_trajectory([READ_A, PWD, READ_A, READ_A, LS], reference, "in_order")
    assert verdict.passed
    assert verdict.matched == ((0, 0), (1, 2), (2, 4))
    assert verdict.unexpected == (1, 3)  # allowed between


def test_trajectory_unordered_uses_maximum_matching() -> None:
    wide = ToolCall(name="read", arguments={"path": {"$any_of": ["a", "b"]}})
    # Greedy would pair the wide reference with "a" first and leave nothing for READ_A.
    verdict = compare_trajectory([READ_A, READ_B], [wide, READ_A], "unordered")
    assert verdict.passed
    assert verdict.matched == ((0, 1), (1, 0))


def test_trajectory_unordered_extra_message_and_cause() -> None:
    verdict = compare_trajectory([READ_A, LS, PWD], [LS, READ_A], "unordered")
    assert verdict.message == "call 3 (pwd) is not in the reference"
    assert verdict.cause == "unexpected_call"


def test_trajectory_subset_repeat_message() -> None:
    verdict = compare_trajectory([READ_A, READ_A], [LS, READ_A], "subset")
    assert verdict.message == (
        "call 2 (read) is not in the reference (or is made more often than the reference makes it)"
    )
    assert verdict.missing == (0,)  # informational: subset allows leaving calls out
    assert verdict.cause == "unexpected_call"


def test_trajectory_superset_missing_message() -> None:
    verdict = compare_trajectory([PWD, READ_B], [LS, READ_A], "superset")
    assert verdict.message == "reference call 1 (ls) was not made"
    assert verdict.wrong_args == (1,)
    assert verdict.cause == "wrong_args"


def test_trajectory_matchers_and_schema_coercion() -> None:
    tool = ToolSpec(
        name="head",
        parameters={"type": "object", "properties": {"n": {"type": "integer"}}},
    )
    reference = [ToolCall(name="head", arguments={"n": {"$approx": 10, "tol": 1}})]
    actual = [ToolCall(name="head", arguments={"n": "11"})]
    assert not compare_trajectory(actual, reference, "exact").passed  # no schema: a string
    assert compare_trajectory(actual, reference, "exact", tools={"head": tool}).passed


def test_trajectory_trim_follows_suite_defaults() -> None:
    actual, reference = [_c("say", text="hi ")], [_c("say", text="hi")]
    assert compare_trajectory(actual, reference, "exact").passed
    keep = SuiteDefaults(trim_strings=False)
    assert not compare_trajectory(actual, reference, "exact", defaults=keep).passed


def test_trajectory_both_empty_passes_every_mode() -> None:
    for mode in ("exact", "in_order", "unordered", "subset", "superset"):
        assert compare_trajectory([], [], mode).passed  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("actual", "reference", "prf"),
    [
        ([LS, READ_A], [LS, READ_A], (1.0, 1.0, 1.0)),
        ([READ_B, LS], [LS, READ_A], (0.5, 0.5, 0.5)),
        ([LS, PWD, READ_B, READ_A], [LS, READ_A], (0.5, 1.0, 2 / 3)),
        ([], [LS], (0.0, 0.0, 0.0)),
        ([LS], [], (0.0, 0.0, 0.0)),
        ([], [], (1.0, 1.0, 1.0)),
    ],
)
def test_trajectory_prf(
    actual: list[ToolCall], reference: list[ToolCall], prf: tuple[float, float, float]
) -> None:
    assert trajectory_prf(actual, reference) == pytest.approx(prf)
