"""Where things are in a JSON text: the line each value starts on, by JSON path.

`json.loads` forgets positions, so when a suite file has problems its text is scanned
once more to add a line number to each message (an editor jumps straight to it). Only
invalid files pay for the scan.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from contextlib import suppress
from json.decoder import scanstring  # type: ignore[attr-defined]
from json.scanner import NUMBER_RE

__all__ = ["line_of", "value_lines"]

_WS = re.compile(r"[ \t\n\r]*")
_LITERALS = ("true", "false", "null")


class _Scanner:
    """A minimal JSON scanner that records the start line of every value."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.lines: dict[str, int] = {}

    def _ws(self, pos: int) -> int:
        match = _WS.match(self.text, pos)
        return match.end() if match else pos

    def value(self, pos: int, path: str) -> int:
        """Scan the value at `pos` (after whitespace); return the position after it."""
        text = self.text
        pos = self._ws(pos)
        self.lines[path] = bisect_right(self.starts, pos)
        char = text[pos]
        if char == "{":
            return self._object(pos + 1, path)
        if char == "[":
            return self._array(pos + 1, path)
        if char == '"':
            end: int = scanstring(text, pos + 1)[1]
            return end
        number = NUMBER_RE.match(text, pos)
        if number:
            return int(number.end())
        literal = next((lit for lit in _LITERALS if text.startswith(lit, pos)), None)
        if literal is None:
            raise ValueError(f"unexpected character at {pos}")
        return pos + len(literal)

    def _object(self, pos: int, path: str) -> int:
        pos = self._ws(pos)
        if self.text[pos] == "}":
            return pos + 1
        while True:
            if self.text[pos] != '"':
                raise ValueError(f"expected a key at {pos}")
            key, pos = scanstring(self.text, pos + 1)
            pos = self._ws(pos)
            if self.text[pos] != ":":
                raise ValueError(f"expected ':' at {pos}")
            pos = self._ws(self.value(pos + 1, f"{path}.{key}"))
            if self.text[pos] == "}":
                return pos + 1
            if self.text[pos] != ",":
                raise ValueError(f"expected ',' at {pos}")
            pos = self._ws(pos + 1)

    def _array(self, pos: int, path: str) -> int:
        pos = self._ws(pos)
        if self.text[pos] == "]":
            return pos + 1
        index = 0
        while True:
            pos = self._ws(self.value(pos, f"{path}[{index}]"))
            if self.text[pos] == "]":
                return pos + 1
            if self.text[pos] != ",":
                raise ValueError(f"expected ',' at {pos}")
            pos, index = pos + 1, index + 1


def value_lines(text: str) -> dict[str, int]:
    r"""Map the JSON path of every value in a JSON text to the line it starts on (from 1).

    Paths are written like jsonschema's: `$.cases[2].expected.arguments.path`. For text
    that is not valid JSON the map holds what was scanned before the error.

    Examples:
        >>> value_lines('{\n  "a": [1,\n 2]\n}')
        {'$': 1, '$.a': 2, '$.a[0]': 2, '$.a[1]': 3}
    """
    scanner = _Scanner(text)
    # On damage, the partial map still locates everything that precedes it.
    with suppress(ValueError, IndexError, RecursionError):
        scanner.value(0, "$")
    return scanner.lines


def line_of(lines: dict[str, int], path: str) -> int | None:
    """The line of a JSON path, or of its nearest ancestor in the map (None if none)."""
    while path not in lines:
        cut = max(path.rfind("."), path.rfind("["))
        if cut <= 0:
            return lines.get("$")
        path = path[:cut]
    return lines[path]
