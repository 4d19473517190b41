"""Comparisons against the noise floor: runs of the same settings, and runs with repeats."""

from __future__ import annotations

import pytest

import toolgrade
from toolgrade.cli._compare_text import format_comparison
from toolgrade.compare import settings_differences

BACKEND = {"provider": "ollama", "base_url": "http://a:11434", "temperature": 0.0, "seed": 1}


def _rows(outcomes: str, repeat: int = 0) -> list[dict[str, object]]:
    """One row per case `TC-i`: `c` correct, `w` wrong arguments."""
    return [
        {
            "case_id": f"TC-{i:02d}",
            "status": "correct" if o == "c" else "wrong_args",
            "repeat": repeat,
        }
        for i, o in enumerate(outcomes)
    ]


def _run(make_run, outcomes: str, run_id: str, **fields: object) -> toolgrade.RunResult:
    fields.setdefault("backend", BACKEND)
    return make_run(_rows(outcomes), run_id=run_id, **fields)


# Twenty cases; the second run flips four of them, two each way.
FIRST = "ccccccccccwwwwwwwwww"
SECOND = "wwccccccccccwwwwwwww"


def test_two_runs_of_the_same_settings_are_labelled_a_noise_measurement(make_run) -> None:
    a, b = _run(make_run, FIRST, "a"), _run(make_run, SECOND, "b")
    comp = toolgrade.compare_runs(a, b)
    assert comp.same_settings and comp.settings_differences == ()
    assert comp.noise is not None
    assert comp.noise.flip_rate == pytest.approx(4 / 20)
    assert comp.noise.source == "these two runs of the same settings"
    text = format_comparison(comp)
    assert (
        "Same settings (model, suite, request settings, server): these flips are the noise"
        " floor, 4 of 20 cases (20.0%) flipped with nothing changed." in text
    )
    assert "Noise floor: 20.0% of cases flip between identical runs" in text
    data = comp.to_dict()
    assert data["same_settings"] is True and data["noise"]["flip_rate"] == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("change", "difference"),
    [
        ({"backend": {**BACKEND, "temperature": 0.7}}, "temperature 0.0 -> 0.7"),
        ({"backend": {**BACKEND, "options": {"top_p": 0.5}}}, "options None -> {'top_p': 0.5}"),
        ({"model": "test/other"}, "model 'test/model' -> 'test/other'"),
        ({"suite_hash": "hash-2"}, "suite content 'hash-1' -> 'hash-2'"),
        ({"server": {"server_version": "b5000"}}, "server_version None -> 'b5000'"),
    ],
)
def test_runs_that_differ_in_what_decides_results_are_not_the_same_settings(
    make_run, change: dict[str, object], difference: str
) -> None:
    a, b = _run(make_run, FIRST, "a"), _run(make_run, SECOND, "b", **change)
    comp = toolgrade.compare_runs(a, b)
    assert not comp.same_settings
    assert difference in comp.settings_differences
    assert comp.noise is None  # no repeats, and the runs differ: nothing measures the noise
    text = format_comparison(comp)
    assert "Same settings" not in text and "Noise floor" not in text


def test_where_and_how_patiently_to_ask_do_not_change_the_settings(make_run) -> None:
    other = {**BACKEND, "base_url": "http://b:8080", "max_retries": 5}
    a, b = _run(make_run, FIRST, "a"), _run(make_run, SECOND, "b", backend=other, tags=("x",))
    assert settings_differences(a, b) == ()


def _repeated(make_run, tries: list[str], run_id: str, **fields: object) -> toolgrade.RunResult:
    rows = [row for k, outcomes in enumerate(tries) for row in _rows(outcomes, k)]
    fields.setdefault("backend", BACKEND)
    return make_run(rows, run_id=run_id, repeat=len(tries), **fields)


def test_a_baseline_with_repeats_weighs_the_difference_against_its_noise_floor(make_run) -> None:
    # Three tries at temperature 0: TC-00 and TC-10 flip (one try of three disagrees each).
    flipping = "w" + FIRST[1:10] + "c" + FIRST[11:]
    baseline = _repeated(make_run, [FIRST, flipping, FIRST], "base")
    candidate = _run(make_run, SECOND, "cand", backend={**BACKEND, "temperature": 0.7})
    comp = toolgrade.compare_runs(baseline, candidate)
    assert not comp.same_settings
    noise = comp.noise
    assert noise is not None and noise.baseline is not None and noise.candidate is None
    assert noise.baseline.flipped == ("TC-00", "TC-10")
    # Two cases of twenty flip with a chance of 2/3 between two tries: 2 · 2/3 / 20.
    assert noise.flip_rate == pytest.approx(2 * (2 / 3) / 20)
    assert noise.source == "the baseline's 3 tries per case"
    assert not noise.within_noise  # 4 flips against about 1.3 from noise
    text = format_comparison(comp)
    assert (
        "Noise floor: 6.7% of cases flip between identical runs (the baseline's 3 tries per"
        " case); 4 of 20 paired cases flipped here (20.0%, about 1 expected from noise):"
        " more than noise alone would flip." in text
    )
    assert "Repeats: " in text
    assert (
        "Warning (baseline): temperature 0, yet 2 cases flipped: this server is not"
        " deterministic." in text
    )


def test_the_repeats_to_tell_are_plans_computation(make_run) -> None:
    """One computation: `toolgrade.power.repeats_needed` at the comparison's numbers."""
    from toolgrade.power import repeats_needed

    baseline = _repeated(make_run, [FIRST, "w" + FIRST[1:], FIRST], "base")
    candidate = _run(make_run, SECOND, "cand")
    comp = toolgrade.compare_runs(baseline, candidate, threshold=10.0)
    noise = comp.noise
    assert noise is not None
    assert noise.change == pytest.approx(0.10)
    expected = repeats_needed(20, 0.10, max(comp.discordance, 0.10), noise.flip_rate)
    assert noise.repeats_to_tell == expected


def test_the_baseline_section_of_a_report_shows_the_noise_floor(make_run) -> None:
    a, b = _run(make_run, FIRST, "a"), _run(make_run, SECOND, "b")
    comp = toolgrade.compare_runs(a, b)
    for fmt in ("text", "markdown", "html"):
        report = toolgrade.render_report(b, fmt, comparison=comp)
        assert "these flips are the noise floor" in report
        assert "Noise floor: 20.0% of cases flip between identical runs" in report
