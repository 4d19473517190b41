from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade._core.json_data import JsonObject
from toolgrade.extract._build import Finder, is_tool_name
from toolgrade.extract._types import ExtractContext, Extraction
from toolgrade.extract._xml_common import attribute, typed_value, untyped_value
from toolgrade.extract._xml_formats import (
    FORMATS,
    parse_anthropic,
    parse_glm45,
    parse_hunyuan,
    parse_minimax_m2,
    parse_olmo3,
    parse_qwen3_coder,
    parse_seed_oss,
)

NO_TOOLS = ExtractContext()


def calls_of(found: Extraction | None) -> list[tuple[str, object]]:
    assert found is not None
    return [(c.name, c.arguments) for c in found.calls]


def reasons(found: Extraction | None) -> list[str]:
    assert found is not None
    return [e.reason for e in found.errors]


def qwen(*params: tuple[str, str], name: str = "f") -> str:
    body = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in params)
    return f"<tool_call>\n<function={name}>\n{body}</function>\n</tool_call>"


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("42", 42),
        ("-1.5", -1.5),
        ("true", True),
        ("null", None),
        ('{"a": [1]}', {"a": [1]}),
        ("{'a': None}", {"a": None}),
        ("Paris", "Paris"),
        ("007", "007"),
        ("  spaced  ", "  spaced  "),
        ("[unclosed", "[unclosed"),
    ],
)
def test_untyped_value_json_when_json_else_text(raw: str, value: object) -> None:
    assert untyped_value(raw) == value


@pytest.mark.parametrize(
    ("raw", "schema", "value"),
    [
        ("42", {"type": "string"}, "42"),
        ("42", {"type": "integer"}, 42),
        ("5.0", {"type": "integer"}, 5),
        ("5.5", {"type": "integer"}, "5.5"),
        ("1e3", {"type": "number"}, 1000.0),
        ("nan", {"type": "number"}, "nan"),
        ("True", {"type": "boolean"}, True),
        ("yes", {"type": "boolean"}, "yes"),
        ("None", {"anyOf": [{"type": "string"}, {"type": "null"}]}, None),
        ("7", {"type": ["integer", "null"]}, 7),
        ("2", {"enum": [1, 2, 3]}, 2),
        ('["a"]', {"type": "array"}, ["a"]),
        ("{'k': 1}", {"type": "object"}, {"k": 1}),
        ('"quoted"', {"type": "object"}, '"quoted"'),
        ("x", {"description": "no type"}, "x"),
    ],
)
def test_typed_value_follows_the_schema(raw: str, schema: JsonObject, value: object) -> None:
    assert typed_value(raw, known=True, schema=schema) == value


def test_typed_value_undeclared_parameter_of_known_tool_stays_text() -> None:
    assert typed_value("42", known=True, schema=None) == "42"


def test_attribute_reads_quoted_values_only() -> None:
    assert attribute(' name="a b" string="true"', "name") == "a b"
    assert attribute(" name='x'", "name") == "x"
    assert attribute(" rename=\"x\" name='y'", "name") == "y"
    assert attribute(" name=x", "name") is None


@pytest.mark.parametrize("name", ["get_weather", "ns.tool", "a-b", "mcp/fs:read"])
def test_is_tool_name_accepts_identifiers(name: str) -> None:
    assert is_tool_name(name)


@pytest.mark.parametrize("name", ["", "{{ name }}", "two words", 'q"', "x" * 300])
def test_is_tool_name_rejects_prose_and_templates(name: str) -> None:
    assert not is_tool_name(name)


def test_finder_reuses_answers_and_stays_correct() -> None:
    finder = Finder("a.b.a.b")
    assert [finder.find("b", p) for p in (0, 1, 2, 4, 6, 7)] == [2, 2, 2, 6, 6, -1]
    assert finder.find("b", 0) == 2


def test_qwen3_coder_schema_types_values() -> None:
    ctx = ExtractContext(
        tools=frozenset({"f"}),
        schemas={"f": {"properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}},
    )
    found = parse_qwen3_coder(qwen(("n", "3"), ("s", "3"), ("extra", "3")), ctx)
    assert calls_of(found) == [("f", {"n": 3, "s": "3", "extra": "3"})]


def test_qwen3_coder_keeps_inner_newlines_and_drops_template_ones() -> None:
    found = parse_qwen3_coder(qwen(("code", "def f():\n    return 1\n")), NO_TOOLS)
    assert calls_of(found) == [("f", {"code": "def f():\n    return 1\n"})]


def test_qwen3_coder_literal_function_close_inside_value() -> None:
    found = parse_qwen3_coder(qwen(("doc", "see </function> and </tool_call> here")), NO_TOOLS)
    assert calls_of(found) == [("f", {"doc": "see </function> and </tool_call> here"})]


def test_qwen3_coder_missing_parameter_close_is_tolerated() -> None:
    text = (
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\n2\n</function>\n</tool_call>"
    )
    assert calls_of(parse_qwen3_coder(text, NO_TOOLS)) == [("f", {"a": 1, "b": 2})]


def test_qwen3_coder_missing_function_close_before_tool_call_close() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=a>\nx\n</parameter>\n</tool_call>"
    assert calls_of(parse_qwen3_coder(text, NO_TOOLS)) == [("f", {"a": "x"})]


def test_qwen3_coder_template_placeholder_is_not_a_call() -> None:
    assert parse_qwen3_coder("Use <function={{ name }}> tags.", NO_TOOLS) is None


def test_qwen3_coder_leaves_seed_oss_to_its_parser() -> None:
    text = "<seed:tool_call><function=f></function></seed:tool_call>"
    assert parse_qwen3_coder(text, NO_TOOLS) is None
    assert calls_of(parse_seed_oss(text, NO_TOOLS)) == [("f", {})]


def test_seed_oss_block_without_function_is_parse_error() -> None:
    assert reasons(parse_seed_oss("<seed:tool_call>oops</seed:tool_call>", NO_TOOLS)) == [
        "parse_error"
    ]


def test_qwen3_coder_hostile_repetition_is_linear() -> None:
    text = "<function=f>\n<parameter=a>\n" * 20_000
    found = parse_qwen3_coder(text, NO_TOOLS)
    assert found is not None and found.errors


def test_glm45_hermes_json_is_not_mine() -> None:
    assert (
        parse_glm45('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', NO_TOOLS) is None
    )
    assert parse_glm45("<tool_call>\n<function=f>\n</function>\n</tool_call>", NO_TOOLS) is None


def test_glm45_string_schema_keeps_raw_text() -> None:
    ctx = ExtractContext(schemas={"f": {"properties": {"s": {"type": "string"}}}})
    text = "<tool_call>f\n<arg_key>s</arg_key>\n<arg_value> 12 </arg_value>\n</tool_call>"
    assert calls_of(parse_glm45(text, ctx)) == [("f", {"s": " 12 "})]


def test_glm45_junk_between_pairs_is_parse_error() -> None:
    text = "<tool_call>f\n<arg_key>a</arg_key><arg_value>1</arg_value> junk </tool_call>"
    assert reasons(parse_glm45(text, NO_TOOLS)) == ["parse_error"]


def test_anthropic_namespaced_tags_are_read() -> None:
    ns = "antml" + ":"
    text = (
        f"<{ns}function_calls>\n"
        f'<{ns}invoke name="f">\n<{ns}parameter name="x">1</{ns}parameter>\n'
        f"</{ns}invoke>\n</{ns}function_calls>"
    )
    assert calls_of(parse_anthropic(text, NO_TOOLS)) == [("f", {"x": 1})]


def test_anthropic_json_body_invoke_is_read() -> None:
    text = '<function_calls><invoke name="f">{"x": [1, 2]}</invoke></function_calls>'
    assert calls_of(parse_anthropic(text, NO_TOOLS)) == [("f", {"x": [1, 2]})]


def test_anthropic_invoke_without_name_is_parse_error() -> None:
    text = "<function_calls><invoke><parameter name='x'>1</parameter></invoke></function_calls>"
    assert reasons(parse_anthropic(text, NO_TOOLS)) == ["parse_error"]


def test_anthropic_block_without_invoke_is_not_mine() -> None:
    assert parse_anthropic("<function_calls>f(x=1)</function_calls>", NO_TOOLS) is None


def test_minimax_outside_wrapper_is_not_mine() -> None:
    assert parse_minimax_m2('<invoke name="f"></invoke>', NO_TOOLS) is None


def test_olmo3_leaves_invoke_blocks_to_anthropic() -> None:
    assert (
        parse_olmo3('<function_calls><invoke name="f"></invoke></function_calls>', NO_TOOLS) is None
    )


def test_formats_order_puts_seed_before_qwen3_coder() -> None:
    names = [f.name for f in FORMATS]
    assert names.index("seed_oss") < names.index("qwen3_coder")
    assert all(f.stage == "marker" and f.markers for f in FORMATS)


TOKENS = [
    "<tool_call>",
    "</tool_call>",
    "<function=f>",
    "<function=",
    "</function>",
    "<parameter=a>",
    "</parameter>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<function_calls>",
    "</function_calls>",
    '<invoke name="f">',
    "</invoke>",
    '<parameter name="p">',
    "<minimax:tool_call>",
    "<seed:tool_call>",
    "f(x=1)",
    "{",
    "}",
    "1",
    "x",
    "\n",
    " ",
    '"',
    ">",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=30).map("".join))
def test_xml_parsers_never_raise_on_tag_soup(text: str) -> None:
    ctx = ExtractContext(schemas={"f": {"properties": {"a": {"type": "integer"}}}})
    for fmt in FORMATS:
        result = fmt.parse(text, ctx)
        assert result is None or isinstance(result, Extraction)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_xml_parsers_never_raise_on_any_text(text: str) -> None:
    for fmt in FORMATS:
        for prefix in fmt.markers:
            result = fmt.parse(prefix + text, NO_TOOLS)
            assert result is None or isinstance(result, Extraction)


def test_qwen3_coder_tag_quoted_in_prose_is_not_a_call() -> None:
    assert parse_qwen3_coder("Write <function=name> then the parameters.", NO_TOOLS) is None


def test_qwen3_coder_output_ending_after_function_tag_is_parse_error() -> None:
    assert reasons(parse_qwen3_coder("<tool_call>\n<function=f>\n", NO_TOOLS)) == ["parse_error"]


def test_qwen3_coder_function_tag_inside_hermes_json_is_not_a_call() -> None:
    text = (
        '<tool_call>\n{"name": "write", "arguments": {"text": "<function=f></function>"}}'
        "\n</tool_call>"
    )
    assert parse_qwen3_coder(text, NO_TOOLS) is None


def test_qwen3_coder_unwrapped_output_is_still_read() -> None:
    text = "<function=f>\n<parameter=a>\n1\n</parameter>\n</function>"
    assert calls_of(parse_qwen3_coder(text, NO_TOOLS)) == [("f", {"a": 1})]


def test_hunyuan_and_glm45_share_tags_but_not_the_separator() -> None:
    hy = "<tool_calls>\n<tool_call>f<tool_sep>\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>"
    assert parse_glm45(hy, NO_TOOLS) is None
    assert calls_of(parse_hunyuan(hy, NO_TOOLS)) == [("f", {"a": 1})]
    assert parse_hunyuan("<tool_call>f\n</tool_call>", NO_TOOLS) is None
