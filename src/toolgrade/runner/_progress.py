"""Progress: a rich bar on a terminal, plain lines otherwise, or nothing."""

from __future__ import annotations

import sys
import time
from typing import IO, Literal, Protocol

from toolgrade.results import CaseResult, Status

__all__ = ["Progress", "ProgressKind", "make_progress", "notify"]

ProgressKind = Literal["auto", "bar", "plain", "none"]
"""`auto`: a bar when stderr is a terminal, plain lines otherwise."""


class Progress(Protocol):
    """Receives the run's progress, one finished case at a time.

    A display may also have a `note(message: str) -> None` method: it then receives the
    run's notices (a lowered concurrency, the warm-up's latency, too many timeouts).
    """

    def start(self, *, total: int, done: tuple[CaseResult, ...]) -> None:
        """The run begins; `done` holds results kept from before a resume."""
        ...

    def update(self, result: CaseResult) -> None:
        """One more case finished."""
        ...

    def close(self) -> None:
        """The run ended (or stopped)."""
        ...


def notify(progress: Progress, message: str) -> None:
    """Show a notice on the display, when it shows notices (see `Progress`)."""
    note = getattr(progress, "note", None)
    if callable(note):
        note(message)


_PLAIN_EVERY = 1.0
"""Seconds between two plain progress lines at least."""


class _Tally:
    """Done/total, running accuracy and ETA, shared by the two displays."""

    def __init__(self) -> None:
        self.total = self.done = self.scored = self.correct = self.fresh = 0
        self.started = time.monotonic()

    def start(self, total: int, done: tuple[CaseResult, ...]) -> None:
        self.total = total
        self.started = time.monotonic()
        for result in done:
            self.add(result, fresh=False)

    def add(self, result: CaseResult, *, fresh: bool = True) -> None:
        self.done += 1
        self.fresh += fresh
        if result.status.scored:
            self.scored += 1
            self.correct += result.status is Status.CORRECT

    @property
    def accuracy(self) -> str:
        return f"{self.correct / self.scored:.1%}" if self.scored else "-"

    @property
    def eta(self) -> str:
        elapsed = time.monotonic() - self.started
        if not self.fresh:
            return "?"
        seconds = elapsed / self.fresh * (self.total - self.done)
        return f"{seconds:.0f}s" if seconds < 120 else f"{seconds / 60:.0f}m"


class _Nothing:
    def start(self, *, total: int, done: tuple[CaseResult, ...]) -> None:
        pass

    def update(self, result: CaseResult) -> None:
        pass

    def close(self) -> None:
        pass


class _Plain:
    """A line per tenth of the run (at most one a second), and at the end (logs and CI)."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._tally = _Tally()
        self._step = 1
        self._last = 0.0

    def start(self, *, total: int, done: tuple[CaseResult, ...]) -> None:
        self._tally.start(total, done)
        self._step = max(1, total // 10)
        self._last = time.monotonic()

    def update(self, result: CaseResult) -> None:
        t = self._tally
        t.add(result)
        now = time.monotonic()
        due = t.done % self._step == 0 and now - self._last >= _PLAIN_EVERY
        if due or t.done == t.total:
            self._last = now
            self._stream.write(
                f"[{t.done}/{t.total}] accuracy {t.accuracy} (scored {t.scored}), ETA {t.eta}\n"
            )
            self._stream.flush()

    def note(self, message: str) -> None:
        """One line of its own."""
        self._stream.write(message + "\n")
        self._stream.flush()

    def close(self) -> None:
        pass


class _Bar:
    """A rich progress bar on stderr."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        self._tally = _Tally()
        self._bar = RichProgress(
            TextColumn("[bold]running"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("accuracy {task.fields[accuracy]}"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._task = self._bar.add_task("run", total=1, accuracy="-")

    def start(self, *, total: int, done: tuple[CaseResult, ...]) -> None:
        self._tally.start(total, done)
        self._bar.update(
            self._task, total=total, completed=len(done), accuracy=self._tally.accuracy
        )
        self._bar.start()

    def update(self, result: CaseResult) -> None:
        self._tally.add(result)
        self._bar.update(self._task, completed=self._tally.done, accuracy=self._tally.accuracy)

    def note(self, message: str) -> None:
        """A line above the bar."""
        self._bar.console.print(message, markup=False, highlight=False)

    def close(self) -> None:
        self._bar.stop()


def make_progress(
    kind: ProgressKind | Progress = "auto", *, stream: IO[str] | None = None
) -> Progress:
    """The progress display for a run.

    Args:
        kind: `auto`, `bar`, `plain`, `none`, or your own `Progress`.
        stream: where plain lines go (default stderr).

    Returns:
        The display.
    """
    if not isinstance(kind, str):
        return kind
    out = stream or sys.stderr
    if kind == "auto":
        kind = "bar" if out.isatty() else "plain"
    if kind == "bar":
        return _Bar()
    if kind == "plain":
        return _Plain(out)
    return _Nothing()
