r"""JSON type aliases, and strict reading of JSON input.

Python's `json` accepts `NaN` and `Infinity`, reads `1e999` as infinity, keeps the last
of two equal keys, and raises a bare `ValueError` on an integer of more digits than
Python converts (4300 by default). In a suite each of these is a case that can never
pass or a value silently lost, so `loads_checked` reports them as `JsonIssue`s, each
with the JSON path and the line of the value at fault. The positions come from a second,
pure-Python scan that only runs when the fast parse flagged something (or to locate a
suite problem: `value_lines`).

JSON can also write half of a UTF-16 surrogate pair (`"\ud83d"`: half an emoji), which
Python reads as a lone surrogate: a `str` that cannot be encoded as UTF-8, so every
writer, hash, database and RE2 pattern that meets it raises. `clean_text` and
`clean_value` replace each lone surrogate by U+FFFD (the replacement character, shown as
`\ufffd`), keeping the rest of the text; a valid pair becomes the character it encodes.
Untrusted text is cleaned where it enters toolgrade (a model's reply, a decoded call, a
suite, an environment's result), so that nothing downstream meets a surrogate.
"""

from __future__ import annotations

import json
import math
import re
import sys
from bisect import bisect_right
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from json.scanner import NUMBER_RE

from pydantic import JsonValue

__all__ = [
    "JsonIssue",
    "JsonObject",
    "JsonValue",
    "clean_text",
    "clean_value",
    "has_surrogate",
    "holds_surrogate",
    "json_may_hold_surrogate",
    "loads_checked",
    "shown_json",
    "value_lines",
]

JsonObject = dict[str, JsonValue]
"""A JSON object: the arguments of a tool call, a JSON Schema, a message."""

_WS = re.compile(r"[ \t\n\r]*")
_LITERALS = ("true", "false", "null")
_NON_FINITE = ("NaN", "Infinity", "-Infinity")
_SHOWN = 24
"""Characters of an offending number quoted in a message."""


@dataclass(frozen=True, slots=True)
class JsonIssue:
    """What Python reads but input must not hold: NaN, 1e999, a huge integer, a repeated key."""

    path: str
    """The JSON path of the value at fault, e.g. `$.cases[2].expected.arguments.n`."""
    line: int
    """The line it is on (from 1)."""
    message: str
    """What is wrong, e.g. `NaN is not a JSON number`."""


class _Flags:
    """Records that the fast parse met something to report (the scan says where)."""

    def __init__(self) -> None:
        self.raised = False

    def constant(self, literal: str) -> None:
        self.raised = True

    def number(self, literal: str) -> float | None:
        value = float(literal)
        if math.isfinite(value):
            return value
        self.raised = True
        return None

    def integer(self, literal: str) -> int | None:
        try:
            return int(literal)
        except ValueError:  # over sys.get_int_max_str_digits()
            self.raised = True
            return None

    def pairs(self, pairs: list[tuple[str, JsonValue]]) -> dict[str, JsonValue]:
        value = dict(pairs)
        if len(value) != len(pairs):
            self.raised = True
        return value


def loads_checked(text: str) -> tuple[JsonValue, tuple[JsonIssue, ...]]:
    """Parse JSON text, listing what is valid for Python but wrong as input.

    Issues: `NaN`, `Infinity` and `-Infinity` (not JSON); numbers out of range (`1e999`);
    integers of more digits than Python converts (`sys.get_int_max_str_digits()`, 4300
    by default); a key given twice in one object. Each offending value is `None` in the
    returned value (of a repeated key, the last value is kept), so that the rest of the
    document can still be read, e.g. for the id of the case a problem is in.

    Args:
        text: the JSON text.

    Returns:
        The value and the issues, in document order (none for clean input).

    Raises:
        json.JSONDecodeError: the text is not JSON.
        RecursionError: the text is nested too deeply.

    Examples:
        >>> loads_checked('{"a": NaN, "a": 1}')[1][0].message
        'NaN is not a JSON number'
    """
    flags = _Flags()
    options = {
        "parse_constant": flags.constant,
        "parse_float": flags.number,
        "object_pairs_hook": flags.pairs,
    }
    try:
        value: JsonValue = json.loads(text, **options)  # type: ignore[arg-type]
    except json.JSONDecodeError:
        raise
    except ValueError:
        # Only an integer too long to convert gets here; the hook is slower, so it is
        # given only now.
        value = json.loads(text, parse_int=flags.integer, **options)  # type: ignore[arg-type]
    if not flags.raised:
        return value, ()
    scanner = _Scanner(text, check=True)
    with suppress(ValueError, IndexError, RecursionError):
        scanner.value(0, "$")
    return value, tuple(scanner.issues)


def value_lines(text: str) -> dict[str, int]:
    r"""Map the JSON path of every value in a JSON text to the line it starts on (from 1).

    Paths are written like jsonschema's: `$.cases[2].expected.arguments.path`. For text
    that is not valid JSON the map holds what was scanned before the error.

    Examples:
        >>> value_lines('{\n  "a": [1,\n 2]\n}')
        {'$': 1, '$.a': 2, '$.a[0]': 2, '$.a[1]': 3}
    """
    scanner = _Scanner(text, check=False)
    # On damage, the partial map still locates everything that precedes it.
    with suppress(ValueError, IndexError, RecursionError):
        scanner.value(0, "$")
    return scanner.lines


def _shown(literal: str) -> str:
    return literal if len(literal) <= _SHOWN else literal[: _SHOWN - 3] + "..."


class _Scanner:
    """A minimal JSON scanner that records the start line of every value (and issues)."""

    def __init__(self, text: str, *, check: bool) -> None:
        self.text = text
        self.check = check
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.lines: dict[str, int] = {}
        self.issues: list[JsonIssue] = []

    def _ws(self, pos: int) -> int:
        match = _WS.match(self.text, pos)
        return match.end() if match else pos

    def _issue(self, path: str, message: str) -> None:
        self.issues.append(JsonIssue(path, self.lines[path], message))

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
            if self.check:
                self._number(path, number.group(), integral=not (number[2] or number[3]))
            return int(number.end())
        literal = next((lit for lit in _LITERALS if text.startswith(lit, pos)), None)
        if literal is not None:
            return pos + len(literal)
        constant = next((c for c in _NON_FINITE if text.startswith(c, pos)), None)
        if constant is None:
            raise ValueError(f"unexpected character at {pos}")
        if self.check:
            self._issue(path, f"{constant} is not a JSON number")
        return pos + len(constant)

    def _number(self, path: str, literal: str, *, integral: bool) -> None:
        if integral:
            try:
                int(literal)
            except ValueError:
                digits = len(literal.lstrip("-"))
                limit = sys.get_int_max_str_digits()
                self._issue(path, f"an integer of {digits} digits (at most {limit} are read)")
        elif not math.isfinite(float(literal)):
            self._issue(path, f"{_shown(literal)} is out of range (not a finite number)")

    def _object(self, pos: int, path: str) -> int:
        pos = self._ws(pos)
        if self.text[pos] == "}":
            return pos + 1
        seen: dict[str, int] = {}
        while True:
            if self.text[pos] != '"':
                raise ValueError(f"expected a key at {pos}")
            key, pos = scanstring(self.text, pos + 1)
            pos = self._ws(pos)
            if self.text[pos] != ":":
                raise ValueError(f"expected ':' at {pos}")
            at = f"{path}.{key}"
            pos = self._ws(self.value(pos + 1, at))
            if self.check:
                if key in seen:
                    self._issue(at, f"duplicate key '{key}' (first at line {seen[key]})")
                else:
                    seen[key] = self.lines[at]
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


# A JSON escape of a surrogate (`\ud83d`; the hex digits in either case). It also
# matches an escaped backslash before `ud83d`: a false alarm costs only a closer look.
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def shown_json(value: object, limit: int = 40) -> str:
    """A value as one line of JSON for a message, cut to `limit` characters.

    Examples:
        >>> shown_json(None), shown_json({"b": 1, "a": [1, 2]}), shown_json("x" * 50, 10)
        ('null', '{"a": [1, 2], "b": 1}', '"xxxxxx...')
    """
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def json_may_hold_surrogate(text: str) -> bool:
    r"""Whether JSON parsed from `text` can hold a surrogate (escaped, or as it is).

    False: no value parsed from it needs `clean_value`.

    Examples:
        >>> json_may_hold_surrogate('{"a": "\\ud83d"}'), json_may_hold_surrogate('{"a": "é"}')
        (True, False)
    """
    return _ESCAPED_SURROGATE.search(text) is not None or has_surrogate(text)


def has_surrogate(text: str) -> bool:
    """Whether `text` holds a surrogate code point (it cannot be encoded as UTF-8).

    Fast for the usual text: ASCII is answered at once, other text by one encode in C.
    """
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def clean_text(text: str) -> str:
    r"""`text` with each lone surrogate replaced by U+FFFD; a valid pair joined.

    Examples:
        >>> clean_text("notes \ud83d.md")
        'notes \ufffd.md'
        >>> clean_text("\ud83d\ude00") == "\U0001f600"
        True
        >>> clean_text("plain")
        'plain'
    """
    if not has_surrogate(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def clean_value(value: JsonValue) -> JsonValue:
    r"""A JSON value with every string (keys included) passed through `clean_text`.

    The value itself is returned when it holds no surrogate (one quick walk, nothing
    copied), so the usual case costs little. Two keys that become equal once cleaned
    keep the later value. Containers nested deeper than `_MAX_CLEAN_DEPTH` are returned
    as they are (a bounded reader has refused them before they get here).

    Examples:
        >>> clean_value({"path": ["a\udc00", 1]})
        {'path': ['a\ufffd', 1]}
        >>> value = {"path": ["plain", 1]}
        >>> clean_value(value) is value
        True
    """
    if isinstance(value, str):
        return clean_text(value)
    if not isinstance(value, dict | list) or not holds_surrogate(value):
        return value
    return _cleaned(value, 0)


def holds_surrogate(value: JsonValue, depth: int = 0) -> bool:
    r"""Whether a string of a JSON value (keys included) holds a surrogate.

    Written for speed: ASCII strings are answered at once, and nothing is copied.
    Containers nested deeper than `_MAX_CLEAN_DEPTH` are not looked into.

    Examples:
        >>> holds_surrogate({"a": [1, "x\udc00"]}), holds_surrogate({"a": "é"})
        (True, False)
    """
    if isinstance(value, str):
        return not value.isascii() and has_surrogate(value)
    if depth > _MAX_CLEAN_DEPTH or not isinstance(value, dict | list):
        return False
    items: Iterable[JsonValue] = value
    if isinstance(value, dict):
        if any(holds_surrogate(key) for key in value):
            return True
        items = value.values()
    for item in items:
        if isinstance(item, str):
            if not item.isascii() and has_surrogate(item):
                return True
        elif isinstance(item, dict | list) and holds_surrogate(item, depth + 1):
            return True
    return False


def _cleaned(value: JsonValue, depth: int) -> JsonValue:
    if isinstance(value, str):
        return clean_text(value)
    if depth > _MAX_CLEAN_DEPTH:
        return value
    if isinstance(value, dict):
        return {
            clean_text(k) if isinstance(k, str) else k: _cleaned(v, depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_cleaned(item, depth + 1) for item in value]
    return value


_MAX_CLEAN_DEPTH = 400
"""Nesting `clean_value` walks into (deeper input has been refused by its reader)."""
