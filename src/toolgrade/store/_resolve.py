"""Turning a run reference (id, prefix, tag, file, folder) into a `RunResult`, and exporting.

An exported run is the `RunResult` as JSON; when its records name states by hash (see
`_states.py`), a `states` object after `results` holds each of them once.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError
from pydantic_core import from_json, to_json

from toolgrade._core.files import read_bytes
from toolgrade._core.json_data import JsonValue, clean_value
from toolgrade.errors import BaselineError, StoreError
from toolgrade.results import CaseResult, RunResult
from toolgrade.store._db import db_path, load_stored, lookup_run_id, open_db
from toolgrade.store._folder import load_run_folder
from toolgrade.store._paths import runs_dir
from toolgrade.store._states import StateTable, state_hashes, stored_form

__all__ = ["export_run", "load_run_file", "resolve_run"]


def resolve_run(ref: str, *, db: Path | None = None) -> RunResult:
    """Find a run by any reference a person would type.

    Tried in order: an existing JSON file (an export of `toolgrade runs export`, or a
    JSON report of `toolgrade report --format json`); an existing run folder; a stored
    run id; a tag (e.g. `v1.2`); a unique prefix of a stored run id; finally a run folder
    under `<TOOLGRADE_HOME>/runs/` (a run that was never saved to the history).

    Args:
        ref: the reference.
        db: the history database (default `<TOOLGRADE_HOME>/toolgrade.db`).

    Returns:
        The run, with its current tags when it comes from the history.

    Raises:
        BaselineError: nothing matches, a prefix is ambiguous, or the file is not a run.

    Examples:
        >>> baseline = resolve_run("v1.2")  # doctest: +SKIP
        >>> baseline.tags  # doctest: +SKIP
        ('v1.2',)
    """
    path = Path(ref)
    if path.is_file():
        return load_run_file(path)
    if path.is_dir():
        return _from_folder(ref)
    database = db if db is not None else db_path()
    if database.exists():
        with open_db(database, readonly=True) as conn:
            run_id = lookup_run_id(conn, ref)
            if run_id is not None:
                return load_stored(conn, run_id, path=database)
    if ref and (runs_dir() / ref).is_dir():
        return _from_folder(ref)
    raise BaselineError(f"no stored run, tag, run id prefix, run folder or file matches {ref!r}")


def _from_folder(ref: str) -> RunResult:
    try:
        return load_run_folder(ref)
    except StoreError as exc:
        raise BaselineError(
            f"cannot load run folder: {exc.message}",
            path=exc.path,
            location=exc.location,
            case_id=exc.case_id,
        ) from None


def load_run_file(path: Path) -> RunResult:
    """Load a run from an exported run (JSON) or a JSON report.

    Raises:
        BaselineError: unreadable, not JSON, or neither shape; or a result names a
            state the file's `states` lacks or that was changed (naming the case).
    """
    raw = read_bytes(path, error=BaselineError)
    try:
        data: JsonValue = clean_value(json.loads(raw.decode("utf-8-sig")))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise BaselineError(f"not a JSON run export: {exc}", path=str(path)) from None
    states = data.pop("states", None) if isinstance(data, dict) else None
    try:
        if isinstance(data, dict) and "report_schema_version" in data:
            run = _from_report(data)
        else:
            run = RunResult.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BaselineError(
            f"not a run export: {first['msg']}", path=str(path), location=where or None
        ) from None
    if not any(state_hashes(r) for r in run.results):
        return run
    table = StateTable("the file's states", path=str(path), error=BaselineError)
    for digest, state in states.items() if isinstance(states, dict) else ():
        table.add_value(digest, state, where=f"states.{digest}")
    return run.model_copy(update={"results": table.restore_all(run.results)})


def _from_report(data: dict[str, JsonValue]) -> RunResult:
    """Rebuild the run from a JSON report (its `run` header and its `cases`)."""
    cases = data.get("cases")
    results = []
    for item in cases if isinstance(cases, list) else []:
        if isinstance(item, dict):
            # The report adds derived fields (e.g. `reason`) to each result.
            fields = {k: v for k, v in item.items() if k in CaseResult.model_fields}
            results.append(CaseResult.model_validate(fields))
    header = RunResult.model_validate(data.get("run"))
    return header.model_copy(update={"results": tuple(results)})


def export_run(ref: str, *, db: Path | None = None) -> str:
    """The JSON text of a run (header, every result, their states), as `resolve_run` reads it.

    Raises:
        BaselineError: the reference does not resolve.
    """
    run = resolve_run(ref, db=db)
    found: dict[str, str] = {}
    stored = run.model_copy(update={"results": tuple(stored_form(r, found) for r in run.results)})
    if not found:
        return run.model_dump_json(indent=2) + "\n"
    data = from_json(stored.model_dump_json())
    data["states"] = {digest: from_json(text) for digest, text in found.items()}
    return to_json(data, indent=2).decode("utf-8") + "\n"
