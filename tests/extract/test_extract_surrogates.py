r"""Lone UTF-16 surrogates in model output never reach a call: each becomes U+FFFD.

A model that writes half an emoji as a JSON escape (`"notes \ud83d.md"`), as a Python
escape, or as the raw code point hands extraction text Python decodes to a lone
surrogate, which no UTF-8 writer, hash or RE2 pattern accepts. Every format's calls,
names, arguments and problem messages come out clean.
"""

from __future__ import annotations

import json

import pytest

from toolgrade import Extraction, extract_calls
from toolgrade._core.json_data import has_surrogate

from ._samples import STRUCTURED, TEMPLATES, sample, structured, text_format_names

_ESCAPED = r'"notes \ud83d.md"'
"""A JSON (and Python) string literal holding an escaped lone high surrogate."""
_RAW = '"notes \ud83d.md"'
"""The same, the surrogate written as itself (a str that is not valid UTF-8)."""
_PAIR_AND_LOW = r'"\ud83d\ude00 and \udc00"'
"""A valid escaped pair (an emoji) and a lone low surrogate."""


def _utf8_clean(found: Extraction) -> str:
    """The extraction as JSON text, which must encode as UTF-8 (the result files do)."""
    text = found.model_dump_json()
    text.encode("utf-8")
    return text


def _assert_clean(found: Extraction) -> None:
    _utf8_clean(found)
    for call in found.calls:
        assert not has_surrogate(call.name)
        assert not has_surrogate(json.dumps(call.arguments, ensure_ascii=False))
    for problem in found.errors:
        assert not has_surrogate(problem.message)


def test_surrogates_issue_reproduction_json_call() -> None:
    output = r'{"name": "read_file", "arguments": {"file_path": "notes \ud83d.md"}}'
    found = extract_calls(output, tools=["read_file"])
    _assert_clean(found)
    assert found.calls[0].arguments == {"file_path": "notes \ufffd.md"}


@pytest.mark.parametrize("name", sorted(TEMPLATES))
@pytest.mark.parametrize("value", [_ESCAPED, _RAW, _PAIR_AND_LOW])
def test_surrogates_every_text_format_forced_and_auto(name: str, value: str) -> None:
    output = sample(name, 2, value)
    for fmt in (name, "auto"):
        _assert_clean(extract_calls(output, format=fmt))
        _assert_clean(extract_calls(output, format=fmt, tools=["f0", "f1"]))


def test_surrogates_every_text_format_has_a_template() -> None:
    assert set(text_format_names()) <= set(TEMPLATES)


def test_surrogates_decoded_value_is_replacement_character() -> None:
    found = extract_calls(sample("hermes", 1, _PAIR_AND_LOW))
    assert found.calls[0].arguments == {"a": "\U0001f600 and \ufffd"}


@pytest.mark.parametrize("name", STRUCTURED)
@pytest.mark.parametrize("value", [_ESCAPED, _RAW])
def test_surrogates_structured_messages(name: str, value: str) -> None:
    message = structured(name, 2, value if name == "openai" else json.loads(value))
    for fmt in (name, "auto"):
        _assert_clean(extract_calls(message, format=fmt))


def test_surrogates_in_names_keys_and_problems() -> None:
    output = '<tool_call>{"name": "f\ud83d", "arguments": {"k\udc00": 1}}</tool_call>'
    found = extract_calls(output)
    _assert_clean(found)
    assert found.calls[0].to_dict() == {"name": "f\ufffd", "arguments": {"k\ufffd": 1}}
    # A problem quoting the model's text (an unknown tool) is clean too.
    _assert_clean(extract_calls('<tool_call>{"name": "x\ud83d", "arguments": 5}</tool_call>'))
    _assert_clean(extract_calls("[f\ud83d(a=1), g(b='\\ud83d')]"))


@pytest.mark.parametrize(
    "output",
    [
        "[f(a='\\ud83d')]",
        "[f(a='\\U0000d83d')]",
        '[f(a="\\udc00x")]',
        "f(a='\\ud83d')",
        "[f(a={'k\\ud83d': ['\\udfff']})]",
        "```tool_code\nf(a='\\ud83d')\n```",
    ],
)
def test_surrogates_python_literal_escapes(output: str) -> None:
    found = extract_calls(output)
    assert found.calls, found
    _assert_clean(found)
