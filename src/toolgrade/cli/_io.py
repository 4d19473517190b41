"""Reading command-line inputs: files or standard input, with clear errors."""

from __future__ import annotations

import sys
from pathlib import Path

from toolgrade._core.files import decode_text, parse_json, read_stream
from toolgrade._core.files import read_text as read_text_file
from toolgrade._core.json_data import JsonValue, clean_value
from toolgrade.errors import InputError

__all__ = ["read_json", "read_text"]

MAX_INPUT_BYTES = 64 * 1024 * 1024
"""A file (or standard input) larger than this is refused."""


def read_text(source: str) -> tuple[str, str]:
    """Read a file, or standard input for `-`; return (display name, text).

    Raises:
        InputError: the file cannot be read, is too large, or is not UTF-8.
    """
    if source == "-":
        # Read one byte more than allowed, in chunks: cutting the input silently would
        # make the error an "invalid JSON" at the cut, far from the cause, and an
        # endless input (`yes |`) must cost no more than the limit.
        stream = getattr(sys.stdin, "buffer", None)  # None when replaced by a text stream
        if stream is None:
            text = sys.stdin.read(MAX_INPUT_BYTES + 1)
            if len(text) > MAX_INPUT_BYTES:
                raise InputError(f"larger than {MAX_INPUT_BYTES} bytes", path="<stdin>")
            return "<stdin>", text
        try:
            data = read_stream(stream, limit=MAX_INPUT_BYTES)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", path="<stdin>") from None
        if data is None:
            raise InputError(f"larger than {MAX_INPUT_BYTES} bytes", path="<stdin>")
        return "<stdin>", decode_text(data, name="<stdin>")
    return source, read_text_file(Path(source), limit=MAX_INPUT_BYTES)


def read_json(source: str) -> tuple[str, JsonValue]:
    """Read and parse a JSON file (or `-`) strictly; return (display name, value).

    Raises:
        InputError: unreadable, or not JSON (the message gives line and column), or a
            value refused: NaN, Infinity, a number out of range, an integer too long to
            read, a key given twice (the message gives line and JSON path).
    """
    name, text = read_text(source)
    return name, clean_value(parse_json(text, name=name))
