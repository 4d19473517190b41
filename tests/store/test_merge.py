"""merge_runs and `toolgrade runs merge`: shards in, the unsharded run out, or every reason.

The shards here are built directly (no runner): a suite of ids partitioned as
`Selection(shard=...)` partitions it, each shard recording what `Selection.for_run`
records. The runner's side (a 2,000-case replayed run, reports) is
tests/runner/test_shards.py.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from toolgrade import ConfigError, ToolgradeError
from toolgrade.cli._merge import merge
from toolgrade.results import CaseResult, RunResult
from toolgrade.store import (
    export_run,
    merge_problems,
    merge_runs,
    resolve_run,
    save_run,
)
from toolgrade.suite._shard import encode_positions, shard_of

IDS = [f"TC-{(i * 37) % 101:03d}" for i in range(101)]
"""The unsharded selection's cases, in suite order (not sorted by id)."""
START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
BACKEND = {"provider": "openai", "temperature": 0.0, "mode": "native", "concurrency": 8}


def _result(case_id: str, repeat: int = 0) -> CaseResult:
    status = "correct" if sum(map(ord, case_id)) % 3 else "wrong_args"
    return CaseResult(
        case_id=case_id, status=status, score=1.0 if status == "correct" else 0.0, repeat=repeat
    )


def _shard(index: int, count: int = 4, *, ids: Sequence[str] = IDS, **fields: Any) -> RunResult:
    """Shard `index`/`count` of `ids`, complete, as a run of it records it."""
    mine = [p for p, case_id in enumerate(ids) if shard_of(case_id, count) == index]
    repeat = int(fields.pop("repeat", 1))
    selection = {
        "tags": [],
        "limit": None,
        "seed": 0,
        "shard": f"{index}/{count}",
        "unsharded_hash": "sha256:whole",
        "unsharded_cases": len(ids),
        "unsharded_positions": encode_positions(mine),
        **fields.pop("selection", {}),
    }
    header: dict[str, Any] = {
        "run_id": f"run-{index}-of-{count}",
        "suite_name": "suite",
        "suite_version": "1",
        "suite_hash": f"sha256:shard-{index}",
        "model": "openai/qwen",
        "backend": {**BACKEND, "base_url": f"http://gpu{index}:8000/v1"},
        "server": {"server": "vllm", "base_url": f"http://gpu{index}:8000/v1"},
        "toolgrade_version": "1.0.0",
        "started_at": START + timedelta(minutes=index),
        "finished_at": START + timedelta(minutes=10 + index),
        "status": "complete",
        "repeat": repeat,
        "selection": selection,
        "results": [_result(ids[p], k) for p in mine for k in range(repeat)],
    }
    return RunResult.model_validate({**header, **fields})


def _shards(count: int = 4, **fields: Any) -> list[RunResult]:
    return [_shard(i, count, **fields) for i in range(1, count + 1)]


def test_merge_restores_unsharded_order_selection_and_hash() -> None:
    shards = _shards()
    merged = merge_runs(list(reversed(shards)))
    assert [r.case_id for r in merged.results] == IDS
    assert merged.suite_hash == "sha256:whole"
    assert merged.selection == {"tags": [], "limit": None, "seed": 0}
    assert merged.status == "complete"
    assert merged.started_at == START + timedelta(minutes=1)
    assert merged.finished_at == START + timedelta(minutes=14)
    # The first shard's settings (they agree) and URL, with every shard's server.
    urls = [f"http://gpu{i}:8000/v1" for i in (1, 2, 3, 4)]
    assert merged.backend == {**shards[0].backend, "endpoints": urls}
    assert merged.server == shards[0].server
    assert merged.tags == ()


def test_merge_repeats_keep_case_then_repetition_order() -> None:
    merged = merge_runs(_shards(3, repeat=2))
    assert [(r.case_id, r.repeat) for r in merged.results] == [(i, k) for i in IDS for k in (0, 1)]


def test_merge_one_shard_of_one() -> None:
    (only,) = _shards(1)
    assert [r.case_id for r in merge_runs([only]).results] == IDS


def test_merge_new_run_id_each_time_and_tags_given() -> None:
    shards = _shards()
    a, b = merge_runs(shards, tags=["nightly", "v2"]), merge_runs(shards)
    assert a.run_id != b.run_id and a.run_id not in {s.run_id for s in shards}
    assert a.tags == ("nightly", "v2")
    assert merge_runs(shards, run_id="chosen").run_id == "chosen"


@pytest.mark.parametrize("tag", ["", "two words"])
def test_merge_bad_tag_raises(tag: str) -> None:
    with pytest.raises(ConfigError, match="invalid tag"):
        merge_runs(_shards(), tags=[tag])


def test_merge_pools_fingerprints_and_ignores_where_shards_ran() -> None:
    shards = _shards()
    shards[0] = shards[0].model_copy(
        update={
            "server": {**shards[0].server, "system_fingerprints": ["fp-b"], "parallel": 4},
            "backend": {**shards[0].backend, "concurrency": 2},
        }
    )
    shards[2] = shards[2].model_copy(
        update={"server": {**shards[2].server, "system_fingerprints": ["fp-a", "fp-b"]}}
    )
    shards[3] = shards[3].model_copy(
        update={
            "server": {
                **shards[3].server,
                "endpoints": ["http://a", "http://b"],
                "endpoint_fingerprints": {"http://a": ["fp-c"]},
            },
            "backend": {**shards[3].backend, "endpoints": ["http://a", "http://b"]},
        }
    )
    assert merge_problems(shards) == ()
    merged = merge_runs(shards)
    assert merged.server["system_fingerprints"] == ["fp-a", "fp-b"]
    assert merged.server["endpoint_fingerprints"] == {"http://a": ["fp-c"]}
    assert merged.backend["base_url"] == "http://gpu1:8000/v1"
    assert merged.backend["endpoints"] == [
        *(f"http://gpu{i}:8000/v1" for i in (1, 2, 3)),
        "http://a",
        "http://b",
    ]


def test_merge_same_server_for_every_shard_records_one_url() -> None:
    shards = [_with(s, backend={**BACKEND, "base_url": "http://one/v1"}) for s in _shards()]
    assert merge_runs(shards).backend == {**BACKEND, "base_url": "http://one/v1"}


def _with(run: RunResult, **update: Any) -> RunResult:
    return run.model_copy(update=update)


CASES: dict[str, tuple[Any, str]] = {
    "model": (lambda s: _with(s[1], model="openai/llama"), "different models: openai/qwen (1/4"),
    "setting": (
        lambda s: _with(s[2], backend={**s[2].backend, "temperature": 0.7}),
        "different backend setting `temperature`: 0.0 (1/4, 2/4, 4/4); 0.7 (3/4)",
    ),
    "server version": (
        lambda s: _with(s[3], server={**s[3].server, "server_version": "b4000"}),
        "different server `server_version`",
    ),
    "toolgrade": (
        lambda s: _with(s[0], toolgrade_version="1.1.0"),
        "different toolgrade versions (judging changes between versions): 1.1.0 (1/4)",
    ),
    "suite content": (
        lambda s: _with(s[1], selection={**s[1].selection, "unsharded_hash": "sha256:other"}),
        "different suite contents (hash of the unsharded selection)",
    ),
    "selection": (
        lambda s: _with(s[1], selection={**s[1].selection, "limit": 50}),
        "different selections",
    ),
    "repeat": (lambda s: _with(s[1], repeat=3), "different repeats"),
    "profile": (lambda s: _with(s[1], profile="bfcl"), "different profiles"),
    "rubric": (lambda s: _with(s[1], rubric="binary"), "different rubrics"),
    "seed": (lambda s: _with(s[1], seed=7), "different seeds"),
    "suite version": (lambda s: _with(s[1], suite_version="2"), "different suite versions"),
}


@pytest.mark.parametrize("name", CASES)
def test_merge_mismatch_is_refused_with_its_reason(name: str) -> None:
    change, reason = CASES[name]
    shards = _shards()
    index = {"model": 1, "setting": 2, "server version": 3, "toolgrade": 0}.get(name, 1)
    shards[index] = change(shards)
    problems = merge_problems(shards)
    assert any(reason in p for p in problems), problems
    with pytest.raises(ConfigError, match="cannot merge these runs"):
        merge_runs(shards)


def test_merge_missing_shards_are_listed() -> None:
    shards = _shards(6)
    assert merge_problems([shards[0], shards[2], shards[3]]) == ("missing shards: 2/6, 5/6, 6/6",)


def test_merge_shard_twice_and_run_twice() -> None:
    shards = _shards()
    again = _with(shards[1], run_id="run-2-again")
    problems = merge_problems([*shards, again, shards[0]])
    assert "run run-1-of-4 is given twice" in problems
    assert "shard 2/4 is given 2 times: runs run-2-of-4, run-2-again" in problems
    overlap = [p for p in problems if "in more than one run" in p]
    assert overlap and overlap[0].startswith(f"{len(shards[1].results)} cases are in more")


def test_merge_overlapping_cases_are_listed() -> None:
    shards = _shards()
    stray = shards[0].results[0]
    shards[1] = _with(shards[1], results=(*shards[1].results, stray))
    problems = merge_problems(shards)
    assert f"1 cases are in more than one run: {stray.case_id}" in problems
    assert any(f"holds cases that are not of shard 2/4: {stray.case_id}" in p for p in problems)


def test_merge_different_shard_counts_are_refused() -> None:
    problems = merge_problems([_shard(1, 2), _shard(2, 3), _shard(3, 3)])
    assert problems[0] == "different shard counts: 2 (1/2); 3 (2/3, 3/3)"


def test_merge_interrupted_shard_names_what_it_lacks() -> None:
    shards = _shards()
    cut = _with(shards[2], results=shards[2].results[:-3], status="interrupted", finished_at=None)
    (problem,) = merge_problems([shards[0], shards[1], cut, shards[3]])
    planned = len(shards[2].results)
    assert problem == (
        f"shard 3/4 (run run-3-of-4) did not finish (status interrupted): 3 of its {planned}"
        " cases lack a result (give the suite to list them); finish it with"
        " `toolgrade run --resume run-3-of-4`"
    )


def test_merge_complete_status_but_missing_results_is_refused() -> None:
    shards = _shards()
    shards[0] = _with(shards[0], results=shards[0].results[1:])
    (problem,) = merge_problems(shards)
    assert "did not finish (status complete): 1 of its" in problem


def test_merge_not_a_shard_and_no_merge_record() -> None:
    plain = _with(_shard(1), run_id="plain", selection={"tags": []})
    bare = _with(_shard(2), run_id="bare", selection={"shard": "2/4"})
    odd = _with(_shard(3), run_id="odd", selection={"shard": "nine"})
    problems = merge_problems([plain, bare, odd, _shard(4)])
    assert problems[0].startswith("run plain is not a shard")
    assert problems[1].startswith("run bare (shard 2/4) does not record what merging needs")
    assert problems[2] == "run odd records an unreadable shard 'nine'"


def test_merge_corrupt_positions_are_refused() -> None:
    shards = _shards()
    shards[1] = _with(shards[1], selection={**shards[1].selection, "unsharded_positions": "5-2"})
    assert any("out of order" in p for p in merge_problems(shards))


def test_merge_positions_not_covering_the_unsharded_cases_are_refused() -> None:
    shards = _shards()
    huge = 10**12  # a hostile export: refused before anything that size is built
    shards = [_with(s, selection={**s.selection, "unsharded_cases": huge}) for s in shards]
    assert merge_problems(shards) == (f"the shards place {len(IDS)} of the {huge} unsharded cases",)


def test_merge_several_reasons_at_once() -> None:
    shards = _shards()
    shards[1] = _with(shards[1], model="openai/other", rubric="binary")
    cut = _with(shards[2], results=shards[2].results[:1], status="interrupted")
    problems = merge_problems([shards[0], shards[1], cut])
    text = "\n".join(problems)
    for reason in ("missing shard: 4/4", "different models", "different rubrics", "did not finish"):
        assert reason in text
    with pytest.raises(ConfigError) as caught:
        merge_runs([shards[0], shards[1], cut])
    assert all(f"  - {p}" in str(caught.value) for p in problems)


def test_merge_no_runs_is_refused() -> None:
    assert merge_problems([]) == ("no run to merge",)


# --- CLI: `toolgrade runs merge` -------------------------------------------------------
# These tests drive `merge` through an app of its own, and the last one through
# `toolgrade.cli.app` as `toolgrade runs merge`. The real app turns a `ToolgradeError` into
# `error: MESSAGE` and its exit code; `_cli` does the same.


def _exported(folder: Path, runs: Sequence[RunResult]) -> list[str]:
    """Each run exported to its own JSON file; their paths."""
    files = []
    for run in runs:
        path = folder / f"{run.run_id}.json"
        path.write_text(run.model_dump_json(), "utf-8")
        files.append(str(path))
    return files


def _cli(*args: str) -> Any:
    app = typer.Typer()
    app.command("merge")(merge)
    app.command("other")(lambda: None)  # two commands: `merge` is then a subcommand
    result = CliRunner().invoke(app, ["merge", *args])
    if isinstance(result.exception, ToolgradeError):
        return _Outcome(result.exception.exit_code, f"error: {result.exception}")
    return _Outcome(result.exit_code, result.output)


@dataclass
class _Outcome:
    exit_code: int
    output: str


def test_cli_merge_saves_and_prints(tmp_path: Path) -> None:
    shards = _shards()
    db = tmp_path / "h.db"
    for run in shards[:2]:
        save_run(run, db=db)
    export = tmp_path / "shard-3.json"
    export.write_text(shards[2].model_dump_json(), "utf-8")
    export4 = tmp_path / "shard-4.json"
    export4.write_text(shards[3].model_dump_json(), "utf-8")
    refs = ["run-1-of-4", "run-2-of-4", str(export), str(export4)]
    result = _cli(*refs, "--tag", "nightly", "--db", str(db))
    assert result.exit_code == 0, result.output
    run_id = result.output.split("into run ")[1].split()[0]
    stored = resolve_run("nightly", db=db)
    assert stored.run_id == run_id and len(stored.results) == len(IDS)
    assert [r.case_id for r in stored.results] == IDS
    assert f"{len(IDS)} results:" in result.output
    again = json.loads(export_run(run_id, db=db))
    assert again["suite_hash"] == "sha256:whole"


def test_cli_merge_json(tmp_path: Path) -> None:
    files = _exported(tmp_path, _shards(2))
    result = _cli(*files, "--json", "--db", str(tmp_path / "h.db"))
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["results"] == len(IDS) and data["shards"] == ["run-1-of-2", "run-2-of-2"]


def test_cli_merge_refusal_exits_2_with_every_reason(tmp_path: Path) -> None:
    shards = _shards()
    shards[1] = _with(shards[1], model="openai/other")
    files = _exported(tmp_path, shards[:3])
    result = _cli(*files, "--db", str(tmp_path / "h.db"))
    assert result.exit_code == 2
    assert "cannot merge these runs" in result.output
    assert "missing shard: 4/4" in result.output and "different models" in result.output
    as_json = _cli(*files, "--json", "--db", str(tmp_path / "h.db"))
    assert as_json.exit_code == 2
    assert json.loads(as_json.output)["problems"][0] == "missing shard: 4/4"
    unknown = _cli("no-such-run", "--db", str(tmp_path / "h.db"))
    assert unknown.exit_code == 2 and "no-such-run" in unknown.output


def test_cli_registered_runs_merge(tmp_path: Path) -> None:
    from toolgrade.cli import app

    files = _exported(tmp_path, _shards(2))
    result = CliRunner().invoke(app, ["runs", "merge", *files, "--db", str(tmp_path / "h.db")])
    assert result.exit_code == 0, result.output
    assert "merged 2 shards" in result.output
