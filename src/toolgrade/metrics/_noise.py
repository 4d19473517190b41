"""The noise floor of a run made with `--repeat K`: the cases whose tries disagreed.

Nothing changes between the tries of one case (same model, server, settings and
prompt), so a case whose tries gave different verdicts *flipped with nothing changed*:
the share of such cases is the run's noise floor. Its companion, the flip rate, is the
chance that two tries of a case disagree (`toolgrade.power.flip_rate`): the share of
cases expected to flip between two runs of identical settings, one try each, the
number `toolgrade plan` and `compare` weigh a difference against.

A run made at temperature 0 (the request's temperature, an extra `temperature` option
winning over the setting, as the backends send it) whose cases still flip shows that
the server is not deterministic; `NoiseFloor.determinism_note` says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.metrics._repeats import CaseConsistency, consistency
from toolgrade.power import flip_rate
from toolgrade.results import CaseResult

__all__ = ["NoiseFloor", "noise_floor", "request_temperature"]


@dataclass(frozen=True, slots=True)
class NoiseFloor:
    """How many cases gave different verdicts across their tries, with nothing changed."""

    tries: int
    """Tries per case (the run's `--repeat`)."""
    cases: int
    """Cases with at least two scored tries (the others cannot flip)."""
    flipped: tuple[str, ...]
    """The ids of the cases whose scored tries did not all have the same verdict, in the
    order the cases first appear."""
    flip_rate: float
    """The chance that two tries of a case disagree, averaged over the cases
    (`toolgrade.power.flip_rate`): the share of cases expected to flip between two runs
    of identical settings."""
    temperature: float | None = None
    """The temperature the run's requests were sent with (None when it records none)."""

    @property
    def share(self) -> float:
        """The share of cases that flipped, `len(flipped) / cases`."""
        return len(self.flipped) / self.cases if self.cases else 0.0

    @property
    def not_deterministic(self) -> bool:
        """True when the run was made at temperature 0 and cases still flipped."""
        return self.temperature == 0.0 and bool(self.flipped)

    def summary(self) -> str:
        """`3 of 10 cases (30.0%) gave different verdicts across 3 tries`.

        Examples:
            >>> NoiseFloor(3, 10, ("a", "b", "c"), 0.2).summary()
            '3 of 10 cases (30.0%) gave different verdicts across 3 tries'
        """
        return (
            f"{len(self.flipped)} of {self.cases} cases ({self.share:.1%}) gave different"
            f" verdicts across {self.tries} tries"
        )

    def determinism_note(self) -> str | None:
        """`temperature 0, yet 7 cases flipped: this server is not deterministic`, or None.

        Examples:
            >>> NoiseFloor(3, 10, ("a",), 0.1, temperature=0.0).determinism_note()
            'temperature 0, yet 1 case flipped: this server is not deterministic'
            >>> NoiseFloor(3, 10, ("a",), 0.1, temperature=0.7).determinism_note() is None
            True
        """
        if not self.not_deterministic:
            return None
        n = len(self.flipped)
        return (
            f"temperature 0, yet {n} case{'' if n == 1 else 's'} flipped:"
            " this server is not deterministic"
        )

    def to_dict(self) -> JsonObject:
        """Return the noise floor as a JSON object."""
        return {
            "tries": self.tries,
            "cases": self.cases,
            "flipped": len(self.flipped),
            "share": self.share,
            "flip_rate": self.flip_rate,
            "flipped_cases": list(self.flipped),
            "temperature": self.temperature,
            "not_deterministic": self.not_deterministic,
        }


def request_temperature(backend: Mapping[str, JsonValue]) -> float | None:
    """The temperature a run's requests were sent with, from its recorded settings.

    An extra `temperature` option wins over the setting, as the backends send it; None
    when the run records no temperature (a replay, a Python function).

    Examples:
        >>> request_temperature({"temperature": 0.0, "options": {"temperature": 0.7}})
        0.7
        >>> request_temperature({"provider": "replay"}) is None
        True
    """
    options = backend.get("options")
    value = options.get("temperature") if isinstance(options, dict) else None
    if value is None:
        value = backend.get("temperature")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def noise_floor(
    scored: Sequence[CaseResult],
    tries: int,
    *,
    temperature: float | None = None,
    per_case: Sequence[CaseConsistency] | None = None,
) -> NoiseFloor | None:
    """The noise floor of a run's scored results.

    Args:
        scored: the run's scored results (every try of every case).
        tries: tries per case (the run's `--repeat`).
        temperature: the run's request temperature (`request_temperature`).
        per_case: `consistency(scored)` when already computed.

    Returns:
        The noise floor, or None when no case has two scored tries.

    Examples:
        >>> noise_floor(run_results, 3)  # doctest: +SKIP
        NoiseFloor(tries=3, cases=10, flipped=('TC-004', 'TC-007', 'TC-009'), ...)
    """
    rows = consistency(scored) if per_case is None else per_case
    repeated = [c for c in rows if c.runs >= 2]
    rate = flip_rate((c.passed, c.runs) for c in repeated)
    if rate is None:
        return None
    return NoiseFloor(
        tries=tries,
        cases=len(repeated),
        flipped=tuple(c.case_id for c in repeated if c.agreement < 1.0),
        flip_rate=rate,
        temperature=temperature,
    )
