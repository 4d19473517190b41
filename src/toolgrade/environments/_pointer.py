"""JSON Pointers (RFC 6901) into an environment's state: `/files/README.md`.

`unchanged` checks name state paths this way. A pointer is `""` (the whole document)
or a sequence of `/`-prefixed reference tokens, where `~1` stands for `/` and `~0` for
`~`. An array is indexed by a decimal number without leading zeros; `-` (the element
after the last) never exists here, since the state is only read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from toolgrade._core.json_data import JsonValue

__all__ = ["get_pointer", "path_step", "pointer_problem", "pointer_to_path"]

_INDEX = re.compile(r"0|[1-9][0-9]*")
_BAD_ESCAPE = re.compile(r"~(?![01])")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def pointer_problem(pointer: str) -> str | None:
    """Say what is wrong with a JSON Pointer, or None when it is well formed.

    Args:
        pointer: the pointer, e.g. `/files/a~1b.md`.

    Returns:
        The problem in plain words, or None.

    Examples:
        >>> pointer_problem("/files/README.md") is None, pointer_problem("") is None
        (True, True)
        >>> pointer_problem("files")
        "a JSON Pointer starts with '/' (or is '' for the whole state)"
        >>> pointer_problem("/a~2b")
        "'~' must be followed by 0 or 1 (write '~0' for '~', '~1' for '/')"
    """
    if pointer and not pointer.startswith("/"):
        return "a JSON Pointer starts with '/' (or is '' for the whole state)"
    if _BAD_ESCAPE.search(pointer):
        return "'~' must be followed by 0 or 1 (write '~0' for '~', '~1' for '/')"
    return None


def _tokens(pointer: str) -> list[str]:
    """The unescaped reference tokens (`~1` before `~0`, as RFC 6901 orders them)."""
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def get_pointer(doc: JsonValue, pointer: str) -> tuple[bool, JsonValue]:
    """Read the value a JSON Pointer names.

    Args:
        doc: the document (a state).
        pointer: the pointer; `""` names the whole document.

    Returns:
        `(True, value)` when the value exists, `(False, None)` when it does not (a
        missing key, an index out of range or not a number, or a step into a scalar).

    Raises:
        ValueError: the pointer is malformed (`pointer_problem` says how).

    Examples:
        >>> state = {"files": {"a/b.md": "x", "~tmp": ["p", "q"]}}
        >>> get_pointer(state, "/files/a~1b.md")
        (True, 'x')
        >>> get_pointer(state, "/files/~0tmp/1")
        (True, 'q')
        >>> get_pointer(state, "/files/~0tmp/2"), get_pointer(state, "/nope")
        ((False, None), (False, None))
        >>> get_pointer(state, "") == (True, state)
        True
    """
    problem = pointer_problem(pointer)
    if problem is not None:
        raise ValueError(f"{pointer!r}: {problem}")
    value = doc
    for token in _tokens(pointer):
        if isinstance(value, Mapping):
            if token not in value:
                return False, None
            value = value[token]
        elif isinstance(value, list):
            if not _INDEX.fullmatch(token) or int(token) >= len(value):
                return False, None
            value = value[int(token)]
        else:
            return False, None
    return True, value


def pointer_to_path(pointer: str) -> str:
    """The JSON path of a pointer, as differences name places: `$.files["a.md"]`.

    Tokens that are identifiers become `.name`, numbers `[n]` (a pointer does not say
    whether `0` is an index or a key), and anything else a quoted key.

    Examples:
        >>> pointer_to_path("/files/a.md/lines/0")
        '$.files["a.md"].lines[0]'
        >>> pointer_to_path("")
        '$'
    """
    out = "$"
    for token in _tokens(pointer):
        out += path_step(int(token) if _INDEX.fullmatch(token) else token)
    return out


def path_step(key: str | int) -> str:
    """One step of a JSON path: `.name`, `[3]` (an array index), or `["a.md"]`.

    Examples:
        >>> path_step("files"), path_step(2), path_step("a b"), path_step("2")
        ('.files', '[2]', '["a b"]', '["2"]')
    """
    if isinstance(key, int):
        return f"[{key}]"
    if _IDENTIFIER.fullmatch(key):
        return f".{key}"
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return f'["{escaped}"]'
