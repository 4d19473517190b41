"""`extract_calls`: input shapes, forcing, tools, detection order, refusals."""

from __future__ import annotations

import pytest

from toolgrade import InputError, ToolSpec, extract_calls
from toolgrade.extract import StructuredFormat, TextFormat, list_formats
from toolgrade.extract._registry import STAGES, text_formats

HERMES = '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'


def test_extract_unknown_format_raises_input_error() -> None:
    with pytest.raises(InputError, match="unknown extraction format 'nope'"):
        extract_calls("x", format="nope")


def test_extract_forced_format_ignores_other_formats() -> None:
    text = '[TOOL_CALLS][{"name": "a", "arguments": {}}] ' + HERMES
    assert extract_calls(text).format == "hermes"
    forced = extract_calls(text, format="mistral")
    assert forced.format == "mistral"
    assert [c.name for c in forced.calls] == ["a"]


def test_extract_forced_format_not_present_yields_none() -> None:
    found = extract_calls("plain words", format="hermes")
    assert (found.format, found.calls, found.errors) == ("none", (), ())


def test_extract_forced_structured_on_text_yields_none() -> None:
    assert extract_calls(HERMES, format="openai").format == "none"


def test_extract_forced_text_format_on_message_reads_content() -> None:
    message = {
        "role": "assistant",
        "content": HERMES,
        "tool_calls": [{"function": {"name": "g", "arguments": "{}"}}],
    }
    assert extract_calls(message).format == "openai"
    assert [c.name for c in extract_calls(message, format="hermes").calls] == ["f"]


def test_extract_tools_as_specs_reject_look_alikes() -> None:
    text = 'As JSON: {"name": "other", "arguments": {"a": 1}}'
    assert extract_calls(text).calls
    spec = ToolSpec(name="search", parameters={"type": "object", "properties": {}})
    assert extract_calls(text, tools=[spec]).format == "none"
    assert extract_calls(text, tools=["other"]).calls


def test_extract_marker_call_to_unknown_tool_is_still_a_call() -> None:
    found = extract_calls(HERMES, tools=["g"])
    assert [c.name for c in found.calls] == ["f"]


@pytest.mark.parametrize("output", [None, 42, ["a"], b"bytes"])
def test_extract_unsupported_output_type_is_parse_error(output: object) -> None:
    found = extract_calls(output)  # type: ignore[arg-type]
    assert [e.reason for e in found.errors] == ["parse_error"]


def test_extract_unrecognised_mapping_is_parse_error() -> None:
    found = extract_calls({"foo": "bar"})
    assert [e.reason for e in found.errors] == ["parse_error"]


def test_extract_response_without_choices_is_parse_error() -> None:
    assert [e.reason for e in extract_calls({"choices": []}).errors] == ["parse_error"]


def test_extract_tool_calls_not_a_list_is_parse_error() -> None:
    found = extract_calls({"role": "assistant", "tool_calls": "f()"})
    assert (found.format, [e.reason for e in found.errors]) == ("openai", ["parse_error"])


def test_extract_large_message_content_is_too_large() -> None:
    found = extract_calls({"role": "assistant", "content": "x" * 1_000_001})
    assert [e.reason for e in found.errors] == ["too_large"]


def test_extract_reasoning_only_call_is_not_counted() -> None:
    assert extract_calls(f"<think>{HERMES}</think>No call needed.").format == "none"


def test_extract_prompt_opened_think_is_skipped() -> None:
    # Qwen3 / DeepSeek-R1 templates open <think> in the prompt: output starts mid-thought.
    found = extract_calls(f"maybe {HERMES}?</think>\n\n" + HERMES.replace('"f"', '"g"'))
    assert [c.name for c in found.calls] == ["g"]


def test_extract_harmony_analysis_is_skipped() -> None:
    text = f"<|channel|>analysis<|message|>{HERMES}<|end|><|start|>assistant<|channel|>final"
    assert extract_calls(text + "<|message|>Done.").format == "none"


def test_extract_detection_prefers_structured_over_content() -> None:
    message = {
        "role": "assistant",
        "content": HERMES,
        "tool_calls": [{"type": "function", "function": {"name": "g", "arguments": "{}"}}],
    }
    found = extract_calls(message)
    assert (found.format, [c.name for c in found.calls]) == ("openai", ["g"])


def test_extract_detection_prefers_marker_over_bare_json() -> None:
    text = '{"name": "bare", "arguments": {}} ' + HERMES
    assert extract_calls(text).format == "hermes"


def test_extract_detection_prefers_fenced_over_bare_json() -> None:
    text = '{"name": "bare", "arguments": {}}\n```json\n{"name": "fenced", "arguments": {}}\n```'
    found = extract_calls(text)
    assert (found.format, [c.name for c in found.calls]) == ("fenced_json", ["fenced"])


def test_list_formats_names_are_unique_and_staged() -> None:
    formats = list_formats()
    names = [f.name for f in formats]
    assert len(names) == len(set(names))
    assert all(isinstance(f, StructuredFormat) for f in formats[:3])
    stages = [STAGES.index(f.stage) for f in text_formats()]
    assert stages == sorted(stages)
    assert all(isinstance(f, TextFormat) and f.description for f in text_formats())


def test_list_formats_covers_json_families() -> None:
    names = {f.name for f in list_formats()}
    assert {
        "openai",
        "openai_function_call",
        "ollama",
        "hermes",
        "mistral",
        "llama3_json",
        "granite",
        "phi4_mini",
        "jamba",
        "xlam",
        "functionary_v3",
        "functionary_v31",
        "internlm2",
        "command_r7b",
        "fenced_json",
        "json",
    } <= names


def test_list_formats_hermes_comes_after_xml_formats_sharing_its_tag() -> None:
    order = [f.name for f in text_formats()]
    sharing = [f.name for f in text_formats() if "<tool_call>" in f.markers]
    assert sharing[-1] == "hermes"
    assert order.index("hermes") > max(order.index(name) for name in sharing[:-1] or ["hermes"])
