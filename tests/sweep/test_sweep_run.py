"""Running sweeps against loopback servers: tags, reuse, resume, changed settings, failures.

Two small suites, two models each on its own `SweepServer` (tests/sweep/helpers.py),
which logs every request's model and arrival time.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

import toolgrade
from sweep.helpers import Stopper, SweepServer, free_port, write_suite, write_sweep
from toolgrade.store import RunFolder, runs_dir
from toolgrade.sweep import (
    SweepEvent,
    SweepResult,
    arun_sweep,
    load_sweep,
    run_sweep,
    sweep_leaderboard,
)

FAST = {"warmup": False, "max_retries": 0, "timeout": 5, "concurrency": 2}


@pytest.fixture
def suites(tmp_path: Path) -> list[dict[str, object]]:
    write_suite(tmp_path / "alpha.json", "alpha", 4)
    write_suite(tmp_path / "beta.json", "beta", 3)
    return [{"suite": "alpha.json"}, {"suite": "beta.json"}]


@pytest.fixture
def servers() -> Iterator[tuple[SweepServer, SweepServer]]:
    # Model m-b gets alpha2 wrong: the leaderboard then has a best and a runner-up.
    with (
        SweepServer(models=("m-a",)) as a,
        SweepServer(models=("m-b",), wrong=frozenset({("m-b", "read alpha2.txt")})) as b,
    ):
        yield a, b


def _models(a: SweepServer, b: SweepServer, **extra: object) -> list[dict[str, object]]:
    return [
        {"label": "a", "model": "openai/m-a", "base_url": a.openai_url, **extra},
        {"label": "b", "model": "openai/m-b", "base_url": b.openai_url, **extra},
    ]


def _run(path: Path, *, fresh: bool = False) -> tuple[SweepResult, list[SweepEvent]]:
    events: list[SweepEvent] = []
    config = load_sweep(path)
    result = run_sweep(config, fresh=fresh, handle_signals=False, on_event=events.append)
    return result, events


def _statuses(result: SweepResult) -> dict[tuple[str, str], str]:
    return {(o.model, o.suite): o.status for o in result.outcomes}


def test_sweep_runs_every_combination_and_tags_each_run(
    tmp_path: Path, suites: list[dict[str, object]], servers: tuple[SweepServer, SweepServer]
) -> None:
    a, b = servers
    path = write_sweep(
        tmp_path / "sweep.toml", name="ab", models=_models(a, b), suites=suites, **FAST
    )
    result, events = _run(path)
    assert result.exit_code == 0 and not result.interrupted
    assert _statuses(result) == {
        ("a", "alpha"): "complete",
        ("a", "beta"): "complete",
        ("b", "alpha"): "complete",
        ("b", "beta"): "complete",
    }
    assert sorted(a.asked()) == sorted(
        [f"read alpha{i}.txt" for i in range(1, 5)] + [f"read beta{i}.txt" for i in range(1, 4)]
    )
    for outcome in result.outcomes:
        combo = next(c for c in result.combinations if c.key == (outcome.model, outcome.suite))
        stored = toolgrade.resolve_run(f"sweep:ab/{outcome.model}/{outcome.suite}")
        assert stored.run_id == outcome.run_id
        assert toolgrade.resolve_run(combo.exact_tag).run_id == outcome.run_id
        assert stored.model == f"openai/m-{outcome.model}"
        assert len(stored.results) == (4 if outcome.suite == "alpha" else 3)
    assert [e.kind for e in events].count("done") == 4
    board = sweep_leaderboard(result)
    alpha = board.suites[0]
    assert alpha.suite == "alpha" and alpha.best is not None and alpha.best.label == "a"
    assert [(e.label, e.accuracy.passed if e.accuracy else None) for e in alpha.entries] == [
        ("a", 4),
        ("b", 3),
    ]


def test_sweep_rerun_reuses_finished_runs_without_asking_the_server(
    tmp_path: Path, suites: list[dict[str, object]], servers: tuple[SweepServer, SweepServer]
) -> None:
    a, b = servers
    path = write_sweep(tmp_path / "sweep.toml", models=_models(a, b), suites=suites, **FAST)
    first, _ = _run(path)
    asked = (len(a.log), len(b.log))
    # Down: any request at all (even the model list) would now fail the combination.
    a.stop()
    b.stop()
    second, events = _run(path)
    assert second.exit_code == 0
    assert set(_statuses(second).values()) == {"reused"}
    assert (len(a.log), len(b.log)) == asked
    assert [o.run_id for o in second.outcomes] == [o.run_id for o in first.outcomes]
    assert {e.kind for e in events} == {"reuse"}
    assert second.runs.keys() == first.runs.keys()


def test_sweep_fresh_runs_everything_again(
    tmp_path: Path, suites: list[dict[str, object]], servers: tuple[SweepServer, SweepServer]
) -> None:
    a, b = servers
    path = write_sweep(
        tmp_path / "sweep.toml", name="f", models=_models(a, b), suites=suites, **FAST
    )
    first, _ = _run(path)
    second, _ = _run(path, fresh=True)
    assert set(_statuses(second).values()) == {"complete"}
    assert not {o.run_id for o in first.outcomes} & {o.run_id for o in second.outcomes}
    assert toolgrade.resolve_run("sweep:f/a/alpha").run_id == second.outcomes[0].run_id


def test_sweep_changed_setting_runs_again_and_says_what_changed(
    tmp_path: Path, suites: list[dict[str, object]], servers: tuple[SweepServer, SweepServer]
) -> None:
    a, b = servers
    path = write_sweep(tmp_path / "sweep.toml", models=_models(a, b), suites=suites, **FAST)
    first, _ = _run(path)
    models = _models(a, b)
    models[0]["temperature"] = 0.7
    write_sweep(path, models=models, suites=suites, **FAST)
    before = len(a.requests)
    second, events = _run(path)
    assert _statuses(second) == {
        ("a", "alpha"): "complete",
        ("a", "beta"): "complete",
        ("b", "alpha"): "reused",
        ("b", "beta"): "reused",
    }
    assert {r["temperature"] for r in a.requests[before:]} == {0.7}
    assert len(a.requests) - before == 7
    started = [e for e in events if e.kind == "start"]
    assert len(started) == 2
    assert all(
        "settings changed since run" in e.detail and "temperature 0.0 -> 0.7" in e.detail
        for e in started
    )
    new = toolgrade.resolve_run("sweep:t/a/alpha")
    assert new.backend["temperature"] == 0.7 and new.run_id != first.outcomes[0].run_id
    # Back to the first settings: their run is found again by its exact tag.
    write_sweep(path, models=_models(a, b), suites=suites, **FAST)
    third, _ = _run(path)
    assert set(_statuses(third).values()) == {"reused"}
    assert third.outcomes[0].run_id == first.outcomes[0].run_id


def test_sweep_interrupted_combination_is_resumed(tmp_path: Path) -> None:
    write_suite(tmp_path / "six.json", "six", 6)
    stopper = Stopper(after=3)
    with SweepServer(models=("m-a",), on_request=stopper) as server:
        path = write_sweep(
            tmp_path / "sweep.toml",
            models=[{"label": "a", "model": "openai/m-a", "base_url": server.openai_url}],
            suites=[{"suite": "six.json"}],
            **{**FAST, "concurrency": 1},
        )
        config = load_sweep(path)

        async def first_sweep() -> SweepResult:
            stopper.loop, stopper.event = asyncio.get_running_loop(), asyncio.Event()
            return await arun_sweep(config, stop=stopper.event)

        first = asyncio.run(first_sweep())
        assert first.interrupted and first.exit_code == 130
        (outcome,) = first.outcomes
        assert outcome.status == "interrupted" and outcome.run_id is not None
        kept = {r.case_id for r in RunFolder.open(outcome.run_id).read_results()}
        assert 0 < len(kept) < 6
        asked_before = len(server.log)
        stopper.loop = None  # the second sweep runs to the end
        second, events = _run(path)
    assert second.exit_code == 0
    (resumed,) = second.outcomes
    assert resumed.status == "resumed" and resumed.run_id == outcome.run_id
    assert [e.kind for e in events] == ["resume", "done"]
    asked_again = [p.split()[-1] for p in server.asked()[asked_before:]]
    missing = {f"six{i}.txt" for i in range(1, 7)} - {f"six{c.split('-')[1]}.txt" for c in kept}
    assert sorted(asked_again) == sorted(missing)
    run = toolgrade.resolve_run(resumed.run_id)
    assert run.status == "complete" and sorted(r.case_id for r in run.results) == [
        f"six-{i}" for i in range(1, 7)
    ]


def test_sweep_server_down_fails_its_model_and_the_others_complete(
    tmp_path: Path, suites: list[dict[str, object]]
) -> None:
    with SweepServer(models=("m-a",)) as a:
        models = [
            {"label": "a", "model": "openai/m-a", "base_url": a.openai_url},
            {
                "label": "down",
                "model": "openai/m-b",
                "base_url": f"http://127.0.0.1:{free_port()}/v1",
            },
        ]
        path = write_sweep(tmp_path / "sweep.toml", models=models, suites=suites, **FAST)
        result, _ = _run(path)
    assert result.exit_code == 3
    assert _statuses(result) == {
        ("a", "alpha"): "complete",
        ("a", "beta"): "complete",
        ("down", "alpha"): "failed",
        ("down", "beta"): "failed",
    }
    failed = result.failed[0]
    assert failed.exit_code == 3 and failed.error and "127.0.0.1" in failed.error
    board = sweep_leaderboard(result)
    entry = next(e for e in board.suites[0].entries if e.label == "down")
    assert entry.standing == "no run" and entry.note and entry.note.startswith("failed:")
    assert board.suites[0].best is not None and board.suites[0].best.label == "a"


def test_sweep_run_that_scored_nothing_fails_and_is_not_reused(
    tmp_path: Path, suites: list[dict[str, object]]
) -> None:
    models = [
        {"label": "good", "model": "python/sweep.agents:good"},
        {"label": "broken", "model": "python/sweep.agents:broken"},
    ]
    path = write_sweep(tmp_path / "sweep.toml", models=models, suites=suites[:1], timeout=5)
    first, _ = _run(path)
    assert first.exit_code == 3
    assert _statuses(first) == {("good", "alpha"): "complete", ("broken", "alpha"): "failed"}
    assert "no case could be scored" in (first.failed[0].error or "")
    second, events = _run(path)
    assert _statuses(second) == {("good", "alpha"): "reused", ("broken", "alpha"): "failed"}
    start = next(e for e in events if e.kind == "start")
    assert "scored no case: running again" in start.detail


def _overlap(x: tuple[float, float], y: tuple[float, float]) -> bool:
    return max(x[0], y[0]) < min(x[1], y[1])


@pytest.mark.slow
def test_sweep_different_servers_run_at_the_same_time(tmp_path: Path) -> None:
    write_suite(tmp_path / "alpha.json", "alpha", 4)
    slow = {**FAST, "concurrency": 1}
    with SweepServer(models=("m-a",), delay=0.1) as a, SweepServer(models=("m-b",), delay=0.1) as b:
        path = write_sweep(
            tmp_path / "sweep.toml", models=_models(a, b), suites=[{"suite": "alpha.json"}], **slow
        )
        result, _ = _run(path)
        assert result.exit_code == 0
        assert _overlap(a.span("m-a"), b.span("m-b"))
        # The same file with parallel = false: one run after the other.
        write_sweep(
            path, models=_models(a, b), suites=[{"suite": "alpha.json"}], parallel=False, **slow
        )
        a.log.clear()
        b.log.clear()
        result, _ = _run(path, fresh=True)
        assert result.exit_code == 0
        assert not _overlap(a.span("m-a"), b.span("m-b"))


def test_sweep_models_sharing_a_server_never_overlap(tmp_path: Path) -> None:
    write_suite(tmp_path / "alpha.json", "alpha", 4)
    write_suite(tmp_path / "beta.json", "beta", 3)
    with SweepServer(models=("m-a", "m-b"), delay=0.05) as shared:
        models = [
            {"label": "a", "model": "openai/m-a", "base_url": shared.openai_url},
            {"label": "b", "model": "openai/m-b", "base_url": shared.openai_url},
        ]
        suites = [{"suite": "alpha.json"}, {"suite": "beta.json"}]
        path = write_sweep(tmp_path / "sweep.toml", models=models, suites=suites, **FAST)
        result, _ = _run(path)
        assert result.exit_code == 0
        assert not _overlap(shared.span("m-a"), shared.span("m-b"))
        # At no moment did the shared server have requests of two runs in flight.
        assert shared.max_in_flight <= FAST["concurrency"]


def test_sweep_groups_join_models_whose_servers_overlap(tmp_path: Path) -> None:
    from toolgrade.sweep._plan import groups, plan_sweep

    write_suite(tmp_path / "alpha.json", "alpha", 2)
    models = [
        {"label": "a", "model": "openai/m", "base_url": "http://h1:1/v1"},
        {"label": "b", "model": "openai/m", "base_url": ["http://h2:1/v1", "http://h3:1/v1"]},
        {"label": "c", "model": "openai/m", "base_url": ["http://h3:1/v1", "http://h4:1/v1"]},
        {"label": "d", "model": "ollama/m"},
        {"label": "e", "model": "ollama/n"},
        {"label": "f", "model": "python/sweep.agents:good"},
    ]
    path = write_sweep(tmp_path / "sweep.toml", models=models, suites=[{"suite": "alpha.json"}])
    combos = plan_sweep(load_sweep(path))
    labels = sorted(sorted(c.model.label for c in g) for g in groups(combos, parallel=True))
    assert labels == [["a"], ["b", "c"], ["d", "e"], ["f"]]
    assert len(groups(combos, parallel=False)) == 1


def test_sweep_concurrency_override_applies_to_every_run(tmp_path: Path) -> None:
    from toolgrade.sweep._plan import plan_sweep

    write_suite(tmp_path / "alpha.json", "alpha", 2)
    models = [{"label": "a", "model": "python/sweep.agents:good", "concurrency": 3}]
    config = load_sweep(
        write_sweep(tmp_path / "s.toml", models=models, suites=[{"suite": "alpha.json"}])
    )
    assert plan_sweep(config)[0].options.concurrency == 3
    combo = plan_sweep(config, concurrency=9)[0]
    assert combo.options.concurrency == 9
    # Concurrency decides how fast, not what: the fingerprint stays.
    assert combo.fingerprint == plan_sweep(config)[0].fingerprint


def test_sweep_same_suite_twice_needs_labels(tmp_path: Path) -> None:
    from toolgrade.sweep._plan import plan_sweep

    write_suite(tmp_path / "alpha.json", "alpha", 2)
    models = [{"label": "a", "model": "python/sweep.agents:good"}]
    suites = [{"suite": "alpha.json"}, {"suite": "alpha.json", "limit": 1}]
    config = load_sweep(write_sweep(tmp_path / "s.toml", models=models, suites=suites))
    with pytest.raises(
        toolgrade.ConfigError, match="both called 'alpha': give them different `label`s"
    ):
        plan_sweep(config)
    suites[1]["label"] = "alpha-1"
    config = load_sweep(write_sweep(tmp_path / "s.toml", models=models, suites=suites))
    assert [c.suite_label for c in plan_sweep(config)] == ["alpha", "alpha-1"]


def test_sweep_unsaved_finished_run_folder_is_saved_and_reused(tmp_path: Path) -> None:
    write_suite(tmp_path / "alpha.json", "alpha", 2)
    models = [{"label": "a", "model": "python/sweep.agents:good"}]
    config = load_sweep(
        write_sweep(tmp_path / "s.toml", models=models, suites=[{"suite": "alpha.json"}])
    )
    from toolgrade.sweep._plan import plan_sweep

    (combo,) = plan_sweep(config)
    # A finished run whose save failed: its folder has everything, the history nothing.
    run = toolgrade.run_suite(
        combo.cases, combo.model.model, options=combo.options, handle_signals=False
    )
    assert (runs_dir() / run.run_id).is_dir()
    result, _ = _run(config.path)
    assert result.outcomes[0].status == "reused" and result.outcomes[0].run_id == run.run_id
    assert toolgrade.resolve_run(combo.exact_tag).run_id == run.run_id


def test_sweep_event_lines_read_well() -> None:
    event = SweepEvent("failed", "a x alpha", None, "server down")
    assert event.describe() == "failed: a x alpha (server down)"
    assert dataclasses.replace(event, detail="").describe() == "failed: a x alpha"


def test_sweep_model_with_several_endpoints_uses_them_all(tmp_path: Path) -> None:
    write_suite(tmp_path / "alpha.json", "alpha", 8)
    with (
        SweepServer(models=("m-a", "m-b"), delay=0.05) as one,
        SweepServer(models=("m-a",), delay=0.05) as two,
    ):
        urls = [one.openai_url, two.openai_url]
        models = [
            {"label": "a", "model": "openai/m-a", "base_url": urls},
            {"label": "b", "model": "openai/m-b", "base_url": one.openai_url},
        ]
        path = write_sweep(
            tmp_path / "sweep.toml", models=models, suites=[{"suite": "alpha.json"}], **FAST
        )
        result, _ = _run(path)
    assert result.exit_code == 0, result.failed
    assert one.asked("m-a") and two.asked("m-a")
    assert len(one.asked("m-a")) + len(two.asked("m-a")) == 8
    # b shares server one with a: their runs never overlap, on either server.
    a_span = (
        min(one.span("m-a")[0], two.span("m-a")[0]),
        max(one.span("m-a")[1], two.span("m-a")[1]),
    )
    assert not _overlap(one.span("m-b"), a_span)
    run = toolgrade.resolve_run("sweep:t/a/alpha")
    assert run.backend.get("endpoints") == urls
