"""The noise floor of a run with repeats: the cases whose tries disagreed, and temperature 0."""

from __future__ import annotations

import pytest

import toolgrade
from toolgrade.metrics import NoiseFloor, noise_floor, request_temperature
from toolgrade.power import flip_rate


def _rows(outcomes: dict[str, str]) -> list[dict[str, object]]:
    """One row per try: `c` correct, `w` wrong arguments, `t` a timeout (not scored)."""
    status = {"c": "correct", "w": "wrong_args", "t": "timeout"}
    return [
        {"case_id": case, "status": status[o], "category": "simple", "repeat": k}
        for case, tries in outcomes.items()
        for k, o in enumerate(tries)
    ]


# Ten cases, three tries each: TC-3, TC-6 and TC-8 flip, the others never do.
TEN = {f"TC-{i}": "ccc" if i % 2 else "www" for i in range(10)}
TEN |= {"TC-3": "cwc", "TC-6": "wwc", "TC-8": "cww"}


@pytest.mark.parametrize(
    ("outcomes", "flipped", "share", "rate"),
    [
        # 3 of 10 flip, each with one try of three disagreeing: 2·1·2 / (3·2) = 2/3 each.
        (TEN, ("TC-3", "TC-6", "TC-8"), 0.3, 3 * (2 / 3) / 10),
        ({"a": "ccc", "b": "www"}, (), 0.0, 0.0),
        # A case left with one scored try cannot flip and is not counted.
        ({"a": "cw", "b": "ct", "c": "cc"}, ("a",), 0.5, 0.5),
    ],
)
def test_noise_floor_counts_the_cases_whose_tries_disagree(
    make_run, outcomes: dict[str, str], flipped: tuple[str, ...], share: float, rate: float
) -> None:
    tries = max(len(t) for t in outcomes.values())
    metrics = toolgrade.compute_metrics(make_run(_rows(outcomes), repeat=tries))
    noise = metrics.noise
    assert noise is not None
    assert noise.flipped == flipped
    assert noise.share == pytest.approx(share)
    assert noise.flip_rate == pytest.approx(rate)
    assert noise.tries == tries


def test_noise_floor_summary_words_the_share() -> None:
    noise = NoiseFloor(3, 10, ("TC-3", "TC-6", "TC-8"), 0.2)
    assert noise.summary() == "3 of 10 cases (30.0%) gave different verdicts across 3 tries"


def test_no_noise_floor_without_repeats(make_run) -> None:
    metrics = toolgrade.compute_metrics(make_run(_rows({"a": "c", "b": "w"})))
    assert metrics.noise is None
    assert metrics.to_dict()["noise_floor"] is None


def test_no_noise_floor_when_no_case_has_two_scored_tries(make_run) -> None:
    metrics = toolgrade.compute_metrics(make_run(_rows({"a": "ct"}), repeat=2))
    assert metrics.noise is None


@pytest.mark.parametrize(
    ("backend", "outcomes", "note"),
    [
        (
            {"temperature": 0.0},
            TEN,
            "temperature 0, yet 3 cases flipped: this server is not deterministic",
        ),
        ({"temperature": 0.0}, {"a": "cwc", "b": "ccc"}, "temperature 0, yet 1 case flipped:"),
        ({"temperature": 0.0}, {"a": "ccc", "b": "www"}, None),  # deterministic indeed
        ({"temperature": 0.7}, TEN, None),  # flips are expected when sampling
        ({"temperature": 0.0, "options": {"temperature": 0.8}}, TEN, None),  # the option wins
        ({"provider": "replay", "mode": "native"}, TEN, None),  # no temperature recorded
    ],
)
def test_temperature_zero_with_flips_says_the_server_is_not_deterministic(
    make_run, backend: dict[str, object], outcomes: dict[str, str], note: str | None
) -> None:
    run = make_run(_rows(outcomes), repeat=3, backend=backend)
    noise = toolgrade.compute_metrics(run).noise
    assert noise is not None
    said = noise.determinism_note()
    if note is None:
        assert said is None and not noise.not_deterministic
    else:
        assert said is not None and said.startswith(note)
        assert noise.to_dict()["not_deterministic"] is True


def test_noise_floor_json_lists_the_flipped_cases(make_run) -> None:
    run = make_run(_rows(TEN), repeat=3, backend={"temperature": 0.0})
    data = toolgrade.compute_metrics(run).to_dict()["noise_floor"]
    assert data == {
        "tries": 3,
        "cases": 10,
        "flipped": 3,
        "share": 0.3,
        "flip_rate": pytest.approx(0.2),
        "flipped_cases": ["TC-3", "TC-6", "TC-8"],
        "temperature": 0.0,
        "not_deterministic": True,
    }


def test_noise_floor_flip_rate_is_powers(make_run) -> None:
    """One computation: the flip rate is `toolgrade.power.flip_rate` of the per-case counts."""
    run = make_run(_rows(TEN), repeat=3)
    scored = [r for r in run.results if r.status.scored]
    noise = noise_floor(scored, 3)
    assert noise is not None
    counts = [(3, 3) if t == "ccc" else (0, 3) for t in TEN.values()]
    counts[3], counts[6], counts[8] = (2, 3), (1, 3), (1, 3)
    assert noise.flip_rate == flip_rate(counts)


@pytest.mark.parametrize(
    ("backend", "expected"),
    [
        ({"temperature": 0}, 0.0),
        ({"temperature": True}, None),
        ({"options": {"temperature": 1}}, 1.0),
        ({}, None),
    ],
)
def test_request_temperature(backend: dict[str, object], expected: float | None) -> None:
    assert request_temperature(backend) == expected  # type: ignore[arg-type]
