from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.extract._gemma_formats import parse_arguments, parse_functiongemma, parse_gemma4
from toolgrade.extract._json_token_formats import (
    parse_apertus,
    parse_gigachat3,
    parse_granite_20b_fc,
    parse_longcat,
    parse_minimax_m1,
)
from toolgrade.extract._token_formats import (
    FORMATS,
    parse_deepseek_v3,
    parse_deepseek_v31,
    parse_deepseek_v32,
    parse_harmony,
    parse_kimi_k2,
    parse_lfm2,
    parse_step3,
)
from toolgrade.extract._types import ExtractContext, Extraction

NO_TOOLS = ExtractContext()
BAR, SP = "\uff5c", "\u2581"


def tok(words: str) -> str:
    return f"<{BAR}{words.replace(' ', SP)}{BAR}>"


def calls_of(found: Extraction | None) -> list[tuple[str, object]]:
    assert found is not None
    return [(c.name, c.arguments) for c in found.calls]


def reasons(found: Extraction | None) -> list[str]:
    assert found is not None
    return [e.reason for e in found.errors]


def ds_v3(name: str, args: str) -> str:
    return (
        f"{tok('tool call begin')}function{tok('tool sep')}{name}\n```json\n{args}\n```"
        f"{tok('tool call end')}"
    )


def test_deepseek_styles_are_told_apart() -> None:
    v3 = tok("tool calls begin") + ds_v3("f", '{"a": 1}') + tok("tool calls end")
    v31 = tok("tool calls begin") + tok("tool call begin") + "f" + tok("tool sep") + "{}"
    v31 += tok("tool call end") + tok("tool calls end")
    assert calls_of(parse_deepseek_v3(v3, NO_TOOLS)) == [("f", {"a": 1})]
    assert parse_deepseek_v31(v3, NO_TOOLS) is None
    assert calls_of(parse_deepseek_v31(v31, NO_TOOLS)) == [("f", {})]
    assert parse_deepseek_v3(v31, NO_TOOLS) is None


@pytest.mark.parametrize(
    "spelling",
    ["<|tool{s}calls{s}begin|>", f"<{BAR}tool{{s}}calls{{s}}begin{BAR}>"],
)
@pytest.mark.parametrize("space", ["_", " ", SP])
def test_deepseek_token_spellings_are_normalised(spelling: str, space: str) -> None:
    begin = spelling.format(s=space)
    call = begin.replace("calls", "call")
    sep = begin.replace(f"calls{space}begin", "sep")
    end = call.replace("begin", "end")
    text = f'{begin}{call}function{sep}g\n```json\n{{"x": 2}}\n```{end}'
    assert calls_of(parse_deepseek_v3(text, NO_TOOLS)) == [("g", {"x": 2})]


def test_deepseek_unfenced_v3_body_is_read() -> None:
    text = (
        tok("tool call begin") + "function" + tok("tool sep") + 'g\n{"x": 1}' + tok("tool call end")
    )
    assert calls_of(parse_deepseek_v31(text, NO_TOOLS)) == [("g", {"x": 1})]


def test_deepseek_call_without_sep_is_parse_error() -> None:
    text = tok("tool call begin") + "g{}" + tok("tool call end")
    assert reasons(parse_deepseek_v31(text, NO_TOOLS)) == ["parse_error"]


def test_deepseek_empty_section_is_parse_error() -> None:
    assert reasons(parse_deepseek_v3(tok("tool calls begin"), NO_TOOLS)) == ["parse_error"]


def test_deepseek_double_encoded_arguments_are_decoded() -> None:
    text = tok("tool call begin") + "g" + tok("tool sep") + '"{\\"x\\": 1}"' + tok("tool call end")
    assert calls_of(parse_deepseek_v31(text, NO_TOOLS)) == [("g", {"x": 1})]


def test_deepseek_v32_ascii_dsml_and_json_body() -> None:
    text = '<|DSML|function_calls><|DSML|invoke name="f">{"a": 1}</|DSML|invoke></|DSML|function_calls>'
    assert calls_of(parse_deepseek_v32(text, NO_TOOLS)) == [("f", {"a": 1})]


def test_kimi_name_without_namespace_and_index() -> None:
    text = "<|tool_call_begin|>search:3<|tool_call_argument_begin|>{}<|tool_call_end|>"
    assert calls_of(parse_kimi_k2(text, NO_TOOLS)) == [("search", {})]


def test_kimi_missing_argument_token_is_parse_error() -> None:
    text = "<|tool_call_begin|>functions.f:0{}<|tool_call_end|>"
    assert reasons(parse_kimi_k2(text, NO_TOOLS)) == ["parse_error"]


def test_harmony_final_channel_only_is_not_mine() -> None:
    assert parse_harmony("<|channel|>final<|message|>Hi<|return|>", NO_TOOLS) is None


def test_harmony_builtin_tool_keeps_namespace() -> None:
    text = '<|channel|>analysis to=browser.search code<|message|>{"query": "x"}<|call|>'
    assert calls_of(parse_harmony(text, NO_TOOLS)) == [("browser.search", {"query": "x"})]


def test_harmony_empty_arguments_are_an_empty_object() -> None:
    text = "<|channel|>commentary to=functions.now <|constrain|>json<|message|><|call|>"
    assert calls_of(parse_harmony(text, NO_TOOLS)) == [("now", {})]


def test_step3_without_invoke_is_not_mine() -> None:
    assert parse_step3("no calls", NO_TOOLS) is None


def test_lfm2_json_item_without_name_is_parse_error() -> None:
    text = '<|tool_call_start|>[{"arguments": {}}]<|tool_call_end|>'
    assert reasons(parse_lfm2(text, NO_TOOLS)) == ["parse_error"]


def test_apertus_invalid_json_is_parse_error() -> None:
    assert reasons(parse_apertus("<|tools_prefix|>[{]<|tools_suffix|>", NO_TOOLS)) == [
        "parse_error"
    ]


def test_minimax_m1_single_object_is_left_to_jamba() -> None:
    assert (
        parse_minimax_m1('<tool_calls>\n{"name": "f", "arguments": {}}\n</tool_calls>', NO_TOOLS)
        is None
    )
    assert parse_minimax_m1("<tool_calls>\n[1, 2\n</tool_calls>", NO_TOOLS) is None


def test_minimax_m1_objects_per_line_are_calls() -> None:
    text = '<tool_calls>\n{"name": "a", "arguments": {}}\n{"name": "b", "arguments": {"x": 1}}\n</tool_calls>'
    assert calls_of(parse_minimax_m1(text, NO_TOOLS)) == [("a", {}), ("b", {"x": 1})]


def test_longcat_unclosed_is_parse_error() -> None:
    assert reasons(parse_longcat('<longcat_tool_call>{"name": "f"', NO_TOOLS)) == ["parse_error"]


def test_gigachat3_end_of_sequence_token_is_dropped() -> None:
    text = 'Ok.<|message_sep|>function call<|role_sep|>\n{"name": "f", "arguments": {"a": 1}}</s>'
    assert calls_of(parse_gigachat3(text, NO_TOOLS)) == [("f", {"a": 1})]


def test_granite_20b_fc_text_after_each_object_is_ignored() -> None:
    text = '<function_call> {"name": "a", "arguments": {}} ok\n<function_call> {"name": "b"}'
    assert calls_of(parse_granite_20b_fc(text, NO_TOOLS)) == [("a", {}), ("b", {})]
    assert reasons(parse_granite_20b_fc("<function_call> {oops}", NO_TOOLS)) == ["parse_error"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a:1,b:-2.5,c:true,d:null", {"a": 1, "b": -2.5, "c": True, "d": None}),
        ("s:<escape>x, y: {z}<escape>", {"s": "x, y: {z}"}),
        ("o:{p:[1,[2,3],{q:<escape>r<escape>}]}", {"o": {"p": [1, [2, 3], {"q": "r"}]}}),
        ("bare:word", {"bare": "word"}),
        ("", {}),
    ],
)
def test_gemma_arguments_are_decoded(text: str, value: object) -> None:
    assert parse_arguments(text, "<escape>") == value


@pytest.mark.parametrize("text", ["a", "a:[1,2", "a:{b:1", "a:<escape>x", ":1"])
def test_gemma_malformed_arguments_are_reported(text: str) -> None:
    assert isinstance(parse_arguments(text, "<escape>"), str)


def test_gemma_deep_nesting_is_refused() -> None:
    assert isinstance(parse_arguments("a:" + "{b:" * 150 + "1" + "}" * 150, "<escape>"), str)


def test_gemma_body_not_call_syntax_is_parse_error() -> None:
    assert reasons(parse_gemma4("<|tool_call>get_weather()<tool_call|>", NO_TOOLS)) == [
        "parse_error"
    ]
    assert parse_functiongemma("plain text", NO_TOOLS) is None


def test_formats_list_every_special_token_family() -> None:
    names = {f.name for f in FORMATS}
    assert names >= {
        "deepseek_v3",
        "deepseek_v31",
        "deepseek_v32",
        "kimi_k2",
        "harmony",
        "lfm2",
        "apertus",
        "step3",
        "longcat",
        "minimax_m1",
        "gigachat3",
        "granite_20b_fc",
        "functiongemma",
        "gemma4",
    }
    assert all(f.stage == "marker" and f.markers for f in FORMATS)


TOKENS = [
    tok("tool calls begin"),
    tok("tool call begin"),
    tok("tool sep"),
    tok("tool call end"),
    "function",
    "```json\n",
    "```",
    "<|tool_calls_section_begin|>",
    "<|tool_call_begin|>",
    "functions.f:0",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<|channel|>commentary to=functions.f ",
    "<|message|>",
    "<|call|>",
    "<|start|>",
    "<|tool_call_start|>",
    "[f(x=1)]",
    "<|tools_prefix|>",
    "<|tools_suffix|>",
    "<start_function_call>",
    "<end_function_call>",
    "call:f{",
    "<escape>",
    "<|tool_call>",
    "<tool_call|>",
    '<|"|>',
    '<steptml:invoke name="f">',
    "<longcat_tool_call>",
    "<tool_calls>",
    "</tool_calls>",
    "function call<|role_sep|>",
    "<function_call>",
    '{"name": "f"}',
    f"<{BAR}DSML{BAR}function_calls>",
    '{"a": 1}',
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "x",
    "\n",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=30).map("".join))
def test_token_parsers_never_raise_on_token_soup(text: str) -> None:
    for fmt in FORMATS:
        result = fmt.parse(text, NO_TOOLS)
        assert result is None or isinstance(result, Extraction)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_token_parsers_never_raise_on_any_text(text: str) -> None:
    for fmt in FORMATS:
        result = fmt.parse(fmt.markers[0] + text, NO_TOOLS)
        assert result is None or isinstance(result, Extraction)
