"""Run storage: run folders on disk and the SQLite run history."""

from toolgrade.store._db import (
    db_path,
    delete_run,
    get_run,
    tag_run,
    untag,
)
from toolgrade.store._folder import (
    LockOwner,
    LogLevel,
    RunFolder,
    RunManifest,
    load_run_folder,
    lock_run_folder,
    sort_results,
)
from toolgrade.store._listing import RunSummary, list_runs
from toolgrade.store._manifest import new_run_id, resume_command
from toolgrade.store._merge import merge_problems, merge_runs
from toolgrade.store._paths import data_dir, runs_dir
from toolgrade.store._resolve import export_run, load_run_file, resolve_run
from toolgrade.store._save import import_command, import_run, save_run

__all__: list[str] = [
    "LockOwner",
    "LogLevel",
    "RunFolder",
    "RunManifest",
    "RunSummary",
    "data_dir",
    "db_path",
    "delete_run",
    "export_run",
    "get_run",
    "import_command",
    "import_run",
    "list_runs",
    "load_run_file",
    "load_run_folder",
    "lock_run_folder",
    "merge_problems",
    "merge_runs",
    "new_run_id",
    "resolve_run",
    "resume_command",
    "runs_dir",
    "save_run",
    "sort_results",
    "tag_run",
    "untag",
]
