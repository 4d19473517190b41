"""`extract_calls`' shortcuts give exactly what its full path gives.

Two shortcuts take the commonest outputs before auto-detection runs: a plain pythonic
call list (`plain_shortcut`) and an assistant message holding only plain tool calls
(`message_shortcut`). Each must give what the full path gives, or decline; here the
full path is `extract_calls` with both shortcuts turned off, run on every data case,
the BFCL corpus, adversarial text and generated text, with and without offered tools.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.extract import Extraction, _api, extract_calls
from toolgrade.extract._api import make_context
from toolgrade.extract._common import MAX_CALLS, MAX_OUTPUT_CHARS
from toolgrade.extract._shortcut import message_shortcut, plain_shortcut

DATA = Path(__file__).resolve().parents[1] / "data" / "extract"
TOOLS: list[list[str] | None] = [None, ["f", "get_weather", "g"], ["other"]]


@pytest.fixture
def full_path(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Extraction]:
    """`extract_calls` without its shortcuts: auto-detection, format by format."""

    def run(output: Any, tools: list[str] | None) -> Extraction:
        with monkeypatch.context() as patch:
            patch.setattr(_api, "plain_shortcut", lambda text, ctx: None)
            patch.setattr(_api, "message_shortcut", lambda output: None)
            return extract_calls(output, tools=tools)

    return run


def _agree(full_path: Callable[..., Extraction], output: Any) -> bool:
    """Checks every tools setting; True when a shortcut answered at least once."""
    answered = False
    for tools in TOOLS:
        ctx = make_context(tools)
        fast = plain_shortcut(output, ctx) if isinstance(output, str) else None
        fast = fast if fast is not None else message_shortcut(output)
        full = full_path(output, tools)
        if fast is not None:
            answered = True
            assert fast == full, (output, tools)
            assert fast.model_fields_set == full.model_fields_set
        assert extract_calls(output, tools=tools) == full, (output, tools)
    return answered


def _data_outputs() -> Iterator[Any]:
    for path in sorted(DATA.rglob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(case, dict) and "input" in case:
            yield case["input"]


def test_shortcuts_data_cases_same_as_full_path(full_path: Callable[..., Extraction]) -> None:
    outputs = list(_data_outputs())
    assert len(outputs) > 300
    answered = sum(_agree(full_path, output) for output in outputs)
    assert answered >= 5  # few data cases are plain: the corpus and the lists below are


PLAIN = "[f(a=1, b='x')]"
ADVERSARIAL = [
    PLAIN,
    "f(a=1)",
    "[f(a=1), g(b=2.5, c=None, d=True)]",
    "  [f(a=1)]  \n",
    "[f(a=')]'), g(b='(f(x=1))')]",
    "[f(a='[g(b=1)]')]",
    "[f(a=[1, [2, [3]]], b={'k': {'j': [None]}})]",
    "[f(a={'k': 'v', 'k': 'w'})]",
    "[f(a='C:\\\\dir', b='it\\'s', c=\"q\\\"\", d='\\n\\t\\r')]",
    "[f(a='\\x41', b='\\d')]",
    "[f(a='caf\u00e9', b='\u674e\u96f7', c='\u2028')]",
    "[f(\u00e9=1)]",
    "[f(a=1e5, b=-0.0, c=+3, d=- 4, e=0x10)]",
    "[f(a=1e999)]",
    "[f(a=" + "9" * 30 + ")]",
    "[f(a=True, b=None, c=true, d=null, e=False)]",
    "[True(a=1)]",
    "[f(class=1)]",
    "[a.b.c(x=1)]",
    "[a . b(x=1)]",
    "[f (a=1)]",
    "[f(a=1)] and then some prose",
    "I will call [f(a=1)]",
    "[f(a=1)]\n[g(b=2)]",
    "[f(1)]",
    "[f(a=x)]",
    "[f(a=1), ]",
    "[f(a=1),]",
    "[]",
    "[f(a=1)",
    "f(a=1))",
    '[f(a=\'<tool_call>{"name": "g", "arguments": {}}</tool_call>\')]',
    '[f(a=\'{"name": "g", "arguments": {"x": 1}}\')]',
    '[f(a={"name": "g", "arguments": {"x": 1}})]',
    '[f(a={"name": "g"}, b="arguments")]',
    '[f(a="x", b={"type": "function", "function": {"name": "g"}})]',
    "[f(a='```json\\n{}\\n```')]",
    "[f(a='<think>x</think>')]",
    "[f(a='</think>')]",
    "[f(a='[THINK]')]",
    "[f(a='[TOOL_CALLS]')]",
    "[f(a='tool calls begin')]",
    "[f(a='functools[1]')]",
    "[f(a='>>>')]",
    "[f(a='<|python_tag|>')]",
    "<|python_start|>[f(a=1)]<|python_end|>",
    "<think>hmm</think>[f(a=1)]",
    "[f(a='x' 'y')]",
    "[f(a=b'x')]",
    "[f(a='\x00')]",
    "[f(a='\ud800')]",
    "[" + ", ".join(f"f(a={i})" for i in range(MAX_CALLS + 5)) + "]",
    "[f(a='" + "x" * 3990 + "')]",
    "[f(a='" + "x" * 5000 + "')]",
    "[f(a=" + "[" * 150 + "]" * 150 + ")]",
    "(" * 3000 + ")" * 3000,
    "The answer is 42.",
    "",
]


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_plain_shortcut_adversarial_text_same_as_full_path(
    full_path: Callable[..., Extraction], text: str
) -> None:
    _agree(full_path, text)


def test_plain_shortcut_reads_plain_call_lists() -> None:
    found = plain_shortcut(PLAIN, make_context(None))
    assert found is not None
    assert (found.format, [c.to_dict() for c in found.calls]) == (
        "pythonic",
        [{"name": "f", "arguments": {"a": 1, "b": "x"}}],
    )


def _message(*calls: Any, **extra: Any) -> dict[str, Any]:
    tool_calls = [
        {"id": f"call_{i}", "type": "function", "function": call} for i, call in enumerate(calls)
    ]
    return {"role": "assistant", "content": None, "tool_calls": tool_calls, **extra}


def _fn(name: Any = "f", arguments: Any = '{"a": 1}') -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


MESSAGES = [
    _message(_fn()),
    _message(_fn(), _fn("g", '{"b": "x", "c": [1, {"d": null}]}')),
    _message(_fn(arguments="")),
    _message(_fn(arguments="  ")),
    _message(_fn(arguments=" {} ")),
    _message(_fn(arguments='{"a": 1}\u2003')),
    _message(_fn(arguments='{"a": NaN}')),
    _message(_fn(arguments='{"a": Infinity}')),
    _message(_fn(arguments='{"a": 1e999}')),
    _message(_fn(arguments='{"a": ' + "9" * 700 + "}")),
    _message(_fn(arguments='{"a": ' + "9" * 5000 + "}")),
    _message(_fn(arguments='{"a": ' + "[" * 150 + "]" * 150 + "}")),
    _message(_fn(arguments='"{\\"a\\": 1}"')),
    _message(_fn(arguments="[1]")),
    _message(_fn(arguments="{not json")),
    _message(_fn(arguments='{"a": 1} extra')),
    _message(_fn(arguments='{"a": 1, "a": 2}')),
    _message(_fn(arguments={"a": 1})),
    _message(_fn(name=" f ")),
    _message(_fn(name="")),
    _message(_fn(name=3)),
    _message({"name": "f", "arguments": "{}", "extra": 1}),
    _message({"name": "f", "parameters": "{}"}),
    _message(_fn(), content="Calling f."),
    _message(_fn(), content=[{"type": "text", "text": "x"}]),
    _message(_fn(), refusal=None),
    _message(),
    {"role": "assistant", "content": "[f(a=1)]"},
    {"role": "assistant", "content": None, "tool_calls": "f"},
    {"role": "assistant", "content": None, "tool_calls": [{"function": "f"}]},
    {"role": "assistant", "content": None, "tool_calls": [{"id": 1, "function": _fn()}]},
    {"role": 3, "content": None, "tool_calls": [{"function": _fn()}]},
    {"content": None, "tool_calls": [{"function": _fn()}]},
    {"choices": [{"message": _message(_fn())}]},
    {"message": _message(_fn())},
    _message(*[_fn(arguments=f'{{"i": {i}}}') for i in range(MAX_CALLS + 3)]),
    _message(_fn(arguments='{"a": "' + "x" * 1_000_100 + '"}')),
]


@pytest.mark.parametrize("message", MESSAGES, ids=range(len(MESSAGES)))
def test_message_shortcut_adversarial_messages_same_as_full_path(
    full_path: Callable[..., Extraction], message: dict[str, Any]
) -> None:
    _agree(full_path, message)


def test_message_shortcut_size_bound_same_as_full_path(
    full_path: Callable[..., Extraction],
) -> None:
    # Around the bound on the characters of keys and strings: a long call id, each size.
    answered = refused = 0
    for size in range(MAX_OUTPUT_CHARS - 200, MAX_OUTPUT_CHARS + 1):
        message = _message(_fn(), content="")
        message["tool_calls"][0]["id"] = "x" * size
        fast, full = message_shortcut(message), full_path(message, None)
        # It answers up to the bound, as the full path does, and declines past it.
        assert fast == (None if full.errors else full), size
        answered += fast is not None
        refused += fast is None
    assert answered and refused


def test_message_shortcut_reads_plain_tool_calls() -> None:
    found = message_shortcut(_message(_fn(), _fn("g", '{"b": [1, {"c": null}]}')))
    assert found is not None
    assert (found.format, [c.to_dict() for c in found.calls]) == (
        "openai",
        [
            {"name": "f", "arguments": {"a": 1}},
            {"name": "g", "arguments": {"b": [1, {"c": None}]}},
        ],
    )


_ATOMS = st.sampled_from(
    [
        "1", "-2", "+3", "1.5", "1e5", "-0.0", "0x10", "01", "'x'", '"y"', "''", "'a\\'b'",
        "'C:\\\\'", "'\\x41'", "'<tool_call>'", "'</think>'", "'```'", "'[TOOL_CALLS]'",
        '\'"name": "g", "arguments": {}\'', "True", "None", "null", "name", "'\u00e9'",
        '{"name": "g", "arguments": {}}', "[1, 'a']", "{'k': 1}", "[[1]]", "{'k': [1]}",
    ]
)  # fmt: skip
_CALL = st.builds(
    lambda name, args: f"{name}({', '.join(f'{k}={v}' for k, v in args)})",
    st.sampled_from(["f", "get_weather", "a.b", "class", "g"]),
    st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), _ATOMS), max_size=3),
)
_TEXT = st.one_of(
    _CALL, st.lists(_CALL, min_size=1, max_size=3).map(lambda cs: "[" + ", ".join(cs) + "]")
)


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.sampled_from(["", " ", "\n", ")", "]", "x", "<", '"', "`"]), st.integers(0, 60))
def test_plain_shortcut_generated_text_same_as_full_path(text: str, noise: str, where: int) -> None:
    patch = pytest.MonkeyPatch()
    try:
        full = _full(patch)
        cut = min(where, len(text))
        for output in (text, text[:cut] + noise + text[cut:]):
            for tools in TOOLS:
                fast = plain_shortcut(output, make_context(tools))
                if fast is not None:
                    assert fast == full(output, tools), (output, tools)
    finally:
        patch.undo()


def _full(patch: pytest.MonkeyPatch) -> Callable[[Any, list[str] | None], Extraction]:
    patch.setattr(_api, "plain_shortcut", lambda text, ctx: None)
    patch.setattr(_api, "message_shortcut", lambda output: None)
    return lambda output, tools: extract_calls(output, tools=tools)
