"""Bracket matching over Python-like text, skipping quoted strings (linear, no recursion)."""

from __future__ import annotations

import re

from toolgrade.extract._common import MAX_DEPTH

__all__ = ["bracket_depth", "matching_bracket"]

# Characters that matter when matching brackets; everything else is skipped by the regex
# engine (one character class, so no backtracking).
_SIGNIFICANT = re.compile(r"[\[\](){}'\"\\\n]")


def bracket_depth(text: str) -> int:
    """Deepest bracket nesting of Python-like text, ignoring quoted strings."""
    depth = best = 0
    quote = ""
    escaped = False
    for match in _SIGNIFICANT.finditer(text):
        ch = match.group()
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
            best = max(best, depth)
        elif ch in ")]}":
            depth -= 1
    return best


def matching_bracket(text: str, start: int, *, limit: int) -> int:
    """Index of the bracket closing the one at `start`, or -1 (none within `limit` chars).

    Nesting deeper than `MAX_DEPTH` also gives -1 (such a block would be refused anyway).

    Quoted strings are skipped; a string left open at a newline counts as closed there, so
    a stray apostrophe cannot swallow the rest of the text.
    """
    stack: list[str] = []
    quote = ""
    escaped = False
    pairs = {")": "(", "]": "[", "}": "{"}
    for match in _SIGNIFICANT.finditer(text, start, min(len(text), start + limit)):
        ch = match.group()
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote or ch == "\n":
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            stack.append(ch)
            if len(stack) > MAX_DEPTH:
                return -1
        elif ch in ")]}":
            if not stack or stack.pop() != pairs[ch]:
                return -1
            if not stack:
                return match.start()
    return -1
