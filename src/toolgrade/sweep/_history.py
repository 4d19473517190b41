"""What a sweep already ran: finished runs in the history, unfinished ones in run folders.

A combination's run is found by its exact tag (`Combination.exact_tag`), then checked
against what the run itself recorded: model, suite content, repeats, seed, rubric,
profile and the request settings that decide the results. A run whose record differs
is not reused (its tag was moved by hand, or it was made by another version of the
file). When no run has these settings, the latest run of the combination is looked
at too, only to say what changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from toolgrade._core.json_data import JsonValue
from toolgrade.backends import DEFAULT_FAMILY
from toolgrade.errors import BaselineError, StoreError
from toolgrade.results import RunResult
from toolgrade.store import RunFolder, db_path, get_run, load_run_folder, runs_dir, save_run
from toolgrade.sweep._plan import Combination, result_settings

__all__ = [
    "FolderIndex",
    "Previous",
    "changed_note",
    "differences",
    "find_previous",
    "scored_any",
    "stored_run",
]

_MISSING = object()


@dataclass(frozen=True, slots=True)
class Previous:
    """What the history holds for one combination."""

    kind: Literal["complete", "unfinished", "none"]
    """A finished run to reuse, an unfinished one to resume, or nothing usable."""
    run: RunResult | None = None
    """The finished run."""
    folder: Path | None = None
    """The unfinished run's folder."""
    note: str | None = None
    """Why an earlier run is not reused (changed settings, nothing scored)."""


def differences(run: RunResult, combo: Combination) -> list[str]:
    """How a run's recorded settings differ from the combination's (empty: the same).

    Examples:
        >>> differences(run, combo)  # doctest: +SKIP
        ['temperature 0.0 -> 0.7']
    """
    options = combo.options
    expected: dict[str, object] = {
        "model": combo.model.model,
        "suite content": combo.cases.content_hash,
        "repeat": options.repeat,
        "seed": options.seed,
        "rubric": combo.rubric,
        "profile": options.profile,
    }
    found: dict[str, object] = {
        "model": run.model,
        "suite content": run.suite_hash,
        "repeat": run.repeat,
        "seed": run.seed,
        "rubric": run.rubric,
        "profile": run.profile,
    }
    for key, value in result_settings(options).items():
        recorded = _recorded(run.backend, key)
        if recorded is not _MISSING:
            expected[key], found[key] = value, recorded
    return [f"{k} {found[k]!r} -> {v!r}" for k, v in expected.items() if found[k] != v]


def _recorded(backend: Mapping[str, JsonValue], key: str) -> object:
    """A request setting as the run recorded it; `_MISSING` when it records none.

    Backends record what they use: a server's backend records every setting (leaving
    out `prompt_format` at its default), a replay only `mode` when it is `prompt`, a
    Python function none. A setting a backend does not record cannot change its results.
    """
    if key in backend:
        return backend[key]
    if key == "prompt_format" and "temperature" in backend:
        return DEFAULT_FAMILY
    if key == "mode" and backend.get("provider") == "replay":
        return "native"
    return _MISSING


def scored_any(run: RunResult) -> bool:
    """Whether any case of the run could be scored (a run of timeouts only is no result)."""
    return any(r.status.scored for r in run.results)


class FolderIndex:
    """The run folders under `<TOOLGRADE_HOME>/runs/`, by tag, newest first (read once)."""

    def __init__(self, by_tag: Mapping[str, list[tuple[RunFolder, RunResult]]]) -> None:
        self.by_tag = by_tag

    @classmethod
    def scan(cls) -> FolderIndex:
        """Read every run folder's `run.json` (an unreadable one is skipped)."""
        root = runs_dir()
        by_tag: dict[str, list[tuple[RunFolder, RunResult]]] = {}
        if not root.is_dir():
            return cls(by_tag)
        # Run ids start with their UTC start time: name order is age order.
        for path in sorted(root.iterdir(), reverse=True):
            if not (path / "run.json").is_file():
                continue
            folder = RunFolder(path)
            try:
                header = folder.read_manifest().run
            except StoreError:
                continue
            for tag in header.tags:
                by_tag.setdefault(tag, []).append((folder, header))
        return cls(by_tag)


def _stored(tag: str, db: Path | None) -> RunResult | None:
    path = db if db is not None else db_path()
    if not path.exists():
        return None
    try:
        return get_run(tag, db=path)
    except BaselineError:
        return None


def stored_run(combo: Combination, *, db: Path | None) -> RunResult | None:
    """The history's finished run of a combination with these very settings, if usable.

    Raises:
        StoreError: the history database is unusable.
    """
    run = _stored(combo.exact_tag, db)
    if run is None or differences(run, combo) or not scored_any(run):
        return None
    return run


def changed_note(combo: Combination, *, db: Path | None) -> str | None:
    """How the latest run of a combination differs from its settings (None: no such run).

    Raises:
        StoreError: the history database is unusable.
    """
    latest = _stored(combo.tag, db)
    changed = differences(latest, combo) if latest is not None else []
    if latest is None or not changed:
        return None
    return f"settings changed since run {latest.run_id} ({'; '.join(changed)})"


def find_previous(combo: Combination, *, db: Path | None, folders: FolderIndex) -> Previous:
    """The run to reuse or resume for a combination, or why there is none.

    In order: the history's run with the exact tag (reused when its record matches and
    it scored something); a run folder with that tag (resumed when unfinished, saved to
    the history when it finished but was not saved); else nothing, with a note saying
    how the latest run of the combination differs, if there is one.

    Raises:
        StoreError: the history database is unusable.
        SaveError: a finished, unsaved run cannot be saved.
    """
    note = None
    run = _stored(combo.exact_tag, db)
    if run is not None and not differences(run, combo):
        if scored_any(run):
            return Previous("complete", run=run)
        note = f"run {run.run_id} scored no case: running again"
    for folder, header in folders.by_tag.get(combo.exact_tag, []):
        if header.run_id == (run.run_id if run else None) or differences(header, combo):
            continue
        if folder.locked_by() is not None:
            continue  # another process is running it right now
        if header.status != "complete":
            return Previous("unfinished", folder=folder.path)
        finished = load_run_folder(folder.path)
        if scored_any(finished):
            save_run(finished, db=db)  # finished, but saving it had failed
            return Previous("complete", run=finished)
    return Previous("none", note=note or changed_note(combo, db=db))
