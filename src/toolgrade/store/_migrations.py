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

__all__ = ["MIGRATIONS", "MIGRATIONS_TABLE", "applied_migrations", "migrate", "transaction"]

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


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """An explicit transaction: DDL included (sqlite3 does not open one for DDL itself)."""
    db.execute("BEGIN")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def applied_migrations(db: sqlite3.Connection) -> list[str]:
    """Names of the migrations already applied, in order of application."""
    db.execute(
        f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (name TEXT PRIMARY KEY, applied_at TEXT)"
    )
    rows = db.execute(f"SELECT name FROM {MIGRATIONS_TABLE} ORDER BY rowid").fetchall()
    return [str(row[0]) for row in rows]


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply every pending migration; return the names applied now.

    Each migration and its record commit together, so an interrupted upgrade leaves
    the database at the last complete migration.
    """
    done = set(applied_migrations(db))
    applied = []
    for fn in MIGRATIONS:
        if fn.__name__ in done:
            continue
        with transaction(db):
            fn(db)
            db.execute(
                f"INSERT INTO {MIGRATIONS_TABLE} (name, applied_at) VALUES (?, ?)",
                (fn.__name__, datetime.now(UTC).isoformat()),
            )
        applied.append(fn.__name__)
    return applied
