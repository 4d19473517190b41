"""Raw outputs as text, reasoning and calls: messages, whole responses, and fallbacks."""

from __future__ import annotations

import pytest

from toolgrade._core.json_data import JsonValue
from toolgrade.report._plain import json_text
from toolgrade.report._raw import RawPart, clip_parts, group_calls, raw_parts, raw_text


def _openai_call(name: str, arguments: str) -> dict[str, JsonValue]:
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}


RAW_CASES: list[tuple[str, JsonValue, str]] = [
    ("plain_text", "I cannot do that.", "I cannot do that."),
    ("plain_text_keeps_json_looking_text", '{"a": 1}', '{"a": 1}'),
    (
        "openai_message_calls",
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_openai_call("read_file", '{"path": "a.py", "lines": [1, 2]}')],
            "refusal": None,
            "annotations": [],
        },
        'Tool call: read_file(path="a.py", lines=[1, 2])',
    ),
    (
        "openai_message_text_and_reasoning",
        {"role": "assistant", "content": "Done.", "reasoning_content": "Think first."},
        "Done.\nReasoning: Think first.",
    ),
    (
        "openrouter_reasoning_field",
        {"role": "assistant", "content": "", "reasoning": "r"},
        "Reasoning: r",
    ),
    (
        "ollama_message_object_arguments_and_thinking",
        {
            "role": "assistant",
            "content": "",
            "thinking": "The user wants a listing.",
            "tool_calls": [
                {"function": {"name": "list_dir", "arguments": {"path": "."}}},
                {"function": {"index": 1, "name": "read_file", "arguments": {"path": "R"}}},
            ],
        },
        'Tool call: list_dir(path=".")\nTool call: read_file(path="R")\n'
        "Reasoning: The user wants a listing.",
    ),
    (
        "openai_whole_response",
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "Hello"},
                    "finish_reason": "length",
                }
            ],
            "usage": {"completion_tokens": 5},
        },
        "Hello",
    ),
    (
        "ollama_whole_chat_response",
        {"model": "q", "message": {"role": "assistant", "content": "Hi"}, "done": True},
        "Hi",
    ),
    ("ollama_generate_response", {"model": "q", "response": "Hi", "done": True}, "Hi"),
    ("legacy_completion", {"choices": [{"text": "Hi", "index": 0}]}, "Hi"),
    (
        "legacy_function_call",
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": ""}},
        "Tool call: f()",
    ),
    (
        "arguments_encoded_twice",
        {"content": "", "tool_calls": [_openai_call("f", '"{\\"x\\": 1}"')]},
        "Tool call: f(x=1)",
    ),
    (
        "malformed_arguments_shown_as_sent",
        {"content": "", "tool_calls": [_openai_call("search", '{"pattern": "dep')]},
        'Tool call: search(<arguments not a JSON object: {"pattern": "dep>)',
    ),
    (
        "content_parts",
        {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"text": "b"}]},
        "ab",
    ),
    ("empty_message", {"role": "assistant", "content": None}, "(empty answer)"),
    (
        "refusal_and_unknown_fields",
        {"role": "assistant", "content": "", "refusal": "No.", "audio": {"id": "x"}},
        'Refusal: No.\nOther fields: {"audio": {"id": "x"}}',
    ),
    ("unrecognised_dict_is_json", {"foo": [1]}, '{\n  "foo": [\n    1\n  ]\n}'),
    ("user_message_is_json", {"role": "user", "content": "hi"}, None),
    ("call_without_function_is_json", {"content": "", "tool_calls": [{"x": 1}]}, None),
    ("non_text_content_part_is_json", {"content": [{"type": "image_url"}]}, None),
    ("empty_choices_is_json", {"choices": []}, None),
    ("list_is_json", [1, 2], "[\n  1,\n  2\n]"),
    ("none_is_empty", None, ""),
]


@pytest.mark.parametrize(
    ("raw", "expected"), [c[1:] for c in RAW_CASES], ids=[c[0] for c in RAW_CASES]
)
def test_raw_text_shape_renders_expected(raw: JsonValue, expected: str | None) -> None:
    assert raw_text(raw) == (json_text(raw, indent=True) if expected is None else expected)


def test_raw_parts_label_reasoning_and_calls() -> None:
    parts = raw_parts(
        {
            "content": "x",
            "reasoning_content": "r",
            "tool_calls": [
                {"function": {"name": "a", "arguments": {}}},
                {"function": {"name": "b", "arguments": {}}},
            ],
        }
    )
    assert [(p.kind, p.label) for p in parts] == [
        ("text", None),
        ("call", "Tool call"),
        ("call", "Tool call"),
        ("reasoning", "Reasoning"),
    ]
    grouped = group_calls(parts)
    assert [(p.kind, p.text) for p in grouped] == [
        ("text", "x"),
        ("calls", "a()\nb()"),
        ("reasoning", "r"),
    ]
    assert grouped[1].label == "Tool calls"


def test_raw_clip_parts_total_stays_within_limit() -> None:
    parts = (RawPart("text", "a" * 50), RawPart("reasoning", "b" * 50), RawPart("call", "c()"))
    clipped = clip_parts(parts, 60)
    assert [p.kind for p in clipped] == ["text", "reasoning", "call"]
    assert sum(len(p.text) for p in clipped) <= 61  # the last part is the cut mark alone
    assert clipped[1].text.endswith("…")
    assert clipped[2].text == "…"
