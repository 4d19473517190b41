"""The smallest change a comparison of a run detects, as every report prints it."""

from __future__ import annotations

import pytest

from toolgrade.metrics import NoiseFloor, detectable_change
from toolgrade.power import DEFAULT_DISCORDANCE, minimum_detectable_effect


def _noise(flip_rate: float) -> NoiseFloor:
    return NoiseFloor(cases=40, tries=3, flipped=("a",) if flip_rate else (), flip_rate=flip_rate)


@pytest.mark.parametrize(
    ("cases", "noise", "source", "discordance"),
    [
        (85, None, "assumed", DEFAULT_DISCORDANCE),
        (85, _noise(0.0), "assumed", DEFAULT_DISCORDANCE),  # no flip measured: not "none"
        (85, _noise(0.3), "repeats", 0.3),
        (400, None, "assumed", DEFAULT_DISCORDANCE),
    ],
    ids=["no-repeats", "repeats-without-flips", "repeats", "larger-suite"],
)
def test_detectable_change_from_repeats_or_assumed(
    cases: int, noise: NoiseFloor | None, source: str, discordance: float
) -> None:
    found = detectable_change(cases, noise)
    assert found is not None
    assert (found.cases, found.source, found.discordance) == (cases, source, discordance)
    assert found.mde == minimum_detectable_effect(cases, discordance)
    assert f"{cases:,} cases" in found.describe()


def test_detectable_change_matches_plan_for_the_builtin_suite() -> None:
    # `toolgrade plan --suite coding-agent --delta 5` says 85 cases detect about 11.9 points.
    found = detectable_change(85, None)
    assert found is not None and found.mde is not None
    assert round(found.mde * 100, 1) == 11.9
    assert "about 11.9 points" in found.describe()


def test_detectable_change_small_run_says_it_cannot_tell() -> None:
    found = detectable_change(11, None)
    assert found is not None and found.mde is None
    assert "cannot detect a change of any size reliably" in found.describe()
    assert detectable_change(0, None) is None
