"""A run folder's `states.jsonl`: each large environment state of the run, once, by hash.

One line per state, `{"hash": "<sha256 hex>", "state": <JSON>}`, appended and flushed
before the first result line that names it (see `_states.py` for the hash and the
records). A torn last line is dropped on reading, as in `results.jsonl`: the result
that would have named it was not written either, so its case runs again on resume.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import IO

from toolgrade.store._lines import drop_handle, read_lines, repair_tail
from toolgrade.store._states import STATES_NAME, StateTable, parse_state_line, state_line

__all__ = ["StateFile"]

logger = logging.getLogger("toolgrade.runner")


class StateFile:
    """The states of one run folder: read back checked, appended once each.

    Args:
        path: the folder's `states.jsonl`.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None
        self._stored: set[str] | None = None
        """The hashes the file holds, checked (read at the first write)."""

    def read(self, *, repair: bool) -> StateTable:
        """Every state of the file, each checked against its hash.

        With `repair` (the caller holds the folder's lock), a torn last line is cut off.

        Raises:
            StoreError: a line other than the last is corrupt, or the file cannot be read.
            OSError: the file cannot be repaired.
        """
        lines = read_lines(self.path, parse_state_line, what="state line")
        if lines.torn_at is not None:
            logger.warning("%s: torn last line dropped", self.path)
        if repair:
            repair_tail(self.path, lines)
        table = StateTable(STATES_NAME, path=str(self.path))
        for number, (digest, state) in lines.items:
            table.add_value(digest, state, where=f"line {number}")
        if repair:
            # A changed state is not counted as held: a good copy is appended after it.
            self._stored = set(table.texts)
        return table

    def append(self, found: Mapping[str, str]) -> None:
        """Append and flush the states (hash -> JSON text) that the file does not hold yet.

        The caller holds the folder's lock.

        Raises:
            StoreError: the file cannot be read.
            OSError: the file cannot be written (it is closed then).
        """
        if self._stored is None:
            self.read(repair=True)
        stored = self._stored if self._stored is not None else set()
        new = "".join(state_line(h, text) for h, text in found.items() if h not in stored)
        if not new:
            return
        try:
            if self._handle is None:
                self._handle = self.path.open("a", encoding="utf-8")
            self._handle.write(new)
            self._handle.flush()
        except OSError:
            self.drop()
            raise
        stored.update(found)
        self._stored = stored

    def close(self) -> None:
        """Close the file (buffered lines are written).

        Raises:
            OSError: they could not be written.
        """
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()

    def drop(self) -> None:
        """Close the file after a failed write, dropping what it could not write."""
        handle, self._handle = self._handle, None
        drop_handle(handle)
