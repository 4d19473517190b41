"""The `toolscore` command line (typer); each command a thin wrapper over the public API."""

from toolscore.cli._app import app, main

__all__ = ["app", "main"]
