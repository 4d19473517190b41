"""The smallest change a comparison of a run can detect, shown in every report.

A run alone has no second run to pair with, so the discordance (the share of cases that
flip between two runs) is what its repeats measured (`NoiseFloor.flip_rate`: the share
expected to flip between two identical runs) or, without repeats, the assumed
`toolgrade.power.DEFAULT_DISCORDANCE`. From it and the run's scored cases,
`toolgrade.power.minimum_detectable_effect` gives the smallest change the exact McNemar
test detects with power 0.8 at alpha 0.05 (docs/metrics.md, "Power and the minimum
detectable effect"); `toolgrade plan` answers the same question for other rates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from toolgrade._core.json_data import JsonObject
from toolgrade.metrics._noise import NoiseFloor
from toolgrade.power import DEFAULT_DISCORDANCE, minimum_detectable_effect

__all__ = ["Detectable", "detectable_change"]

DetectableSource = Literal["repeats", "assumed"]


@dataclass(frozen=True, slots=True)
class Detectable:
    """The smallest change a comparison with another run of this size detects.

    Examples:
        >>> Detectable(85, 0.15, "assumed", 0.119).describe()[:70]
        'A comparison on these 85 cases can detect changes of about 11.9 points'
    """

    cases: int
    """The run's scored cases (one per case under repeats)."""
    discordance: float
    """The share of cases taken to flip between two runs."""
    source: DetectableSource
    """`repeats`: measured by the run's repeats; `assumed`: the default."""
    mde: float | None
    """The change as a fraction, or None when no change is detected that often."""
    alpha: float = 0.05
    power: float = 0.8

    def describe(self) -> str:
        """One sentence for a report."""
        basis = (
            "measured by the repeats"
            if self.source == "repeats"
            else "assumed; `toolgrade plan` for other rates"
        )
        flips = f"if {self.discordance:.1%} of them flip between the runs ({basis})"
        head = f"A comparison on these {self.cases:,} cases"
        if self.mde is None:
            return f"{head} cannot detect a change of any size reliably, {flips}"
        return (
            f"{head} can detect changes of about {self.mde * 100:.1f} points"
            f" (power {self.power:g}, alpha {self.alpha:g}), {flips}"
        )

    def to_dict(self) -> JsonObject:
        """The figures as a JSON object."""
        return {
            "cases": self.cases,
            "discordance": self.discordance,
            "source": self.source,
            "mde": self.mde,
            "alpha": self.alpha,
            "power": self.power,
        }


def detectable_change(cases: int, noise: NoiseFloor | None) -> Detectable | None:
    """The smallest change a comparison of a run of `cases` scored cases detects.

    Args:
        cases: the run's scored cases (0: None is returned).
        noise: the run's noise floor under repeats, whose flip rate is used when it
            measured one above zero; else the assumed discordance.

    Examples:
        >>> round(detectable_change(85, None).mde, 3)
        0.119
    """
    if cases <= 0:
        return None
    measured = noise is not None and noise.flip_rate > 0
    discordance = noise.flip_rate if noise is not None and measured else DEFAULT_DISCORDANCE
    source: DetectableSource = "repeats" if measured else "assumed"
    mde = minimum_detectable_effect(cases, discordance)
    return Detectable(cases, discordance, source, mde)
