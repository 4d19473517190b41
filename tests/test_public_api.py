"""The public API: everything importable from `toolscore`, sorted and complete."""

from __future__ import annotations

import toolscore


def test_public_all_is_sorted() -> None:
    assert toolscore.__all__ == sorted(toolscore.__all__)


def test_public_all_names_exist_and_are_unique() -> None:
    assert len(set(toolscore.__all__)) == len(toolscore.__all__)
    for name in toolscore.__all__:
        assert hasattr(toolscore, name), name


def test_public_all_lists_every_public_attribute() -> None:
    public = {
        name
        for name, value in vars(toolscore).items()
        if not name.startswith("_") and not isinstance(value, type(toolscore))
    }
    assert public <= set(toolscore.__all__)


def test_errors_share_one_root() -> None:
    for name in toolscore.__all__:
        value = getattr(toolscore, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, toolscore.ToolscoreError), name
