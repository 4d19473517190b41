"""Prompt-mode families: tool prompts, earlier calls and tool results written as text."""

from __future__ import annotations

import json

import pytest

from toolgrade.backends import BackendSettings
from toolgrade.backends._families import family, family_names
from toolgrade.backends._wire import ollama_messages, openai_messages, tools_system_prompt
from toolgrade.errors import ConfigError
from toolgrade.suite import ToolSpec

TOOLS = (ToolSpec(name="read_file"),)
HISTORY = (
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "read a and b"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "k1", "name": "read_file", "arguments": {"path": "a"}},
            {"id": "k2", "name": "read_file", "arguments": {"path": "b"}},
        ],
    },
    {"role": "tool", "tool_call_id": "k1", "name": "read_file", "content": '{"text": "A"}'},
    {
        "role": "tool",
        "tool_call_id": "k2",
        "name": "read_file",
        "content": "plain </tool_response>",
    },
)


def test_families_hermes_default_is_todays_prompt() -> None:
    assert tools_system_prompt(TOOLS) == family("hermes").system(TOOLS)
    assert "<tools>" in tools_system_prompt(TOOLS)
    assert family_names() == ("hermes", "llama3", "mistral")


@pytest.mark.parametrize(
    ("name", "system_mark", "calls_text", "results_text"),
    [
        (
            "hermes",
            "<tool_call>",
            '<tool_call>\n{"name": "read_file", "arguments": {"path": "a"}}\n</tool_call>\n'
            '<tool_call>\n{"name": "read_file", "arguments": {"path": "b"}}\n</tool_call>',
            '<tool_response>\n{"text": "A"}\n</tool_response>\n'
            "<tool_response>\nplain </tool_response>\n</tool_response>",
        ),
        (
            "llama3",
            '"parameters": dictionary of argument name',
            '{"name": "read_file", "parameters": {"path": "a"}}\n'
            '{"name": "read_file", "parameters": {"path": "b"}}',
            '{"text": "A"}\nplain </tool_response>',
        ),
        (
            "mistral",
            "[AVAILABLE_TOOLS]",
            '[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a"}, "id": "k1"}, '
            '{"name": "read_file", "arguments": {"path": "b"}, "id": "k2"}]',
            '[TOOL_RESULTS]{"content": {"text": "A"}, "call_id": "k1"}[/TOOL_RESULTS]\n'
            '[TOOL_RESULTS]{"content": "plain </tool_response>", "call_id": "k2"}[/TOOL_RESULTS]',
        ),
    ],
)
def test_families_render_history_as_text(
    name: str, system_mark: str, calls_text: str, results_text: str
) -> None:
    for convert in (openai_messages, ollama_messages):
        wire = convert(HISTORY, tools=TOOLS, prompt_mode=True, family=name)
        assert [m["role"] for m in wire] == ["system", "user", "assistant", "user"]
        assert system_mark in wire[0]["content"] and wire[0]["content"].endswith("Be brief.")
        assert wire[2]["content"] == calls_text
        # Results are data: written as they are, two results in one user message.
        assert wire[3]["content"] == results_text


def test_families_native_messages_keep_call_ids() -> None:
    wire = openai_messages(HISTORY, tools=TOOLS, prompt_mode=False)
    assert [c["id"] for c in wire[2]["tool_calls"]] == ["k1", "k2"]
    assert json.loads(wire[2]["tool_calls"][1]["function"]["arguments"]) == {"path": "b"}
    assert wire[3]["tool_call_id"] == "k1"
    no_ids = ({"role": "assistant", "tool_calls": [{"name": "read_file", "arguments": {}}]},)
    assert openai_messages(no_ids, tools=(), prompt_mode=False)[0]["tool_calls"][0]["id"] == (
        "call_0_0"
    )


def test_families_settings_check_and_record_the_format() -> None:
    assert "prompt_format" not in BackendSettings().to_dict()
    assert BackendSettings(prompt_format="llama3").to_dict()["prompt_format"] == "llama3"
    with pytest.raises(ConfigError, match="unknown prompt format 'gpt'"):
        BackendSettings(prompt_format="gpt")


def test_native_assistant_calls_without_text_are_sent_with_empty_content() -> None:
    # llama-cpp-python's server answers 500 to `content: null` beside tool calls.
    from toolgrade.backends._wire import openai_messages

    call = {"id": "call_0_0_0", "name": "read_file", "arguments": {"path": "a"}}
    sent = openai_messages(
        [{"role": "assistant", "content": None, "tool_calls": [call]}], tools=(), prompt_mode=False
    )
    assert sent[0]["content"] == ""
    assert sent[0]["tool_calls"][0]["id"] == "call_0_0_0"  # type: ignore[index]
