"""Typed reading of one table of a sweep file: a wrong value is recorded, not raised.

Each key has one kind (`KINDS`); a value of another kind is a problem of the file (its
key and line, see `toolgrade.sweep._toml`) and the key's default is used meanwhile, so
that every problem is found in one pass.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import date, datetime, time
from typing import Any, cast

from toolgrade.runner import OPTION_SPECS, OptionSpec
from toolgrade.sweep._toml import Problems, TableRef

__all__ = ["KINDS", "TableReader"]

_MISSING = object()
_LABEL = re.compile(r"[^\s\x00-\x1f\x7f]{1,100}")
"""A name that can be part of a run tag: no whitespace, no control character."""

KINDS: dict[str, type | tuple[type, ...]] = {
    "mode": str,
    "prompt_format": str,
    "temperature": (int, float),
    "max_tokens": int,
    "max_retries": int,
    "stream": bool,
    "options": dict,
    "timeout": (int, float),
    "concurrency": int,
    "repeat": int,
    "warmup": bool,
    "profile": str,
    "rubric": str,
    "teacher_forcing": bool,
    "name": str,
    "parallel": bool,
    "seed": int,
    "label": str,
    "model": str,
    "suite": str,
    "all_tags": bool,
    "sample": int,
    "limit": int,
}
_RANGES: dict[str, OptionSpec[Any]] = {"seed": OPTION_SPECS.seed, "repeat": OPTION_SPECS.repeat}
"""Integer keys with bounds of their own: the run's, as the command line checks them."""
_KIND_NAMES = {str: "a string", int: "an integer", bool: "true or false", dict: "a table"}


class TableReader:
    """Typed access to one table's keys; a wrong type is recorded, not raised."""

    def __init__(self, problems: Problems, where: TableRef, data: Mapping[str, object]) -> None:
        self.problems = problems
        self.where = where
        self.data = data
        self.failed = False

    def problem(self, key: str, message: str) -> None:
        """Record a problem with `key` of this table."""
        self.failed = True
        self.problems.add(self.where, key, message)

    def value(self, key: str, default: object) -> object:
        """The key's value checked against its kind, or `default` when absent or wrong."""
        value = self.data.get(key, _MISSING)
        if value is _MISSING:
            return default
        kind = KINDS[key]
        if isinstance(value, bool) and kind is not bool:
            ok = False  # TOML's true is not the number 1
        elif kind == (int, float):
            ok = isinstance(value, int | float) and math.isfinite(value)
        else:
            ok = isinstance(value, kind)
        if not ok:
            self.problem(key, f"must be {_kind_name(kind)}, got {_show(value)}")
            return default
        if key == "options":
            return self._options(cast(dict[str, object], value), default)
        problem = _RANGES[key].problem(cast(int, value)) if key in _RANGES else None
        if problem is not None:
            self.problem(key, problem)
            return default
        return value

    def _options(self, value: dict[str, object], default: object) -> object:
        bad = [k for k, v in value.items() if not _is_json(v)]
        if bad:
            self.problem(
                "options", f"{', '.join(bad)}: not a JSON value (a date, a time, nan or inf)"
            )
            return default
        return value

    def string(self, key: str, *, required: bool) -> str | None:
        """A string key; a missing required one is a problem."""
        value = self.value(key, None)
        if value is None and required and key not in self.data:
            self.problem(key, "missing (required)")
        return cast(str | None, value)

    def label(self, key: str, *, required: bool) -> str | None:
        """A string that names runs (it becomes part of their tags)."""
        value = self.string(key, required=required)
        if value is not None and not _LABEL.fullmatch(value):
            self.problem(
                key,
                f"{value!r} cannot name runs: use 1 to 100 characters without spaces",
            )
            return None
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        """A string or an array of strings (absent: none)."""
        value = self.data.get(key, [])
        if isinstance(value, str):
            return (value,)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.problem(key, f"must be a string or an array of strings, got {_show(value)}")
            return ()
        return tuple(cast(list[str], value))


def _kind_name(kind: type | tuple[type, ...]) -> str:
    if isinstance(kind, tuple):
        return "a number"
    return _KIND_NAMES.get(kind, kind.__name__)


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_json(value: object) -> bool:
    """Whether a TOML value can be sent and recorded as JSON."""
    if isinstance(value, datetime | date | time):
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_is_json(v) for v in value)
    if isinstance(value, dict):
        return all(_is_json(v) for v in value.values())
    return True
