"""The console script's entry point, which answers a lone `--version` by itself.

`toolgrade --version` is the command people (and scripts checking an install) run most
often and expect to be instant. Building the command line costs typer and click,
about a tenth of a second, before typer would read `--version`; so `main` answers it
from the version string alone. Every other form (`toolgrade --version --help`,
`toolgrade --help --version`, a misspelt `--vers`) goes to typer, which still has the
option, so the behaviour is the same as before, only faster in the common case.
"""

from __future__ import annotations

import gc
import os
import sys

__all__ = ["PausedCollector", "main", "resume_collector", "version_line"]

_COMPLETE_VAR = "_TOOLGRADE_COMPLETE"
"""Set by a shell asking for completions: then typer answers, whatever the arguments."""


def version_line() -> str:
    """The line `toolgrade --version` prints (without its newline).

    Examples:
        >>> version_line().startswith("toolgrade ")
        True
    """
    from toolgrade._version import __version__

    return f"toolgrade {__version__}"


def _print_version() -> None:
    try:
        sys.stdout.write(version_line() + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`toolgrade --version | true`): exit 1 without a
        # traceback, as typer does. Standard output is pointed at the null device so
        # that the interpreter's last flush, at exit, does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


class PausedCollector:
    """Keeps the cyclic garbage collector off the objects the start of a command makes.

    Starting a command imports typer, pydantic and the command's modules: a few hundred
    thousand objects (modules, classes, functions) that live as long as the process,
    and almost no garbage. The collector would walk them some seventy times on the way
    and again in every later full collection, finding nothing: over 20 ms of the start
    of `toolgrade score`. So `main` pauses it for the start, and the root callback ends
    the pause (`resume_collector`) once the command is resolved, before the command
    parses its options and runs: the objects made so far are frozen (`gc.freeze`,
    never walked again; reference counting still frees them) and the collector runs
    again for everything made after. When no command runs (`--help`, a usage error),
    the pause just ends. A collector that something had disabled already is left alone.
    """

    def __init__(self) -> None:
        self._paused = False

    def __enter__(self) -> None:
        self._paused = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        self.resume(freeze=False)

    def resume(self, *, freeze: bool = True) -> None:
        """Enable the collector, if this pause disabled it (once), freezing what exists."""
        if self._paused:
            self._paused = False
            if freeze:
                gc.freeze()
            gc.enable()


_STARTUP = PausedCollector()


def resume_collector() -> None:
    """End the pause `main` began (nothing when the command line runs another way)."""
    _STARTUP.resume()


def main() -> None:
    """Run the command line (the `toolgrade` console script and `python -m toolgrade`)."""
    if sys.argv[1:] == ["--version"] and _COMPLETE_VAR not in os.environ:
        _print_version()
        return
    with _STARTUP:
        from toolgrade.cli._app import app

        app()
