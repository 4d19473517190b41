"""What BFCL's checker compares: possible answers, prepared once, and calls.

BFCL's checker derives the same things from a possible answer every time it checks a
call against it: each parameter's options as a list, the type of its first non-optional
option, whether `""` marks it optional, and its options standardized for comparison.
`prepare_answer` derives them once; the `bfcl` profile keeps the result per expected call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "BfclAnswer",
    "BfclCall",
    "Options",
    "answer_type",
    "as_list",
    "contains",
    "prepare_answer",
    "standardize_string",
    "std",
]

_PUNCTUATION = re.compile(r"[ \,\.\/\-\_\*\^]")


def standardize_string(text: str) -> str:
    """BFCL's `standardize_string`: drop spaces and `,./-_*^`, lowercase, `'` -> `"`."""
    return _PUNCTUATION.sub("", text).lower().replace("'", '"')


def std(value: object) -> object:
    """A string standardized (`standardize_string`); any other value as is."""
    return standardize_string(value) if type(value) is str else value


def as_list(options: object) -> list[object]:
    """Options as a list (a single value is a list of one)."""
    return list(options) if isinstance(options, list | tuple) else [options]


def contains(options: Sequence[object], value: object) -> bool:
    """Python's `in`, as BFCL uses it: `==` across types (`True == 1`, `1 == 1.0`)."""
    # A loop: five times cheaper than `any` over a generator, for a few options.
    for option in options:  # noqa: SIM110
        if option == value:
            return True
    return False


def answer_type(options: Sequence[object]) -> type | None:
    """BFCL's `get_possible_answer_type`: the type of the first non-optional answer."""
    return next((type(o) for o in options if o != ""), None)


class BfclCall(Protocol):
    """A call the checker judges (a `ToolCall` is one): its name and its arguments."""

    @property
    def name(self) -> str:
        """The function called."""
        ...

    @property
    def arguments(self) -> Mapping[str, object]:
        """The arguments given."""
        ...


@dataclass(frozen=True, slots=True)
class Options:
    """One parameter's possible answer and what the checker derives from it."""

    values: list[object]
    """The acceptable values, in BFCL's order (`""`: the argument may be left out)."""
    answer_type: type | None
    """`answer_type(values)`."""
    optional: bool
    """True when `values` holds `""`."""
    strings: tuple[str, ...]
    """The string values, standardized (BFCL's `string_checker`)."""
    lists: tuple[list[object], ...]
    """The list values with their items standardized (BFCL's `list_checker`)."""
    shown: str
    """`str(values)`, as BFCL's value errors show the options (written once)."""


@dataclass(frozen=True, slots=True)
class BfclAnswer:
    """A possible answer for one call: the function's name and each parameter's options."""

    name: str
    options: Mapping[str, Options]


def prepare_answer(name: str, args: Mapping[str, object]) -> BfclAnswer:
    """Prepare BFCL's possible answer for a call (argument name -> acceptable values)."""
    return BfclAnswer(name, {param: _options(values) for param, values in args.items()})


def _options(raw: object) -> Options:
    values = as_list(raw)
    return Options(
        values=values,
        answer_type=answer_type(values),
        optional="" in values,
        strings=tuple(standardize_string(o) for o in values if type(o) is str),
        lists=tuple([std(x) for x in o] for o in values if isinstance(o, list)),
        shown=str(values),
    )
