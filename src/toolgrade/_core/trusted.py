"""Building pydantic models from values known to be valid, without validating again.

Hot paths (scoring, extraction, the bfcl profile) build many small models from data that
is valid by construction; `model_construct` costs several microseconds each, most of it a
per-field loop this does not need.

`construct_trusted` compares the values' keys with the fields and makes a new fields set
for each model. Where the values always hold every field (a call read by a plain reader,
an extraction, a case result), both are the same every time: for a 25-field `CaseResult`
they are a third of building it. `trusted_builder(cls)` returns a builder that skips them:
every model it builds shares one set of all field names, which no pydantic update of a
model's fields set can change (it only ever adds field names, all already there).

Frozen slotted dataclasses (a judge's `Verdict`) have the same cost in their
`__init__`, which sets each field through `object.__setattr__`: `slots_builder(cls)`
sets the slots directly, by their descriptors, in a loop that runs in C.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Iterable
from itertools import repeat
from operator import call
from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["construct_trusted", "slots_builder", "trusted_builder"]

_M = TypeVar("_M", bound=BaseModel)
_D = TypeVar("_D")


def construct_trusted(cls: type[_M], values: dict[str, object]) -> _M:
    """`cls.model_construct(**values)` given every field, without its per-field loop.

    For data that is valid by construction (our own parsers' output), on hot paths. It
    sets exactly what `model_construct` sets for a model without aliases, extra fields,
    private attributes or post-init (checked, else `model_construct` is used).
    """
    fields = _PLAIN_FIELDS.get(cls)
    if fields is None:
        fields = _PLAIN_FIELDS[cls] = _plain_fields(cls)
    if values.keys() != fields:
        return cls.model_construct(None, **values)
    model = cls.__new__(cls)
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", set(fields))
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model


_PLAIN_FIELDS: dict[type[BaseModel], frozenset[str]] = {}
_set = object.__setattr__  # frozen models refuse their own __setattr__


def _plain_fields(cls: type[BaseModel]) -> frozenset[str]:
    """The model's field names; empty unless `model_construct` would just set them."""
    plain = (
        not cls.__pydantic_post_init__
        and not cls.__private_attributes__
        and cls.model_config.get("extra") != "allow"
        and not cls.__pydantic_root_model__
        and all(f.alias is None and f.validation_alias is None for f in cls.model_fields.values())
    )
    return frozenset(cls.model_fields) if plain else frozenset()


# The setters of the four slots every pydantic model has, called directly: cheaper than
# `object.__setattr__`, which looks each one up and checks it may bypass the model's own.
_SLOTS = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
_SETTERS = tuple(getattr(BaseModel.__dict__.get(name), "__set__", None) for name in _SLOTS)


def trusted_builder(cls: type[_M]) -> Callable[[dict[str, object]], _M]:
    """A `construct_trusted(cls, values)` for values holding every field of `cls`.

    The values must hold exactly the model's fields (the caller's guarantee; no check).
    Where `construct_trusted` would not take its fast path (a model with aliases,
    private attributes, extra fields or post-init), it is `construct_trusted` itself.

    Examples:
        >>> from toolgrade._core.vocab import ToolCall
        >>> build = trusted_builder(ToolCall)
        >>> build({"name": "f", "arguments": {"x": 1}})
        ToolCall(name='f', arguments={'x': 1})
    """
    fields = _plain_fields(cls)
    set_dict, set_fields, set_extra, set_private = _SETTERS
    if (
        not fields
        or set_dict is None
        or set_fields is None
        or set_extra is None
        or set_private is None
    ):
        return lambda values: construct_trusted(cls, values)
    shared = set(fields)
    new = cls.__new__

    def build(values: dict[str, object]) -> _M:
        model = new(cls)
        set_dict(model, values)
        set_fields(model, shared)
        set_extra(model, None)
        set_private(model, None)
        return model

    return build


def slots_builder(cls: type[_D]) -> Callable[..., _D]:
    """`cls(*values)` for a slotted dataclass given every field, in order, without `__init__`.

    For valid values only: nothing is converted and no `__post_init__` runs (for a
    class that has one, or has no slots, the builder is `cls` itself).

    Examples:
        >>> from toolgrade._core.verdict import Verdict
        >>> from toolgrade._core.vocab import Status
        >>> build = slots_builder(Verdict)
        >>> made = build(Status.CORRECT, 1.0, (), (), None, None, None, None, None, None)
        >>> made == Verdict(Status.CORRECT, 1.0)
        True
    """
    names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    slots = cls.__dict__.get("__slots__", ())
    if hasattr(cls, "__post_init__") or tuple(slots) != tuple(names):
        return cls
    setters = tuple(cls.__dict__[name].__set__ for name in names)
    count = len(setters)
    new: Any = object.__new__

    def build(*values: object) -> _D:
        if len(values) != count:
            raise TypeError(f"{cls.__name__} has {count} fields, {len(values)} values given")
        made: _D = new(cls)
        # Each slot set by its setter, `setter(made, value)`, in one loop that runs in C.
        _consume(map(call, setters, repeat(made), values))
        return made

    return build


_consume: Callable[[Iterable[object]], None] = deque[object](maxlen=0).extend
"""Exhausts an iterator, keeping nothing."""
