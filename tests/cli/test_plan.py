"""`toolgrade plan`: cases and repeats needed, from assumed rates or stored runs."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from toolgrade.cli import app
from toolgrade.power import cases_needed, minimum_detectable_effect, repeats_needed
from toolgrade.store import save_run

runner = CliRunner()


def _rows(outcomes: str, *, repeat: int = 0) -> list[dict[str, object]]:
    status = {"c": "correct", "w": "wrong_args"}
    return [
        {"case_id": f"TC-{i:03d}", "status": status[o], "repeat": repeat}
        for i, o in enumerate(outcomes)
    ]


def test_plan_for_the_built_in_suite_prints_the_cases_needed() -> None:
    result = runner.invoke(app, ["plan", "--suite", "coding-agent", "--delta", "5"])
    assert result.exit_code == 0, result.output
    assert f"Cases needed: {cases_needed(0.05, 0.15)}" in result.output
    assert "(assumed, the default 0.15)" in result.output
    mde = minimum_detectable_effect(85, 0.15)
    assert mde is not None
    assert f"This suite (85 cases) detects changes of about {mde * 100:.1f} points" in (
        result.output
    )
    assert "Repeats: give --flip-rate" in result.output


def test_plan_json_and_assumed_rates() -> None:
    args = ["-s", "coding-agent", "--delta", "10", "--discordance", "0.2", "--flip-rate", "0.15"]
    result = runner.invoke(app, ["plan", *args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["cases_needed"] == cases_needed(0.1, 0.2)
    assert data["discordance"] == 0.2
    assert data["repeats_needed"] == repeats_needed(85, 0.1, 0.2, 0.15)


def test_plan_without_a_suite_prints_only_the_cases() -> None:
    result = runner.invoke(app, ["plan", "--delta", "5"])
    assert result.exit_code == 0, result.output
    assert "Cases needed:" in result.output
    assert "This suite" not in result.output


def test_plan_from_two_stored_runs_uses_their_discordance(make_run) -> None:
    save_run(make_run(_rows("c" * 40 + "w" * 10), run_id="20260101-a"))
    save_run(make_run(_rows("w" * 5 + "c" * 35 + "c" * 5 + "w" * 5), run_id="20260102-b"))
    result = runner.invoke(
        app, ["plan", "--delta", "5", "--from-run", "20260101-a", "--against", "20260102-b"]
    )
    assert result.exit_code == 0, result.output
    assert "20.0% of the 50 cases paired between 20260101-a and 20260102-b" in result.output
    assert f"Cases needed: {cases_needed(0.05, 0.2):,}" in result.output
    assert "This suite (50 cases)" in result.output


def test_plan_from_a_run_with_repeats_uses_its_flip_rate(make_run) -> None:
    rows = _rows("c" * 30 + "w" * 20) + _rows("c" * 20 + "w" * 10 + "c" * 10 + "w" * 10, repeat=1)
    save_run(make_run(rows, run_id="20260101-rep"))
    result = runner.invoke(app, ["plan", "--delta", "5", "--from-run", "20260101-rep", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    # 20 of 50 cases disagree between their two tries: a flip rate of 40%.
    assert data["flip_rate"] == pytest.approx(0.4)
    assert data["discordance"] == pytest.approx(0.45)
    assert data["suite_cases"] == 50


def test_plan_from_a_single_run_without_repeats_is_refused(make_run) -> None:
    save_run(make_run(_rows("c" * 10), run_id="20260101-one"))
    result = runner.invoke(app, ["plan", "--delta", "5", "--from-run", "20260101-one"])
    assert result.exit_code == 2
    assert "--against" in result.output


def test_plan_against_needs_from_run() -> None:
    result = runner.invoke(app, ["plan", "--delta", "5", "--against", "x"])
    assert result.exit_code == 2
