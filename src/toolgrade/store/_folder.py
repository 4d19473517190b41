"""Run folders: `runs/<run_id>/` with `run.json`, `results.jsonl`, `states.jsonl`, `log.jsonl`.

`results.jsonl` is appended and flushed one case at a time, so a run killed at any
moment keeps everything that finished. A torn last line (the process died mid-write)
is detected on reading and dropped, so that its case runs again on resume.

A conversation's large environment states are stored once each, by hash, in
`states.jsonl` (see `_states.py`): a result's new states are appended and flushed
before its line, so that every line of `results.jsonl` finds its states. Reading puts
them back into the records.

One process writes to a run folder at a time: the first write (creating the folder,
appending, repairing a torn line on resume) takes its `run.lock` (see `_lock.py`), and
`close()` gives it back. A second writer, e.g. `run --resume` of a run that is still
going, is refused with the pid of the first.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Literal

from pydantic import ValidationError

from toolgrade._core.files import atomic_write_text, read_bytes
from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.errors import StoreError, describe_os_error
from toolgrade.results import CaseResult, RunResult
from toolgrade.store._lines import drop_handle, read_lines, repair_tail
from toolgrade.store._lock import LOCK_NAME, FolderLock, LockOwner
from toolgrade.store._manifest import RunManifest, resume_command, sort_results
from toolgrade.store._paths import runs_dir
from toolgrade.store._state_file import StateFile
from toolgrade.store._states import STATES_NAME, state_hashes, stored_form

__all__ = [
    "LOCK_NAME",
    "LockOwner",
    "LogLevel",
    "RunFolder",
    "RunManifest",
    "load_run_folder",
    "lock_run_folder",
    "resume_command",
    "sort_results",
]

logger = logging.getLogger("toolgrade.runner")

MANIFEST_NAME = "run.json"
RESULTS_NAME = "results.jsonl"
LOG_NAME = "log.jsonl"

LogLevel = Literal["debug", "info", "warning", "error"]
_LEVELS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


class RunFolder:
    """One run's folder; appends results and log lines, rewrites `run.json` atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._results: IO[str] | None = None
        self._log: IO[str] | None = None
        self._states = StateFile(path / STATES_NAME)
        self._trace_id = path.name
        self._lock = FolderLock(path)
        self._broken: StoreError | None = None

    @property
    def manifest_path(self) -> Path:
        """`run.json`."""
        return self.path / MANIFEST_NAME

    @property
    def results_path(self) -> Path:
        """`results.jsonl`."""
        return self.path / RESULTS_NAME

    @property
    def states_path(self) -> Path:
        """`states.jsonl`."""
        return self.path / STATES_NAME

    @property
    def log_path(self) -> Path:
        """`log.jsonl`."""
        return self.path / LOG_NAME

    @classmethod
    def create(cls, manifest: RunManifest, *, root: Path | None = None) -> RunFolder:
        """Create `<root>/<run_id>/`, take its lock and write its `run.json`.

        The folder exists only with its `run.json`: when writing it fails (a full disk,
        no permission), the folder is removed again.

        Raises:
            StoreError: the folder exists already or cannot be created.
        """
        path = (root or runs_dir()) / manifest.run.run_id
        try:
            path.mkdir(parents=True, exist_ok=False)
        except FileExistsError:
            raise StoreError("run folder exists already", path=str(path)) from None
        except OSError as exc:
            raise StoreError(
                f"cannot create the run folder: {describe_os_error(exc)}", path=str(path)
            ) from exc
        folder = cls(path)
        try:
            folder.write_manifest(manifest)
        except BaseException:
            folder._discard()
            raise
        return folder

    def _discard(self) -> None:
        """Remove a folder whose creation failed (only what `create` put there)."""
        self._lock.release()
        for leftover in (self.manifest_path, *self.path.glob(f".{MANIFEST_NAME}.*.tmp")):
            leftover.unlink(missing_ok=True)
        try:
            self.path.rmdir()
        except OSError as exc:
            logger.warning("cannot remove the unused run folder %s: %s", self.path, exc)

    @classmethod
    def open(cls, ref: str | Path) -> RunFolder:
        """Open an existing run folder by run id, folder path or `run.json` path.

        Raises:
            StoreError: no such run folder.
        """
        path = Path(ref)
        if path.name == MANIFEST_NAME and path.is_file():
            path = path.parent
        if not (path / MANIFEST_NAME).is_file():
            path = runs_dir() / str(ref)
        if not (path / MANIFEST_NAME).is_file():
            raise StoreError(f"no run folder for {str(ref)!r}", path=str(runs_dir()))
        return cls(path)

    def read_manifest(self) -> RunManifest:
        """Read `run.json`.

        Raises:
            StoreError: unreadable or not a valid manifest.
        """
        data = read_bytes(self.manifest_path, error=StoreError)
        try:
            return RunManifest.model_validate_json(data)
        except ValidationError as exc:
            raise StoreError(
                f"not a valid run manifest: {_first_error(exc)}", path=str(self.manifest_path)
            ) from None

    def write_manifest(self, manifest: RunManifest) -> None:
        """Replace `run.json` atomically (a synced temporary file, renamed into place).

        Raises:
            RunLockedError: another process writes to this run.
            StoreError: the file cannot be written.
        """
        started = self.manifest_path.is_file()
        self.lock()
        try:
            atomic_write_text(self.manifest_path, manifest.model_dump_json(indent=2) + "\n")
        except OSError as exc:
            raise self._write_error(exc, self.manifest_path, started=started) from exc

    def lock(self) -> None:
        """Take the folder's write lock, if not held yet (every write does it first).

        Raises:
            RunLockedError: another live process holds it; the error names its pid.
            StoreError: the lock file cannot be written.
        """
        if self._broken is not None:
            # A write failed: the run stops; the other cases in flight must not go on.
            raise StoreError(self._broken.message, path=self._broken.path)
        try:
            self._lock.acquire()
        except OSError as exc:
            raise self._write_error(exc, self._lock.path, started=False) from exc

    def locked_by(self) -> LockOwner | None:
        """The live process writing to this run (None: nobody, or only this object)."""
        return None if self._lock.held else self._lock.owner()

    def _write_error(self, exc: OSError, path: Path, *, started: bool) -> StoreError:
        """One clear line: what failed, why, and how to go on (resume a started run)."""
        message = f"cannot write: {describe_os_error(exc)}"
        if not started:
            return StoreError(message, path=str(path))
        message += (
            f"; the results written so far are kept: fix that, then finish the run with"
            f" `{resume_command(self.path.name)}`"
        )
        error = StoreError(message, path=str(path))
        # No more writes: close the files and give the lock up now, so that the resume
        # works at once, even from this process.
        self._broken = error
        for handle in (self._results, self._log):
            drop_handle(handle)
        self._results = self._log = None
        self._states.drop()
        self._lock.release()
        return error

    def read_results(self, *, repair: bool = False, states: bool = True) -> list[CaseResult]:
        """Read every complete line of `results.jsonl`, in file order, states put back.

        A last line that is incomplete or invalid is a torn write: it is dropped (and,
        with `repair`, cut from the file so that appending continues cleanly); the same
        holds for `states.jsonl`. With `states=False`, the results keep the hashes of
        their large states (as stored) and `states.jsonl` is not read.

        Raises:
            StoreError: a line other than the last is corrupt (the message gives it), or
                a result names a state that `states.jsonl` lacks or that was changed
                (the message names the case).
            RunLockedError: with `repair`, another process writes to this run.
        """
        if repair:
            self.lock()  # repairing is writing: not while another process appends
        lines = read_lines(self.results_path, _parse_line, what="result line")
        if lines.torn_at is not None:
            logger.warning("%s: torn last line dropped; its case will run again", self.results_path)
        if repair:
            try:
                repair_tail(self.results_path, lines)
            except OSError as exc:
                raise self._write_error(exc, self.results_path, started=True) from exc
        results = [result for _, result in lines.items]
        if not repair and not (states and any(state_hashes(r) for r in results)):
            return results
        try:
            table = self._states.read(repair=repair)
        except OSError as exc:
            raise self._write_error(exc, self.states_path, started=True) from exc
        return list(table.restore_all(results)) if states else results

    def append_result(self, result: CaseResult) -> None:
        """Append one result line and flush it to the operating system.

        The large states it names that `states.jsonl` does not hold yet are appended
        and flushed there first.

        Raises:
            RunLockedError: another process writes to this run.
            StoreError: the line cannot be written (the message says how to resume).
        """
        self.lock()
        found: dict[str, str] = {}
        line = stored_form(result, found).model_dump_json() + "\n"
        if found:
            try:
                self._states.append(found)  # first: a result line always finds its states
            except OSError as exc:
                raise self._write_error(exc, self.states_path, started=True) from exc
        try:
            if self._results is None:
                self._results = self.results_path.open("a", encoding="utf-8")
            self._results.write(line)
            self._results.flush()
        except OSError as exc:
            drop_handle(self._results)
            self._results = None
            raise self._write_error(exc, self.results_path, started=True) from exc

    def log(self, level: LogLevel, event: str, message: str, **fields: JsonValue) -> None:
        """Write one structured line to `log.jsonl` (and to the `toolgrade.runner` logger).

        Every line carries the run id as `trace_id`.

        Raises:
            StoreError: the line cannot be written (the message says how to resume).
        """
        record: JsonObject = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "level": level,
            "trace_id": self._trace_id,
            "event": event,
            "message": message,
        }
        record.update(fields)
        self.lock()
        try:
            if self._log is None:
                self._log = self.log_path.open("a", encoding="utf-8")
            self._log.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            if level != "debug":  # a case start is always followed by its result, flushed then
                self._log.flush()
        except OSError as exc:
            drop_handle(self._log)
            self._log = None
            raise self._write_error(exc, self.log_path, started=True) from exc
        # Mirrored at debug level only: the file keeps the real level, and a library
        # must not print warnings through logging's last-resort handler.
        logger.debug("[%s] %s: %s", self._trace_id, level, message)

    def close(self) -> None:
        """Close the open files and give the lock up (the folder stays usable for reading).

        Raises:
            StoreError: buffered lines could not be written (the lock is given up anyway).
        """
        handles = [(self._results, self.results_path), (self._log, self.log_path)]
        self._results = self._log = None
        try:
            for handle, path in handles:
                if handle is not None:
                    try:
                        handle.close()
                    except OSError as exc:
                        raise self._write_error(exc, path, started=True) from exc
            try:
                self._states.close()
            except OSError as exc:
                raise self._write_error(exc, self.states_path, started=True) from exc
        finally:
            self._lock.release()


@contextmanager
def lock_run_folder(ref: str | Path) -> Iterator[RunFolder]:
    """Hold a run folder's write lock for the block; close the folder after it.

    Args:
        ref: a run id, a run folder, or its `run.json`.

    Raises:
        RunLockedError: another live process writes to the run (the error names its pid).
        StoreError: no such run folder.

    Examples:
        >>> with lock_run_folder("20260101T120000Z-3fa2c1") as folder:  # doctest: +SKIP
        ...     folder.append_result(result)
    """
    folder = RunFolder.open(ref)
    folder.lock()
    try:
        yield folder
    finally:
        folder.close()


def _parse_line(line: bytes) -> CaseResult | None:
    try:
        return CaseResult.model_validate_json(line)
    except ValidationError:
        return None


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    return f"{where}: {err.get('msg', '')}" if where else str(err.get("msg", ""))


def load_run_folder(ref: str | Path) -> RunResult:
    """Load a run from its folder: settings from `run.json`, results from `results.jsonl`.

    Args:
        ref: a run id (looked up under `<TOOLGRADE_HOME>/runs/`), a run folder, or the
            path of its `run.json`.

    Returns:
        The run with every finished result, in case order. A torn last line is skipped.

    Raises:
        StoreError: no such run, or an unreadable or corrupt folder.

    Examples:
        >>> run = load_run_folder("20250101T000000Z-1a2b3c")  # doctest: +SKIP
        >>> run.status  # doctest: +SKIP
        'complete'
    """
    folder = RunFolder.open(ref)
    manifest = folder.read_manifest()
    results = sort_results(folder.read_results(), manifest.case_ids)
    return manifest.run.model_copy(update={"results": results})
