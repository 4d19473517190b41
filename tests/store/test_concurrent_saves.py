"""Many processes creating and migrating one new history database at once lose no run."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from toolgrade.store import _migrations as migrations_module
from toolgrade.store import list_runs
from toolgrade.store._migrations import MIGRATIONS, migrate

pytestmark = pytest.mark.slow  # many processes: `make test` runs it

# One process: for each home it is sent on standard input, save its runs there, one by
# one, as soon as the home arrives (every process gets it at the same moment).
_WORKER = """
import os, sys
from datetime import UTC, datetime
from toolgrade.results import RunResult
from toolgrade.store import save_run

name, count = sys.argv[1], int(sys.argv[2])
runs = [
    RunResult.model_validate({
        "run_id": f"{name}-{i}", "suite_name": "s", "suite_version": "1",
        "suite_hash": "h", "model": "m/x", "toolgrade_version": "0",
        "started_at": datetime(2026, 1, 1, tzinfo=UTC), "tags": [f"label-{name}-{i}"],
        "results": [{"case_id": "A", "status": "correct", "score": 1.0}],
    })
    for i in range(count)
]
print("ready", flush=True)
for home in sys.stdin:
    os.environ["TOOLGRADE_HOME"] = home.strip()
    for run in runs:
        save_run(run)
    print("done", flush=True)
"""

PROCESSES = 12
RUNS = 3
ROUNDS = 5
"""Fresh homes, one after the other: each is a new chance for the race."""


def test_save_from_many_processes_into_a_fresh_home_keeps_every_run(
    toolgrade_home: Path,
) -> None:
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, f"p{n:02d}", str(RUNS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(PROCESSES)
    ]
    try:
        # Imports take a while on a loaded machine: wait until every process is ready.
        _answers(workers, "ready")
        homes = [toolgrade_home / f"home-{k}" for k in range(ROUNDS)]
        for home in homes:
            for worker in workers:
                assert worker.stdin is not None
                worker.stdin.write(f"{home}\n")
                worker.stdin.flush()
            _answers(workers, "done")
    finally:
        # Closing standard input ends each worker's loop.
        errors = [worker.communicate(timeout=120)[1] for worker in workers]
    assert [w.returncode for w in workers] == [0] * PROCESSES, "\n".join(errors)
    expected = {(f"label-p{n:02d}-{i}",) for n in range(PROCESSES) for i in range(RUNS)}
    for home in homes:
        runs = list_runs(db=home / "toolgrade.db", limit=None, folders=False)
        assert len(runs) == PROCESSES * RUNS, home
        assert {r.tags for r in runs} == expected


def _answers(workers: list[subprocess.Popen[str]], word: str) -> None:
    for worker in workers:
        assert worker.stdout is not None
        line = worker.stdout.readline().strip()
        if line != word:  # the process failed: show why
            worker.wait(timeout=120)
            assert worker.stderr is not None
            pytest.fail(f"expected {word!r}, got {line!r}: {worker.stderr.read()[-2000:]}")


def test_migrate_skips_a_migration_applied_by_another_process_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "h.db"
    other = sqlite3.connect(path, isolation_level=None)
    mine = sqlite3.connect(path, isolation_level=None)
    real = migrations_module._applied
    calls = {"n": 0}

    def stale_then_real(db: sqlite3.Connection) -> list[str]:
        # The first look (before the write lock) sees an empty database; the other
        # process then migrates it completely before this one takes the lock.
        calls["n"] += 1
        if calls["n"] == 1:
            migrate(other)
            return []
        return real(db)

    monkeypatch.setattr(migrations_module, "_applied", stale_then_real)
    assert migrate(mine) == []
    monkeypatch.setattr(migrations_module, "_applied", real)
    assert real(mine) == [fn.__name__ for fn in MIGRATIONS]
    other.close()
    mine.close()


def test_migrate_on_a_migrated_database_takes_no_write_lock(tmp_path: Path) -> None:
    path = tmp_path / "h.db"
    first = sqlite3.connect(path, isolation_level=None)
    first.execute("PRAGMA journal_mode=WAL")  # as open_db does: readers pass a writer
    migrate(first)
    holder = sqlite3.connect(path, isolation_level=None, timeout=0.1)
    holder.execute("BEGIN EXCLUSIVE")
    reader = sqlite3.connect(path, isolation_level=None, timeout=0.1)
    assert migrate(reader) == []  # a plain read: not blocked by the writer
    holder.execute("ROLLBACK")
    for conn in (first, holder, reader):
        conn.close()
