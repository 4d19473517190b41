"""A comparison's verdict and minimum detectable effect in words, for every renderer.

The whole comparison (`Comparison.status`) and its conversations section
(`ConversationComparison.status`) say them alike; only the unit they count differs
(paired cases or paired conversations).
"""

from __future__ import annotations

from toolgrade._core.json_data import JsonObject
from toolgrade.stats import Interval

__all__ = ["detectable_words", "power_fields", "verdict_words"]


def verdict_words(
    verdict: str,
    threshold: float,
    equivalence: Interval | None,
    cases_to_tell: int | None,
    unit: str,
) -> str:
    """A verdict in words, e.g. `Inconclusive: the suite cannot tell at this size`.

    Examples:
        >>> verdict_words("inconclusive", 2.0, None, 312, "cases")
        'Inconclusive: the suite cannot tell at this size; about 312 paired cases would'
    """
    points = f"{threshold:g} points"
    if verdict == "regression":
        return f"Regression: a drop of more than {points}, unlikely to be chance"
    if verdict == "improvement":
        return f"Improvement: a rise of more than {points}, unlikely to be chance"
    if verdict == "equivalent":
        level = equivalence.level if equivalence else 0.9
        return (
            f"Equivalent: within acceptable variance (the {level:.0%} interval lies"
            f" inside ±{points})"
        )
    more = f"; about {cases_to_tell:,} paired {unit} would" if cases_to_tell is not None else ""
    return f"Inconclusive: the suite cannot tell at this size{more}"


def detectable_words(
    mde: float | None, power: float, alpha: float, flips: int, shared: int, unit: str
) -> str:
    """The minimum detectable effect in words.

    Examples:
        >>> print(detectable_words(0.11, 0.8, 0.05, 11, 85, "cases")[:50])
        This suite can detect changes of about 11.0 points
    """
    basis = f"power {power:g}, alpha {alpha:g}; {flips} of {shared} {unit} flipped"
    if mde is None:
        return f"This suite cannot detect a change of any size reliably ({basis})"
    return f"This suite can detect changes of about {mde * 100:.1f} points ({basis})"


def power_fields(
    equivalence: Interval | None,
    discordance: float,
    mde: float | None,
    power: float,
    cases_to_tell: int | None,
) -> JsonObject:
    """What a paired verdict rests on and what the pairs can detect, as JSON fields."""
    return {
        "equivalence_interval": equivalence.to_dict() if equivalence else None,
        "discordance": discordance,
        "mde": mde,
        "power": power,
        "cases_to_tell": cases_to_tell,
    }
