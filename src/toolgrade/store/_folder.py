"""Run folders: `runs/<run_id>/` with `run.json`, `results.jsonl` and `log.jsonl`.

`results.jsonl` is appended and flushed one case at a time, so a run killed at any
moment keeps everything that finished. A torn last line (the process died mid-write)
is detected on reading and dropped, so that its case runs again on resume.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from toolgrade._json import JsonObject, JsonValue
from toolgrade.errors import StoreError
from toolgrade.results import CaseResult, RunResult
from toolgrade.store._paths import runs_dir

__all__ = [
    "LogLevel",
    "RunFolder",
    "RunManifest",
    "load_run_folder",
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


class RunManifest(BaseModel):
    """The content of `run.json`: the run's settings, and what a resume needs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[2] = 2
    """Version of this format."""
    run: RunResult
    """The run's header: settings, server identity, status (its `results` stay empty)."""
    suite_source: str | None = None
    """Where the suite came from (a path or a built-in name), to reload it on resume."""
    case_ids: tuple[str, ...] = ()
    """The selected cases, in run order."""
    options: JsonObject = {}
    """The runner options, to resume with exactly the same settings."""


class RunFolder:
    """One run's folder; appends results and log lines, rewrites `run.json` atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._results: IO[str] | None = None
        self._log: IO[str] | None = None
        self._trace_id = path.name

    @property
    def manifest_path(self) -> Path:
        """`run.json`."""
        return self.path / MANIFEST_NAME

    @property
    def results_path(self) -> Path:
        """`results.jsonl`."""
        return self.path / RESULTS_NAME

    @property
    def log_path(self) -> Path:
        """`log.jsonl`."""
        return self.path / LOG_NAME

    @classmethod
    def create(cls, manifest: RunManifest, *, root: Path | None = None) -> RunFolder:
        """Create `<root>/<run_id>/` and write its `run.json`.

        Raises:
            StoreError: the folder exists already or cannot be created.
        """
        path = (root or runs_dir()) / manifest.run.run_id
        try:
            path.mkdir(parents=True, exist_ok=False)
        except FileExistsError:
            raise StoreError("run folder exists already", path=str(path)) from None
        except OSError as exc:
            raise StoreError(f"cannot create run folder: {exc}", path=str(path)) from None
        folder = cls(path)
        folder.write_manifest(manifest)
        return folder

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
        try:
            return RunManifest.model_validate_json(self.manifest_path.read_bytes())
        except OSError as exc:
            raise StoreError(f"cannot read: {exc}", path=str(self.manifest_path)) from None
        except ValidationError as exc:
            raise StoreError(
                f"not a valid run manifest: {_first_error(exc)}", path=str(self.manifest_path)
            ) from None

    def write_manifest(self, manifest: RunManifest) -> None:
        """Replace `run.json` atomically (write a temporary file, then rename it)."""
        tmp = self.manifest_path.with_suffix(".json.tmp")
        try:
            tmp.write_text(manifest.model_dump_json(indent=2) + "\n", encoding="utf-8")
            tmp.replace(self.manifest_path)
        except OSError as exc:
            raise StoreError(f"cannot write: {exc}", path=str(self.manifest_path)) from None

    def read_results(self, *, repair: bool = False) -> list[CaseResult]:
        """Read every complete line of `results.jsonl`, in file order.

        A last line that is incomplete or invalid is a torn write: it is dropped (and,
        with `repair`, cut from the file so that appending continues cleanly).

        Raises:
            StoreError: a line other than the last is corrupt (the message gives it).
        """
        try:
            data = self.results_path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"cannot read: {exc}", path=str(self.results_path)) from None
        lines = data.split(b"\n")
        if lines and not lines[-1].strip():
            lines.pop()  # the file ends with a newline (or blank space)
        results: list[CaseResult] = []
        start = 0
        for number, line in enumerate(lines, start=1):
            result = _parse_line(line) if line.strip() else None
            if result is not None:
                results.append(result)
            elif line.strip() and number == len(lines):
                self._drop_tail(start, repair=repair)
                return results
            elif line.strip():
                raise StoreError(
                    "corrupt result line", path=str(self.results_path), location=f"line {number}"
                )
            start += len(line) + 1
        if repair and data and not data.endswith(b"\n"):
            self._append_raw("\n")  # a complete last line whose newline was not written
        return results

    def _drop_tail(self, keep: int, *, repair: bool) -> None:
        logger.warning("%s: torn last line dropped; its case will run again", self.results_path)
        if repair:
            with self.results_path.open("r+b") as handle:
                handle.truncate(keep)

    def _append_raw(self, text: str) -> None:
        with self.results_path.open("a", encoding="utf-8") as handle:
            handle.write(text)

    def append_result(self, result: CaseResult) -> None:
        """Append one result line and flush it to the operating system."""
        if self._results is None:
            self._results = self.results_path.open("a", encoding="utf-8")
        self._results.write(result.model_dump_json() + "\n")
        self._results.flush()

    def log(self, level: LogLevel, event: str, message: str, **fields: JsonValue) -> None:
        """Write one structured line to `log.jsonl` (and to the `toolgrade.runner` logger).

        Every line carries the run id as `trace_id`.
        """
        record: JsonObject = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "level": level,
            "trace_id": self._trace_id,
            "event": event,
            "message": message,
        }
        record.update(fields)
        if self._log is None:
            self._log = self.log_path.open("a", encoding="utf-8")
        self._log.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        if level != "debug":  # a case start is always followed by its result, flushed then
            self._log.flush()
        # Mirrored at debug level only: the file keeps the real level, and a library
        # must not print warnings through logging's last-resort handler.
        logger.debug("[%s] %s: %s", self._trace_id, level, message)

    def close(self) -> None:
        """Close the open files (the folder stays usable for reading)."""
        for handle in (self._results, self._log):
            if handle is not None:
                handle.close()
        self._results = self._log = None


def _parse_line(line: bytes) -> CaseResult | None:
    try:
        return CaseResult.model_validate_json(line)
    except ValidationError:
        return None


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    return f"{where}: {err.get('msg', '')}" if where else str(err.get("msg", ""))


def sort_results(results: Iterable[CaseResult], case_ids: Sequence[str]) -> tuple[CaseResult, ...]:
    """Order results by case (in `case_ids` order) then repetition; the last of duplicates wins.

    Results of cases missing from `case_ids` come last, by id.
    """
    position = {case_id: i for i, case_id in enumerate(case_ids)}
    unique = {(r.case_id, r.repeat): r for r in results}
    return tuple(
        sorted(
            unique.values(),
            key=lambda r: (position.get(r.case_id, len(position)), r.case_id, r.repeat),
        )
    )


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
        >>> run.status
        'complete'
    """
    folder = RunFolder.open(ref)
    manifest = folder.read_manifest()
    results = sort_results(folder.read_results(), manifest.case_ids)
    return manifest.run.model_copy(update={"results": results})
