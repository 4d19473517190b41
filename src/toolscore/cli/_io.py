"""Reading command-line inputs: files or standard input, with clear errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toolscore._json import JsonValue
from toolscore.errors import InputError

__all__ = ["read_json", "read_text"]

MAX_INPUT_BYTES = 64 * 1024 * 1024


def read_text(source: str) -> tuple[str, str]:
    """Read a file, or standard input for `-`; return (display name, text).

    Raises:
        InputError: the file cannot be read or is not UTF-8.
    """
    if source == "-":
        return "<stdin>", sys.stdin.read(MAX_INPUT_BYTES)
    path = Path(source)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path=source) from None
    try:
        return source, data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path=source) from None


def read_json(source: str) -> tuple[str, JsonValue]:
    """Read and parse a JSON file (or `-`); return (display name, value).

    Raises:
        InputError: unreadable, or not JSON (the message gives line and column).
    """
    name, text = read_text(source)
    try:
        value: JsonValue = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg}", path=name, location=f"line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", path=name) from None
    return name, value
