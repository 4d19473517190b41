"""The console script's entry point, which answers a lone `--version` by itself.

`toolgrade --version` is the command people (and scripts checking an install) run most
often and expect to be instant. Building the command line costs typer and click,
about a tenth of a second, before typer would read `--version`; so `main` answers it
from the version string alone. Every other form (`toolgrade --version --help`,
`toolgrade --help --version`, a misspelt `--vers`) goes to typer, which still has the
option, so the behaviour is the same as before, only faster in the common case.

A reader that goes away ends any command quietly (`cli/_process.py`, `reader_gone`).
The command line catches the broken pipe a command meets (`cli/_app.py`: it is not a
file system error); typer and rich handle the one met printing help the same way; `main`
catches the one met by the final flush.
"""

from __future__ import annotations

import os
import sys

from toolgrade.cli._process import STARTUP, reader_gone, version_line

__all__ = ["main"]

_COMPLETE_VAR = "_TOOLGRADE_COMPLETE"
"""Set by a shell asking for completions: then typer answers, whatever the arguments."""


def _print_version() -> None:
    try:
        sys.stdout.write(version_line() + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        reader_gone()  # `toolgrade --version | true`


def _flush_stdout() -> None:
    """Flush what is left for standard output; a reader gone by now ends quietly too."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        reader_gone()


def main() -> None:
    """Run the command line (the `toolgrade` console script and `python -m toolgrade`)."""
    if sys.argv[1:] == ["--version"] and _COMPLETE_VAR not in os.environ:
        _print_version()
        return
    with STARTUP:
        from toolgrade.cli._app import app

        try:
            app()
        finally:
            _flush_stdout()
