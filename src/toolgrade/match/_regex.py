"""`$regex` patterns compiled by RE2, whose matching time is linear in the text.

RE2 (google-re2) is imported on first use. Where it cannot be imported, Python's `re`
stands in, held to short patterns and texts and refusing what RE2 would refuse, so that
a suite is valid on both. Tool schema patterns (`_ecma.py`) use the same module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from toolgrade._core.json_data import clean_text

__all__ = [
    "FALLBACK_MAX_PATTERN",
    "FALLBACK_MAX_TEXT",
    "RegexPattern",
    "compiled",
    "re2_error",
    "re2_module",
    "re2_options",
]

_NOT_IMPORTED: Any = object()
re2: Any = _NOT_IMPORTED
"""The `re2` module (google-re2), None when it cannot be imported; imported by the first
`$regex` compiled (`re2_module`), since most comparisons have none and it is slow to load."""

_NEVER = "(?!)"
"""The usual never-matching pattern (BFCL imports write it); RE2 has no lookahead."""
_RE2_NEVER = r"[^\x00-\x{10FFFF}]"
"""What `(?!)` is compiled as by RE2: a character class no character is in."""
_RE2_HINT = "; $regex uses RE2 syntax: no lookaround, no backreferences"

FALLBACK_MAX_PATTERN = 1_000
"""Without RE2 (Python's `re`): the longest pattern accepted, in characters."""
FALLBACK_MAX_TEXT = 10_000
"""Without RE2: the longest text matched, in characters; a longer one does not match."""
# What RE2 refuses and Python accepts, so that a suite is valid on both: lookaround,
# backreferences (`\1`, `(?P=name)`) and atomic groups. Compiled (and cached by `re`)
# on first use: only the fallback without RE2 needs it.
_NOT_RE2 = r"\(\?(?:=|!|<=|<!|P=|>)|(?<!\\)(?:\\\\)*\\[1-9]"


class RegexPattern(Protocol):
    """A compiled `$regex`: RE2's, or Python's when RE2 cannot be imported."""

    def fullmatch(self, text: str, /) -> object | None:
        """A match of the whole text, or None."""


@lru_cache(maxsize=1024)
def compiled(pattern: str) -> RegexPattern:
    """Compile a `$regex` pattern once (RE2: matching time linear in the text).

    Raises:
        ValueError: the pattern is not valid RE2 syntax (the message says why).

    Examples:
        >>> compiled("(a+)+b").fullmatch("a" * 10_000) is None
        True
    """
    pattern = clean_text(pattern)  # RE2 reads UTF-8: a lone surrogate becomes U+FFFD
    module = re2_module()
    if module is None:  # pragma: no cover - exercised by monkeypatching `re2` away
        return _fallback(pattern)
    try:
        return module.compile(_RE2_NEVER if pattern == _NEVER else pattern, re2_options())  # type: ignore[no-any-return]
    except module.error as exc:
        raise ValueError(re2_error(exc, _RE2_HINT)) from None


def re2_error(exc: Exception, hint: str) -> str:
    """RE2's complaint in one line (`missing ) at '('`), with `hint` for what RE2 lacks."""
    raw = exc.args[0] if exc.args else exc
    message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    what, _, where = message.partition(": ")  # RE2 says `missing ): (`
    hint = hint if "perl operator" in what or "escape sequence" in what else ""
    return f"{what} at '{where}'{hint}" if where else what + hint


def re2_module() -> Any:
    """The `re2` module, imported on first use; None when google-re2 cannot be imported."""
    global re2
    if re2 is _NOT_IMPORTED:
        try:
            import re2 as module  # type: ignore[import-untyped]
        except ImportError:  # pragma: no cover - google-re2 ships wheels for the platforms
            module = None
        re2 = module
    return re2


@lru_cache(maxsize=1)
def re2_options() -> object:
    options = re2_module().Options()
    options.log_errors = False  # the error is reported as a suite problem instead
    return options


@dataclass(frozen=True, slots=True)
class _Bounded:
    """Python's `re`, which can take exponential time, held to short texts."""

    pattern: re.Pattern[str]

    def fullmatch(self, text: str, /) -> object | None:
        if len(text) > FALLBACK_MAX_TEXT:
            return None
        return self.pattern.fullmatch(text)


def _fallback(pattern: str) -> RegexPattern:
    import logging  # here: only this rare path logs, and `logging` is slow to import

    logging.getLogger(__name__).warning(
        "google-re2 cannot be imported: $regex uses Python's re, with length bounds"
    )
    if len(pattern) > FALLBACK_MAX_PATTERN:
        raise ValueError(f"longer than {FALLBACK_MAX_PATTERN} characters")
    if pattern != _NEVER and re.search(_NOT_RE2, pattern):
        raise ValueError("not RE2 syntax" + _RE2_HINT)
    try:
        return _Bounded(re.compile(pattern))
    except re.error as exc:
        raise ValueError(str(exc)) from None
