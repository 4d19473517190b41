"""The input limits docs/reliability.md states hold as stated.

Each limit is a constant of the module that enforces it; the table in
docs/reliability.md gives its value, so a change of either must change both. The larger
limits are also tried at their edge: a sparse file one byte over 512 MiB costs no disk.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade import SuiteError, load_suite
from toolgrade._core import files as _files
from toolgrade._core.files import MAX_FILE_BYTES
from toolgrade.backends._endpoints import MAX_ENDPOINTS_BYTES
from toolgrade.backends._replay_lines import MAX_RESPONSES_FILE_BYTES
from toolgrade.backends._stream import MAX_RESPONSE_BYTES
from toolgrade.cli import app
from toolgrade.cli._io import MAX_INPUT_BYTES
from toolgrade.errors import BaselineError
from toolgrade.store._resolve import load_run_file
from toolgrade.sweep._toml import MAX_SWEEP_BYTES

MIB = 1024 * 1024
DOCS = Path(__file__).parents[1] / "docs" / "reliability.md"


@pytest.mark.parametrize(
    ("constant", "mib", "stated"),
    [
        (MAX_RESPONSE_BYTES, 16, "| One answer on the wire (whole or streamed) | 16 MiB"),
        (MAX_RESPONSE_BYTES, 16, "| A responses file | 16 MiB per line"),
        (MAX_RESPONSES_FILE_BYTES, 256, "16 MiB per line, 256 MiB in all"),
        (MAX_FILE_BYTES, 512, "| A suite, an export or any other input file | 512 MiB"),
        (MAX_SWEEP_BYTES, 4, "| A sweep file; an endpoints file | 4 MiB; 1 MiB"),
        (MAX_ENDPOINTS_BYTES, 1, "| A sweep file; an endpoints file | 4 MiB; 1 MiB"),
        (MAX_INPUT_BYTES, 64, "| `toolgrade score` / `extract` standard input | 64 MiB"),
    ],
)
def test_limit_is_the_one_the_docs_state(constant: int, mib: int, stated: str) -> None:
    assert constant == mib * MIB
    assert stated in DOCS.read_text(encoding="utf-8")


def _never(*args: object, **kwargs: object) -> bytes:
    raise AssertionError("a regular file over the limit was read")


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


@pytest.mark.skipif(sys.platform == "win32", reason="a sparse file needs a POSIX file system")
def test_suite_one_byte_over_512_mib_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_files, "read_stream", _never)
    path = _sparse(tmp_path / "big.json", MAX_FILE_BYTES + 1)
    with pytest.raises(SuiteError, match=f"larger than {MAX_FILE_BYTES} bytes"):
        load_suite(path)


@pytest.mark.skipif(sys.platform == "win32", reason="a sparse file needs a POSIX file system")
def test_export_one_byte_over_512_mib_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_files, "read_stream", _never)
    path = _sparse(tmp_path / "run.json", MAX_FILE_BYTES + 1)
    with pytest.raises(BaselineError, match=f"larger than {MAX_FILE_BYTES} bytes"):
        load_run_file(path)


@pytest.mark.skipif(sys.platform == "win32", reason="a sparse file needs a POSIX file system")
def test_cli_evaluate_responses_file_over_256_mib_exits_2(tmp_path: Path) -> None:
    path = _sparse(tmp_path / "r.jsonl", MAX_RESPONSES_FILE_BYTES + 1)
    result = CliRunner().invoke(
        app,
        ["evaluate", "--suite", "coding-agent", "--responses", str(path), "-q"],
    )
    assert result.exit_code == 2, result.output
    assert f"larger than {MAX_RESPONSES_FILE_BYTES} bytes" in result.output


def _suite_with_integer(digits: int) -> str:
    tool = {"name": "f", "description": "d", "parameters": {"type": "object"}}
    case = {"id": "C-1", "prompt": "p", "expected": {"tool": "f", "arguments": {"n": 0}}}
    text = json.dumps({"schema_version": 1, "name": "t", "tools": [tool], "cases": [case]})
    return text.replace('"n": 0', '"n": ' + "7" * digits)


def test_suite_integer_of_4300_digits_is_read_4301_refused(tmp_path: Path) -> None:
    at = tmp_path / "at.json"
    at.write_text(_suite_with_integer(4300), encoding="utf-8")
    assert load_suite(at).cases[0].expected is not None
    over = tmp_path / "over.json"
    over.write_text(_suite_with_integer(4301), encoding="utf-8")
    with pytest.raises(SuiteError) as info:
        load_suite(over)
    assert "an integer of 4301 digits (at most 4300 are read)" in info.value.problems[0]


def test_cli_extract_stdin_over_bound_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolgrade.cli import _io

    monkeypatch.setattr(_io, "MAX_INPUT_BYTES", 10)
    result = CliRunner().invoke(app, ["extract", "-"], input="x" * 20)
    assert result.exit_code == 2, result.output
    assert result.output.strip() == "error: <stdin>: larger than 10 bytes"
