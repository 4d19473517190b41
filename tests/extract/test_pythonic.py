from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.extract._pyliteral import (
    NotLiteral,
    bracket_depth,
    matching_bracket,
    parse_python_literal,
    read_call_block,
)
from toolgrade.extract._pythonic import FORMATS, parse_pythonic, parse_tool_code
from toolgrade.extract._types import ExtractContext, Extraction

NO_TOOLS = ExtractContext()


def calls_of(found: Extraction | None) -> list[tuple[str, object]]:
    assert found is not None
    return [(c.name, c.arguments) for c in found.calls]


def reasons(found: Extraction | None) -> list[str]:
    assert found is not None
    return [e.reason for e in found.errors]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("{'k': [1, None, -3]}", {"k": [1, None, -3]}),
        ("(1, 2.5, 'x')", [1, 2.5, "x"]),
        ("[true, false, null]", [True, False, None]),
        ("+4", 4),
        ("'it\\'s'", "it's"),
    ],
)
def test_parse_python_literal_literals_become_json(text: str, value: object) -> None:
    assert parse_python_literal(text) == value


@pytest.mark.parametrize(
    "text",
    [
        "os.getcwd()",
        "1 + 2",
        "{1, 2}",
        "b'x'",
        "2j",
        "1e999",
        "{1: 'a'}",
        "x",
        "-'a'",
        "[i for i in y]",
    ],
)
def test_parse_python_literal_non_literals_are_refused(text: str) -> None:
    with pytest.raises(NotLiteral):
        parse_python_literal(text)


def test_parse_python_literal_deep_nesting_is_refused() -> None:
    with pytest.raises(NotLiteral, match="nested deeper"):
        parse_python_literal("[" * 150 + "]" * 150)


def test_bracket_depth_ignores_brackets_in_strings() -> None:
    assert bracket_depth("f(a='(((', b=[1, [2]])") == 3


def test_matching_bracket_skips_strings_and_stops_at_limit() -> None:
    text = "x [f(a=']'), g(b=\"[\")] y"
    assert text[matching_bracket(text, 2, limit=100)] == "]"
    assert matching_bracket(text, 2, limit=5) == -1
    assert matching_bracket("[a(]", 0, limit=100) == -1


def test_read_call_block_keyword_names_restored_and_strings_untouched() -> None:
    block = read_call_block('[copy(from="a, class=b", class="x")]')
    assert block.calls == [("copy", {"from": "a, class=b", "class": "x"})]


def test_read_call_block_raw_newline_in_string_is_repaired() -> None:
    block = read_call_block('[run(cmd="line1\nline2")]')
    assert block.calls == [("run", {"cmd": "line1\nline2"})]


def test_read_call_block_kwargs_unpacking_is_a_problem() -> None:
    block = read_call_block("[f(**opts)]")
    assert block.calls == [] and "unpacks" in block.problems[0]


def test_read_call_block_subscript_callee_is_a_problem() -> None:
    block = read_call_block("[tools[0](x=1)]")
    assert block.shaped and block.problems


def test_pythonic_never_evaluates_the_output(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    text = f"[f(x=__import__('pathlib').Path({str(canary)!r}).touch())]"
    found = parse_pythonic(text, NO_TOOLS)
    assert reasons(found) == ["parse_error"]
    assert not canary.exists()


def test_pythonic_whole_output_list_yields_calls() -> None:
    found = parse_pythonic('[a(x=1), b.c(y="z")]', NO_TOOLS)
    assert calls_of(found) == [("a", {"x": 1}), ("b.c", {"y": "z"})]


def test_pythonic_dotted_name_resolved_to_offered_tool() -> None:
    ctx = ExtractContext(tools=frozenset({"search"}))
    assert calls_of(parse_pythonic('[default_api.search(q="x")]', ctx)) == [("search", {"q": "x"})]


def test_pythonic_single_unbracketed_call_is_accepted() -> None:
    assert calls_of(parse_pythonic('get_weather(city="Rome")', NO_TOOLS)) == [
        ("get_weather", {"city": "Rome"})
    ]


@pytest.mark.parametrize(
    "text",
    [
        "f(x)",
        "The function f(x) = x^2 is convex.",
        "See [Note(s)] below.",
        "Use (a, b) pairs [like this].",
        "print('hello')",
        "[1, 2, 3]",
        "",
    ],
)
def test_pythonic_prose_is_not_a_call(text: str) -> None:
    assert parse_pythonic(text, NO_TOOLS) is None


def test_pythonic_prose_list_line_with_positional_args_is_ignored() -> None:
    assert parse_pythonic("Notes:\n[Note(s)]\nend", NO_TOOLS) is None


def test_pythonic_tools_filter_rejects_unknown_names() -> None:
    ctx = ExtractContext(tools=frozenset({"get_weather"}))
    assert parse_pythonic("[lookup(x=1)]", ctx) is None
    assert calls_of(parse_pythonic("[get_weather(city='A'), lookup(x=1)]", ctx)) == [
        ("get_weather", {"city": "A"}),
        ("lookup", {"x": 1}),
    ]


def test_pythonic_in_prose_several_lists_are_all_read() -> None:
    text = "First:\n[a(x=1)]\nthen:\n  [b(y=2)]\n"
    assert calls_of(parse_pythonic(text, NO_TOOLS)) == [("a", {"x": 1}), ("b", {"y": 2})]


def test_pythonic_too_deep_is_parse_error() -> None:
    text = "[f(x=" + "[" * 120 + "]" * 120 + ")]"
    assert reasons(parse_pythonic(text, NO_TOOLS)) == ["parse_error"]


def test_pythonic_huge_integer_is_parse_error_not_crash() -> None:
    found = parse_pythonic("[f(x=" + "9" * 5000 + ")]", NO_TOOLS)
    assert reasons(found) == ["parse_error"]


def test_pythonic_hostile_line_starts_are_bounded() -> None:
    text = "\n".join(["[f(" + "(" * 50] * 2000)
    assert parse_pythonic(text, NO_TOOLS) is None


def test_tool_code_unclosed_fence_is_parse_error() -> None:
    assert reasons(parse_tool_code("```tool_code\nf(x=1)\n", NO_TOOLS)) == ["parse_error"]


def test_tool_code_without_fence_is_not_mine() -> None:
    assert parse_tool_code("f(x=1)", NO_TOOLS) is None


def test_formats_are_named_and_staged() -> None:
    assert [(f.name, f.stage) for f in FORMATS] == [
        ("gemma_tool_code", "fenced"),
        ("pythonic", "pythonic"),
    ]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]()f=x'\"\\,. \n1aT{}:-_*")), max_size=80))
def test_pythonic_parsers_never_raise_on_call_like_soup(text: str) -> None:
    for fmt in FORMATS:
        result = fmt.parse(text, NO_TOOLS)
        assert result is None or isinstance(result, Extraction)
    assert isinstance(read_call_block(text).problems, list)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_pythonic_parsers_never_raise_on_any_text(text: str) -> None:
    for fmt in FORMATS:
        result = fmt.parse("[f(" + text, NO_TOOLS)
        assert result is None or isinstance(result, Extraction)


def test_read_call_block_repeated_argument_is_a_problem() -> None:
    block = read_call_block("[f(a=1, a=2)]")
    assert block.calls == [] and "repeats" in block.problems[0]


def test_read_call_block_too_many_elements_is_refused_unparsed() -> None:
    block = read_call_block("[" + "f(a=1), " * 3000 + "]")
    assert "syntax elements" in block.syntax_error


def test_read_call_block_punctuation_inside_strings_does_not_count() -> None:
    code = "x = [1, 2, 3]; " * 2000
    block = read_call_block(f"[write(content={code!r})]")
    assert block.calls == [("write", {"content": code})]
