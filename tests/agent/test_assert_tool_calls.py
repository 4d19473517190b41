"""assert_tool_calls: accepted input forms, verdicts and the failure text."""

from __future__ import annotations

import pytest

from toolgrade import ToolCall, assert_tool_calls


def test_assert_tool_calls_semantic_match_passes() -> None:
    result = assert_tool_calls(
        [{"name": "read_file", "arguments": {"path": "./README.md"}}],
        {"name": "read_file", "arguments": {"path": "README.md"}},
    )
    assert result.status.value == "correct"


def test_assert_tool_calls_accepts_toolcall_objects_and_order_any() -> None:
    calls = [ToolCall(name="b", arguments={}), ToolCall(name="a", arguments={"x": 1})]
    assert_tool_calls(calls, [{"name": "a", "arguments": {"x": 1}}, {"name": "b"}])


def test_assert_tool_calls_strict_order_fails_on_swap() -> None:
    calls = [{"name": "b"}, {"name": "a"}]
    with pytest.raises(AssertionError):
        assert_tool_calls(calls, [{"name": "a"}, {"name": "b"}], order="strict")


def test_assert_tool_calls_openai_message_is_read() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "search", "arguments": '{"pattern": "TODO"}'},
            }
        ],
    }
    assert_tool_calls(message, {"name": "search", "arguments": {"pattern": "TODO"}})


def test_assert_tool_calls_raw_hermes_text_is_extracted() -> None:
    text = 'Sure.\n<tool_call>\n{"name": "search", "arguments": {"pattern": "TODO"}}\n</tool_call>'
    assert_tool_calls(text, {"name": "search", "arguments": {"pattern": "TODO"}})


def test_assert_tool_calls_none_expected_and_no_call_passes() -> None:
    assert_tool_calls("Hello! How can I help?", None)


def test_assert_tool_calls_matcher_in_expectation() -> None:
    assert_tool_calls(
        [{"name": "run_command", "arguments": {"command": "pytest -q tests/"}}],
        {"name": "run_command", "arguments": {"command": {"$regex": "pytest.*"}}},
    )


def test_assert_tool_calls_wrong_args_message_shows_path_expected_actual() -> None:
    with pytest.raises(AssertionError) as info:
        assert_tool_calls(
            [{"name": "search", "arguments": {"pattern": "todo"}}, {"name": "rm", "arguments": {}}],
            [{"name": "search", "arguments": {"pattern": "TODO"}}, {"name": "git_status"}],
        )
    text = str(info.value)
    # Leftover calls of different tools are paired as a wrong tool, and that status wins.
    assert text.startswith("tool calls do not match: wrong_tool (score 0.000")
    assert '$.pattern: expected "TODO", got "todo"' in text
    assert text.splitlines()[1:] == [
        "  expected (any order):",
        '    1. search({"pattern": "TODO"})  -> NOT MADE (call 1 has other arguments)',
        "    2. git_status({})  -> NOT MADE (call 2 is rm)",
        "  called:",
        '    1. search({"pattern": "todo"})  -> DIFFERS from expected 1',
        "    2. rm({})  -> NOT EXPECTED (expected 2 is git_status)",
        "  argument differences, expected 1 vs call 1:",
        '    $.pattern: expected "TODO", got "todo"',
    ]


def test_assert_tool_calls_missing_and_extra_calls_are_marked() -> None:
    with pytest.raises(AssertionError) as info:
        assert_tool_calls([{"name": "a"}, {"name": "c", "arguments": {"z": 1}}], [{"name": "a"}])
    assert str(info.value).endswith(
        '  called:\n    1. a({})  -> expected 1\n    2. c({"z": 1})  -> NOT EXPECTED'
    )
    with pytest.raises(AssertionError) as info:
        assert_tool_calls([{"name": "a"}], [{"name": "a"}, {"name": "b"}])
    assert (
        "  expected (any order):\n    1. a({})  -> made as call 1\n    2. b({})  -> NOT MADE\n"
        in str(info.value)
    )


def test_assert_tool_calls_min_score_partial_accepts_half_credit() -> None:
    calls = [{"name": "search", "arguments": {"pattern": "todo"}}]
    expected = {"name": "search", "arguments": {"pattern": "TODO"}}
    with pytest.raises(AssertionError):
        assert_tool_calls(calls, expected)
    result = assert_tool_calls(calls, expected, rubric="partial", min_score=0.5)
    assert result.score == 0.5


def test_assert_tool_calls_schema_from_tools_coerces_strings() -> None:
    tools = [
        {
            "name": "read_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
            },
        }
    ]
    assert_tool_calls(
        [{"name": "read_file", "arguments": {"path": "a.py", "limit": "10"}}],
        {"name": "read_file", "arguments": {"path": "a.py", "limit": 10}},
        tools=tools,
    )


def test_assert_tool_calls_bad_expected_raises_input_error() -> None:
    from toolgrade import InputError

    with pytest.raises(InputError, match=r"expected\[0\]"):
        assert_tool_calls([], [{"arguments": {}}])
