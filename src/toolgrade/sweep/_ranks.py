"""Rank intervals: how sure a leaderboard can be of each model's place.

A ranking of accuracies measured on one suite moves when the suite's cases change. The
bootstrap measures how much: draw the suite's cases again with replacement, recompute
every model's accuracy on the drawn cases, rank the models, and repeat; a model's rank
interval holds the central `level` share of its ranks (2.5th to 97.5th percentile at
95%). The draws are paired: every model is scored on the same drawn cases, as every
model ran the same suite, so a case that all models find hard moves them together and
does not blur their order.

- **Ranks** are competition ranks: 1 + the number of models with a strictly higher
  accuracy on the drawn cases (tied models share the better rank: 1, 2, 2, 4).
- **Cases a model lacks** (not scored: an error, a timeout, a case it was not asked)
  are left out of that model's accuracy: on a draw, its accuracy is over the drawn
  cases it has. A draw holding none of its cases says nothing of it: that draw leaves
  the model out (it has no rank there and outranks no one).
- **Reproducible**: the draws come from `numpy.random.default_rng(seed)`; the same
  outcomes, seed and number of resamples give the same intervals.
- **Bounds are ranks**: the lower bound is the percentile rounded towards rank 1 and the
  upper one towards the last rank, so the interval never claims more than the draws show.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolgrade._core.json_data import JsonObject

__all__ = ["RankInterval", "rank_intervals"]

# Resample weights are drawn in blocks so that memory stays bounded for large suites
# (2,000 resamples of 10,000 cases would otherwise be one 160 MB array).
_BLOCK_CELLS = 2_000_000


@dataclass(frozen=True, slots=True)
class RankInterval:
    """A model's bootstrap rank interval: its rank lies in `low..high` (1 is the best).

    Examples:
        >>> RankInterval(1, 2).label
        '1-2'
        >>> RankInterval(3, 3).label
        '3'
    """

    low: int
    """The best rank the draws support."""
    high: int
    """The worst rank the draws support."""
    level: float = 0.95
    """Confidence level."""

    @property
    def label(self) -> str:
        """`low-high`, or one number when they are equal."""
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"

    def overlaps(self, other: RankInterval) -> bool:
        """Whether the two intervals share a rank."""
        return self.low <= other.high and other.low <= self.high

    def to_dict(self) -> JsonObject:
        """Return the interval as a JSON object."""
        return {"low": self.low, "high": self.high, "level": self.level}


def rank_intervals(
    outcomes: Sequence[Mapping[str, bool]],
    *,
    level: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[RankInterval, ...]:
    """Each model's bootstrap rank interval over the suite's cases (see the module docstring).

    Args:
        outcomes: per model, whether it passed each case it has, by case id; the cases
            resampled are every case id any model has.
        level: confidence level of each interval (0.95: the 2.5th and 97.5th percentiles).
        resamples: number of bootstrap draws (at least 100).
        seed: seed of `numpy.random.default_rng` (at least 0).

    Returns:
        One interval per model, in the order given.

    Raises:
        ValueError: a model without any case, a level outside (0, 1), fewer than 100
            resamples, or a negative seed.

    Examples:
        >>> far_ahead = {f"c{i}": True for i in range(30)}
        >>> behind = {f"c{i}": i % 3 == 0 for i in range(30)}
        >>> [r.label for r in rank_intervals([behind, far_ahead])]
        ['2', '1']
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if resamples < 100:
        raise ValueError(f"need at least 100 resamples, got {resamples}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    empty = [k for k, model in enumerate(outcomes) if not model]
    if empty:
        raise ValueError(f"model(s) at index {empty} have no case")
    if not outcomes:
        return ()
    import numpy as np  # deferred: numpy costs ~90 ms at import

    ids = sorted(set().union(*outcomes))
    has = np.array([[i in model for i in ids] for model in outcomes], dtype=np.float64)
    passed = np.array([[bool(model.get(i)) for i in ids] for model in outcomes], dtype=np.float64)
    ranks = np.concatenate(
        [_ranks(w @ passed.T, w @ has.T) for w in _weights(len(ids), resamples, seed)]
    )
    tail = (1.0 - level) / 2.0
    low = np.nanquantile(ranks, tail, axis=0, method="lower")
    high = np.nanquantile(ranks, 1.0 - tail, axis=0, method="higher")
    return tuple(RankInterval(int(lo), int(hi), level) for lo, hi in zip(low, high, strict=True))


def _weights(n: int, resamples: int, seed: int) -> Iterator[Any]:
    """How often each of `n` cases is drawn, per resample: blocks of (draws, n) counts."""
    import numpy as np  # deferred: numpy costs ~90 ms at import

    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_CELLS // n)
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        yield rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(np.float64)


def _ranks(passed: Any, has: Any) -> Any:
    """Competition ranks per draw, from (draws, models) passed and scored counts.

    A model without a drawn case has accuracy NaN there: its rank is NaN, and NaN is
    never greater than another accuracy, so it outranks no one.
    """
    import numpy as np  # deferred: numpy costs ~90 ms at import

    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = passed / has
    higher = (accuracy[:, None, :] > accuracy[:, :, None]).sum(axis=2)
    return np.where(np.isnan(accuracy), np.nan, 1.0 + higher)
