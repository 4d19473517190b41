"""Auto-detection's shortcut for text without any marker gives what the full loop gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.extract._api import _detect, _Markers, _run
from toolgrade.extract._reasoning import strip_reasoning
from toolgrade.extract._registry import find_format, text_formats
from toolgrade.extract._types import ExtractContext, Extraction, TextFormat

DATA = Path(__file__).resolve().parents[1] / "data" / "extract"
CONTEXTS = [ExtractContext(), ExtractContext(tools=frozenset({"get_weather", "f"}))]


def _every_format(text: str, ctx: ExtractContext) -> Extraction:
    """Detection as documented: every format in order, tried when a marker occurs."""
    markers = _Markers(text)
    for fmt in text_formats():
        if fmt.markers and not markers.any_of(fmt.markers):
            continue
        found = _run(fmt, text, ctx)
        if found is not None:
            return found
    return Extraction()


def _inputs() -> list[str]:
    texts: list[str] = []
    for path in sorted(DATA.rglob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(case, dict) and isinstance(case.get("input"), str):
            texts.append(strip_reasoning(case["input"]))
    return texts


@pytest.mark.parametrize("ctx", CONTEXTS, ids=["no-tools", "tools"])
def test_detect_data_cases_same_as_every_format(ctx: ExtractContext) -> None:
    texts = _inputs()
    assert len(texts) > 100
    assert [_detect(t, ctx) for t in texts] == [_every_format(t, ctx) for t in texts]


_PIECES = st.sampled_from(
    [
        "[", "]", "(", ")", "{", "}", ",", ":", "=", "'", '"', "`", "```", "```json\n", "\n",
        " ", "f", "get_weather", "name", "arguments", "1", "true", "null", "x=1", "city='P'",
        "<tool_call>", "</tool_call>", "[TOOL_CALLS]", "functools[", ">>>", "<|python_tag|>",
        "<function=f>", '"name"', '"arguments"', "tool calls begin", "é",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=16).map("".join))
def test_detect_generated_text_same_as_every_format(text: str) -> None:
    for ctx in CONTEXTS:
        assert _detect(text, ctx) == _every_format(text, ctx)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="[]{}(),:=.'`-+ 0123456789abeflnrstu_\n\t", max_size=60))
def test_xlam_text_without_double_quote_is_never_xlam(text: str) -> None:
    xlam = find_format("xlam")
    assert isinstance(xlam, TextFormat)
    for ctx in CONTEXTS:
        assert xlam.parse(text, ctx) is None
        assert xlam.parse("[" + text, ctx) is None
