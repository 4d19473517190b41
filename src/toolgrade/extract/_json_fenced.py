"""Fenced blocks of JSON calls (`fenced_json`): a call, a list, or several objects in one fence.

A block fenced as JSON (or untagged, or ```` ```tool_call ````) whose body starts with `{`
or `[` is read as calls whatever their names; several call objects one after the other
are several calls, a broken one among them a problem. A block fenced as another language
counts only when it is wholly JSON calls. docs/extraction.md states the rules.
"""

from __future__ import annotations

from toolgrade.extract._build import Found
from toolgrade.extract._common import (
    MAX_CALLS,
    MAX_FAILED_DECODES,
    cap_error,
    error_for,
    loads_fast,
    skip_space,
)
from toolgrade.extract._json_generic import broken_block, fenced_blocks, generic_calls
from toolgrade.extract._json_scan import json_until, object_sequence
from toolgrade.extract._types import ExtractContext, Extraction, TextFormat

__all__ = ["FORMATS"]

_FENCE_LANGS = frozenset(
    {"", "json", "jsonc", "json5", "tool_call", "tool_calls", "function_call", "functions"}
)


class _FenceReader:
    """Reads the JSON fenced blocks of one output into a `Found`."""

    __slots__ = ("ctx", "found", "retries", "text")

    def __init__(self, text: str, ctx: ExtractContext) -> None:
        self.text = text
        self.ctx = ctx
        self.found = Found()
        self.retries = 0

    def block(self, body_start: int, end: int, where: str) -> int:
        """Read the block whose body starts at `body_start`; return where its fence closes.

        The body is cut at the first ```. When that cut leaves broken JSON and the JSON
        read on past it ends right before a later fence, the first ``` was inside a
        string (code in an argument), and the block runs to the later fence. Such retries
        are bounded per output, so a hostile output stays linear.
        """
        text = self.text
        body = text[body_start : end if end != -1 else len(text)].strip()
        try:
            value = loads_fast(body)
        except ValueError as exc:
            if self.several(body, where):
                return end
            read = None
            if end != -1 and self.retries < MAX_FAILED_DECODES:
                self.retries += 1
                read = json_until(text, skip_space(text, body_start), "```", max_values=1)
            if read is None:
                broken = broken_block(body, self.ctx, where, exc)
                self.found.add(broken.calls, broken.errors)
                return end
            value, end = read[0][0], read[1]
        calls = generic_calls(value, self.ctx, whole=True, where=where)
        if calls is not None:
            self.found.add(calls.calls, calls.errors)
        return end

    def whole_call(self, body_start: int, end: int, where: str) -> int:
        """Read a block fenced as another language (```` ```python ````), if wholly calls.

        A body that is wholly JSON call objects is calls, as in a JSON fence; anything
        else (code, a dict that is not a call, broken JSON) is left to the other readers.
        """
        body = self.text[body_start : end if end != -1 else len(self.text)].strip()
        try:
            value = loads_fast(body)
        except ValueError:
            return end  # code, or prose: not this reader's
        calls = generic_calls(value, self.ctx, whole=True, where=where)
        if calls is not None and calls.calls and not calls.errors:
            self.found.add(calls.calls, [])
        return end

    def several(self, body: str, where: str) -> bool:
        """Read a block of several call objects one after another.

        A newline, `;` or `,` separates them; a broken one is a problem, the calls around
        it still count (its failed decodes come out of the output's budget). False when
        the block is not that: the caller reports it as one broken value.
        """
        budget = MAX_FAILED_DECODES - self.retries
        read = object_sequence(body, limit=MAX_CALLS, max_broken=budget) if budget > 0 else None
        if read is None or not read[0] or len(read[0]) + len(read[1]) < 2:
            return False
        values, broken = read
        self.retries += len(broken)
        calls = generic_calls(values, self.ctx, whole=True, where=where)
        if calls is None:
            return False
        errors = [*calls.errors, *(error_for(e, f"{where}, object #{k}") for k, e in broken)]
        self.found.add(calls.calls, errors)
        return True


def _fenced_json(text: str, ctx: ExtractContext) -> Extraction | None:
    reader = _FenceReader(text, ctx)
    seen = 0

    def read(lang: str, start: int, end: int) -> int:
        nonlocal seen
        seen += 1
        if not text.startswith(("{", "["), skip_space(text, start)):
            return end
        if lang in _FENCE_LANGS:
            return reader.block(start, end, f"fenced_json: block #{seen}")
        return reader.whole_call(start, end, f"fenced_json: block #{seen}")

    if len(fenced_blocks(text, end_of=read)) > MAX_CALLS:
        reader.found.errors.append(cap_error())
    return reader.found.result("fenced_json")


FORMATS: list[TextFormat] = [
    TextFormat(
        "fenced_json",
        "fenced",
        ("```",),
        _fenced_json,
        "A ```json fenced block holding a call object or a list of calls",
    ),
]
