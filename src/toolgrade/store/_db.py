"""The run history: every finished run in `toolgrade.db` (stdlib sqlite3, WAL).

Each run is stored as its header (settings, as JSON) plus one row per case result
(with the whole `CaseResult` as JSON, and the columns worth querying next to it); the
large environment states of conversations are stored once, by hash, for the whole
history (`_db_states.py`). A stored run comes back exactly as it was saved. Tags name
runs: a tag points to one run, and tagging another run with it moves it (like a moving
`baseline` label).
"""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from pydantic import TypeAdapter

from toolgrade.errors import BaselineError, StoreError, describe_os_error
from toolgrade.results import CaseResult, RunResult
from toolgrade.store._db_states import drop_unnamed_states, read_states
from toolgrade.store._migrations import MIGRATIONS, applied_names, migrate, transaction
from toolgrade.store._paths import data_dir
from toolgrade.store._states import state_hashes

__all__ = [
    "UPSERT_TAG",
    "DatabaseBusy",
    "db_path",
    "delete_run",
    "get_run",
    "lookup_run_id",
    "is_busy",
    "open_db",
    "tag_run",
    "tags_of",
    "untag",
]

DB_NAME = "toolgrade.db"

_RESULTS: TypeAdapter[tuple[CaseResult, ...]] = TypeAdapter(tuple[CaseResult, ...])


def db_path() -> Path:
    """The default history database: `<TOOLGRADE_HOME>/toolgrade.db`."""
    return data_dir() / DB_NAME


class DatabaseBusy(StoreError):
    """The database stayed locked by another connection for the whole busy timeout."""


def is_busy(exc: sqlite3.Error) -> bool:
    """Whether `exc` means "another connection holds the lock" (worth waiting for)."""
    name = getattr(exc, "sqlite_errorname", None)
    if isinstance(name, str) and name:
        return name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))  # extended codes too
    return "locked" in str(exc) or "busy" in str(exc)


@contextmanager
def open_db(
    db: Path | None = None,
    *,
    create: bool = True,
    timeout: float = 10.0,
    readonly: bool = False,
) -> Iterator[sqlite3.Connection]:
    """Open (and migrate) the history database; close it on exit.

    Args:
        db: the database file; `db_path()` when None; `Path(":memory:")` for a private
            in-memory database.
        create: create the file (and its folder) when missing; otherwise raise.
        timeout: how long one statement waits for a lock another connection holds.
        readonly: for commands that only read (`runs list`, `runs show`, `report`,
            `compare`): open the file read-only (`mode=ro`), so that they work in a
            home folder that cannot be written, and create, convert or migrate nothing
            (see `_open_readonly`). A missing file is an error, whatever `create` says.

    Raises:
        DatabaseBusy: another connection held the lock longer than `timeout`.
        StoreError: the file is missing (with `create=False` or `readonly`), not a
            database, or unusable.
    """
    path = db if db is not None else db_path()
    memory = str(path) == ":memory:"
    if not memory and not path.exists():
        if not create or readonly:
            raise StoreError("no run history yet (nothing has been saved)", path=str(path))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create folder: {describe_os_error(exc)}", path=str(path)
            ) from exc
    try:
        if readonly and not memory:
            conn = _open_readonly(path, timeout=timeout)
        else:
            conn = sqlite3.connect(str(path), timeout=timeout, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open the run history: {exc}", path=str(path)) from exc
    try:
        conn.row_factory = sqlite3.Row
        if not readonly or memory:
            # WAL lets `toolgrade runs list` read while a run is being saved.
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")
            migrate(conn)
        yield conn
    except sqlite3.Error as exc:
        if is_busy(exc):
            raise DatabaseBusy(f"the run history is locked: {exc}", path=str(path)) from exc
        raise StoreError(f"run history database error: {exc}", path=str(path)) from exc
    finally:
        conn.close()


_NO_SIDE_FILES = ("SQLITE_READONLY_DIRECTORY", "SQLITE_CANTOPEN", "SQLITE_READONLY_CANTINIT")
"""Errors of a read-only open of a WAL database whose `-shm` file cannot be created."""


def _open_readonly(path: Path, *, timeout: float) -> sqlite3.Connection:
    """A read-only connection to `path` that writes nothing, migrated in memory if need be.

    A WAL database needs its `-shm` file even to be read; in a folder that cannot be
    written and without that file (the last writer removed it), the file is opened as
    immutable instead: nothing can write it there anyway. A database that an older
    toolgrade left without a later migration is copied into memory and migrated
    there, so that it reads like a current one; the file is upgraded by the next
    command that writes (a run being saved, `runs label`).

    Raises:
        sqlite3.Error: the file cannot be opened or read.
    """
    uri = _file_uri(path)
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=timeout, isolation_level=None)
    try:
        applied = set(applied_names(conn))
    except sqlite3.OperationalError as exc:
        conn.close()
        if getattr(exc, "sqlite_errorname", "") not in _NO_SIDE_FILES:
            raise
        conn = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None)
        applied = set(applied_names(conn))
    if applied >= {fn.__name__ for fn in MIGRATIONS}:
        return conn
    copy = sqlite3.connect(":memory:", isolation_level=None)
    try:
        conn.backup(copy)
    finally:
        conn.close()
    copy.execute("PRAGMA foreign_keys=ON")
    migrate(copy)
    return copy


def _file_uri(path: Path) -> str:
    """The SQLite `file:` URI of a path, absolute.

    Spaces, `?`, `#` and `%` are escaped; a Windows drive or UNC path is written as
    SQLite reads it (`file:///C:/...`, `file:////server/share/...`).

    Examples:
        >>> uri = _file_uri(Path("a b#1.db"))
        >>> uri.startswith("file:///"), uri.endswith("/a%20b%231.db")
        (True, True)
    """
    text = path.absolute().as_posix()
    return "file://" + quote(text if text.startswith("/") else "/" + text, safe="/:")


UPSERT_TAG = (
    "INSERT INTO run_tags (tag, run_id, tagged_at) VALUES (?, ?, ?) "
    "ON CONFLICT(tag) DO UPDATE SET run_id=excluded.run_id, tagged_at=excluded.tagged_at"
)
"""Give a run a tag, taking it from the run that had it."""


def lookup_run_id(conn: sqlite3.Connection, ref: str) -> str | None:
    """Find a run by exact id, then by tag, then by unique id prefix.

    Raises:
        BaselineError: the prefix matches several runs (they are listed).
    """
    row = conn.execute("SELECT run_id FROM runs WHERE run_id = ?", (ref,)).fetchone()
    if row is None:
        row = conn.execute("SELECT run_id FROM run_tags WHERE tag = ?", (ref,)).fetchone()
    if row is not None:
        return str(row[0])
    if not ref:
        return None
    # substr, not LIKE: LIKE is case-insensitive and treats % and _ as wildcards.
    rows = conn.execute(
        "SELECT run_id FROM runs WHERE substr(run_id, 1, ?) = ? ORDER BY run_id LIMIT 6",
        (len(ref), ref),
    ).fetchall()
    ids = [str(r[0]) for r in rows]
    if len(ids) > 1:
        raise BaselineError(f"run id prefix {ref!r} is ambiguous: {', '.join(ids[:5])}")
    return ids[0] if ids else None


def _require_id(conn: sqlite3.Connection, ref: str) -> str:
    run_id = lookup_run_id(conn, ref)
    if run_id is None:
        raise BaselineError(f"no stored run, tag or run id prefix matches {ref!r}")
    return run_id


def tags_of(conn: sqlite3.Connection, run_id: str) -> tuple[str, ...]:
    """The run's tags, oldest first."""
    rows = conn.execute(
        "SELECT tag FROM run_tags WHERE run_id = ? ORDER BY tagged_at, tag", (run_id,)
    ).fetchall()
    return tuple(str(r[0]) for r in rows)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects at once.

    Each allocation burst otherwise triggers collections that traverse the whole live
    heap (every result already loaded); loading 10,000 results ran ~2x slower with it.
    The objects built are acyclic, so nothing is leaked by the pause.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_stored(conn: sqlite3.Connection, run_id: str, *, path: Path | None = None) -> RunResult:
    """Rebuild a stored run (header, results in saved order with their states, current tags).

    Args:
        conn: the history.
        run_id: the run.
        path: the database file (for errors).

    Raises:
        BaselineError: no such run.
        StoreError: the run is corrupt, or a result names a state the history lacks or
            that was changed (the error names the case).
    """
    row = conn.execute("SELECT header_json FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    if row is None:
        raise BaselineError(f"no stored run {run_id!r}")
    rows = conn.execute(
        "SELECT result_json FROM case_results WHERE run_id = ? ORDER BY position", (run_id,)
    ).fetchall()
    try:
        header = RunResult.model_validate_json(row[0])
        # One validation pass over a JSON array is faster than one per row.
        with _gc_paused():
            results = _RESULTS.validate_json("[" + ",".join(r[0] for r in rows) + "]")
    except ValueError as exc:
        raise StoreError(f"stored run {run_id} is corrupt: {exc}") from None
    hashes = [h for r in results for h in state_hashes(r)]
    if hashes:
        where = str(path) if path is not None else None
        results = read_states(conn, run_id, hashes, path=where).restore_all(results)
    return header.model_copy(update={"results": results, "tags": tags_of(conn, run_id)})


def get_run(ref: str, *, db: Path | None = None) -> RunResult:
    """Load a stored run by id, tag or unique id prefix.

    Raises:
        BaselineError: nothing matches, or the prefix is ambiguous.
        StoreError: the database is missing or unusable.
    """
    with open_db(db, readonly=True) as conn:
        return load_stored(conn, _require_id(conn, ref), path=db or db_path())


def tag_run(ref: str, tags: Sequence[str], *, db: Path | None = None) -> str:
    """Give a stored run one or more tags (moving each tag if another run had it).

    Returns:
        The tagged run's id.

    Raises:
        BaselineError: the run is not found, or a tag is empty, has whitespace, or is
            some run's id (it could never be resolved).
    """
    with open_db(db, create=False) as conn:
        run_id = _require_id(conn, ref)
        for tag in tags:
            _check_tag(conn, tag)
        now = datetime.now(UTC).isoformat()
        with transaction(conn):
            conn.executemany(UPSERT_TAG, ((tag, run_id, now) for tag in tags))
        return run_id


def _check_tag(conn: sqlite3.Connection, tag: str) -> None:
    if not tag or tag != tag.strip() or any(ch.isspace() for ch in tag):
        raise BaselineError(f"invalid tag {tag!r}: use a non-empty name without spaces")
    if conn.execute("SELECT 1 FROM runs WHERE run_id = ?", (tag,)).fetchone():
        raise BaselineError(f"invalid tag {tag!r}: it is a run id")


def untag(tags: Sequence[str], *, ref: str | None = None, db: Path | None = None) -> list[str]:
    """Remove tags; return those that were removed.

    Args:
        tags: the tags.
        ref: when given, only tags that point at this run are removed.
        db: the database file.

    Raises:
        BaselineError: `ref` does not match a stored run.
    """
    with open_db(db, create=False) as conn:
        run_id = _require_id(conn, ref) if ref is not None else None
        query = "DELETE FROM run_tags WHERE tag = ?" + (" AND run_id = ?" if run_id else "")
        with transaction(conn):
            return [
                t for t in tags if conn.execute(query, (t, run_id) if run_id else (t,)).rowcount
            ]


def delete_run(ref: str, *, db: Path | None = None) -> str:
    """Delete a stored run, its results, its tags and the states only it names; return its id.

    Raises:
        BaselineError: the run is not found.
    """
    with open_db(db, create=False) as conn:
        run_id = _require_id(conn, ref)
        with transaction(conn):
            conn.execute("DELETE FROM runs WHERE run_id = ?", (run_id,))
            drop_unnamed_states(conn)
        return run_id
