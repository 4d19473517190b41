"""The public API: everything importable from `toolgrade`, sorted and complete."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

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


def _type_checking_imports() -> dict[str, str]:
    """What `toolgrade/__init__.py` imports for type checkers: name -> module."""
    tree = ast.parse(Path(toolgrade.__file__).read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If))
    return {
        alias.name: node.module.removeprefix("toolgrade.")
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def test_lazy_names_match_what_type_checkers_read() -> None:
    assert _type_checking_imports() == toolgrade._HOME
    deprecated = set(toolgrade._DEPRECATED)
    assert set(toolgrade.__all__) == {*toolgrade._HOME, "__version__", *deprecated}


def test_every_lazy_name_is_the_object_of_its_module() -> None:
    for name, module in toolgrade._HOME.items():
        home = importlib.import_module(f"toolgrade.{module}")
        assert getattr(toolgrade, name) is getattr(home, name), name
    assert set(toolgrade.__all__) <= set(dir(toolgrade))


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        toolgrade.nothing_here  # noqa: B018


def test_import_loads_nothing_heavy() -> None:
    """`import toolgrade` imports the version and nothing else of the package."""
    code = (
        "import sys, toolgrade; "
        "print(' '.join(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('toolgrade', 'aiohttp', 'jsonschema', 'pydantic', 'rich'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["toolgrade", "toolgrade._version"]
