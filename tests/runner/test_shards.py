"""Shard a 2,000-case replayed run 4 ways, merge it: the unsharded run, case by case.

The merged run must be indistinguishable from the unsharded one in every report format
(run id and times aside) and in `compare`; merging from run folders and exports works
without the suite; mismatched shards are refused with every reason.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import toolgrade
from toolgrade.report import REPORT_FORMATS, render_report
from toolgrade.store import export_run, load_run_folder, merge_problems, merge_runs

CASES = 2000
SHARDS = 4
# Where a run's own identity and timing shows: masked before reports are compared.
TIMING_FIELDS = {"latency_ms", "ttft_ms"}
CATEGORIES = ("simple", "complex", "edge")


def _suite_data(n: int) -> dict[str, Any]:
    tool = {
        "name": "set_limit",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer"}, "unit": {"type": "string"}},
            "required": ["n"],
        },
    }
    other = {"name": "reset", "parameters": {"type": "object", "properties": {}}}
    # Ids not in sorted order, so that suite order and id order differ.
    cases = [
        {
            "id": f"S-{(i * 7919) % n:04d}",
            "prompt": f"Set the limit to {i}",
            "expected": {"name": "set_limit", "arguments": {"n": i}},
            "category": CATEGORIES[i % 3],
            "difficulty": ("easy", "medium", "hard")[i % 3],
            "tags": ["even" if i % 2 == 0 else "odd"],
        }
        for i in range(n)
    ]
    return {
        "schema_version": 1,
        "name": "limits",
        "version": "3",
        "tools": [tool, other],
        "cases": cases,
    }


def _answer(i: int, case_id: str) -> dict[str, Any]:
    """Varied answers: right, wrong argument, wrong tool, no call, a recorded error."""
    kind = (i * 31) % 10
    line: dict[str, Any] = {"case_id": case_id, "latency_ms": float(100 + i % 50)}
    if kind < 6:
        line["output"] = (
            f'<tool_call>{{"name": "set_limit", "arguments": {{"n": {i}}}}}</tool_call>'
        )
    elif kind == 6:
        line["output"] = (
            f'<tool_call>{{"name": "set_limit", "arguments": {{"n": {i + 1}}}}}</tool_call>'
        )
    elif kind == 7:
        line["output"] = '<tool_call>{"name": "reset", "arguments": {}}</tool_call>'
    elif kind == 8:
        line["output"] = "I would rather not."
    else:
        line["error"] = "server fell over"
    return line


def _write_files(root: Path, n: int) -> tuple[Path, Path]:
    """A suite of `n` cases and a responses file answering each (`_answer`), in `root`."""
    data = _suite_data(n)
    suite = root / "suite.json"
    suite.write_text(json.dumps(data), "utf-8")
    responses = root / "responses.jsonl"
    lines = [_answer(i, c["id"]) for i, c in enumerate(data["cases"])]
    responses.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return suite, responses


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _write_files(tmp_path_factory.mktemp("shards"), CASES)


def _run(
    suite_file: Path,
    responses: Path,
    selection: toolgrade.Selection,
    *,
    persist: bool = False,
    **options: Any,
) -> toolgrade.RunResult:
    suite = toolgrade.load_suite(suite_file)
    run_options = toolgrade.RunOptions(
        persist=persist,
        concurrency=16,
        selection=selection.for_run(suite),
        suite_source=str(suite_file),
        **options,
    )
    picked = toolgrade.select_cases(suite, selection)
    return toolgrade.run_suite(
        picked, f"replay/{responses}", options=run_options, handle_signals=False
    )


@pytest.fixture(scope="module")
def unsharded(files: tuple[Path, Path]) -> toolgrade.RunResult:
    return _run(*files, toolgrade.Selection())


@pytest.fixture(scope="module")
def shards(files: tuple[Path, Path]) -> list[toolgrade.RunResult]:
    return [_run(*files, toolgrade.Selection(shard=(i, SHARDS))) for i in range(1, SHARDS + 1)]


def _without_timing(result: toolgrade.CaseResult) -> dict[str, Any]:
    data = result.model_dump(mode="json")
    return {k: v for k, v in data.items() if k not in TIMING_FIELDS}


def test_shards_merge_to_the_unsharded_run_case_by_case(
    unsharded: toolgrade.RunResult, shards: list[toolgrade.RunResult]
) -> None:
    assert sum(len(s.results) for s in shards) == CASES
    merged = merge_runs(list(reversed(shards)))
    assert [r.case_id for r in merged.results] == [r.case_id for r in unsharded.results]
    assert [_without_timing(r) for r in merged.results] == [
        _without_timing(r) for r in unsharded.results
    ]
    statuses = {str(r.status) for r in merged.results}
    assert {"correct", "wrong_args", "wrong_tool", "missed_call", "error"} <= statuses
    assert merged.suite_hash == unsharded.suite_hash
    assert merged.selection == unsharded.selection
    assert merged.status == "complete"
    assert merged.run_id not in {s.run_id for s in shards}
    assert merged.started_at == min(s.started_at for s in shards)
    assert merged.finished_at == max(s.finished_at for s in shards if s.finished_at)
    masked = {"run_id", "started_at", "finished_at", "results"}
    assert merged.model_dump(exclude=masked) == unsharded.model_dump(exclude=masked)


_WHEN = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)?")
_EPOCH = re.compile(r"\b1\.\d+e\+09\b|\b1\d{9}(?:\.\d+)?\b")


def _masked(text: str, run: toolgrade.RunResult) -> str:
    """The report without the run's id and times (dates, epoch seconds, JUnit's duration)."""
    text = _WHEN.sub("TIME", text.replace(run.run_id, "RUN-ID"))
    return re.sub(r'time="[0-9.]+"', 'time="T"', _EPOCH.sub("EPOCH", text))


@pytest.mark.parametrize("fmt", REPORT_FORMATS)
def test_merged_run_renders_as_the_unsharded_run(
    unsharded: toolgrade.RunResult, shards: list[toolgrade.RunResult], fmt: str
) -> None:
    merged = merge_runs(shards)
    # Same timing as the unsharded run's, so that latencies, which replay records, agree.
    got = _masked(render_report(merged, fmt), merged)
    want = _masked(render_report(unsharded, fmt), unsharded)
    assert got == want


def test_merged_run_compares_with_no_difference(
    unsharded: toolgrade.RunResult, shards: list[toolgrade.RunResult]
) -> None:
    merged = merge_runs(shards)
    for a, b in ((unsharded, merged), (merged, unsharded)):
        comparison = toolgrade.compare_runs(a, b)
        assert comparison.fixed == () and comparison.broken == ()
        assert comparison.delta == 0.0
        assert not comparison.suite_hash_differs
        assert comparison.verdict == "equivalent"
        assert all(d.delta in (0.0, None) for d in (*comparison.by_category, *comparison.by_tool))


def test_merge_with_the_suite_checks_it_and_keeps_the_order(
    files: tuple[Path, Path], unsharded: toolgrade.RunResult, shards: list[toolgrade.RunResult]
) -> None:
    suite = toolgrade.load_suite(files[0])
    merged = merge_runs(shards, suite=suite)
    assert [r.case_id for r in merged.results] == [r.case_id for r in unsharded.results]
    other = toolgrade.Suite.model_validate(_suite_data(CASES - 1))
    problems = merge_problems(shards, suite=other)
    assert any("the suite given is not the one the shards ran" in p for p in problems)


def test_merge_from_folders_and_exports_without_the_suite(tmp_path: Path) -> None:
    suite_file, responses = _write_files(tmp_path, 60)
    selection = toolgrade.Selection(tags=("even",), limit=25)
    whole = _run(suite_file, responses, selection, repeat=2)
    ids = []
    for i in (1, 2, 3):
        run = _run(
            suite_file,
            responses,
            toolgrade.Selection(tags=("even",), limit=25, shard=(i, 3)),
            persist=True,
            repeat=2,
        )
        ids.append(run.run_id)
    # Another machine: shard 1 as a folder, shard 2 as an export file, shard 3 by run id.
    suite_file.unlink()
    export = tmp_path / "shard-2.json"
    export.write_text(export_run(ids[1]), "utf-8")
    runs = [
        load_run_folder(ids[0]),
        toolgrade.resolve_run(str(export)),
        toolgrade.resolve_run(ids[2]),
    ]
    merged = merge_runs(runs, tags=["nightly"])
    assert merged.tags == ("nightly",)
    assert merged.repeat == 2 and len(merged.results) == 50
    assert [(r.case_id, r.repeat) for r in merged.results] == [
        (r.case_id, r.repeat) for r in whole.results
    ]
    assert [_without_timing(r) for r in merged.results] == [
        _without_timing(r) for r in whole.results
    ]
    assert merged.suite_hash == whole.suite_hash and merged.selection == whole.selection


def test_mismatched_real_shards_fail_with_every_reason(
    files: tuple[Path, Path], shards: list[toolgrade.RunResult]
) -> None:
    other_settings = _run(*files, toolgrade.Selection(shard=(3, SHARDS)), rubric="binary")
    three = _run(*files, toolgrade.Selection(shard=(2, 3)))
    runs = [shards[0], shards[1], other_settings, three]
    with pytest.raises(toolgrade.ConfigError) as caught:
        merge_runs(runs)
    message = str(caught.value)
    assert message.startswith("cannot merge these runs:")
    assert "different shard counts: 4 (1/4, 2/4, 3/4); 3 (2/3)" in message
    assert "different rubrics" in message
    problems = merge_problems([shards[0], shards[1], other_settings])
    assert "missing shard: 4/4" in problems
    assert any(
        p.startswith("different rubrics: partial (1/4, 2/4); binary (3/4)") for p in problems
    )


def test_interrupted_shard_is_named_with_what_it_lacks(
    files: tuple[Path, Path], shards: list[toolgrade.RunResult]
) -> None:
    cut = shards[2].model_copy(
        update={"results": shards[2].results[:-5], "status": "interrupted", "finished_at": None}
    )
    problems = merge_problems([shards[0], shards[1], cut, shards[3]])
    assert len(problems) == 1
    assert f"shard 3/4 (run {cut.run_id}) did not finish (status interrupted)" in problems[0]
    planned = len(shards[2].results)
    assert f"5 of its {planned} cases lack a result (give the suite to list them)" in problems[0]
    assert f"toolgrade run --resume {cut.run_id}" in problems[0]
    suite = toolgrade.load_suite(files[0])
    (named,) = merge_problems([shards[0], shards[1], cut, shards[3]], suite=suite)
    lost = ", ".join(r.case_id for r in shards[2].results[-5:])
    assert f"({lost})" in named


def test_shard_run_is_recognised_against_the_suite(
    files: tuple[Path, Path], shards: list[toolgrade.RunResult]
) -> None:
    from toolgrade.runner._sameness import _selection, cases_of_run, matches_run

    suite = toolgrade.load_suite(files[0])
    shard = shards[1]
    assert _selection(shard.selection) == toolgrade.Selection(shard=(2, SHARDS))
    assert matches_run(shard, suite)
    # Without the results' ids, the recorded selection alone finds the shard's cases.
    header = shard.model_copy(update={"results": ()})
    ran = cases_of_run(header, suite, case_ids=["no-such-case"])
    assert ran.content_hash == shard.suite_hash
    assert matches_run(merge_runs(shards), suite)


# --- CLI: `toolgrade run --shard I/N` and `toolgrade runs merge` ------------------------


def test_cli_run_shards_then_merge_equals_the_unsharded_run(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from toolgrade.cli import app

    suite_file, responses = _write_files(tmp_path, 80)
    runner = CliRunner()
    common = ["run", "--suite", str(suite_file), "--model", f"replay/{responses}", "--quiet"]
    for i in (1, 2, 3):
        done = runner.invoke(
            app, [*common, "--tag", "odd", "--shard", f"{i}/3", "--label", f"s{i}"]
        )
        assert done.exit_code == 0, done.output
    whole = runner.invoke(app, [*common, "--tag", "odd", "--label", "whole"])
    assert whole.exit_code == 0, whole.output
    merged = runner.invoke(app, ["runs", "merge", "s3", "s1", "s2", "--tag", "merged", "--json"])
    assert merged.exit_code == 0, merged.output
    a, b = toolgrade.resolve_run("whole"), toolgrade.resolve_run("merged")
    assert b.suite_hash == a.suite_hash and b.selection == a.selection
    assert [_without_timing(r) for r in b.results] == [_without_timing(r) for r in a.results]
    compared = runner.invoke(app, ["compare", "whole", "merged", "--json"])
    assert compared.exit_code == 0, compared.output
    refused = runner.invoke(app, ["runs", "merge", "s1", "s2"])
    assert refused.exit_code == 2 and "missing shard: 3/3" in refused.output
