"""Seeds: any stored seed reads back (no numpy traceback); the run options refuse bad ones.

`--seed -1` used to save the run and then crash computing its bootstrap interval
(numpy refuses a negative seed), and `runs show` of that stored run crashed every time.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade._core.limits import MAX_REPEAT, MAX_SEED
from toolgrade.cli import app
from toolgrade.metrics import compute_metrics
from toolgrade.stats import bootstrap_interval, bootstrap_mean_interval
from toolgrade.store import save_run

ROOT = Path(__file__).resolve().parents[2]
VALUES = [0.0, 0.5, 1.0, 1.0, 0.25, 0.0, 1.0, 0.75]
ROWS = [
    {"case_id": "TC-001", "status": "correct"},
    {"case_id": "TC-002", "status": "wrong_tool"},
    {"case_id": "TC-003", "status": "correct", "score": 0.5},
]
runner = CliRunner()


@pytest.mark.parametrize("seed", [-1, -(2**70), MAX_SEED + 1, 10**50])
def test_bootstrap_any_integer_seed_is_reproducible(seed: int) -> None:
    first = bootstrap_mean_interval(VALUES, seed=seed)
    assert first == bootstrap_mean_interval(VALUES, seed=seed)
    assert 0.0 <= first.low <= first.high <= 1.0
    assert bootstrap_interval(VALUES, lambda s: sum(s) / len(s), seed=seed) == first


def test_bootstrap_negative_seed_draws_its_own_resamples() -> None:
    rnd = random.Random(1)
    values = [rnd.random() for _ in range(40)]
    assert bootstrap_mean_interval(values, seed=-7) != bootstrap_mean_interval(values, seed=7)


def test_bootstrap_non_negative_seed_is_numpy_own() -> None:
    """Seeds numpy takes keep their intervals (stored runs compare as before)."""
    import numpy as np

    rng = np.random.default_rng(5)
    data = np.asarray(VALUES)
    means = data[rng.integers(0, len(VALUES), size=(2000, len(VALUES)))].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    interval = bootstrap_mean_interval(VALUES, seed=5)
    assert (interval.low, interval.high) == (float(low), float(high))


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1])
def test_stored_run_with_out_of_range_seed_shows_reports_and_compares(make_run, seed: int) -> None:
    run = make_run(ROWS, run_id="20260101-neg", seed=seed)
    save_run(run)
    assert compute_metrics(run, seed=seed).mean_score_interval is not None
    for args in (
        ["runs", "show", "20260101-neg"],
        ["runs", "show", "20260101-neg", "--json"],
        ["report", "20260101-neg"],
        ["report", "20260101-neg", "--format", "json"],
        ["compare", "20260101-neg", "20260101-neg"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
        assert "Traceback" not in result.output
    shown = json.loads(runner.invoke(app, ["runs", "show", "20260101-neg", "--json"]).stdout)
    assert shown["run"]["seed"] == seed


@pytest.mark.parametrize(
    ("option", "value"),
    [("--repeat", str(MAX_REPEAT + 1)), ("--repeat", "1000000000")],
)
def test_cli_evaluate_refuses_an_out_of_range_repeat_before_anything_runs(
    option: str, value: str, toolgrade_home
) -> None:
    """`--repeat 1000000000` ran out of memory (the runner holds a slot per repetition)."""
    result = runner.invoke(
        app, ["evaluate", "--suite", "coding-agent", "--responses", "x.jsonl", option, value]
    )
    assert result.exit_code == 2, result.output
    assert "--repeat" in result.stderr and "1000" in result.stderr
    assert not (toolgrade_home / "runs").exists()


@pytest.mark.parametrize("seed", ["-1", str(MAX_SEED + 1)])
def test_cli_evaluate_refuses_an_out_of_range_seed_before_anything_runs(
    seed: str, toolgrade_home
) -> None:
    """The trial: `--seed -1` saved the run, then crashed with a numpy traceback."""
    samples = ROOT / "examples" / "sample-responses.jsonl"
    args = ["evaluate", "--suite", "coding-agent", "--responses", str(samples), "--seed", seed]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "--seed" in result.stderr and "Traceback" not in result.output
    assert not (toolgrade_home / "runs").exists()
    assert not (toolgrade_home / "toolgrade.db").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"seed": -1}, "--seed must be 0 to 4,294,967,295, got -1"),
        ({"seed": MAX_SEED + 1}, "--seed must be 0 to 4,294,967,295, got 4294967296"),
        ({"repeat": MAX_REPEAT + 1}, "--repeat must be 1 to 1,000, got 1001"),
    ],
)
def test_run_options_refuse_out_of_range_seed_and_repeat(
    options: dict[str, int], message: str
) -> None:
    """The library (and the sweep, the pytest marker, a resume) checks what the CLI checks."""
    from toolgrade.errors import ConfigError
    from toolgrade.runner import RunOptions

    with pytest.raises(ConfigError) as caught:
        RunOptions(**options)  # type: ignore[arg-type]
    assert caught.value.message == message
    assert RunOptions(seed=MAX_SEED, repeat=MAX_REPEAT).seed == MAX_SEED
