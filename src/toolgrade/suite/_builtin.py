"""The built-in suites shipped inside the package (read with importlib.resources)."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

from toolgrade.errors import SuiteError

__all__ = ["builtin_suite_names", "builtin_suite_text"]

_PACKAGE = "toolgrade.suite"
_FOLDER = "builtin"
_SUFFIX = ".json"


def _folder() -> Traversable:
    return resources.files(_PACKAGE).joinpath(_FOLDER)


def builtin_suite_names() -> list[str]:
    """The names of the built-in suites, sorted (e.g. `["coding-agent"]`).

    Examples:
        >>> "coding-agent" in builtin_suite_names()
        True
    """
    return sorted(
        entry.name[: -len(_SUFFIX)]
        for entry in _folder().iterdir()
        if entry.name.endswith(_SUFFIX) and entry.is_file()
    )


def builtin_suite_text(name: str) -> str:
    """The JSON text of one built-in suite.

    Raises:
        SuiteError: there is no built-in suite of that name.
    """
    if name not in builtin_suite_names():
        known = ", ".join(builtin_suite_names())
        raise SuiteError(f"no built-in suite '{name}' (built-in: {known})")
    return _folder().joinpath(name + _SUFFIX).read_text(encoding="utf-8")
