"""The serving verdict of one answer: each class from an answer that shows it.

Every answer here goes through extraction as a run would (`extract_calls`), so the
format and problems the classifier reads are the ones a run records.
"""

from __future__ import annotations

import json

import pytest

from toolgrade._core.json_data import JsonValue
from toolgrade.backends import extractable
from toolgrade.extract import extract_calls
from toolgrade.serving import Answer, ServingClass, classify_answer

HERMES = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>'


def _call(name: str, arguments: object, ident: str = "call_1") -> dict[str, JsonValue]:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": text}}


def answer(raw: JsonValue, *, finish: str | None = None, failure: str | None = None) -> Answer:
    found = extract_calls(extractable(raw))
    return Answer(raw, found.format, found.errors, finish, failure, len(found.calls))


def kind(raw: JsonValue, *, native: bool = True, finish: str | None = None) -> ServingClass:
    return classify_answer(answer(raw, finish=finish), native=native).kind


def test_structured_calls_are_clean() -> None:
    message = {"role": "assistant", "content": None, "tool_calls": [_call("read_file", {})]}
    assert kind(message, finish="tool_calls") is ServingClass.STRUCTURED


def test_ollama_calls_with_object_arguments_are_clean() -> None:
    message = {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "a"}}}],
    }
    assert kind({"message": message, "done_reason": "stop"}) is ServingClass.STRUCTURED


def test_a_whole_response_is_read_for_its_message() -> None:
    response = {"choices": [{"message": {"role": "assistant", "content": HERMES}}]}
    assert kind(response) is ServingClass.CALLS_IN_TEXT


def test_a_plain_answer_is_clean() -> None:
    assert kind({"role": "assistant", "content": "Paris is sunny."}) is ServingClass.TEXT_ONLY


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "assistant", "content": "  \n"},
    ],
)
def test_nothing_back_is_empty(message: dict[str, JsonValue]) -> None:
    verdict = classify_answer(answer(message))
    assert verdict.kind is ServingClass.EMPTY
    assert verdict.detail == "no call and no text came back"


def test_calls_left_in_the_text_name_their_format() -> None:
    verdict = classify_answer(answer({"role": "assistant", "content": HERMES}))
    assert verdict.kind is ServingClass.CALLS_IN_TEXT
    assert verdict.fmt == "hermes"
    assert verdict.detail == "1 call(s) as hermes in the text, none in tool_calls"


def test_an_unreadable_call_in_the_text_is_still_a_call_in_the_text() -> None:
    broken = '<tool_call>\n{"name": "read_file", "arguments": {"path": </tool_call>'
    verdict = classify_answer(answer({"role": "assistant", "content": broken}))
    assert verdict.kind is ServingClass.CALLS_IN_TEXT
    assert "an unreadable call" in verdict.detail


def test_a_call_cut_at_the_token_limit_in_the_text_says_both() -> None:
    verdict = classify_answer(answer({"role": "assistant", "content": HERMES}, finish="length"))
    assert verdict.kind is ServingClass.CALLS_IN_TEXT
    assert verdict.detail.endswith("cut at the token limit")


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning", "thinking"])
def test_calls_only_in_the_reasoning(field: str) -> None:
    message = {"role": "assistant", "content": "", field: "Let me read it. " + HERMES}
    verdict = classify_answer(answer(message))
    assert verdict.kind is ServingClass.CALLS_IN_REASONING
    assert verdict.fmt == "hermes"


def test_reasoning_without_a_call_then_an_answer_is_clean() -> None:
    message = {"role": "assistant", "content": "It is 4.", "reasoning_content": "2+2 is 4"}
    assert kind(message) is ServingClass.TEXT_ONLY


def test_arguments_that_are_not_json_are_malformed() -> None:
    message = {"role": "assistant", "tool_calls": [_call("read_file", '{"path": "a.py"')]}
    verdict = classify_answer(answer(message))
    assert verdict.kind is ServingClass.MALFORMED_CALL
    assert "tool_calls[0]" in verdict.detail


def test_two_calls_sharing_an_id_are_malformed() -> None:
    calls = [_call("read_file", {"path": "a"}), _call("read_file", {"path": "b"})]
    verdict = classify_answer(answer({"role": "assistant", "tool_calls": calls}))
    assert verdict.kind is ServingClass.MALFORMED_CALL
    assert "share the id 'call_1'" in verdict.detail


def test_distinct_ids_and_missing_ids_are_fine() -> None:
    calls = [_call("read_file", {"path": "a"}, "a"), _call("read_file", {"path": "b"}, "b")]
    assert kind({"role": "assistant", "tool_calls": calls}) is ServingClass.STRUCTURED
    bare = [{"function": {"name": "f", "arguments": "{}"}}] * 2
    assert kind({"role": "assistant", "tool_calls": bare}) is ServingClass.STRUCTURED


def test_cut_at_the_token_limit() -> None:
    assert kind({"role": "assistant", "content": "I will now"}, finish="length") is (
        ServingClass.TRUNCATED
    )
    calls = {"role": "assistant", "tool_calls": [_call("f", {})]}
    assert kind(calls, finish="length") is ServingClass.TRUNCATED


def test_no_answer_at_all() -> None:
    verdict = classify_answer(answer(None, failure="HTTP 500: boom"))
    assert verdict.kind is ServingClass.REQUEST_FAILED
    assert verdict.detail == "HTTP 500: boom"


def test_prompt_mode_reads_text_by_design() -> None:
    message = {"role": "assistant", "content": HERMES}
    assert kind(message, native=False) is ServingClass.PROMPTED
    assert kind({"role": "assistant", "content": ""}, native=False) is ServingClass.EMPTY
    assert kind(message, native=False, finish="length") is ServingClass.TRUNCATED


def test_text_by_nature_has_no_tool_calls_channel() -> None:
    assert kind('[read_file(path="a")]') is ServingClass.PROMPTED
    assert kind("") is ServingClass.EMPTY


def test_an_agents_message_list_is_structured() -> None:
    trajectory = [
        {"role": "user", "content": "read a"},
        {"role": "assistant", "tool_calls": [_call("read_file", {"path": "a"})]},
        {"role": "tool", "tool_call_id": "call_1", "content": "x"},
    ]
    assert kind(trajectory) is ServingClass.STRUCTURED


def test_every_fault_has_a_detail_and_every_clean_class_none() -> None:
    samples = {
        ServingClass.STRUCTURED: answer({"role": "assistant", "tool_calls": [_call("f", {})]}),
        ServingClass.TEXT_ONLY: answer({"role": "assistant", "content": "hi"}),
        ServingClass.CALLS_IN_TEXT: answer({"role": "assistant", "content": HERMES}),
        ServingClass.EMPTY: answer({"role": "assistant", "content": ""}),
        ServingClass.TRUNCATED: answer({"role": "assistant", "content": "I"}, finish="length"),
        ServingClass.REQUEST_FAILED: answer(None, failure="timed out"),
    }
    for expected, sample in samples.items():
        verdict = classify_answer(sample)
        assert verdict.kind is expected
        assert bool(verdict.detail) is not expected.clean, expected


def test_only_a_calls_beginning_is_a_call_in_the_text() -> None:
    """llama-cpp-python's chatml-function-calling, streamed: `functions.NAME:` and stop."""
    verdict = classify_answer(answer({"role": "assistant", "content": "functions.read_file:"}))
    assert verdict.kind is ServingClass.CALLS_IN_TEXT
    assert verdict.fmt == "call_prefix"
    assert "arguments were lost" in verdict.detail
    prose = {"role": "assistant", "content": "Use functions.read_file: it reads a file."}
    assert kind(prose) is ServingClass.TEXT_ONLY
