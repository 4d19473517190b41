"""Numbered schema migrations of the run history database (`toolgrade.db`).

Each migration is a function `mNNN_<what>(db)` registered in order with `@migration`.
`migrate(db)` applies, each in its own transaction, the ones not yet recorded in the
`_toolgrade_migrations` table. A released migration is never edited: a schema change is
a new migration appended at the end (the same rule as simonw/llm's `migrations.py`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

__all__ = [
    "MIGRATIONS",
    "MIGRATIONS_TABLE",
    "applied_migrations",
    "applied_names",
    "migrate",
    "transaction",
]

MIGRATIONS_TABLE = "_toolgrade_migrations"
"""The table recording every applied migration by name."""

Migration = Callable[[sqlite3.Connection], None]

MIGRATIONS: list[Migration] = []
"""Every migration, in the order they apply."""


def migration(fn: Migration) -> Migration:
    """Register a migration (in definition order)."""
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_initial(db: sqlite3.Connection) -> None:
    """Runs and their case results."""
    db.execute(
        """
        CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            suite_name TEXT NOT NULL,
            suite_version TEXT NOT NULL,
            suite_hash TEXT NOT NULL,
            model TEXT NOT NULL,
            toolgrade_version TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            status TEXT NOT NULL,
            rubric TEXT NOT NULL,
            total INTEGER NOT NULL,
            scored INTEGER NOT NULL,
            passed INTEGER NOT NULL,
            accuracy REAL,
            header_json TEXT NOT NULL,
            saved_at TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE case_results (
            run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            case_id TEXT NOT NULL,
            repeat INTEGER NOT NULL,
            status TEXT NOT NULL,
            score REAL NOT NULL,
            category TEXT NOT NULL,
            difficulty TEXT NOT NULL,
            latency_ms REAL,
            result_json TEXT NOT NULL,
            PRIMARY KEY (run_id, position)
        )
        """
    )
    db.execute("CREATE INDEX idx_runs_started_at ON runs(started_at)")
    db.execute("CREATE INDEX idx_case_results_case ON case_results(case_id, status)")


@migration
def m002_tags(db: sqlite3.Connection) -> None:
    """Tags: a tag names exactly one run (tagging another run moves it)."""
    db.execute(
        """
        CREATE TABLE run_tags (
            tag TEXT PRIMARY KEY,
            run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
            tagged_at TEXT NOT NULL
        )
        """
    )
    db.execute("CREATE INDEX idx_run_tags_run ON run_tags(run_id)")


@migration
def m003_states(db: sqlite3.Connection) -> None:
    """Environment states stored once, by hash, and which runs name each.

    A stored conversation record names its large states by hash (see `_states.py`);
    `states` holds each once for the whole history, `run_states` the hashes of each
    run, so that deleting a run deletes the states no other run names.
    """
    db.execute(
        """
        CREATE TABLE states (
            hash TEXT PRIMARY KEY,
            state_json TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE run_states (
            run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
            hash TEXT NOT NULL REFERENCES states(hash),
            PRIMARY KEY (run_id, hash)
        )
        """
    )
    db.execute("CREATE INDEX idx_run_states_hash ON run_states(hash)")


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """An explicit write transaction: DDL included (sqlite3 does not open one for DDL).

    `BEGIN IMMEDIATE` takes the write lock at once (waiting up to the connection's busy
    timeout) instead of at the first write: a deferred transaction that reads first
    and writes later fails with "database is locked" without waiting when another
    process wrote in between (a WAL snapshot cannot be upgraded).
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


_CREATE_TABLE = (
    f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (name TEXT PRIMARY KEY, applied_at TEXT)"
)


def _has_table(db: sqlite3.Connection) -> bool:
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (MIGRATIONS_TABLE,)
    ).fetchone()
    return row is not None


def applied_names(db: sqlite3.Connection) -> list[str]:
    """Names of the migrations applied, in order; reads only (none when not recorded)."""
    return _applied(db)


def _applied(db: sqlite3.Connection) -> list[str]:
    if not _has_table(db):
        return []
    rows = db.execute(f"SELECT name FROM {MIGRATIONS_TABLE} ORDER BY rowid").fetchall()
    return [str(row[0]) for row in rows]


def applied_migrations(db: sqlite3.Connection) -> list[str]:
    """Names of the migrations already applied, in order of application.

    Creates the (empty) record table when missing.
    """
    db.execute(_CREATE_TABLE)
    return _applied(db)


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply every pending migration; return the names applied now (by this connection).

    Safe when several processes open a new database at once: each migration runs in
    its own `BEGIN IMMEDIATE` transaction, which admits one writer at a time, and the
    applied migrations are read again inside it, so a migration another process has
    just applied is skipped rather than run twice ("table runs already exists").
    A migration and its record commit together, so an interrupted upgrade leaves the
    database at the last complete migration.
    """
    if set(_applied(db)) >= {fn.__name__ for fn in MIGRATIONS}:
        return []  # the usual case: a read, no write lock
    applied = []
    for fn in MIGRATIONS:
        with transaction(db):
            db.execute(_CREATE_TABLE)
            if fn.__name__ in _applied(db):
                continue
            fn(db)
            db.execute(
                f"INSERT INTO {MIGRATIONS_TABLE} (name, applied_at) VALUES (?, ?)",
                (fn.__name__, datetime.now(UTC).isoformat()),
            )
        applied.append(fn.__name__)
    return applied
