"""Reading command-line inputs: files or standard input, with clear errors."""

from __future__ import annotations

import sys
from pathlib import Path

from toolgrade._files import parse_json
from toolgrade._files import read_text as read_text_file
from toolgrade._json import JsonValue

__all__ = ["read_json", "read_text"]

MAX_INPUT_BYTES = 64 * 1024 * 1024


def read_text(source: str) -> tuple[str, str]:
    """Read a file, or standard input for `-`; return (display name, text).

    Raises:
        InputError: the file cannot be read, is too large, or is not UTF-8.
    """
    if source == "-":
        return "<stdin>", sys.stdin.read(MAX_INPUT_BYTES)
    return source, read_text_file(Path(source), limit=MAX_INPUT_BYTES)


def read_json(source: str) -> tuple[str, JsonValue]:
    """Read and parse a JSON file (or `-`); return (display name, value).

    Raises:
        InputError: unreadable, or not JSON (the message gives line and column).
    """
    name, text = read_text(source)
    return name, parse_json(text, name=name)
