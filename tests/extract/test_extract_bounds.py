"""The documented bounds: calls per output, oversized numbers, and the docs' format list."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from toolgrade import extract_calls
from toolgrade.extract._common import MAX_CALLS, MAX_INT_DIGITS
from toolgrade.suite import ToolSpec

from ._samples import STRUCTURED, TEMPLATES, sample, structured, text_format_names

_CAP_NOTE = f"only the first {MAX_CALLS} are kept"


def test_bounds_every_text_format_has_a_template() -> None:
    assert sorted(TEMPLATES) == sorted(text_format_names())


@pytest.mark.parametrize("name", text_format_names())
def test_bounds_calls_over_cap_keeps_first_and_notes(name: str) -> None:
    found = extract_calls(sample(name, MAX_CALLS + 20), format=name)
    assert [c.name for c in found.calls] == [f"f{i}" for i in range(MAX_CALLS)]
    assert [e.reason for e in found.errors] == ["parse_error"]
    assert _CAP_NOTE in found.errors[0].message


@pytest.mark.parametrize("name", text_format_names())
def test_bounds_calls_at_cap_are_all_kept(name: str) -> None:
    found = extract_calls(sample(name, MAX_CALLS), format=name)
    assert len(found.calls) == MAX_CALLS
    assert not found.errors


@pytest.mark.parametrize("name", STRUCTURED)
def test_bounds_structured_calls_over_cap_keeps_first_and_notes(name: str) -> None:
    found = extract_calls(structured(name, MAX_CALLS + 1))
    assert found.format == name
    assert len(found.calls) == MAX_CALLS
    assert [_CAP_NOTE in e.message for e in found.errors] == [True]


_HUGE = "1" * 5000
_TOO_LONG = "9" * (MAX_INT_DIGITS + 1)
_INT_SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}}


def _clean(found: object, caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    json.dumps([c.to_dict() for c in found.calls])  # type: ignore[attr-defined]


# Formats whose values are JSON or Python literals (numbers are never text there).
_NUMERIC = [name for name in text_format_names() if name not in {
    "seed_oss", "qwen3_coder", "hunyuan", "glm45", "minimax_m2", "anthropic_xml",
    "deepseek_v32", "step3",
}]  # fmt: skip


@pytest.mark.parametrize("digits", [_HUGE, _TOO_LONG, "-" + _TOO_LONG])
@pytest.mark.parametrize("name", _NUMERIC)
def test_bounds_huge_integer_is_parse_error(
    name: str, digits: str, caplog: pytest.LogCaptureFixture
) -> None:
    # Broken JSON in MiniMax-M1's tags is not its format: Jamba (same tags) reports it.
    found = extract_calls(sample(name, 2, digits), format="auto" if name == "minimax_m1" else name)
    _clean(found, caplog)
    assert not found.calls
    assert found.errors
    assert {e.reason for e in found.errors} == {"parse_error"}
    assert "sys.set_int_max_str_digits" not in " ".join(e.message for e in found.errors)


@pytest.mark.parametrize("name", _NUMERIC)
def test_bounds_integer_at_limit_is_kept(name: str) -> None:
    digits = "9" * MAX_INT_DIGITS
    found = extract_calls(sample(name, 2, digits), format=name)
    assert [c.arguments for c in found.calls] == [{"a": int(digits)}] * 2


@pytest.mark.parametrize("name", ["hermes", "json", "xlam", "kimi_k2", "granite_20b_fc"])
def test_bounds_infinite_float_is_parse_error(name: str) -> None:
    found = extract_calls(sample(name, 1, "1e999"), format=name)
    assert not found.calls
    assert [e.reason for e in found.errors] == ["parse_error"]


@pytest.mark.parametrize("literal", ["0x" + "f" * 600, "0b" + "1" * 2200, _TOO_LONG])
@pytest.mark.parametrize("name", ["pythonic", "gemma_tool_code", "olmo3", "lfm2"])
def test_bounds_huge_python_integer_is_parse_error(
    name: str, literal: str, caplog: pytest.LogCaptureFixture
) -> None:
    found = extract_calls(sample(name, 1, literal), format=name)
    _clean(found, caplog)
    assert not found.calls
    assert [e.reason for e in found.errors] == ["parse_error"]


@pytest.mark.parametrize("name", ["seed_oss", "qwen3_coder", "hunyuan", "glm45", "minimax_m2",
                                  "anthropic_xml", "step3"])  # fmt: skip
@pytest.mark.parametrize("digits", [_HUGE, _TOO_LONG])
def test_bounds_xml_integer_typed_by_schema_too_long_is_parse_error(
    name: str, digits: str, caplog: pytest.LogCaptureFixture
) -> None:
    tools = [ToolSpec(name=f"f{i}", parameters=_INT_SCHEMA) for i in range(2)]
    found = extract_calls(sample(name, 2, digits), format=name, tools=tools)
    _clean(found, caplog)
    assert not found.calls
    assert {e.reason for e in found.errors} == {"parse_error"}


def test_bounds_xml_untyped_long_number_stays_text() -> None:
    found = extract_calls(sample("anthropic_xml", 1, _HUGE), format="anthropic_xml")
    assert [c.arguments for c in found.calls] == [{"a": _HUGE}]


def test_bounds_docs_format_table_matches_registry() -> None:
    script = Path(__file__).with_name("_formats_table.py")
    result = subprocess.run(
        [sys.executable, str(script), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
