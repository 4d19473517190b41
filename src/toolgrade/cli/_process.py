"""The process around a command: its version line, a reader that went away, the collector.

A reader that goes away (`toolgrade suite show coding-agent | head -1`) ends any command
quietly with exit code 1, as Python's advice on SIGPIPE, click and rich do: standard
output is pointed at the null device, so that no later write nor the interpreter's last
flush fails again, and nothing is printed (`reader_gone`).
"""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

__all__ = [
    "PIPE_CLOSED",
    "STARTUP",
    "PausedCollector",
    "reader_gone",
    "resume_collector",
    "silence_stdout",
    "version_line",
]

PIPE_CLOSED = 1
"""The exit code when standard output's reader went away (as click and rich exit)."""


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


STARTUP = PausedCollector()
"""The pause `main` begins and the root callback ends."""


def resume_collector() -> None:
    """End the pause `main` began (nothing when the command line runs another way)."""
    STARTUP.resume()
