"""Building pydantic models from values known to be valid, without validating again.

Hot paths (scoring, extraction, the bfcl profile) build many small models from data that
is valid by construction; `model_construct` costs several microseconds each, most of it a
per-field loop this does not need.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

__all__ = ["construct_trusted"]

_M = TypeVar("_M", bound=BaseModel)


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
