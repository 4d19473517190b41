"""Two runs against the noise floor: runs of the same settings, and runs with repeats.

**Same settings.** Two runs are of the same settings when everything a run records
that decides its results is equal: the model, the suite's content, the rubric, the
profile, the repeats, the request settings that change what a model answers
(`REQUEST_SETTINGS`; the server's address, `max_retries` and the endpoints say only
where and how patiently to ask) and what the server said of its build and weights
(`SERVER_IDENTITY`; a `system_fingerprint` may change from one request to the next and
is left out). Nothing changed between such runs, so every case that flipped between
them flipped by chance: the comparison *is* a measurement of the noise floor.

**Repeats.** A run made with `--repeat K` measures its own noise floor
(`toolgrade.metrics.NoiseFloor`): its flip rate is the chance that two tries of a case
disagree, the share of cases expected to flip between two identical runs of one try
each. A comparison whose baseline or candidate has repeats weighs its flips against that
rate (the two runs' rates pooled over their cases when both have repeats), and says how
many tries per case would detect the change that matters
(`toolgrade.power.repeats_needed`, the computation `toolgrade plan` makes): the
observed change when it reaches the threshold, else the threshold. The runs' majority
outcomes flip less often than single tries do, so the flip rate is the noise floor of
one try per case, an upper reading of the noise in the outcomes compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.metrics import NoiseFloor, noise_floor, request_temperature
from toolgrade.power import repeats_needed
from toolgrade.results import RunResult

__all__ = [
    "REQUEST_SETTINGS",
    "SERVER_IDENTITY",
    "NoiseCheck",
    "noise_check",
    "run_noise",
    "settings_differences",
]

REQUEST_SETTINGS = (
    "temperature",
    "seed",
    "mode",
    "timeout",
    "max_tokens",
    "stream",
    "options",
    "prompt_format",
)
"""The recorded request settings (`RunResult.backend`) that change what a model answers."""

SERVER_IDENTITY = ("server", "server_version", "ollama_version", "model_digest")
"""What a server says of its build and weights (`RunResult.server`)."""


@dataclass(frozen=True, slots=True)
class NoiseCheck:
    """A comparison's flips weighed against the noise floor."""

    flip_rate: float
    """The noise floor: the share of cases expected to flip between two identical runs
    of one try each (from the runs' repeats, else the flips of two same-settings runs)."""
    source: str
    """Where `flip_rate` comes from, e.g. `the baseline's 3 tries per case`."""
    flipped: int
    """Paired cases that flipped in this comparison."""
    shared: int
    """Paired cases."""
    change: float
    """The change `repeats_to_tell` is for, a fraction: the observed change when it
    reaches the threshold, else the threshold."""
    repeats_to_tell: int | None
    """Tries per case that would detect `change` at the comparison's power (None: no
    number of tries would; the real differences between cases need more cases)."""
    baseline: NoiseFloor | None = None
    """The baseline's own noise floor (None without repeats)."""
    candidate: NoiseFloor | None = None
    """The candidate's own noise floor (None without repeats)."""

    @property
    def expected_flips(self) -> float:
        """The paired cases expected to flip from noise alone, `flip_rate · shared`."""
        return self.flip_rate * self.shared

    @property
    def within_noise(self) -> bool:
        """True when no more cases flipped than the noise floor alone would flip."""
        return self.flipped <= self.expected_flips + 1e-9

    def describe(self) -> str:
        """The noise floor in words, beside the comparison's own flips."""
        share = self.flipped / self.shared if self.shared else 0.0
        reading = (
            "no more than noise alone would flip"
            if self.within_noise
            else "more than noise alone would flip"
        )
        return (
            f"Noise floor: {self.flip_rate:.1%} of cases flip between identical runs"
            f" ({self.source}); {self.flipped} of {self.shared} paired cases flipped here"
            f" ({share:.1%}, about {self.expected_flips:.0f} expected from noise): {reading}"
        )

    def repeats_text(self) -> str:
        """How many tries per case would detect the change that matters."""
        points = f"{self.change * 100:.1f} points"
        if self.repeats_to_tell is None:
            return (
                f"Repeats: no number of tries per case would detect {points}: the real"
                " differences between cases need more cases, not more tries"
            )
        tries = self.repeats_to_tell
        return (
            f"Repeats: {tries} tr{'y' if tries == 1 else 'ies'} per case would detect"
            f" {points} (tries averaged, Miller 2024)"
        )

    def to_dict(self) -> JsonObject:
        """Return the check as a JSON object."""
        return {
            "flip_rate": self.flip_rate,
            "source": self.source,
            "flipped": self.flipped,
            "shared": self.shared,
            "expected_flips": self.expected_flips,
            "within_noise": self.within_noise,
            "change": self.change,
            "repeats_to_tell": self.repeats_to_tell,
            "baseline": self.baseline.to_dict() if self.baseline is not None else None,
            "candidate": self.candidate.to_dict() if self.candidate is not None else None,
        }


def _recorded(values: Mapping[str, JsonValue], keys: tuple[str, ...]) -> dict[str, JsonValue]:
    return {key: values.get(key) for key in keys}


def settings_differences(baseline: RunResult, candidate: RunResult) -> tuple[str, ...]:
    """What differs between two runs' recorded settings (empty: the same settings).

    Examples:
        >>> settings_differences(run_a, run_b)  # doctest: +SKIP
        ('temperature 0.0 -> 0.7',)
    """
    pairs: dict[str, tuple[object, object]] = {
        "model": (baseline.model, candidate.model),
        "suite content": (baseline.suite_hash, candidate.suite_hash),
        "rubric": (baseline.rubric, candidate.rubric),
        "profile": (baseline.profile, candidate.profile),
        "repeat": (baseline.repeat, candidate.repeat),
    }
    for source, keys in (("backend", REQUEST_SETTINGS), ("server", SERVER_IDENTITY)):
        base = _recorded(getattr(baseline, source), keys)
        cand = _recorded(getattr(candidate, source), keys)
        pairs |= {key: (base[key], cand[key]) for key in keys}
    return tuple(f"{key} {b!r} -> {c!r}" for key, (b, c) in pairs.items() if b != c)


def run_noise(run: RunResult) -> NoiseFloor | None:
    """A run's own noise floor from its repeats (None without them)."""
    scored = [r for r in run.results if r.status.scored]
    tries = max([run.repeat, *(r.repeat + 1 for r in run.results)])
    if tries < 2:
        return None
    return noise_floor(scored, tries, temperature=request_temperature(run.backend))


def noise_check(
    baseline: RunResult,
    candidate: RunResult,
    *,
    same_settings: bool,
    flipped: int,
    shared: int,
    delta: float,
    threshold: float,
    alpha: float,
    power: float,
) -> NoiseCheck | None:
    """Weigh a comparison's flips against the measured noise floor.

    Args:
        baseline: the baseline run.
        candidate: the candidate run.
        same_settings: whether the runs are of the same settings (`settings_differences`
            is empty): then, without repeats, their own flips are the noise floor.
        flipped: paired cases that flipped.
        shared: paired cases.
        delta: the observed change, a fraction.
        threshold: the change that matters, in points.
        alpha: the significance level.
        power: the power of `repeats_to_tell`.

    Returns:
        The check, or None when nothing measures the noise (no repeats, other settings).
    """
    if shared <= 0:
        return None
    base, cand = run_noise(baseline), run_noise(candidate)
    measured = [(side, n) for side, n in (("baseline", base), ("candidate", cand)) if n is not None]
    if measured:
        cases = sum(n.cases for _, n in measured)
        rate = sum(n.flip_rate * n.cases for _, n in measured) / cases
        source = " and ".join(f"the {side}'s {n.tries} tries per case" for side, n in measured)
    elif same_settings:
        rate, source = flipped / shared, "these two runs of the same settings"
    else:
        return None
    discordance = flipped / shared
    change = max(abs(delta), threshold / 100.0)
    return NoiseCheck(
        flip_rate=rate,
        source=source,
        flipped=flipped,
        shared=shared,
        change=change,
        repeats_to_tell=repeats_needed(
            shared, change, max(discordance, change), rate, alpha=alpha, power=power
        ),
        baseline=base,
        candidate=cand,
    )
