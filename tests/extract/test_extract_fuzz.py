"""Hostile and arbitrary input: extraction always returns an `Extraction`, quickly."""

from __future__ import annotations

import json
import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade import Extraction, extract_calls
from toolgrade.extract import list_formats
from toolgrade.extract._common import MAX_OUTPUT_CHARS

_MARKERS = [
    "<tool_call>",
    "</tool_call>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "<|python_tag|>",
    "<|tool_call|>",
    "functools[",
    "<tool_calls>",
    ">>>",
    "<|action_start|><|plugin|>",
    "<|START_ACTION|>",
    "```json\n",
    "```",
    "<think>",
    "</think>",
    '{"name": "f", "arguments": ',
    "[f(x=1)]",
    "{",
    "[",
    '"',
    ";",
]

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_fuzz_arbitrary_text_returns_extraction(text: str) -> None:
    assert isinstance(extract_calls(text), Extraction)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_MARKERS) | st.text(max_size=10), max_size=25))
def test_fuzz_marker_soup_returns_extraction(parts: list[str]) -> None:
    text = "".join(parts)
    assert isinstance(extract_calls(text), Extraction)
    assert isinstance(extract_calls(text, tools=["f"]), Extraction)


@settings(max_examples=150, deadline=None)
@given(_json_values)
def test_fuzz_arbitrary_json_returns_extraction(value: object) -> None:
    text = json.dumps(value)
    assert isinstance(extract_calls(text), Extraction)
    assert isinstance(extract_calls(f"<tool_call>{text}</tool_call>"), Extraction)
    if isinstance(value, dict):
        assert isinstance(extract_calls(value), Extraction)  # type: ignore[arg-type]


def _timed(output: str) -> tuple[Extraction, float]:
    start = time.perf_counter()
    found = extract_calls(output)
    return found, time.perf_counter() - start


def test_fuzz_over_one_megabyte_is_refused_quickly() -> None:
    found, seconds = _timed("a" * (MAX_OUTPUT_CHARS + 1))
    assert [e.reason for e in found.errors] == ["too_large"]
    assert seconds < 0.5


def test_fuzz_deep_nesting_in_call_gives_error() -> None:
    deep = "[" * 150 + "]" * 150
    found = extract_calls(f'<tool_call>{{"name": "f", "arguments": {{"a": {deep}}}}}</tool_call>')
    assert not found.calls
    assert [e.reason for e in found.errors] == ["too_deep"]


def test_fuzz_very_deep_nesting_gives_error_without_recursion_error() -> None:
    deep = '{"a": ' * 50_000 + "1" + "}" * 50_000
    found, seconds = _timed(f"<tool_call>{deep}</tool_call>")
    assert [e.reason for e in found.errors] == ["too_deep"]
    assert seconds < 0.5


def test_fuzz_deep_message_mapping_gives_error() -> None:
    value: dict[str, object] = {"x": 1}
    for _ in range(150):
        value = {"x": value}
    found = extract_calls({"role": "assistant", "content": "hi", "extra": value})
    assert [e.reason for e in found.errors] == ["too_deep"]


def test_fuzz_hostile_near_limit_inputs_finish_quickly() -> None:
    size = MAX_OUTPUT_CHARS - 100
    hostile = [
        "{" * size,
        "[" * size,
        '{"name": "f", "arguments": ' * (size // 28),
        "<tool_call>" * (size // 11),
        "[TOOL_CALLS]" * (size // 12),
        ">>>f\n{" * (size // 6),
        "```json\n{" * (size // 9),
        "<think>" * (size // 7),
        '"' * size,
        "<function=f>{" * (size // 13),
        '<function=f>{"a": "' * (size // 19),
        '<tool_call>{"a": "</tool_call>' * (size // 30),
        '<tool_call>{"a": "' + "x" * (size - 30),
        '```json\n{"a": "```' * (size // 17),
        '```json\n{"a": "' + "```x" * (size // 4 - 10),
        '{"a": ' + '"x", "b": ' * (size // 11) + "1}",
        '{"type": "function"' * (size // 19),
        "[f(a=1), " + 'g(b="x"), ' * (size // 10 - 1),
        '<longcat_tool_call>{"a": "' * (size // 26),
    ]
    for text in hostile:
        found, seconds = _timed(text)
        assert isinstance(found, Extraction)
        assert seconds < 2.0, (text[:30], seconds)


def test_fuzz_every_example_under_every_forced_format_returns_extraction() -> None:
    data = Path(__file__).parent.parent / "data" / "extract"
    names = [fmt.name for fmt in list_formats()]
    for path in sorted(data.rglob("*.json")):
        output = json.loads(path.read_text(encoding="utf-8"))["input"]
        for name in names:
            assert isinstance(extract_calls(output, format=name), Extraction), (path, name)
