"""Reading a sweep file: TOML with every problem named by file, key and line.

`tomllib` gives the line of a syntax error only; once the text is parsed, positions
are gone. So the text is scanned once more (`key_lines`) for the line each table
header and each `key =` starts on, good enough to send an editor to the right place:
a key inside an inline table or a multi-line array is placed on the line of the key
that holds it.
"""

from __future__ import annotations

import difflib
import re
import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from toolgrade._core.files import read_text
from toolgrade.errors import ConfigError

__all__ = ["Problems", "TableRef", "key_lines", "parse_toml"]

MAX_SWEEP_BYTES = 4 * 1024 * 1024
"""A sweep file larger than this is refused (it lists models and suites, not data)."""

_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_HEADER = re.compile(r"^\s*(\[\[|\[)\s*([^\[\]#]+?)\s*(\]\]|\])\s*(#.*)?$")
_DIGITS = re.compile(r"[0-9][0-9_]*")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*[=.]""")


def parse_toml(path: Path) -> tuple[str, dict[str, object]]:
    """Read and parse a TOML file; return (its text, the parsed document).

    Raises:
        ConfigError: unreadable, not UTF-8, or not TOML (with the line and column).
    """
    text = read_text(path, error=ConfigError, limit=MAX_SWEEP_BYTES)
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _AT.search(message)
        where = f"line {found.group(1)} column {found.group(2)}" if found else None
        reason = _AT.sub("", message) if found else message
        raise ConfigError(f"invalid TOML: {reason}", path=str(path), location=where) from None
    except RecursionError:
        # tomllib reads nested arrays and tables recursively: a few hundred levels of
        # `[[[...` exhaust the stack. A sweep file needs two or three.
        raise ConfigError(
            "invalid TOML: arrays or tables nested too deeply", path=str(path)
        ) from None
    except ValueError as exc:
        # Python refuses to convert an integer of more than 4,300 digits (CVE-2020-10735).
        limit = sys.get_int_max_str_digits()
        line = _long_integer_line(text, limit)
        reason = f"an integer of more than {limit:,} digits" if line else str(exc)
        raise ConfigError(
            f"invalid TOML: {reason}",
            path=str(path),
            location=f"line {line}" if line is not None else None,
        ) from None


def _long_integer_line(text: str, limit: int) -> int | None:
    """The line of the first run of more than `limit` digits (0: no limit, no line)."""
    if limit <= 0:
        return None
    for number, line in enumerate(text.splitlines(), 1):
        if any(len(run.replace("_", "")) > limit for run in _DIGITS.findall(line)):
            return number
    return None


def key_lines(text: str) -> dict[tuple[str, int, str | None], int]:
    r"""(table, index, key) -> the line it starts on; key None is the table's header.

    The top level is table `""`; the n-th `[[models]]` is `("models", n, ...)`; a plain
    `[table]` has index 0. Only the first occurrence of each is kept.

    Examples:
        >>> lines = key_lines('name = "x"\n[[models]]\nlabel = "a"\n[[models]]\nlabel = "b"\n')
        >>> lines[("", 0, "name")], lines[("models", 1, None)], lines[("models", 1, "label")]
        (1, 4, 5)
    """
    table, index = "", 0
    seen: dict[str, int] = {}
    found: dict[tuple[str, int, str | None], int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header is not None:
            table = header.group(2).strip().strip("\"'")
            if header.group(1) == "[[":
                index = seen.get(table, 0)
                seen[table] = index + 1
            else:
                index = 0
            found.setdefault((table, index, None), number)
            continue
        key = _KEY.match(line)
        if key is not None:
            found.setdefault((table, index, key.group(1).strip("\"'")), number)
    return found


@dataclass(frozen=True, slots=True)
class TableRef:
    """Where a table of the sweep file is: `models[1]`, `suites[0]`, or the top level."""

    table: str = ""
    """`models`, `suites`, or `""` for the top level."""
    index: int = 0
    """Its position in the array of tables."""

    def path(self, key: str | None = None) -> str:
        """`models[1].temperature`, or just `temperature` at the top level."""
        head = f"{self.table}[{self.index}]" if self.table else ""
        if key is None:
            return head or "(top level)"
        return f"{head}.{key}" if head else key


@dataclass(slots=True)
class Problems:
    """Every problem found in one sweep file, each with its key path and line."""

    path: Path
    """The sweep file."""
    lines: dict[tuple[str, int, str | None], int]
    """From `key_lines`."""
    found: list[tuple[int | None, str]] = field(default_factory=list)
    """(line, message) in the order found."""

    def add(self, where: TableRef, key: str | None, message: str) -> None:
        """Record a problem with `key` of the table `where` (None: the table itself)."""
        line = self.lines.get((where.table, where.index, key)) if key is not None else None
        if line is None:
            line = self.lines.get((where.table, where.index, None))
        problem = (line, f"{where.path(key)}: {message}")
        if problem not in self.found:  # a bad top-level default is met once per model
            self.found.append(problem)

    def unknown_keys(
        self, where: TableRef, data: Mapping[str, object], known: Iterable[str]
    ) -> None:
        """Record every key of `data` not in `known`, with the closest known name."""
        names = sorted(known)
        for key in data:
            if key in names:
                continue
            close = difflib.get_close_matches(key, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            self.add(where, key, f"unknown key{hint}; known keys: {', '.join(names)}")

    def raise_if_any(self) -> None:
        """Raise one `ConfigError` naming the file, and the line of each problem.

        Raises:
            ConfigError: at least one problem was recorded.
        """
        if not self.found:
            return
        if len(self.found) == 1:
            line, message = self.found[0]
            location = f"line {line}" if line is not None else None
            raise ConfigError(message, path=str(self.path), location=location)
        items = "\n".join(
            f"  - {f'line {line}: ' if line is not None else ''}{message}"
            for line, message in self.found
        )
        raise ConfigError(f"{len(self.found)} problems:\n{items}", path=str(self.path))
