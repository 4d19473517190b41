"""Reading input files: a size bound, UTF-8 (a BOM allowed), errors naming the file.

Suites, call lists, responses files and BFCL result files are all read here, so that
each refuses an oversized or undecodable file the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

from toolgrade._json import JsonValue
from toolgrade.errors import InputError, ToolgradeError

__all__ = ["MAX_FILE_BYTES", "decode_text", "parse_json", "read_bytes", "read_text"]

MAX_FILE_BYTES = 512 * 1024 * 1024
"""Files larger than this are refused before they are read."""


def read_bytes(
    path: Path, *, error: type[ToolgradeError] = InputError, limit: int = MAX_FILE_BYTES
) -> bytes:
    """Read a whole file, refusing one over `limit` bytes.

    Raises:
        ToolgradeError: of class `error`, naming the file.
    """
    try:
        if path.stat().st_size > limit:
            raise error(f"larger than {limit} bytes", path=str(path))
        return path.read_bytes()
    except OSError as exc:
        raise error(f"cannot read file: {exc.strerror or exc}", path=str(path)) from None


def decode_text(data: bytes, *, name: str, error: type[ToolgradeError] = InputError) -> str:
    """Decode UTF-8 text, dropping a byte-order mark.

    Raises:
        ToolgradeError: of class `error`, giving the offending byte.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (byte {exc.start})", path=name) from None


def read_text(
    path: Path, *, error: type[ToolgradeError] = InputError, limit: int = MAX_FILE_BYTES
) -> str:
    """`read_bytes` then `decode_text`."""
    return decode_text(read_bytes(path, error=error, limit=limit), name=str(path), error=error)


def parse_json(text: str, *, name: str, error: type[ToolgradeError] = InputError) -> JsonValue:
    """Parse JSON text.

    Raises:
        ToolgradeError: of class `error`, with the line and column of invalid JSON.
    """
    try:
        value: JsonValue = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"invalid JSON: {exc.msg}", path=name, location=f"line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise error("JSON nested too deeply", path=name) from None
    return value
