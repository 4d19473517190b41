"""The plug-in tier: `toolgrade.plugins` exports what an extension author needs, explicitly."""

from __future__ import annotations
import __future__

import ast
import inspect
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest

import toolgrade
import toolgrade.plugins as plugins

# What a plug-in author cannot do without; the tier may grow, but never lose these.
REQUIRED = {
    "Backend",
    "BackendSettings",
    "ChatReply",
    "ChatRequest",
    "ExtractContext",
    "Extraction",
    "JudgeFn",
    "ServerInfo",
    "TextFormat",
    "ToolCall",
    "Verdict",
    "register_backend",
    "register_profile",
}


@cache
def _attribute_docstrings() -> frozenset[str]:
    """Module-level names in toolgrade's sources that have a string literal under them."""
    names: set[str] = set()
    for path in Path(toolgrade.__file__).parent.rglob("*.py"):
        body = ast.parse(path.read_text(encoding="utf-8")).body
        for node, after in pairwise(body):
            documented = (
                isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            )
            if not documented:
                continue
            if isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return frozenset(names)


def _own_docstring(name: str, value: object) -> str | None:
    """The docstring written for `value` (not one inherited or generated)."""
    if inspect.isclass(value):
        doc = value.__dict__.get("__doc__")
        # dataclasses generate `Name(field: type, ...)` for a class without a docstring
        return None if not doc or doc.startswith(f"{value.__name__}(") else doc
    if inspect.isroutine(value):
        return inspect.getdoc(value)
    # type aliases and constants: the string literal under the assignment
    return name if name in _attribute_docstrings() else None


def test_plugins_all_is_sorted() -> None:
    assert plugins.__all__ == sorted(plugins.__all__)


def test_plugins_all_names_exist_and_are_unique() -> None:
    assert len(set(plugins.__all__)) == len(plugins.__all__)
    for name in plugins.__all__:
        assert hasattr(plugins, name), name


def test_plugins_all_lists_every_public_attribute() -> None:
    # `from __future__ import annotations` leaves a public `annotations` behind
    public = {
        name
        for name, value in vars(plugins).items()
        if not name.startswith("_")
        and not inspect.ismodule(value)
        and value is not __future__.annotations
    }
    assert public == set(plugins.__all__)


def test_plugins_all_holds_every_extension_type() -> None:
    assert set(plugins.__all__) >= REQUIRED


@pytest.mark.parametrize("name", plugins.__all__)
def test_plugins_name_is_documented(name: str) -> None:
    assert _own_docstring(name, getattr(plugins, name)), f"{name} has no docstring"


@pytest.mark.parametrize("name", sorted(set(plugins.__all__) & set(toolgrade.__all__)))
def test_plugins_name_is_the_top_level_object(name: str) -> None:
    assert getattr(plugins, name) is getattr(toolgrade, name)


def test_plugins_module_is_documented() -> None:
    assert plugins.__doc__
