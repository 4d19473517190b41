"""Run metrics: pure functions from a `RunResult` to numbers with intervals.

Definitions (docs/metrics.md has the long form):

- **Scored** results are those whose status is not `timeout` or `error`: a model that
  never answered gives no evidence about its tool calling. They are counted and shown,
  never scored.
- **Accuracy** = correct / scored, with a 95% Wilson interval.
- **Mean score** = mean rubric score over scored results, with a seeded percentile
  bootstrap interval (the same run and seed always give the same interval).
- **Call-level precision / recall / F1** pool every scored result: precision = correct
  calls / actual calls, recall = correct calls / expected calls.
- **Breakdowns** by category, tool, difficulty and tag, over scored results. A result
  counts once for each distinct tool of its case's **primary** expectation, whichever
  alternative it matched, so a case always counts for the same tools; results where no
  call was expected form the row `(no call)`.
- **Repeats** (a case run k times): with k > 1, per-case consistency and pass^k.
  With repeats, accuracy counts every repetition as a trial.
- **Latency** p50/p95 over the results that have one.
- **Conversations** (only when the run has some): `RunMetrics.conversations`, see
  `toolgrade._conversation_metrics`.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from toolgrade._conversation_metrics import (
    ConversationMetrics,
    PassHatK,
    TurnAccuracy,
    conversation_metrics,
)
from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.results import CaseResult, RunResult, Status
from toolgrade.stats import Interval, Rate, bootstrap_mean_interval, rate_of

__all__ = [
    "NO_CALL_KEY",
    "NO_VALUE_KEY",
    "Breakdown",
    "CaseConsistency",
    "ConversationMetrics",
    "PassHatK",
    "Rate",
    "RunMetrics",
    "TurnAccuracy",
    "case_tools",
    "compute_metrics",
    "rate_of",
]

NO_CALL_KEY = "(no call)"
"""The tool-breakdown row of cases where no tool call was expected."""
NO_VALUE_KEY = "(none)"
"""The breakdown row of cases with an empty category or difficulty."""

_DIFFICULTY_ORDER = {"easy": 0, "medium": 1, "hard": 2}


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Accuracy of one group of results (one category, tool, difficulty or tag)."""

    key: str
    """The group's name."""
    rate: Rate
    """Accuracy within the group."""
    mean_score: float
    """Mean rubric score within the group."""

    def to_dict(self) -> JsonObject:
        """Return the row as a JSON object."""
        return {"key": self.key, **self.rate.to_dict(), "mean_score": self.mean_score}


@dataclass(frozen=True, slots=True)
class CaseConsistency:
    """How one case behaved over its repetitions."""

    case_id: str
    """The case."""
    runs: int
    """Scored repetitions."""
    passed: int
    """Correct repetitions."""
    agreement: float
    """Share of repetitions with the case's majority outcome (1.0 = always the same)."""

    def to_dict(self) -> JsonObject:
        """Return the row as a JSON object."""
        return {
            "case_id": self.case_id,
            "runs": self.runs,
            "passed": self.passed,
            "agreement": self.agreement,
        }


@dataclass(frozen=True, slots=True)
class RunMetrics:
    """Every number reported about one run."""

    total: int
    """All results (every case and repetition), scored or not."""
    scored: int
    """Results other than `timeout` and `error`."""
    passed: int
    """Scored results with status `correct`."""
    failed: int
    """Scored results with any other status."""
    timeouts: int
    """Results with status `timeout` (not scored)."""
    errors: int
    """Results with status `error` (not scored)."""
    accuracy: Rate
    """passed / scored, with a Wilson interval."""
    mean_score: float
    """Mean rubric score over scored results."""
    mean_score_interval: Interval
    """Seeded percentile-bootstrap interval of the mean score."""
    precision: float
    """Correct calls / actual calls, over scored results."""
    recall: float
    """Correct calls / expected calls, over scored results."""
    f1: float
    """Harmonic mean of precision and recall."""
    status_counts: dict[str, int]
    """Count of every status (all statuses present, zeros included)."""
    by_category: tuple[Breakdown, ...]
    """Accuracy per category."""
    by_tool: tuple[Breakdown, ...]
    """Accuracy per tool of the cases' primary expectations; `(no call)` for cases
    expecting none."""
    by_difficulty: tuple[Breakdown, ...]
    """Accuracy per difficulty (easy, medium, hard, then others)."""
    by_tag: tuple[Breakdown, ...]
    """Accuracy per tag."""
    repeats: int
    """Repetitions per case."""
    consistency: float | None
    """Share of cases whose repetitions all had the same outcome (None without repeats)."""
    pass_hat_k: float | None
    """pass^k with k = `repeats`: chance that all k tries pass (None without repeats)."""
    latency_p50_ms: float | None
    """Median latency per result (None when no latency was recorded)."""
    latency_p95_ms: float | None
    """95th-percentile latency per result."""
    per_case_consistency: tuple[CaseConsistency, ...] = ()
    """Per-case detail behind `consistency` (empty without repeats)."""
    seed: int = 0
    """Seed of the bootstrap intervals."""
    conversations: ConversationMetrics | None = None
    """The conversations' own numbers (None when the run has no conversation)."""

    def to_dict(self) -> JsonObject:
        """Return every metric as a JSON object (breakdowns as lists of rows)."""

        def rows(items: Iterable[Breakdown | CaseConsistency]) -> list[JsonValue]:
            return [item.to_dict() for item in items]

        data: JsonObject = {
            "total": self.total,
            "scored": self.scored,
            "passed": self.passed,
            "failed": self.failed,
            "timeouts": self.timeouts,
            "errors": self.errors,
            "accuracy": self.accuracy.to_dict(),
            "mean_score": self.mean_score,
            "mean_score_interval": self.mean_score_interval.to_dict(),
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "status_counts": dict(self.status_counts),
            "by_category": rows(self.by_category),
            "by_tool": rows(self.by_tool),
            "by_difficulty": rows(self.by_difficulty),
            "by_tag": rows(self.by_tag),
            "repeats": self.repeats,
            "consistency": self.consistency,
            "pass_hat_k": self.pass_hat_k,
            "per_case_consistency": rows(self.per_case_consistency),
            "latency_p50_ms": self.latency_p50_ms,
            "latency_p95_ms": self.latency_p95_ms,
            "seed": self.seed,
        }
        # Left out when absent, so single-case runs serialize exactly as before.
        if self.conversations is not None:
            data["conversations"] = self.conversations.to_dict()
        return data


def compute_metrics(run: RunResult, *, seed: int = 0) -> RunMetrics:
    """Compute every metric of a run.

    Args:
        run: the run.
        seed: seed of the bootstrap interval of the mean score.

    Returns:
        The metrics.

    Examples:
        >>> m = compute_metrics(run)  # doctest: +SKIP
        >>> f"{m.accuracy.rate:.1%}"  # doctest: +SKIP
        '84.0%'
    """
    import numpy as np  # deferred: numpy costs ~90 ms at import

    results = run.results
    scored = [r for r in results if r.status.scored]
    passed = sum(r.status is Status.CORRECT for r in scored)
    counts = Counter(r.status for r in results)
    scores = [r.score for r in scored]
    precision, recall, f1 = _call_level(scored)
    repeats = max([run.repeat, *(r.repeat + 1 for r in results)])
    per_case = _consistency(scored) if repeats > 1 else ()
    p50, p95 = _latency(results)
    return RunMetrics(
        total=len(results),
        scored=len(scored),
        passed=passed,
        failed=len(scored) - passed,
        timeouts=counts[Status.TIMEOUT],
        errors=counts[Status.ERROR],
        accuracy=rate_of(passed, len(scored)),
        mean_score=float(np.mean(scores)) if scores else 0.0,
        mean_score_interval=bootstrap_mean_interval(scores, seed=seed),
        precision=precision,
        recall=recall,
        f1=f1,
        status_counts={s.value: counts[s] for s in Status if counts[s] or not s.conversational},
        by_category=_breakdown(scored, lambda r: [r.category or NO_VALUE_KEY], _alpha_key),
        by_tool=_breakdown(scored, case_tools, _tool_key),
        by_difficulty=_breakdown(scored, lambda r: [r.difficulty or NO_VALUE_KEY], _difficulty_key),
        by_tag=_breakdown(scored, lambda r: r.tags, _alpha_key),
        repeats=repeats,
        consistency=_all_agree(per_case),
        pass_hat_k=_pass_hat_k(per_case, repeats) if per_case else None,
        latency_p50_ms=p50,
        latency_p95_ms=p95,
        per_case_consistency=per_case,
        seed=seed,
        conversations=conversation_metrics(results, repeats=repeats, seed=seed),
    )


def _mean(values: Sequence[float | bool]) -> float:
    return sum(values) / len(values) if values else 0.0


def _correct_calls(result: CaseResult) -> int:
    if result.pairs:
        return sum(p.verdict == "correct" for p in result.pairs)
    # A result built without pairs (e.g. by hand) is still counted sensibly.
    return len(result.expected) if result.status is Status.CORRECT else 0


def _call_level(scored: Sequence[CaseResult]) -> tuple[float, float, float]:
    """Pooled precision, recall and F1, with `score_calls`' conventions for empty sides."""
    correct = sum(_correct_calls(r) for r in scored)
    actual = sum(len(r.actual) for r in scored)
    expected = sum(len(r.expected) for r in scored)
    if not actual and not expected:
        return (1.0, 1.0, 1.0) if scored else (0.0, 0.0, 0.0)
    precision = correct / actual if actual else 0.0
    recall = correct / expected if expected else 0.0
    total = precision + recall
    return precision, recall, 2 * precision * recall / total if total else 0.0


def case_tools(result: CaseResult) -> tuple[str, ...]:
    """The tool-breakdown rows a result counts in: its case's primary expectation's tools.

    Filing by the primary expectation, not by the alternative that matched best
    (`CaseResult.expected`), keeps a case under the same tools in every run, so
    per-tool rows of two runs cover the same cases. Results recorded before
    `primary_tools` existed fall back to `expected`.

    Args:
        result: one judged case.

    Returns:
        The distinct tool names, or `(NO_CALL_KEY,)` when no call was expected.

    Examples:
        >>> from toolgrade import CaseResult, ToolCall
        >>> case_tools(CaseResult(case_id="c", status="correct", score=1.0, alternative=0,
        ...     expected=(ToolCall(name="run_command", arguments={}),),
        ...     primary_tools=("read_file",)))
        ('read_file',)
    """
    names = result.primary_tools
    if names is None:
        names = tuple(dict.fromkeys(call.name for call in result.expected))
    return names or (NO_CALL_KEY,)


def _alpha_key(key: str) -> tuple[int, str]:
    return (key == NO_VALUE_KEY, key)


def _tool_key(key: str) -> tuple[int, str]:
    return (key == NO_CALL_KEY, key)


def _difficulty_key(key: str) -> tuple[int, str]:
    return (_DIFFICULTY_ORDER.get(key, 3 + (key == NO_VALUE_KEY)), key)


def _breakdown(
    scored: Sequence[CaseResult],
    keys_of: Callable[[CaseResult], Iterable[str]],
    order: Callable[[str], tuple[int, str]],
) -> tuple[Breakdown, ...]:
    groups: dict[str, list[CaseResult]] = defaultdict(list)
    for result in scored:
        for key in keys_of(result):
            groups[key].append(result)
    rows = []
    for key in sorted(groups, key=order):
        members = groups[key]
        passed = sum(r.status is Status.CORRECT for r in members)
        rows.append(
            Breakdown(key, rate_of(passed, len(members)), _mean([r.score for r in members]))
        )
    return tuple(rows)


def _consistency(scored: Sequence[CaseResult]) -> tuple[CaseConsistency, ...]:
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for result in scored:
        outcomes[result.case_id].append(result.status is Status.CORRECT)
    rows = []
    for case_id, tries in outcomes.items():
        passed = sum(tries)
        agreement = max(passed, len(tries) - passed) / len(tries)
        rows.append(CaseConsistency(case_id, len(tries), passed, agreement))
    return tuple(rows)


def _all_agree(per_case: Sequence[CaseConsistency]) -> float | None:
    """Share of repeated cases (two or more scored tries) that never changed outcome."""
    repeated = [c.agreement == 1.0 for c in per_case if c.runs >= 2]
    return _mean(repeated) if repeated else None


def _pass_hat_k(per_case: Sequence[CaseConsistency], k: int) -> float | None:
    """tau-bench's unbiased pass^k: mean over cases of C(passed, k) / C(runs, k)."""
    eligible = [c for c in per_case if c.runs >= k]
    if not eligible:
        return None
    return _mean([math.comb(c.passed, k) / math.comb(c.runs, k) for c in eligible])


def _latency(results: Sequence[CaseResult]) -> tuple[float | None, float | None]:
    import numpy as np  # deferred: numpy costs ~90 ms at import

    values = [r.latency_ms for r in results if r.latency_ms is not None]
    if not values:
        return None, None
    p50, p95 = np.percentile(np.asarray(values, dtype=np.float64), [50, 95])
    return float(p50), float(p95)
