"""The scanning helpers behind the JSON families: blocks, fences, reasoning, decoding."""

from __future__ import annotations

import pytest

from toolgrade.extract._json_formats import json_tagged_blocks, tagged_blocks
from toolgrade.extract._json_generic import fenced_blocks, generic_calls
from toolgrade.extract._json_scan import (
    TooDeepError,
    call_from_object,
    decode_sequence,
    json_until,
    loads_fast,
)
from toolgrade.extract._reasoning import strip_reasoning
from toolgrade.extract._types import ExtractContext


def test_tagged_blocks_closed_and_unclosed_are_told_apart() -> None:
    text = "a<t>1</t>b<t>2<t>3</t><t>4"
    assert tagged_blocks(text, "<t>", "</t>") == [
        ("1", True),
        ("2", False),
        ("3", True),
        ("4", False),
    ]


def test_tagged_blocks_without_tag_are_empty() -> None:
    assert tagged_blocks("nothing here", "<t>", "</t>") == []


def test_fenced_blocks_reads_language_and_closure() -> None:
    text = "x\n```JSON\n{}\n```\ninline ```code``` here\n```\nopen"
    assert fenced_blocks(text) == [("json", "{}\n", True), ("", "open", False)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<think>a</think>b", "b"),
        ("a</think>b", "b"),
        ("x<think>never closed", "x"),
        ("<think>1</think>a<think>2</think>b", "ab"),
        ("[THINK]t[/THINK]answer", "answer"),
        ("<seed:think>t</seed:think>answer", "answer"),
        ("<|START_THINKING|>plan<|END_THINKING|>act", "act"),
        ("<|channel|>analysis<|message|>t<|end|>rest", "rest"),
        ("<|channel|>analysis<|message|>t<|start|>assistant", "<|start|>assistant"),
        ("<|channel|>analysis<|message|>cut off", ""),
        ("no reasoning", "no reasoning"),
    ],
)
def test_strip_reasoning_removes_blocks(text: str, expected: str) -> None:
    assert strip_reasoning(text) == expected


def test_loads_fast_rejects_deep_and_trailing() -> None:
    with pytest.raises(TooDeepError):
        loads_fast("[" * 101 + "]" * 101)
    assert loads_fast("[" * 100 + "]" * 100) is not None
    with pytest.raises(ValueError, match="extra data"):
        loads_fast("{} x")


def test_decode_sequence_splits_on_separators() -> None:
    assert decode_sequence('{"a": 1}; {"b": 2} ;', ";") == [{"a": 1}, {"b": 2}]
    with pytest.raises(ValueError):
        decode_sequence('{"a": 1} junk', ";")


@pytest.mark.parametrize(
    ("obj", "problem"),
    [
        ([], "must be an object"),
        ({"arguments": {}}, "non-empty string 'name'"),
        ({"name": "  "}, "non-empty string 'name'"),
        ({"name": "f", "arguments": [1]}, "must be an object"),
        ({"name": "f", "arguments": "{bad"}, "not valid JSON"),
        ({"name": "f", "arguments": '"\\"\\\\\\"{}\\\\\\"\\""'}, "too many times"),
    ],
)
def test_call_from_object_explains_problems(obj: object, problem: str) -> None:
    result = call_from_object(obj)  # type: ignore[arg-type]
    assert result.call is None
    assert problem in result.problem


def test_call_from_object_accepts_openai_and_command_shapes() -> None:
    openai = call_from_object({"type": "function", "function": {"name": "f", "arguments": "{}"}})
    command = call_from_object({"tool_call_id": "0", "tool_name": "g", "parameters": {"a": 1}})
    assert openai.call is not None and openai.call.name == "f"
    assert command.call is not None and command.call.arguments == {"a": 1}


def test_generic_calls_requires_every_list_item_to_be_a_call() -> None:
    ctx = ExtractContext()
    assert generic_calls([{"name": "f", "arguments": {}}, {"name": "x"}], ctx) is None
    assert generic_calls([], ctx) is None
    read = generic_calls({"tool_calls": [{"name": "f", "parameters": {}}]}, ctx)
    assert read is not None and read[1] is True


def test_json_tagged_blocks_closing_tag_in_string_is_text() -> None:
    text = '<t>{"a": "</t>"}</t> x <t>{"b": 1}\n[2]</t><t>plain</t>'
    assert json_tagged_blocks(text, "<t>", "</t>") == [
        ('{"a": "</t>"}', True, [{"a": "</t>"}]),
        ('{"b": 1}\n[2]', True, [{"b": 1}, [2]]),
        ("plain", True, None),
    ]


def test_json_tagged_blocks_broken_body_is_cut_at_first_closing_tag() -> None:
    assert json_tagged_blocks('<t>{"a": 1}}</t>', "<t>", "</t>") == [('{"a": 1}}', True, None)]
    assert json_tagged_blocks('<t>{"a": 1}', "<t>", "</t>") == [('{"a": 1}', False, None)]


def test_json_tagged_blocks_skips_lead_before_json() -> None:
    text = '<a><p>{"x": "</a>"}</a>'
    assert json_tagged_blocks(text, "<a>", "</a>", lead="<p>") == [
        ('<p>{"x": "</a>"}', True, [{"x": "</a>"}])
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": "```"}\n```', ([{"a": "```"}], 13)),
        ('{"a": 1} {"b": 2}```', ([{"a": 1}, {"b": 2}], 17)),
        ('{"a": 1} x```', None),
        ('{"a": 1}', None),
        ('{"a": ```', None),
    ],
)
def test_json_until_reads_values_up_to_closing_tag(
    text: str, expected: tuple[list[object], int] | None
) -> None:
    assert json_until(text, 0, "```", max_values=4) == expected


def test_json_until_stops_after_max_values() -> None:
    assert json_until("1 2 3 ```", 0, "```", max_values=2) is None
