"""The `toolgrade` command line (typer); each command a thin wrapper over the public API.

`main` needs neither typer nor any command (it answers `toolgrade --version` itself);
`app`, the typer application, is built on first access, and each of its commands is
imported only when it runs or its help is shown (`cli/_lazy.py`).
"""

import typing as _typing

from toolgrade.cli._main import main

if _typing.TYPE_CHECKING:
    from toolgrade.cli._app import app

__all__ = ["app", "main"]


def __getattr__(name: str) -> object:
    # PEP 562: `from toolgrade.cli import app` builds the command line; `main` does not.
    if name == "app":
        from toolgrade.cli._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
