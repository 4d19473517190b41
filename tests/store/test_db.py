"""Saving, listing, tagging, deleting, exporting and resolving stored runs."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from toolgrade.errors import BaselineError, StoreError
from toolgrade.store import (
    db_path,
    delete_run,
    export_run,
    get_run,
    list_runs,
    resolve_run,
    save_run,
    tag_run,
    untag,
)

ROWS = [
    {
        "case_id": "TC-001",
        "status": "correct",
        "category": "simple",
        "difficulty": "easy",
        "expected": [{"name": "read_file", "arguments": {"path": "a"}}],
        "actual": [{"name": "read_file", "arguments": {"path": "a"}}],
        "raw_response": "<tool_call>{...}</tool_call>",
        "latency_ms": 12.5,
    },
    {"case_id": "TC-002", "status": "wrong_tool", "tags": ["fs"]},
    {"case_id": "TC-003", "status": "timeout", "error": "no answer in 30 s"},
]


def test_store_save_then_get_round_trips_exactly(make_run, toolgrade_home: Path) -> None:
    run = make_run(ROWS, run_id="20260101-aaaa", tags=("v1.0",))
    save_run(run)
    assert db_path() == toolgrade_home / "toolgrade.db"
    assert (toolgrade_home / "toolgrade.db").exists()
    assert get_run("20260101-aaaa") == run


def test_store_save_twice_replaces_results_and_keeps_tags(make_run) -> None:
    save_run(make_run(ROWS, run_id="r1", tags=("keep",)))
    again = make_run(ROWS[:1], run_id="r1")
    save_run(again)
    loaded = get_run("r1")
    assert len(loaded.results) == 1
    assert loaded.tags == ("keep",)


def test_store_list_runs_newest_first_with_counts(make_run) -> None:
    save_run(make_run(ROWS, run_id="old", started_at=datetime(2025, 1, 1, tzinfo=UTC)))
    save_run(make_run(ROWS, run_id="new", model="other/m"))
    runs = list_runs()
    assert [r.run_id for r in runs] == ["new", "old"]
    assert (runs[0].total, runs[0].scored, runs[0].passed) == (3, 2, 1)
    assert runs[0].accuracy == 0.5
    assert [r.run_id for r in list_runs(limit=1)] == ["new"]
    assert [r.run_id for r in list_runs(model="other/m")] == ["new"]
    assert json.loads(json.dumps(runs[0].to_dict()))["run_id"] == "new"


def test_store_list_runs_without_database_is_empty(toolgrade_home: Path) -> None:
    assert list_runs() == []
    assert not toolgrade_home.exists()


def test_store_get_without_database_raises_store_error() -> None:
    with pytest.raises(StoreError, match="no run history"):
        get_run("anything")


def test_store_tag_moves_between_runs(make_run) -> None:
    save_run(make_run(ROWS, run_id="r1"))
    save_run(make_run(ROWS, run_id="r2"))
    assert tag_run("r1", ["baseline"]) == "r1"
    assert resolve_run("baseline").run_id == "r1"
    tag_run("r2", ["baseline"])
    assert resolve_run("baseline").run_id == "r2"
    assert get_run("r1").tags == ()
    assert untag(["baseline", "missing"]) == ["baseline"]
    with pytest.raises(BaselineError):
        resolve_run("baseline")


@pytest.mark.parametrize("tag", ["", "two words", " v1", "r1"])
def test_store_tag_invalid_names_rejected(make_run, tag: str) -> None:
    save_run(make_run(ROWS, run_id="r1"))
    with pytest.raises(BaselineError, match="invalid tag"):
        tag_run("r1", [tag])


def test_store_resolve_by_unique_prefix(make_run) -> None:
    save_run(make_run(ROWS, run_id="20260101-abc"))
    save_run(make_run(ROWS, run_id="20260101-abd"))
    save_run(make_run(ROWS, run_id="20260202-xyz"))
    assert resolve_run("20260202").run_id == "20260202-xyz"
    assert resolve_run("20260101-abd").run_id == "20260101-abd"
    with pytest.raises(BaselineError, match="ambiguous"):
        resolve_run("20260101")


def test_store_prefix_wildcards_are_literal(make_run) -> None:
    save_run(make_run(ROWS, run_id="a_b"))
    with pytest.raises(BaselineError):
        resolve_run("a%")
    assert resolve_run("a_").run_id == "a_b"
    with pytest.raises(BaselineError):
        resolve_run("A_")


def test_store_resolve_unknown_ref_raises(make_run) -> None:
    save_run(make_run(ROWS, run_id="r1"))
    with pytest.raises(BaselineError, match="nope"):
        resolve_run("nope")


def test_store_delete_removes_run_results_and_tags(make_run) -> None:
    save_run(make_run(ROWS, run_id="r1", tags=("t",)))
    assert delete_run("t") == "r1"
    assert list_runs() == []
    with pytest.raises(BaselineError):
        resolve_run("t")


def test_store_export_file_resolves_back(make_run, tmp_path: Path) -> None:
    run = make_run(ROWS, run_id="r1", tags=("v1.2",))
    save_run(run)
    out = tmp_path / "r1.json"
    out.write_text(export_run("v1.2"), encoding="utf-8")
    assert resolve_run(str(out)) == run


def test_store_resolve_json_report_document(make_run, tmp_path: Path) -> None:
    run = make_run(ROWS, run_id="r9")
    doc = {
        "report_schema_version": 1,
        "run": run.model_dump(mode="json", exclude={"results"}),
        "metrics": {},
        "cases": [dict(r.model_dump(mode="json"), reason="x") for r in run.results],
    }
    path = tmp_path / "report.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert resolve_run(str(path)) == run


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "not a JSON run export"), ('{"run_id": 1}', "not a run export")],
)
def test_store_resolve_bad_file_raises_with_path(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BaselineError, match=message) as info:
        resolve_run(str(path))
    assert str(path) in str(info.value)


def test_store_not_a_database_raises_store_error(make_run, tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.db"
    bogus.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match=r"bogus\.db"):
        save_run(make_run(ROWS), db=bogus)


def test_store_explicit_db_path(make_run, tmp_path: Path) -> None:
    db = tmp_path / "sub" / "h.db"
    save_run(make_run(ROWS, run_id="x"), db=db)
    assert [r.run_id for r in list_runs(db=db)] == ["x"]
    assert list_runs() == []
    assert resolve_run("x", db=db).run_id == "x"
