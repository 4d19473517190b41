"""The public API: everything importable from `toolgrade`, sorted and complete."""

from __future__ import annotations

import pytest

import toolgrade


def test_public_all_is_sorted() -> None:
    assert toolgrade.__all__ == sorted(toolgrade.__all__)


def test_public_all_names_exist_and_are_unique() -> None:
    assert len(set(toolgrade.__all__)) == len(toolgrade.__all__)
    for name in toolgrade.__all__:
        if name in toolgrade._DEPRECATED:
            with pytest.warns(DeprecationWarning, match=name):
                assert hasattr(toolgrade, name), name
        else:
            assert hasattr(toolgrade, name), name


def test_public_all_lists_every_public_attribute() -> None:
    public = {
        name
        for name, value in vars(toolgrade).items()
        if not name.startswith("_") and not isinstance(value, type(toolgrade))
    }
    assert public <= set(toolgrade.__all__)


def test_errors_share_one_root() -> None:
    for name in toolgrade.__all__:
        if name in toolgrade._DEPRECATED:
            continue  # warns on access; `_DEPRECATED` says what it stands for
        value = getattr(toolgrade, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, toolgrade.ToolgradeError), name
