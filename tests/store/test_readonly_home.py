"""Reading commands work in a home folder that cannot be written, and write nothing.

`runs list`, `runs show`, `report` and `compare` open the history read-only
(`mode=ro`): they failed with "attempt to write a readonly database" when the home was
not writable. The home is made read-only with chmod; as root (CI containers), chmod
does not stop anything, so the commands then run in a forked child that has dropped
to an unprivileged user (`nobody`), for which the permissions hold.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import stat
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.cli import app
from toolgrade.store import RunFolder, RunManifest, list_runs, resolve_run, save_run
from toolgrade.store._db import open_db

ROWS = [
    {"case_id": "TC-001", "status": "correct"},
    {"case_id": "TC-002", "status": "wrong_tool"},
]
READS = [
    ["runs", "list"],
    ["runs", "list", "--json"],
    ["runs", "show", "base"],
    ["report", "cand"],
    ["compare", "base", "cand"],
]
NOBODY = 65534

runner = CliRunner()
posix_only = pytest.mark.skipif(
    sys.platform == "win32" or not hasattr(os, "fork"), reason="POSIX permissions and fork"
)


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home folder an unprivileged user can reach (pytest's own tmp folders are 0700)."""
    root = Path(tempfile.mkdtemp(prefix="toolgrade-ro-"))
    root.chmod(0o755)
    path = root / "home"
    monkeypatch.setenv("TOOLGRADE_HOME", str(path))
    yield path
    _chmod_tree(root, writable=True)
    shutil.rmtree(root)


def _chmod_tree(root: Path, *, writable: bool) -> None:
    for path in [root, *root.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755 if writable else 0o555)
        else:
            path.chmod(0o644 if writable else 0o444)


def _digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _history(make_run: Callable[..., object]) -> None:
    save_run(make_run(ROWS, run_id="20260101-base", tags=("base",)))  # type: ignore[arg-type]
    save_run(make_run(ROWS[:1], run_id="20260102-cand", tags=("cand",)))  # type: ignore[arg-type]
    unsaved = make_run(ROWS[:1], run_id="20260103-cut", status="interrupted", finished_at=None)
    folder = RunFolder.create(
        RunManifest(run=unsaved.model_copy(update={"results": ()}), case_ids=("TC-001", "TC-002"))  # type: ignore[attr-defined]
    )
    folder.append_result(unsaved.results[0])  # type: ignore[attr-defined]
    folder.close()


def _invoke_all() -> list[tuple[int, str]]:
    out = []
    for args in READS:
        result = runner.invoke(app, args)
        out.append((result.exit_code, result.output))
    return out


def _as_reader(fn: Callable[[], list[tuple[int, str]]]) -> list[tuple[int, str]]:
    """Run `fn` as a user the read-only permissions apply to (root: a forked `nobody`)."""
    if os.geteuid() != 0:
        return fn()
    read_end, write_end = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
        pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 0
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            payload = json.dumps({"ok": fn()})
        except BaseException as exc:  # reported to the parent
            payload = json.dumps({"error": f"{type(exc).__name__}: {exc}"})
            code = 1
        with os.fdopen(write_end, "w") as pipe:
            pipe.write(payload)
        os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        data = json.loads(pipe.read() or '{"error": "no answer"}')
    os.waitpid(pid, 0)
    if "error" in data:
        if data["error"].startswith("PermissionError: [Errno 1]"):
            pytest.skip(f"cannot drop to an unprivileged user: {data['error']}")
        pytest.fail(data["error"])
    return [(code, text) for code, text in data["ok"]]


@posix_only
def test_reading_commands_work_in_a_read_only_home_and_write_nothing(
    home: Path, make_run: Callable[..., object]
) -> None:
    _history(make_run)
    expected = _invoke_all()  # writable: what the commands print (and modules loaded)
    assert [code for code, _ in expected] == [0] * len(READS), expected
    _chmod_tree(home, writable=False)
    before = _digests(home)
    got = _as_reader(_invoke_all)
    assert got == expected
    assert "20260103-cut" in got[0][1] and "interrupted (not saved)" in got[0][1]
    assert _digests(home) == before  # nothing written, no -wal or -shm file left


def _old_database(path: Path) -> None:
    """A history as the first migration left it: no tags table (migration 2 pending)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("DROP TABLE run_tags")
        conn.execute("DELETE FROM _toolgrade_migrations WHERE name = 'm002_tags'")
    finally:
        conn.close()  # the last connection: the WAL is written back and removed


def test_reading_a_database_that_needs_a_migration_migrates_nothing(
    make_run: Callable[..., object], toolgrade_home: Path
) -> None:
    save_run(make_run(ROWS, run_id="20260101-old"))  # type: ignore[arg-type]
    db = toolgrade_home / "toolgrade.db"
    _old_database(db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    assert [r.run_id for r in list_runs()] == ["20260101-old"]
    assert resolve_run("20260101-old").tags == ()
    with open_db(db, readonly=True) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # not migrated
    # A command that writes upgrades the file.
    save_run(make_run(ROWS, run_id="20260102-new", tags=("new",)))  # type: ignore[arg-type]
    assert resolve_run("new").run_id == "20260102-new"


@posix_only
def test_read_only_home_with_a_database_that_needs_a_migration_is_readable(
    home: Path, make_run: Callable[..., object]
) -> None:
    _history(make_run)
    _old_database(home / "toolgrade.db")
    _chmod_tree(home, writable=False)
    before = _digests(home)

    def read() -> list[tuple[int, str]]:
        result = runner.invoke(app, ["runs", "show", "20260101-base", "--json"])
        return [(result.exit_code, result.output)]

    [(code, output)] = _as_reader(read)
    assert code == 0, output
    assert json.loads(output)["run"]["run_id"] == "20260101-base"
    assert _digests(home) == before


def test_reading_commands_create_no_history(toolgrade_home: Path) -> None:
    assert runner.invoke(app, ["runs", "list"]).exit_code == 0
    shown = runner.invoke(app, ["runs", "show", "nothing"])
    assert shown.exit_code == 2 and "Traceback" not in shown.output
    assert not (toolgrade_home / "toolgrade.db").exists()


def test_read_only_open_refuses_to_write(
    make_run: Callable[..., object], toolgrade_home: Path
) -> None:
    """The connection itself is read-only, whoever runs it (root included)."""
    save_run(make_run(ROWS, run_id="20260101-x"))  # type: ignore[arg-type]
    db = toolgrade_home / "toolgrade.db"
    with (
        open_db(db, readonly=True) as conn,
        pytest.raises(sqlite3.OperationalError, match="readonly"),
    ):
        conn.execute("DELETE FROM runs")
    assert [r.run_id for r in list_runs()] == ["20260101-x"]
    assert stat.S_ISREG((toolgrade_home / "toolgrade.db").stat().st_mode)
