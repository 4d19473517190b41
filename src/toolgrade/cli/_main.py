"""The console script's entry point, which answers a lone `--version` by itself.

`toolgrade --version` is the command people (and scripts checking an install) run most
often and expect to be instant. Building the command line costs typer and click,
about a tenth of a second, before typer would read `--version`; so `main` answers it
from the version string alone. Every other form (`toolgrade --version --help`,
`toolgrade --help --version`, a misspelt `--vers`) goes to typer, which still has the
option, so the behaviour is the same as before, only faster in the common case.

A reader that goes away (`toolgrade suite show coding-agent | head -1`) ends any command
quietly with exit code 1, as Python's advice on SIGPIPE, click and rich do: standard
output is pointed at the null device, so that no later write nor the interpreter's last
flush fails again, and nothing is printed (`reader_gone`). The command line catches the
broken pipe a command meets (`cli/_app.py`: it is not a file system error); typer and
rich handle the one met printing help the same way; `main` catches the one met by the
final flush.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

__all__ = [
    "PIPE_CLOSED",
    "PausedCollector",
    "main",
    "reader_gone",
    "resume_collector",
    "silence_stdout",
    "version_line",
]

PIPE_CLOSED = 1
"""The exit code when standard output's reader went away (as click and rich exit)."""

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


def silence_stdout() -> None:
    """Point standard output at the null device: its reader went away.

    What was written but not yet flushed then goes nowhere, so that no later write and
    not the interpreter's last flush, at exit, fails again. A stream without a file
    descriptor (a test runner's) is left alone.
    """
    stream = sys.stdout
    if stream is None:
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(null, stream.fileno())
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        pass
    finally:
        os.close(null)


def reader_gone() -> NoReturn:
    """End the command quietly (exit 1): standard output's reader went away."""
    silence_stdout()
    sys.exit(PIPE_CLOSED)


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

        try:
            app()
        finally:
            _flush_stdout()
