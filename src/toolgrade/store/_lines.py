"""The append-only JSON-lines files of a run folder (`results.jsonl`, `states.jsonl`), read back.

Each line is appended whole and flushed, so only the last line can be incomplete (the
process died mid-write): reading drops a last line that does not parse, and says where
it starts, so that a writer can cut it off before appending again. A line that does
not parse anywhere else is corruption: an error naming the file and the line.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Generic, TypeVar

from toolgrade._core.files import read_bytes
from toolgrade.errors import StoreError

__all__ = ["Lines", "drop_handle", "read_lines", "repair_tail"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Lines(Generic[T]):
    """What a JSON-lines file holds: its complete lines, and the state of its end."""

    items: tuple[tuple[int, T], ...] = ()
    """Each complete line, parsed, with its line number (from 1)."""
    torn_at: int | None = None
    """Where a torn last line starts (a byte offset), to cut it off; None: no torn line."""
    unterminated: bool = False
    """The last line is complete, but its newline was not written."""


def read_lines(path: Path, parse: Callable[[bytes], T | None], *, what: str) -> Lines[T]:
    """Read every complete line of an append-only JSON-lines file, in file order.

    Args:
        path: the file; a missing file holds no line.
        parse: one line's bytes to its value; None when the line does not parse.
        what: how errors name a line (`result line`).

    Raises:
        StoreError: a line other than the last does not parse (the error gives it), or
            the file cannot be read.
    """
    if not path.exists():
        return Lines()
    data = read_bytes(path, error=StoreError)
    lines = data.split(b"\n")
    if lines and not lines[-1].strip():
        lines.pop()  # the file ends with a newline (or blank space)
    items: list[tuple[int, T]] = []
    start = 0
    for number, line in enumerate(lines, start=1):
        value = parse(line) if line.strip() else None
        if value is not None:
            items.append((number, value))
        elif line.strip() and number == len(lines):
            return Lines(tuple(items), torn_at=start)
        elif line.strip():
            raise StoreError(f"corrupt {what}", path=str(path), location=f"line {number}")
        start += len(line) + 1
    return Lines(tuple(items), unterminated=bool(data) and not data.endswith(b"\n"))


def repair_tail(path: Path, lines: Lines[Any]) -> None:
    """Make the file end cleanly for appending (as `read_lines` read it).

    A torn last line is cut off; a complete last line gets the newline it lacks.

    Raises:
        OSError: the file cannot be written.
    """
    if lines.torn_at is not None:
        with path.open("r+b") as handle:
            handle.truncate(lines.torn_at)
    elif lines.unterminated:
        with path.open("a", encoding="utf-8") as handle:
            handle.write("\n")


def drop_handle(handle: IO[str] | None) -> None:
    """Close a handle whose write failed, dropping what it could not write.

    Otherwise the garbage collector would try the write again and print the error.
    """
    if handle is not None:
        with suppress(OSError):  # the same failure again: the unwritten bytes are dropped
            handle.close()
