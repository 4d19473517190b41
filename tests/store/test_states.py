"""Environment states stored once, by hash: every way a run is written and read back.

A run folder (`states.jsonl`), the history (`states`, `run_states`), an export (its
`states` object), `runs import`, the merge of shards and a resume each store a shared
state once and give back the records exactly as the run made them.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from states_runs import BIG, big_run, big_suite, ids, same, script

from runner.convscript import HANG, ScriptedModel, conversation, suite
from toolgrade.results import RunResult
from toolgrade.runner import RunOptions, aresume_run, arun_suite, rescore_run
from toolgrade.store import (
    db_path,
    delete_run,
    export_run,
    get_run,
    import_run,
    load_run_file,
    load_run_folder,
    merge_runs,
    resolve_run,
    runs_dir,
    save_run,
)
from toolgrade.store._states import state_hash, state_text
from toolgrade.suite import Selection, select_cases


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _json(run: RunResult) -> list[str]:
    return [r.model_dump_json() for r in run.results]


def _table(name: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db_path())
    try:
        return [tuple(row) for row in conn.execute(f"SELECT * FROM {name} ORDER BY 1, 2")]
    finally:
        conn.close()


def test_a_run_folder_stores_a_state_shared_by_many_conversations_once() -> None:
    run = big_run(6)
    folder = runs_dir() / run.run_id
    stored = _lines(folder / "states.jsonl")
    final = run.results[0].conversation.final_state  # type: ignore[union-attr]
    assert [s["hash"] for s in stored] == [
        state_hash(state_text(BIG)),
        state_hash(state_text(final)),
    ]
    assert [s["state"] for s in stored] == [BIG, final]
    results = folder / "results.jsonl"
    assert "Some words" not in results.read_text(encoding="utf-8")
    for line in _lines(results):
        record = line["conversation"]
        assert isinstance(record, dict)
        assert "initial_state" not in record and "final_state" not in record
        assert record["initial_state_hash"] == stored[0]["hash"]
    loaded = load_run_folder(run.run_id)
    assert loaded.results == run.results
    assert _json(loaded) == _json(run)  # keys in the same order: the very records


def test_the_history_stores_each_state_once_across_runs_and_deletes_it_with_the_last() -> None:
    first, second = big_run(3), big_run(5)
    save_run(first)
    save_run(second)
    assert len(_table("states")) == 2
    assert len(_table("run_states")) == 4
    assert all("Some words" not in str(row) for row in _table("case_results"))
    for run in (first, second):
        assert get_run(run.run_id).results == run.results
        assert _json(get_run(run.run_id)) == _json(run)
    save_run(first)  # saving again changes nothing
    assert len(_table("states")) == 2
    delete_run(first.run_id)
    assert len(_table("states")) == 2 and len(_table("run_states")) == 2
    assert get_run(second.run_id).results == second.results
    delete_run(second.run_id)
    assert _table("states") == [] and _table("run_states") == []


def test_saving_a_run_again_drops_the_states_it_no_longer_names() -> None:
    run = big_run(2)
    save_run(run)
    record = run.results[1].conversation
    assert record is not None
    other = record.model_copy(update={"final_state": {"files": {"x": "y" * 100}}})
    changed = run.results[1].model_copy(update={"conversation": other})
    save_run(run.model_copy(update={"results": (run.results[0], changed)}))
    assert len(_table("states")) == 3  # BIG, the first final state, the new one
    save_run(run.model_copy(update={"results": (changed,)}))
    assert len(_table("states")) == 2


def test_an_export_holds_each_state_once_and_loads_back(tmp_path: Path) -> None:
    run = big_run(4)
    save_run(run)
    text = export_run(run.run_id)
    data = json.loads(text)
    assert list(data)[-2:] == ["results", "states"]
    assert len(data["states"]) == 2
    # The README is in both states, each stored once: not once per conversation.
    assert text.count("Some words") == 2 * 40
    path = tmp_path / "run.json"
    path.write_text(text, encoding="utf-8")
    for loaded in (load_run_file(path), resolve_run(str(path))):
        assert loaded.results == run.results
        assert _json(loaded) == _json(run)


def test_runs_import_of_a_folder_stores_its_states_in_the_history() -> None:
    run = big_run(3)
    imported = import_run(runs_dir() / run.run_id)
    assert imported.results == run.results
    assert len(_table("states")) == 2
    assert _json(get_run(run.run_id)) == _json(run)


def test_a_stored_run_rescores_to_the_same_verdicts_and_states() -> None:
    run = big_run(3)
    save_run(run)
    for stored in (get_run(run.run_id), load_run_folder(run.run_id)):
        again = rescore_run(stored, big_suite(3))
        assert [same(r) for r in again.results] == [same(r) for r in run.results]


def test_small_states_stay_in_the_record_and_no_states_file_is_written() -> None:
    options = RunOptions(warmup=False)
    run = asyncio.run(
        arun_suite(suite(conversation("c1")), ScriptedModel(script(1)), options=options)
    )
    folder = runs_dir() / run.run_id
    assert not (folder / "states.jsonl").exists()
    [line] = _lines(folder / "results.jsonl")
    record = line["conversation"]
    assert isinstance(record, dict)
    assert record["initial_state"] == {"files": {"a.txt": "A"}}
    assert "initial_state_hash" not in record and "final_state_hash" not in record
    save_run(run)
    assert _table("states") == []
    assert get_run(run.run_id).results == run.results == load_run_folder(run.run_id).results


def _shard_run(shard: int | None) -> RunResult:
    whole = big_suite(6)
    selection = Selection(shard=(shard, 2)) if shard else Selection()
    options = RunOptions(warmup=False, selection=selection.for_run(whole))
    picked = select_cases(whole, selection)
    return asyncio.run(arun_suite(picked, ScriptedModel(script(6)), options=options))


def test_shards_from_the_history_and_an_export_merge_and_store_their_states_once(
    tmp_path: Path,
) -> None:
    first, second = _shard_run(1), _shard_run(2)
    assert first.results and second.results
    save_run(first)
    path = tmp_path / "shard-2.json"
    path.write_text(export_run(str(runs_dir() / second.run_id)), encoding="utf-8")
    merged = merge_runs([resolve_run(first.run_id), resolve_run(str(path))])
    whole = _shard_run(None)
    assert [same(r) for r in merged.results] == [same(r) for r in whole.results]
    save_run(merged)
    assert get_run(merged.run_id).results == merged.results
    assert len(_table("states")) == 2  # the shard and the merged run share them


def test_a_resumed_run_stores_each_state_once_and_cuts_a_torn_state_line() -> None:
    stop = asyncio.Event()
    model = ScriptedModel(script(3) | {("c2", 1, 0): HANG}, reached=asyncio.Event())

    async def interrupted() -> RunResult:
        async def stop_when_reached() -> None:
            assert model.reached is not None
            await model.reached.wait()
            stop.set()

        watcher = asyncio.ensure_future(stop_when_reached())
        options = RunOptions(concurrency=1, warmup=False, timeout=30.0)
        run = await arun_suite(big_suite(3), model, options=options, stop=stop)
        await watcher
        return run

    stopped = asyncio.run(interrupted())
    assert [r.case_id for r in stopped.results] == ["c1"]
    states = runs_dir() / stopped.run_id / "states.jsonl"
    assert len(_lines(states)) == 2
    with states.open("a", encoding="utf-8") as handle:
        handle.write('{"hash": "0123", "state": {"fi')  # a write torn by a crash
    resumed = asyncio.run(
        aresume_run(stopped.run_id, suite=big_suite(3), backend=ScriptedModel(script(3)))
    )
    assert resumed.status == "complete"
    assert [r.case_id for r in resumed.results] == ids(3)
    assert len(_lines(states)) == 2  # the torn line cut, nothing written twice
    whole = big_run(3, persist=False)
    assert [same(r) for r in resumed.results] == [same(r) for r in whole.results]
    assert load_run_folder(stopped.run_id).results == resumed.results
