"""The environment states of the run history: written once each, read back checked.

A stored run's records name their large states by hash (see `_states.py`). The
`states` table holds each state once for the whole history (runs of one suite share
their initial states), and `run_states` which run names which, so that a state is
deleted with the last run that names it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping

from toolgrade.store._states import StateTable

__all__ = ["drop_unnamed_states", "read_states", "write_states"]

_CHUNK = 500
"""Hashes asked for in one query (SQLite bounds the parameters of a statement)."""


def write_states(conn: sqlite3.Connection, run_id: str, found: Mapping[str, str]) -> None:
    """Record the states a run names (hash -> JSON text), replacing what it named before.

    Call inside the transaction that writes the run's results. A state the run named
    before and no longer does is deleted when no other run names it.
    """
    replaced = conn.execute("DELETE FROM run_states WHERE run_id = ?", (run_id,)).rowcount
    conn.executemany(
        "INSERT INTO states (hash, state_json) VALUES (?, ?) ON CONFLICT(hash) DO NOTHING",
        found.items(),
    )
    conn.executemany(
        "INSERT INTO run_states (run_id, hash) VALUES (?, ?)", ((run_id, h) for h in found)
    )
    if replaced:
        drop_unnamed_states(conn)


def drop_unnamed_states(conn: sqlite3.Connection) -> None:
    """Delete the states that no stored run names (after a run was deleted or replaced)."""
    conn.execute(
        "DELETE FROM states WHERE NOT EXISTS"
        " (SELECT 1 FROM run_states AS r WHERE r.hash = states.hash)"
    )


def read_states(
    conn: sqlite3.Connection, run_id: str, hashes: Iterable[str], *, path: str | None
) -> StateTable:
    """The stored states of these hashes, each checked against its hash.

    Args:
        conn: the history.
        run_id: the run whose records name them (for errors).
        hashes: the hashes the run's records name.
        path: the database file (for errors).
    """
    table = StateTable(f"the run history (run {run_id})", path=path)
    wanted = sorted(set(hashes))
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        rows = conn.execute(
            f"SELECT hash, state_json FROM states WHERE hash IN ({', '.join('?' * len(chunk))})",
            chunk,
        ).fetchall()
        for digest, text in rows:
            table.add(str(digest), str(text))
    return table
