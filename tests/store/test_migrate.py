"""The migrated schema of the run history, checked on an in-memory database."""

from __future__ import annotations

import sqlite3

import pytest

from toolgrade.store._migrations import MIGRATIONS, applied_migrations, migrate, transaction


def _columns(db: sqlite3.Connection, table: str) -> dict[str, str]:
    return {row[1]: row[2] for row in db.execute(f"PRAGMA table_info({table})")}


@pytest.fixture
def db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    yield conn
    conn.close()


def test_migrate_fresh_database_applies_every_migration_in_order(db) -> None:
    applied = migrate(db)
    assert applied == ["m001_initial", "m002_tags", "m003_states"]
    assert applied == [fn.__name__ for fn in MIGRATIONS]
    assert applied_migrations(db) == applied


def test_migrate_twice_applies_nothing_new(db) -> None:
    migrate(db)
    assert migrate(db) == []


def test_migrate_names_are_numbered_and_unique() -> None:
    names = [fn.__name__ for fn in MIGRATIONS]
    assert len(set(names)) == len(names)
    assert [n[:4] for n in names] == [f"m{i:03d}" for i in range(1, len(names) + 1)]


def test_migrate_schema_columns(db) -> None:
    migrate(db)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {
        "_toolgrade_migrations",
        "runs",
        "case_results",
        "run_tags",
        "states",
        "run_states",
    }
    assert _columns(db, "runs") == {
        "run_id": "TEXT",
        "suite_name": "TEXT",
        "suite_version": "TEXT",
        "suite_hash": "TEXT",
        "model": "TEXT",
        "toolgrade_version": "TEXT",
        "started_at": "TEXT",
        "finished_at": "TEXT",
        "status": "TEXT",
        "rubric": "TEXT",
        "total": "INTEGER",
        "scored": "INTEGER",
        "passed": "INTEGER",
        "accuracy": "REAL",
        "header_json": "TEXT",
        "saved_at": "TEXT",
    }
    assert _columns(db, "case_results") == {
        "run_id": "TEXT",
        "position": "INTEGER",
        "case_id": "TEXT",
        "repeat": "INTEGER",
        "status": "TEXT",
        "score": "REAL",
        "category": "TEXT",
        "difficulty": "TEXT",
        "latency_ms": "REAL",
        "result_json": "TEXT",
    }
    assert _columns(db, "run_tags") == {"tag": "TEXT", "run_id": "TEXT", "tagged_at": "TEXT"}
    assert _columns(db, "states") == {"hash": "TEXT", "state_json": "TEXT"}
    assert _columns(db, "run_states") == {"run_id": "TEXT", "hash": "TEXT"}


def test_migrate_partial_database_applies_only_missing(db) -> None:
    applied_migrations(db)
    with transaction(db):
        MIGRATIONS[0](db)
        db.execute("INSERT INTO _toolgrade_migrations VALUES ('m001_initial', 'x')")
    assert migrate(db) == ["m002_tags", "m003_states"]


def test_transaction_failure_rolls_back_ddl(db) -> None:
    with pytest.raises(RuntimeError), transaction(db):
        db.execute("CREATE TABLE t (x INTEGER)")
        raise RuntimeError("interrupted")
    assert db.execute("SELECT name FROM sqlite_master WHERE name = 't'").fetchone() is None
