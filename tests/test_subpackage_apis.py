"""Every public subpackage's `__all__` is held to the top level's rules.

Subpackages are found with pkgutil, so a new one (e.g. `toolgrade.bfcl`) is covered
the day it appears.
"""

from __future__ import annotations
import __future__

import importlib
import inspect
import pkgutil
import warnings
from types import ModuleType

import pytest

import toolgrade


def _public_subpackages() -> list[str]:
    return sorted(
        f"toolgrade.{info.name}"
        for info in pkgutil.iter_modules(toolgrade.__path__)
        if info.ispkg and not info.name.startswith("_")
    )


SUBPACKAGES = _public_subpackages()


def _load(name: str) -> ModuleType:
    return importlib.import_module(name)


def test_subpackages_are_found() -> None:
    assert {"toolgrade.backends", "toolgrade.extract", "toolgrade.suite"} <= set(SUBPACKAGES)


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_subpackage_all_exists(name: str) -> None:
    assert isinstance(getattr(_load(name), "__all__", None), list), f"{name} has no __all__"


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_subpackage_all_is_sorted(name: str) -> None:
    names = list(getattr(_load(name), "__all__", []))
    assert names == sorted(names)


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_subpackage_all_names_exist_and_are_unique(name: str) -> None:
    package = _load(name)
    names = list(getattr(package, "__all__", []))
    assert len(set(names)) == len(names), [n for n in names if names.count(n) > 1]
    # A deprecated name is still served (with a warning) until its removal version.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        missing = [n for n in names if not hasattr(package, n)]
    assert not missing, f"{name}.__all__ names what it does not have: {missing}"


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_subpackage_all_lists_every_public_attribute(name: str) -> None:
    package = _load(name)
    # `from __future__ import annotations` leaves a public `annotations` behind
    public = {
        attr
        for attr, value in vars(package).items()
        if not attr.startswith("_")
        and not inspect.ismodule(value)
        and value is not __future__.annotations
    }
    unlisted = sorted(public - set(getattr(package, "__all__", [])))
    assert not unlisted, f"{name} has public names missing from __all__: {unlisted}"
