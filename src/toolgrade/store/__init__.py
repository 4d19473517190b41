"""Run storage: run folders on disk and the SQLite run history."""

from toolgrade.store._db import (
    db_path,
    delete_run,
    get_run,
    save_run,
    tag_run,
    untag,
)
from toolgrade.store._folder import RunFolder, RunManifest, load_run_folder
from toolgrade.store._listing import RunSummary, list_runs, resume_command
from toolgrade.store._paths import data_dir, runs_dir
from toolgrade.store._resolve import export_run, load_run_file, resolve_run

__all__: list[str] = [
    "RunFolder",
    "RunManifest",
    "RunSummary",
    "data_dir",
    "db_path",
    "delete_run",
    "export_run",
    "get_run",
    "list_runs",
    "load_run_file",
    "load_run_folder",
    "resolve_run",
    "resume_command",
    "runs_dir",
    "save_run",
    "tag_run",
    "untag",
]
