"""The two assertions as one family: a suite's verdict, one failure layout, bounded lists."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from toolgrade import SuiteError, assert_tool_calls, assert_trajectory
from toolgrade.environments import TurnRun
from toolgrade.errors import InputError
from toolgrade.extract import steps_from_messages
from toolgrade.judging import judge_conversation
from toolgrade.suite import Suite


def _message(name: str, arguments: dict[str, Any], k: int) -> list[dict[str, Any]]:
    call = {"id": f"c{k}", "type": "function", "function": {"name": name, "arguments": ""}}
    call["function"]["arguments"] = json.dumps(arguments)
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{k}", "content": "ok"},
    ]


CALLS = [("ls", {"path": "."}), ("read", {"path": "a.md"}), ("rm", {"path": "a.md"})]
MESSAGES = [
    {"role": "user", "content": "Tidy up."},
    *(m for k, (name, args) in enumerate(CALLS) for m in _message(name, args, k)),
    {"role": "assistant", "content": "Removed a.md."},
]
EXPECTED = [
    [{"name": "read", "arguments": {"path": "a.md"}}],
    [{"name": "read", "arguments": {"path": "b.md"}}, {"name": "ls"}],
    [{"name": "ls"}, {"name": "read"}, {"name": "rm"}],
]
FORBIDDEN = [(), [{"name": "rm", "arguments": {"path": {"$regex": "src/.*"}}}], [{"name": "rm"}]]
REPLIES = [None, {"$contains": "a.md"}, "Done."]
MODES = ["exact", "in_order", "unordered", "subset", "superset"]


def _suite_verdict(expected: Any, mode: str, forbidden: Any, reply: Any, max_calls: Any) -> bool:
    """The verdict of a suite's conversation stating the same, with all its checks deciding."""
    checks: dict[str, Any] = {"trajectory": {"calls": expected, "mode": mode}}
    if forbidden:
        checks["forbidden"] = forbidden
    if max_calls is not None:
        checks["max_calls"] = max_calls
    turn = {"user": "Tidy up.", "reply": reply}
    suite = Suite.model_validate(
        {
            "schema_version": 2,
            "name": "s",
            "cases": [{"id": "c", "turns": [turn], "checks": checks}],
        }
    )
    steps, text = steps_from_messages(MESSAGES)
    run = TurnRun(index=0, user="Tidy up.", steps=steps, reply=text)
    conversation = suite.conversations[0]
    verdict = judge_conversation(suite, conversation, [run], initial_state={}, final_state={})
    return verdict.passed


@pytest.mark.parametrize(
    ("expected", "mode", "forbidden", "reply", "max_calls"),
    list(itertools.product(EXPECTED, MODES, FORBIDDEN, REPLIES, [None, 2])),
)
def test_trajectory_assertion_holds_exactly_when_the_suite_conversation_passes(
    expected: Any, mode: Any, forbidden: Any, reply: Any, max_calls: Any
) -> None:
    try:
        assert_trajectory(
            MESSAGES, expected, mode, forbidden=forbidden, reply=reply, max_calls=max_calls
        )
        held = True
    except AssertionError:
        held = False
    assert held == _suite_verdict(expected, mode, forbidden, reply, max_calls)


def _failure(check: Any, *args: Any, **kwargs: Any) -> list[str]:
    with pytest.raises(AssertionError) as info:
        check(*args, **kwargs)
    return str(info.value).splitlines()


def test_one_reply_and_trajectory_failures_share_one_layout() -> None:
    calls = [
        {"name": "search", "arguments": {"pattern": "todo"}},
        {"name": "ls", "arguments": {}},
    ]
    expected = [{"name": "search", "arguments": {"pattern": "TODO"}}]
    reply = _failure(assert_tool_calls, calls, expected)
    trajectory = _failure(assert_trajectory, calls, expected, "unordered")
    assert reply[0].startswith("tool calls do not match: wrong_args")
    assert trajectory[0].startswith("trajectory does not hold: unordered: reference call 1")
    listing = [
        '    1. search({"pattern": "TODO"})  -> NOT MADE (call 1 has other arguments)',
        "  called:",
        '    1. search({"pattern": "todo"})  -> DIFFERS from expected 1',
        "    2. ls({})  -> NOT EXPECTED",
        "  argument differences, expected 1 vs call 1:",
        '    $.pattern: expected "TODO", got "todo"',
    ]
    assert reply[1:] == ["  expected (any order):", *listing]
    assert trajectory[1:] == ["  expected (unordered):", *listing]


def test_long_lists_are_cut_and_counted_in_both_failures() -> None:
    calls = [{"name": "ls", "arguments": {"n": n}} for n in range(60)]
    for lines in (
        _failure(assert_tool_calls, calls, None),
        _failure(assert_trajectory, calls, None, "exact"),
    ):
        assert "  called:" in lines
        assert lines[-2] == '    50. ls({"n": 49})  -> NOT EXPECTED'
        assert lines[-1] == "    ... and 10 more"


def test_one_reply_names_the_alternative_it_was_judged_against() -> None:
    from toolgrade.agent._failure import format_failure
    from toolgrade.agent._judging import judge_calls

    case = {
        "id": "c",
        "prompt": "",
        "expected": {"name": "a"},
        "alternatives": [[{"name": "b", "arguments": {"x": 1}}]],
    }
    result = judge_calls([{"name": "b", "arguments": {"x": 2}}], case, rubric="partial")
    assert result.alternative == 0
    assert "  expected (any order, alternative 1):" in format_failure(result).splitlines()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"max_calls": -1}, InputError, "max_calls: must be a whole number from 0"),
        ({"max_calls": True}, InputError, "max_calls"),
        ({"tools": [{"name": 3}]}, InputError, r"tools\[0\]"),
        ({"tools": "read"}, InputError, "tools: must be a list"),
        ({"reply": {"$regex": 3}}, SuiteError, "malformed matcher"),
        (
            {"forbidden": [{"name": "rm", "arguments": {"p": {"$regex": 3}}}]},
            SuiteError,
            "malformed",
        ),
    ],
)
def test_trajectory_input_problems_raise_before_judging(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        assert_trajectory(MESSAGES, None, "superset", **kwargs)


def test_malformed_matcher_is_a_suite_error_in_both_assertions() -> None:
    call = [{"name": "f", "arguments": {"x": 1}}]
    bad = [{"name": "f", "arguments": {"x": {"$regex": 3}}}]
    with pytest.raises(SuiteError, match="case assert_tool_calls"):
        assert_tool_calls(call, bad)
    with pytest.raises(SuiteError, match="case assert_trajectory"):
        assert_trajectory(call, bad)
