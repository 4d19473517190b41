"""The `toolgrade` command line (typer); each command a thin wrapper over the public API."""

from toolgrade.cli._app import app, main

__all__ = ["app", "main"]
