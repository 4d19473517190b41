"""The plain-call-list reader agrees with the `ast` reader wherever it answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

from toolgrade._core.trusted import construct_trusted
from toolgrade.calls import ToolCall
from toolgrade.extract import Extraction
from toolgrade.extract._common import MAX_DEPTH
from toolgrade.extract._pyliteral import read_call_block
from toolgrade.extract._pythonic import read_simple_block
from toolgrade.results import CaseResult, PairResult, Status

DATA = Path(__file__).resolve().parents[1] / "data" / "extract"


def _agrees(text: str) -> bool:
    """True when the fast reader declines or gives exactly what `read_call_block` gives."""
    fast = read_simple_block(text)
    return fast is None or fast == read_call_block(text)


@pytest.mark.parametrize(
    "text",
    [
        "[calculate_triangle_area(base=10, height=5, unit='units')]",
        "[math.factorial(number=5)]",
        "[a.b.c(x=[1, -2.5, +3, {'k': None, \"j\": [true, false, null]}], y=True)]",
        "[f(a=1), g(b='x'),]",
        "f(a=1e-09, b=8.854e-12, c=8990000000.0, d=-0.0, e=1E5)",
        "f()",
        "[f(), print(a=1)]",
        "f(a='', b=\"it's\", c='say \"hi\"', d='caf\u00e9 \u2028 \x85')",
        "f(a={'k': 1, 'k': 2}, b={}, c=[], d=[1,], e={'x': 1,})",
        "[f(a=1)\t, \tg(b=2)]",
        "f( a = - 5 )",
        "match(case=1, type='x', _=2)",
        "f(__debug__=1)",
        "f(a='x\\ny', b='C:\\\\', c=\"it\\'s\", d='\\\"q\\\"', e='\\t\\r')",
        "[cmd.execute(command='dir C:\\\\', unit='N/A'), f(x={'k\\'': ['a\\\\b']})]",
        "f(" + ", ".join(f"a{i}={i}" for i in range(12)) + ")",  # one regex reads up to 12
        "f(" + ", ".join(f"a{i}='{i}'" for i in range(12)) + ",)",
        "[f(" + ", ".join(f"a{i}=[{i}]" for i in range(13)) + "), g()]",
        "f(" + ", ".join(f"a{i}={{'k': {i}}}" for i in range(21)) + ")",
        "[ f(a=1) , g(b=2) , ]",
        "[\tf(a=1),\tg(b={'k': [1, 'x', None, -2.5]})\t]",
    ],
)
def test_read_simple_block_plain_call_lists_read_as_ast_does(text: str) -> None:
    fast = read_simple_block(text)
    assert fast is not None
    assert fast == read_call_block(text)


@pytest.mark.parametrize(
    "text",
    [
        "f(a=1, a=2)",  # a repeated argument is a problem the ast reader reports
        "f(1)",
        "f(a=x)",
        "f(a=g(b=1))",
        "print(f(a=1))",
        "f(a=(1, 2))",
        "f(a={1, 2})",
        "f(a={1: 2})",
        "f(a='x' 'y')",
        "f(a='''x''')",
        "f(a=b'x')",
        "f(a=r'x')",
        "f(a='\\x41')",  # escapes other than a path's or a quote's are for ast
        "f(a='\\d')",
        "f(a='\\u00e9')",
        "f(a='\\N{EM DASH}')",
        "f(a='\\0')",
        "f(a='x\\\ny')",
        "f(a='x\\')",
        "f(a='x\ny')",
        "f(a='x\ry')",
        "f(a=01)",
        "f(a=1_000)",
        "f(a=0x10)",
        "f(a=1.)",
        "f(a=.5)",
        "f(a=1e999)",
        "f(a=1e)",
        "f(a=2j)",
        "f(a=--1)",
        "f(a=-True)",
        "f(a=" + "9" * 40 + ")",
        "f(from=1)",
        "if(a=1)",
        "a.class(x=1)",
        "f(a=1 b=2)",
        "[f(a=1) g(b=2)]",
        "[f(a=1),,]",
        "[]",
        "[1, 2]",
        "(f(a=1))",
        "f(a=1), g(b=2)",
        "f(a=1)(b=2)",
        "f(a=1)\ng(b=2)",
        "f(a=1) # note",
        "f(**a)",
        "f(a='\x00')",
        "f(a='\ud800')",
        "f(\u00e9=1)",
        "f(a=1\x0c)",
        "f(a=[1 2])",
        "f(a={'k' 1})",
        "[f(a=1)",
        "f(a=" + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + ")",
        "f(a='" + "x" * 5000 + "')",
    ],
)
def test_read_simple_block_anything_else_declines(text: str) -> None:
    assert read_simple_block(text) is None


def _data_texts() -> list[str]:
    texts: list[str] = []
    for path in sorted(DATA.rglob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        output = case.get("input") if isinstance(case, dict) else None
        if isinstance(output, str) and "(" in output:
            texts.append(output)
    return texts


def test_read_simple_block_data_cases_agree_with_ast() -> None:
    texts = _data_texts()
    assert texts
    disagreeing = [t for t in texts for v in (t, t.strip()) if not _agrees(v)]
    assert disagreeing == []


_NAMES = st.sampled_from(["f", "get_weather", "a.b", "x1", "print", "match", "True", "from", "_"])
_ATOMS = st.sampled_from(
    [
        "1", "0", "-3", "+4", "01", "1.5", "-0.0", "1e-09", "2E+3", "1e999", "1.", ".5",
        "1_0", "'x'", '"y"', "''", "'it\"s'", "'a\\'b'", "'\u00e9'", "True", "None", "null",
        "'C:\\\\'", "'\\n\\t\\r'", "'\\x41'", "'\\d'", '"\\""', "'\\\\\\''",
        "false", "name", "b'x'", "'a' 'b'", "(1, 2)", "{1}", "-True", "g(a=1)",
    ]
)  # fmt: skip
_VALUES = st.recursive(
    _ATOMS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(st.sampled_from(["'k'", '"j"', "1", "k"]), inner), max_size=3).map(
            lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"
        ),
    ),
    max_leaves=6,
)
_CALLS = st.builds(
    lambda name, args: f"{name}({', '.join(f'{k}={v}' for k, v in args)})",
    _NAMES,
    st.lists(st.tuples(st.sampled_from(["a", "b", "from", "c"]), _VALUES), max_size=3),
)
_BLOCKS = st.one_of(
    _CALLS,
    st.lists(_CALLS, min_size=1, max_size=3).map(lambda cs: "[" + ", ".join(cs) + "]"),
)


@settings(max_examples=400, deadline=None)
@given(_BLOCKS, st.sampled_from(["", ",", " ", "\t", "\n", ")", "]", "x", "#"]), st.integers(0, 80))
def test_read_simple_block_generated_text_agrees_with_ast(
    block: str, noise: str, where: int
) -> None:
    assert _agrees(block)
    cut = min(where, len(block))
    assert _agrees(block[:cut] + noise + block[cut:])


@pytest.mark.parametrize(
    ("cls", "values"),
    [
        (ToolCall, {"name": "f", "arguments": {"x": [1, {"y": None}]}}),
        (Extraction, {"calls": (ToolCall(name="f"),), "format": "pythonic", "errors": ()}),
        (
            PairResult,
            {
                "expected_index": 0,
                "actual_index": 1,
                "verdict": "correct",
                "credit": 1.0,
                "details": (),
            },
        ),
        (
            CaseResult,
            {
                "case_id": "c",
                "status": Status.CORRECT,
                "score": 1.0,
                "rubric": "binary",
                "expected": (),
                "actual": (),
                "pairs": (),
                "details": (),
                "category": "simple_python",
                "difficulty": "",
                "tags": ("bfcl",),
                "prompt": "p",
                "extraction_format": "pythonic",
                "extraction_errors": (),
                "alternative": None,
                "raw_response": None,
                "latency_ms": None,
                "error": None,
                "repeat": 0,
            },
        ),
    ],
)
def test_construct_trusted_every_field_same_as_model_construct(
    cls: type[BaseModel], values: dict[str, object]
) -> None:
    fast = construct_trusted(cls, dict(values))
    slow = cls.model_construct(None, **values)
    assert fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump() == slow.model_dump()
    assert fast == cls.model_validate(values)


class _Aliased(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True)

    name: str = Field(alias="tool")


def test_construct_trusted_alias_or_missing_field_uses_model_construct() -> None:
    aliased = construct_trusted(_Aliased, {"tool": "f"})
    assert aliased.name == "f"
    partial = construct_trusted(ToolCall, {"name": "f"})
    assert partial == ToolCall(name="f")
    assert partial.model_fields_set == {"name"}
