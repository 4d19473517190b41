"""Stored states read back: runs written with states inline load unchanged; stored files
that lost a state or had one changed are refused with the file and the case named.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from states_runs import big_run
from typer.testing import CliRunner

from toolgrade.cli import app
from toolgrade.errors import BaselineError, SaveError, StoreError
from toolgrade.results import CaseResult, RunResult
from toolgrade.store import (
    RunFolder,
    RunManifest,
    db_path,
    export_run,
    get_run,
    load_run_file,
    load_run_folder,
    runs_dir,
    save_run,
)
from toolgrade.store._migrations import MIGRATIONS, applied_migrations, transaction
from toolgrade.store._states import StateTable, state_hash, state_text

runner = CliRunner()


def _json(run: RunResult) -> list[str]:
    return [r.model_dump_json() for r in run.results]


# --- runs written with every state inline (before states were stored apart) ---


def test_an_old_run_folder_with_states_inline_loads_unchanged() -> None:
    run = big_run(3, persist=False)
    folder = RunFolder.create(RunManifest(run=run.model_copy(update={"results": ()})))
    # The results as a run wrote them before: each line the whole record, states inline.
    lines = "".join(r.model_dump_json() + "\n" for r in run.results)
    folder.results_path.write_text(lines, encoding="utf-8")
    folder.close()
    assert "Some words" in lines and "state_hash" not in lines
    loaded = load_run_folder(folder.path)
    assert loaded.results == run.results
    assert _json(loaded) == _json(run)


def test_an_old_history_with_states_inline_loads_after_its_migration() -> None:
    run = big_run(2, persist=False)
    db_path().parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path(), isolation_level=None)
    applied_migrations(conn)
    for migration in MIGRATIONS[:2]:  # the database as a release before states made it
        with transaction(conn):
            migration(conn)
            conn.execute("INSERT INTO _toolgrade_migrations VALUES (?, 'x')", (migration.__name__,))
    header = run.model_dump_json(exclude={"results", "tags"})
    conn.execute(
        "INSERT INTO runs VALUES (?, 'conv', '', 'h', 'm', '0', '2026', NULL, 'complete',"
        " 'partial', 2, 2, 2, 1.0, ?, '2026')",
        (run.run_id, header),
    )
    for i, r in enumerate(run.results):
        conn.execute(
            "INSERT INTO case_results VALUES (?, ?, ?, 0, 'correct', 1.0, '', '', NULL, ?)",
            (run.run_id, i, r.case_id, r.model_dump_json()),
        )
    conn.close()
    loaded = get_run(run.run_id)  # read-only: migrated in memory
    assert _json(loaded) == _json(run)
    save_run(big_run(2, persist=False))  # a write migrates the file
    assert _json(get_run(run.run_id)) == _json(run)


def test_an_old_export_with_states_inline_loads_unchanged(tmp_path: Path) -> None:
    run = big_run(2, persist=False)
    path = tmp_path / "old.json"
    path.write_text(run.model_dump_json(indent=2), encoding="utf-8")
    assert _json(load_run_file(path)) == _json(run)


# --- stored files that lost a state or had one changed ---


def _states_file(run: RunResult) -> Path:
    return runs_dir() / run.run_id / "states.jsonl"


def test_a_folder_whose_states_file_lost_a_state_is_refused_naming_the_case() -> None:
    run = big_run(2)
    path = _states_file(run)
    first, second = path.read_text(encoding="utf-8").splitlines()
    path.write_text(second + "\n", encoding="utf-8")
    with pytest.raises(StoreError) as caught:
        load_run_folder(run.run_id)
    assert caught.value.case_id == "c1"
    assert caught.value.path == str(path)
    digest = json.loads(first)["hash"]
    assert f"its initial state {digest} is not in states.jsonl" in caught.value.message


def test_a_folder_whose_state_was_changed_is_refused_naming_file_line_and_case() -> None:
    run = big_run(2)
    path = _states_file(run)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("Some words", "Other words", 1), encoding="utf-8")
    with pytest.raises(StoreError) as caught:
        load_run_folder(run.run_id)
    error = caught.value
    assert (error.path, error.location, error.case_id) == (str(path), "line 1", "c1")
    assert "does not match its hash" in error.message


def test_the_command_line_names_the_file_and_the_case_without_a_traceback() -> None:
    run = big_run(2)
    path = _states_file(run)
    path.write_text(path.read_text(encoding="utf-8").replace("Some", "Any"), encoding="utf-8")
    result = runner.invoke(app, ["report", str(path.parent)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    [line] = result.stderr.splitlines()
    assert line.startswith(f"error: {path}:line 1 (case c1): ")
    assert "does not match its hash" in line


def test_a_corrupt_line_inside_the_states_file_is_named() -> None:
    run = big_run(2)
    path = _states_file(run)
    first, second = path.read_text(encoding="utf-8").splitlines()
    path.write_text(f"{first[:40]}\n{second}\n", encoding="utf-8")
    with pytest.raises(StoreError) as caught:
        load_run_folder(run.run_id)
    assert (caught.value.path, caught.value.location) == (str(path), "line 1")
    assert caught.value.message == "corrupt state line"


def test_a_good_copy_after_a_changed_state_wins() -> None:
    table = StateTable("states.jsonl", path="states.jsonl")
    text = state_text({"a": "b" * 80})
    digest = state_hash(text)
    table.add(digest, text.replace("b", "c", 1), where="line 1")
    table.add(digest, text, where="line 2")
    assert table.texts == {digest: text} and table.bad == {}


@pytest.mark.parametrize("damage", ["delete", "change"])
def test_a_history_that_lost_or_changed_a_state_is_refused_naming_the_case(damage: str) -> None:
    run = big_run(2, persist=False)
    save_run(run)
    conn = sqlite3.connect(db_path(), isolation_level=None)  # no foreign keys: any damage
    if damage == "delete":
        conn.execute("DELETE FROM states WHERE state_json NOT LIKE '%b.txt%'")
    else:
        conn.execute("UPDATE states SET state_json = replace(state_json, 'Some', 'Any')")
    conn.close()
    with pytest.raises(StoreError) as caught:
        get_run(run.run_id)
    assert (caught.value.path, caught.value.case_id) == (str(db_path()), "c1")
    wanted = "is not in the run history" if damage == "delete" else "does not match its hash"
    assert wanted in caught.value.message and run.run_id in caught.value.message


@pytest.mark.parametrize("damage", ["delete", "change"])
def test_an_export_that_lost_or_changed_a_state_is_refused_naming_the_case(
    tmp_path: Path, damage: str
) -> None:
    run = big_run(2)
    data = json.loads(export_run(run.run_id))
    digest = data["results"][1]["conversation"]["final_state_hash"]
    if damage == "delete":
        del data["states"][digest]
    else:
        data["states"][digest]["files"]["b.txt"] = "changed"
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BaselineError) as caught:
        load_run_file(path)
    assert (caught.value.path, caught.value.case_id) == (str(path), "c1")
    wanted = "is not in the file's states" if damage == "delete" else "does not match its hash"
    assert wanted in caught.value.message


def test_a_record_read_without_the_store_cannot_be_saved_without_its_states() -> None:
    run = big_run(1)
    line = (runs_dir() / run.run_id / "results.jsonl").read_text(encoding="utf-8")
    raw = CaseResult.model_validate_json(line)  # a line read by hand: the state's hash only
    record = raw.conversation
    assert record is not None and record.initial_state is None and record.initial_state_hash
    with pytest.raises(SaveError, match="given by its hash only"):
        save_run(run.model_copy(update={"results": (raw,), "run_id": "other"}))
