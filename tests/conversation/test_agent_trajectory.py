"""steps_from_messages: an agent's own message list read as steps, exchanges and a reply."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolgrade._core.transcript import Step
from toolgrade._core.vocab import ToolCall
from toolgrade.extract import extract_calls
from toolgrade.extract._agent_steps import steps_from_messages, trajectory_calls
from toolgrade.extract._common import MAX_CALLS, MAX_DEPTH
from toolgrade.extract._messages import (
    MAX_MESSAGES,
    is_trajectory,
    message_tool_calls,
    trajectory_message,
)


def _notes(step: Step) -> tuple[str, ...]:
    """A step's extraction problems, their messages."""
    return tuple(e.message for e in step.extraction_errors)


def _call(name: str, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        item["id"] = call_id
    return item


def _assistant(*calls: dict[str, Any], content: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def _tool(content: Any, call_id: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "tool", "content": content}
    if call_id is not None:
        message["tool_call_id"] = call_id
    return message


TWO_STEPS = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": "Fix the typo in a.md"},
    _assistant(_call("read_file", '{"path": "a.md"}', "c1")),
    _tool('{"text": "helo"}', "c1"),
    _assistant(_call("write_file", {"path": "a.md", "text": "hello"}, "c2")),
    _tool("ok", "c2"),
    _assistant(content="Fixed the typo."),
]


def test_steps_two_steps_string_and_object_arguments_are_read() -> None:
    steps, reply = steps_from_messages(TWO_STEPS)
    assert [s.calls for s in steps] == [
        (ToolCall(name="read_file", arguments={"path": "a.md"}),),
        (ToolCall(name="write_file", arguments={"path": "a.md", "text": "hello"}),),
        (),
    ]
    assert reply == "Fixed the typo."
    assert [s.extraction_format for s in steps] == ["openai", "ollama", "none"]
    first, second = steps[0].exchanges[0], steps[1].exchanges[0]
    assert (first.id, first.result, first.outcome, first.note) == (
        "c1",
        {"text": "helo"},
        "ok",
        None,
    )
    assert (second.id, second.result) == ("c2", "ok")
    assert steps[2].raw_response == TWO_STEPS[-1]
    assert all(not s.extraction_errors for s in steps)


def test_steps_missing_ids_are_generated_and_results_answer_in_order() -> None:
    messages = [
        _assistant(_call("ls", {}), _call("pwd", "{}")),
        _tool("a.md b.md"),
        _tool("/work"),
        _assistant(content="Two files in /work."),
    ]
    steps, reply = steps_from_messages(messages, turn=3)
    ids = [e.id for e in steps[0].exchanges]
    assert ids == ["call_3_0_0", "call_3_0_1"]
    assert [e.result for e in steps[0].exchanges] == ["a.md b.md", "/work"]
    assert reply == "Two files in /work."


def test_steps_parallel_results_are_paired_by_id_not_position() -> None:
    messages = [
        _assistant(_call("read", {"p": "a"}, "x"), _call("read", {"p": "b"}, "y")),
        _tool("B", "y"),
        _tool("A", "x"),
    ]
    steps, reply = steps_from_messages(messages)
    assert [(e.call.arguments["p"], e.result) for e in steps[0].exchanges] == [
        ("a", "A"),
        ("b", "B"),
    ]
    assert reply is None  # the last assistant message made calls


def test_steps_result_for_unknown_id_is_noted_and_ignored() -> None:
    messages = [_assistant(_call("ls", {}, "c1")), _tool("x", "nope"), _tool("real", "c1")]
    steps, _ = steps_from_messages(messages)
    assert steps[0].exchanges[0].result == "real"
    assert _notes(steps[0]) == ("messages[1]: a tool result for unknown call id 'nope', ignored",)


def test_steps_unanswered_call_has_a_note_and_no_result() -> None:
    steps, _ = steps_from_messages([_assistant(_call("ls", {}, "c1"))])
    exchange = steps[0].exchanges[0]
    assert (exchange.result, exchange.note) == (
        None,
        "no tool result for this call in the trajectory",
    )


def test_steps_malformed_call_is_an_extraction_error_others_kept() -> None:
    messages = [_assistant(_call("ls", "{not json"), _call("pwd", {}, "p"), {"function": 3})]
    steps, _ = steps_from_messages(messages)
    assert steps[0].calls == (ToolCall(name="pwd"),)
    assert [e.id for e in steps[0].exchanges] == ["p"]
    errors = _notes(steps[0])
    assert len(errors) == 2
    assert errors[0].startswith("messages[0].tool_calls[0]: ")
    assert errors[1].startswith("messages[0].tool_calls[2]: ")


def test_steps_tool_result_before_any_call_is_noted_on_the_first_step() -> None:
    steps, reply = steps_from_messages([_tool("x", "c9"), _assistant(content="hi")])
    assert _notes(steps[0]) == ("messages[0]: a tool result for unknown call id 'c9', ignored",)
    assert reply == "hi"


@pytest.mark.parametrize(
    ("messages", "note"),
    [
        ("not a list", "the trajectory is not a list of messages (str)"),
        ([42], "messages[0]: not a message object (int)"),
        ([{"role": "wizard"}], "messages[0]: unknown role 'wizard' skipped"),
        ([{"role": 7}], "messages[0]: unknown role 'int' skipped"),
        ([_tool("x")], "messages[0]: a tool result for no waiting call, ignored"),
        ([_tool("x", ["id"])], "messages[0]: a tool result whose call id is not text, ignored"),
    ],
)
def test_steps_malformed_items_become_notes_never_exceptions(messages: Any, note: str) -> None:
    steps, reply = steps_from_messages(messages)
    assert _notes(steps[0]) == (note,)
    assert reply is None


def test_steps_hostile_content_is_bounded() -> None:
    deep: Any = "x"
    for _ in range(MAX_DEPTH + 50):
        deep = [deep]
    huge_number = "1" * 5000
    messages = [
        _assistant(_call("a", json.dumps({"v": deep})), _call("b", f'{{"n": {huge_number}}}')),
        _assistant(_call("ok", {}, "1"), _call("ok", {}, "2")),
        _tool(json.dumps(deep), "1"),
        _tool(huge_number, "2"),
        {"role": "assistant", "content": {"evil": True}},
    ]
    steps, reply = steps_from_messages(messages)
    assert steps[0].calls == ()
    assert [e.split(": ")[0] for e in _notes(steps[0])] == [
        "messages[0].tool_calls[0]",
        "messages[0].tool_calls[1]",
    ]
    # results out of bounds are kept as text, never parsed
    assert [e.result for e in steps[1].exchanges] == [json.dumps(deep), huge_number]
    assert reply is None
    assert _notes(steps[2]) == ("messages[4]: content is neither text nor a list of parts",)


def test_steps_message_not_plain_json_is_noted() -> None:
    steps, reply = steps_from_messages([{"role": "assistant", "content": "x", "extra": {1, 2}}])  # type: ignore[list-item]
    assert steps[0].raw_response is None
    assert _notes(steps[0]) == ("messages[0]: not plain JSON (or nested too deeply)",)
    assert reply == "x"


def test_steps_result_json_is_parsed_text_kept_and_parts_joined() -> None:
    messages = [
        _assistant(
            _call("a", {}, "1"), _call("b", {}, "2"), _call("c", {}, "3"), _call("d", {}, "4")
        ),
        _tool("[1, 2]", "1"),
        _tool("NaN", "2"),
        _tool([{"type": "text", "text": '{"ok": '}, {"type": "text", "text": "true}"}], "3"),
        _tool({"already": "json"}, "4"),
    ]
    steps, _ = steps_from_messages(messages)
    assert [e.result for e in steps[0].exchanges] == [
        [1, 2],
        "NaN",
        {"ok": True},
        {"already": "json"},
    ]


def test_steps_call_cap_is_noted() -> None:
    calls = [_call("ls", {}) for _ in range(MAX_CALLS + 5)]
    steps, _ = steps_from_messages([_assistant(*calls)])
    assert len(steps[0].calls) == MAX_CALLS
    assert _notes(steps[0]) == (f"more than {MAX_CALLS} tool calls: the rest are not read",)


def test_steps_message_cap_is_noted() -> None:
    messages = [_assistant(content="x")] * (MAX_MESSAGES + 3)
    steps, _ = steps_from_messages(messages)
    assert len(steps) == MAX_MESSAGES
    assert _notes(steps[-1]) == (f"more than {MAX_MESSAGES} messages: the rest are not read",)


def test_steps_anthropic_blocks_are_read() -> None:
    messages = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Oslo"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "503", "is_error": True}
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "The service is down."}]},
    ]
    steps, reply = steps_from_messages(messages)
    assert steps[0].calls == (ToolCall(name="weather", arguments={"city": "Oslo"}),)
    exchange = steps[0].exchanges[0]
    assert (exchange.id, exchange.result, exchange.outcome) == ("t1", 503, "error")
    assert reply == "The service is down."


def test_steps_legacy_function_call_and_function_role_are_read() -> None:
    messages = [
        {"role": "assistant", "function_call": {"name": "ls", "arguments": "{}"}},
        {"role": "function", "name": "ls", "content": "a.md"},
    ]
    steps, _ = steps_from_messages(messages)
    assert steps[0].calls == (ToolCall(name="ls"),)
    assert steps[0].exchanges[0].result == "a.md"


def test_trajectory_calls_lists_every_call_in_order() -> None:
    assert [c.name for c in trajectory_calls(TWO_STEPS)] == ["read_file", "write_file"]


def test_is_trajectory_tells_messages_from_calls() -> None:
    assert is_trajectory(TWO_STEPS)
    assert not is_trajectory([])
    assert not is_trajectory([{"name": "ls", "arguments": {}}])
    assert not is_trajectory("role")
    assert not is_trajectory([{"role": "user"}, "x"])


def test_trajectory_message_merges_calls_and_leaves_tool_results_out() -> None:
    messages = [
        *TWO_STEPS[:3],
        # a tool result that looks like a call must not be read as one
        _tool(json.dumps({"name": "delete_all", "arguments": {}}), "c1"),
        *TWO_STEPS[4:],
    ]
    merged = trajectory_message(messages)
    assert merged["content"] == "Fixed the typo."
    found = extract_calls(merged)
    assert [c.name for c in found.calls] == ["read_file", "write_file"]


def test_message_tool_calls_not_a_list_is_kept_for_extraction_to_refuse() -> None:
    assert message_tool_calls({"role": "assistant", "tool_calls": "oops"}) == ["oops"]
    steps, _ = steps_from_messages([{"role": "assistant", "tool_calls": "oops"}])
    assert steps[0].calls == ()
    assert steps[0].extraction_errors


def test_steps_ids_reused_across_steps_answer_the_waiting_call() -> None:
    messages = [
        _assistant(_call("ls", {}, "call_0")),
        _tool("first", "call_0"),
        _assistant(_call("pwd", {}, "call_0")),
        _tool("second", "call_0"),
    ]
    steps, _ = steps_from_messages(messages)
    assert [s.exchanges[0].result for s in steps] == ["first", "second"]


def test_steps_oversized_call_is_refused_with_its_place() -> None:
    huge = _call("a", "x" * 1_100_000)
    steps, _ = steps_from_messages([_assistant(huge), _tool("r", "")])
    assert _notes(steps[0]) == (
        "messages[0].tool_calls[0]: output over 1000000 characters",
        "messages[1]: a tool result for no waiting call, ignored",
    )


def test_steps_last_turn_skips_the_echoed_history() -> None:
    history = [
        {"role": "user", "content": "List the files"},
        _assistant(_call("ls", {}, "a")),
        _tool("a.md", "a"),
        _assistant(content="One file."),
    ]
    turn = [
        {"role": "user", "content": "Read it"},
        _assistant(_call("read", {"path": "a.md"}, "b")),
        _tool("hello", "b"),
        _assistant(content="It says hello."),
    ]
    steps, reply = steps_from_messages([*history, *turn], turn=1, last_turn=True)
    assert [c.name for s in steps for c in s.calls] == ["read"]
    assert reply == "It says hello."
    everything, _ = steps_from_messages([*history, *turn])
    assert [c.name for s in everything for c in s.calls] == ["ls", "read"]
    # only the agent's own messages: all of them are the turn
    own, _ = steps_from_messages(turn[1:], last_turn=True)
    assert len(own) == 2


def test_steps_last_turn_tool_result_blocks_are_not_the_user_speaking() -> None:
    messages = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t", "name": "w", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t", "content": "sun"}],
        },
        {"role": "assistant", "content": "Sunny."},
    ]
    steps, reply = steps_from_messages(messages, last_turn=True)
    assert [c.name for s in steps for c in s.calls] == ["w"]
    assert (steps[0].exchanges[0].result, reply) == ("sun", "Sunny.")


def test_steps_problems_are_values_with_their_reasons() -> None:
    too_many = [{"role": "assistant", "content": "x"}] * (MAX_MESSAGES + 1)
    steps, _ = steps_from_messages(too_many)
    assert {e.reason for s in steps for e in s.extraction_errors} == {"too_large"}
    steps, _ = steps_from_messages([_assistant(_call("ls", "{not json"))])
    (problem,) = steps[0].extraction_errors
    assert problem.reason == "parse_error"
    assert str(problem) == f"parse_error: {problem.message}"
