"""Comparing two runs: baseline vs candidate, with a regression verdict.

Several runs side by side are `toolgrade.compare._many`'s; both reduce a run to one
outcome per case with `toolgrade.compare._outcomes`.

Two runs are compared **case by case**: only case ids that were scored in both runs
(not `timeout`/`error` in either) form pairs, and every number of a `Comparison` -- both
accuracies, the delta and its interval, the flips, McNemar's test and the per-category and
per-tool deltas -- is computed over those pairs, so they always agree with each other.

When a case ran several times (`--repeat`), it is reduced to one outcome per run by
majority: it passed when more than half of its scored repetitions were correct (a tie
counts as a failure, the cautious reading); its status is `correct` when it passed,
otherwise the most frequent failing status (earliest repetition wins a tie).

The verdict is one of four (`regression`, `improvement`, `equivalent`, `inconclusive`),
by the rule of `toolgrade.compare._verdict`; every comparison also carries its minimum
detectable effect (`toolgrade.power.minimum_detectable_effect` at the observed
discordance) and, when inconclusive, about how many cases would tell.

Two runs of the same settings (`toolgrade.compare._noise.settings_differences` finds
nothing: same model, suite content, request settings and server) are labelled so: their
flips are the noise floor. When the baseline or candidate has repeats, or the runs are
of the same settings, the flips are weighed against the measured noise floor
(`Comparison.noise`).

When the runs' suite hashes differ, a warning is logged and only shared case ids are
compared (`suite_hash_differs` is set, `shared_cases` says how many).

Conversations are cases like any other here. The paired conversations also get their
own section (`Comparison.conversations`), paired by the same rule over the conversation
ids alone, with its own verdict and minimum detectable effect (the same rule, threshold
and alpha over the paired conversations: a change can be clear over every case and not
over the fewer conversations, or the other way round), and on top:

- **per-turn deltas**: the accuracy of each turn position in each run, over every
  scored try of the paired conversations (a turn never reached counts as failed);
- **error compounding**: when the two runs differ only in mode (same model and suite,
  one run `on_policy` and the other `teacher_forced`), the on-policy accuracy against
  the teacher-forced accuracy over the paired conversations. Teacher forcing restarts
  every turn from the reference, so the gap is how much an early mistake costs later
  turns.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from toolgrade._core.transcript import ConversationMode, ConversationRecord
from toolgrade.compare._comparison import Comparison, Delta, Flip
from toolgrade.compare._conversation_comparison import ConversationComparison, ModeGap, TurnDelta
from toolgrade.compare._noise import noise_check, settings_differences
from toolgrade.compare._outcomes import (
    Outcome,
    case_outcomes,
    group_rates,
    run_label,
    tool_keys,
)
from toolgrade.compare._served import serving_comparison
from toolgrade.compare._verdict import cases_to_tell, decide, equivalence_interval, verdict_for
from toolgrade.errors import BaselineError
from toolgrade.metrics import Rate, TurnAccuracy, modes_present, per_turn_accuracy, rate_of
from toolgrade.power import minimum_detectable_effect
from toolgrade.results import RunResult
from toolgrade.stats import mcnemar_exact, paired_difference_interval

__all__ = ["compare_runs"]

logger = logging.getLogger("toolgrade.compare")


@dataclass(frozen=True, slots=True)
class _Paired:
    """Two runs' outcomes over some paired case ids: both rates, flips, McNemar's test."""

    ids: Sequence[str]
    fixed: tuple[str, ...]
    """Failed in the baseline, passed in the candidate."""
    broken: tuple[str, ...]
    """Passed in the baseline, failed in the candidate."""
    both: int
    """Passed in both."""

    @classmethod
    def of(
        cls, base: Mapping[str, Outcome], cand: Mapping[str, Outcome], ids: Sequence[str]
    ) -> _Paired:
        fixed = tuple(i for i in ids if cand[i].passed and not base[i].passed)
        broken = tuple(i for i in ids if base[i].passed and not cand[i].passed)
        both = sum(base[i].passed and cand[i].passed for i in ids)
        return cls(ids, fixed, broken, both)

    @property
    def neither(self) -> int:
        return len(self.ids) - self.both - len(self.fixed) - len(self.broken)

    @property
    def rates(self) -> tuple[Rate, Rate]:
        n = len(self.ids)
        return rate_of(self.both + len(self.broken), n), rate_of(self.both + len(self.fixed), n)

    @property
    def delta(self) -> float:
        return (len(self.fixed) - len(self.broken)) / len(self.ids)

    @property
    def p_value(self) -> float:
        return mcnemar_exact(len(self.broken), len(self.fixed))

    @property
    def discordance(self) -> float:
        return (len(self.fixed) + len(self.broken)) / len(self.ids)


def _shared(
    baseline: RunResult, candidate: RunResult
) -> tuple[dict[str, Outcome], dict[str, Outcome], list[str]]:
    base, cand = case_outcomes(baseline), case_outcomes(candidate)
    if baseline.suite_hash != candidate.suite_hash:
        logger.warning(
            "runs %s and %s used different suites (hash %s vs %s); comparing shared cases only",
            baseline.run_id,
            candidate.run_id,
            baseline.suite_hash,
            candidate.suite_hash,
        )
    ids = sorted(base.keys() & cand.keys())
    if not ids:
        raise BaselineError(
            f"runs {baseline.run_id} and {candidate.run_id} have no scored case in common"
        )
    return base, cand, ids


def compare_runs(
    baseline: RunResult,
    candidate: RunResult,
    *,
    threshold: float = 2.0,
    alpha: float = 0.05,
    power: float = 0.8,
) -> Comparison:
    """Compare a candidate run with a baseline run, case by case.

    Args:
        baseline: the reference run.
        candidate: the run under test.
        threshold: accuracy drop (or rise), in percentage points, that matters.
        alpha: significance level of McNemar's exact test (and of each of the two
            one-sided tests of equivalence).
        power: the power of the minimum detectable effect and of the cases that would
            tell an inconclusive verdict.

    Returns:
        The comparison and its verdict, with the conversations section when some paired
        case is a conversation in both runs.

    Raises:
        BaselineError: the runs have no scored case in common.

    Examples:
        >>> c = compare_runs(baseline_run, candidate_run)  # doctest: +SKIP
        >>> c.verdict  # doctest: +SKIP
        'inconclusive'
    """
    base, cand, ids = _shared(baseline, candidate)
    paired = _Paired.of(base, cand, ids)
    base_rate, cand_rate = paired.rates
    delta, p_value = paired.delta, paired.p_value
    table = (paired.both, len(paired.broken), len(paired.fixed), paired.neither)
    equivalence = equivalence_interval(*table, alpha=alpha)
    verdict = verdict_for(delta, p_value, threshold=threshold, alpha=alpha, equivalence=equivalence)
    differences = settings_differences(baseline, candidate)
    return Comparison(
        baseline_id=baseline.run_id,
        candidate_id=candidate.run_id,
        baseline_label=run_label(baseline),
        candidate_label=run_label(candidate),
        shared_cases=len(ids),
        suite_hash_differs=baseline.suite_hash != candidate.suite_hash,
        baseline_accuracy=base_rate,
        candidate_accuracy=cand_rate,
        delta=delta,
        delta_interval=paired_difference_interval(*table),
        fixed=tuple(_flip(i, base, cand) for i in paired.fixed),
        broken=tuple(_flip(i, base, cand) for i in paired.broken),
        p_value=p_value,
        verdict=verdict,
        threshold=threshold,
        alpha=alpha,
        by_category=_deltas(base, cand, ids, lambda o: (o.category,)),
        by_tool=_deltas(base, cand, ids, tool_keys),
        baseline_suite_hash=baseline.suite_hash,
        candidate_suite_hash=candidate.suite_hash,
        conversations=_conversations(
            baseline, candidate, (base, cand, ids), threshold=threshold, alpha=alpha, power=power
        ),
        equivalence_interval=equivalence,
        mde=minimum_detectable_effect(len(ids), paired.discordance, alpha=alpha, power=power),
        power=power,
        cases_to_tell=cases_to_tell(
            verdict,
            delta,
            paired.discordance,
            len(ids),
            threshold=threshold,
            alpha=alpha,
            power=power,
        ),
        same_settings=not differences,
        settings_differences=differences,
        noise=noise_check(
            baseline,
            candidate,
            same_settings=not differences,
            flipped=len(paired.fixed) + len(paired.broken),
            shared=len(ids),
            delta=delta,
            threshold=threshold,
            alpha=alpha,
            power=power,
        ),
        serving=serving_comparison(
            baseline, candidate, (base, cand, ids), threshold=threshold, alpha=alpha, power=power
        ),
    )


def _flip(case_id: str, base: Mapping[str, Outcome], cand: Mapping[str, Outcome]) -> Flip:
    return Flip(case_id, base[case_id].status, cand[case_id].status)


def _deltas(
    base: Mapping[str, Outcome],
    cand: Mapping[str, Outcome],
    ids: Sequence[str],
    keys_of: Callable[[Outcome], Iterable[str]],
) -> tuple[Delta, ...]:
    base_rates = group_rates([base[i] for i in ids], keys_of)
    cand_rates = group_rates([cand[i] for i in ids], keys_of)
    tables: dict[str, list[int]] = {}
    for i in ids:
        both = (base[i].passed, cand[i].passed)
        cell = {(True, True): 0, (True, False): 1, (False, True): 2, (False, False): 3}[both]
        for key in keys_of(base[i]):
            tables.setdefault(key, [0, 0, 0, 0])[cell] += 1
    rows = []
    for key in sorted(base_rates.keys() | cand_rates.keys()):
        b, c = base_rates.get(key), cand_rates.get(key)
        table = tables.get(key)
        interval = paired_difference_interval(*table) if table else None
        rows.append(Delta(key, b, c, c.rate - b.rate if b and c else None, interval))
    return tuple(rows)


def _conversations(
    baseline: RunResult,
    candidate: RunResult,
    outcomes: tuple[Mapping[str, Outcome], Mapping[str, Outcome], Sequence[str]],
    *,
    threshold: float,
    alpha: float,
    power: float,
) -> ConversationComparison | None:
    """The conversations section: the paired ids that are a conversation in both runs.

    Its verdict and minimum detectable effect follow the whole comparison's rule, over
    the paired conversations alone.
    """
    base, cand, ids = outcomes
    talks = {r.case_id for r in baseline.results if r.conversation is not None}
    talks &= {r.case_id for r in candidate.results if r.conversation is not None}
    shared = [i for i in ids if i in talks]
    if not shared:
        return None
    paired = _Paired.of(base, cand, shared)
    rates = paired.rates
    base_records, cand_records = _records(baseline, set(shared)), _records(candidate, set(shared))
    modes = modes_present(base_records), modes_present(cand_records)
    table = (paired.both, len(paired.broken), len(paired.fixed), paired.neither)
    decision = decide(*table, threshold=threshold, alpha=alpha, power=power)
    return ConversationComparison(
        shared=len(shared),
        baseline_accuracy=rates[0],
        candidate_accuracy=rates[1],
        delta=paired.delta,
        p_value=paired.p_value,
        baseline_progress=_mean_progress(base_records),
        candidate_progress=_mean_progress(cand_records),
        per_turn=_turn_deltas(per_turn_accuracy(base_records), per_turn_accuracy(cand_records)),
        baseline_modes=modes[0],
        candidate_modes=modes[1],
        mode_gap=_mode_gap(baseline, candidate, modes, rates),
        fixed=len(paired.fixed),
        broken=len(paired.broken),
        delta_interval=decision.delta_interval,
        verdict=decision.verdict,
        threshold=threshold,
        alpha=alpha,
        equivalence_interval=decision.equivalence,
        mde=decision.mde,
        power=power,
        cases_to_tell=decision.cases_to_tell,
    )


def _records(run: RunResult, ids: set[str]) -> list[ConversationRecord]:
    """The scored conversation records of `run` whose case id is in `ids`."""
    return [
        r.conversation
        for r in run.results
        if r.conversation is not None and r.status.scored and r.case_id in ids
    ]


def _mean_progress(records: Sequence[ConversationRecord]) -> float:
    return sum(c.progress for c in records) / len(records) if records else 0.0


def _turn_deltas(
    base: Sequence[TurnAccuracy], cand: Sequence[TurnAccuracy]
) -> tuple[TurnDelta, ...]:
    rows = []
    for i in range(max(len(base), len(cand))):
        b = base[i].rate if i < len(base) and base[i].rate.n else None
        c = cand[i].rate if i < len(cand) and cand[i].rate.n else None
        rows.append(TurnDelta(i, b, c, c.rate - b.rate if b and c else None))
    return tuple(rows)


def _mode_gap(
    baseline: RunResult,
    candidate: RunResult,
    modes: tuple[tuple[ConversationMode, ...], tuple[ConversationMode, ...]],
    rates: tuple[Rate, Rate],
) -> ModeGap | None:
    """The gap when one run is all on-policy, the other all teacher-forced, else None.

    Anything else that differs (the model, the suite) would be mixed into the gap, so
    then there is none to report.
    """
    if baseline.model != candidate.model or baseline.suite_hash != candidate.suite_hash:
        return None
    if modes == (("on_policy",), ("teacher_forced",)):
        return ModeGap(rates[0], rates[1], rates[1].rate - rates[0].rate, "baseline")
    if modes == (("teacher_forced",), ("on_policy",)):
        return ModeGap(rates[1], rates[0], rates[0].rate - rates[1].rate, "candidate")
    return None
