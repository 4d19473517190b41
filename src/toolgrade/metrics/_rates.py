"""Counts, rates and breakdowns: how many results passed, overall and per group.

The same counting serves the whole run and its conversations section (`Counts`): a
result is scored unless its status is `timeout` or `error`, and it passed when its
status is `correct`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject
from toolgrade.metrics._clustered import cluster_keys, cluster_totals, clustered_rate
from toolgrade.results import CaseResult, Status
from toolgrade.stats import Rate, rate_of

__all__ = [
    "Breakdown",
    "Counts",
    "NO_CALL_KEY",
    "NO_VALUE_KEY",
    "TOO_WIDE",
    "by_category",
    "by_difficulty",
    "by_tag",
    "by_tool",
    "call_level",
    "case_tools",
    "mean",
]

NO_CALL_KEY = "(no call)"
"""The tool-breakdown row of cases where no tool call was expected."""
NO_VALUE_KEY = "(none)"
"""The breakdown row of cases with an empty category or difficulty."""

TOO_WIDE = 0.40
"""A breakdown row whose interval is wider than this (40 points) is too few cases to tell:
it cannot tell a 50% group from a 90% one."""

_DIFFICULTY_ORDER = {"easy": 0, "medium": 1, "hard": 2}


def mean(values: Sequence[float | bool]) -> float:
    """The arithmetic mean; 0.0 without values."""
    return sum(values) / len(values) if values else 0.0


@dataclass(frozen=True, slots=True)
class Counts:
    """How some results ended: all of them, the scored ones, and how many passed."""

    total: int
    """Every result, scored or not."""
    scored: int
    """Results other than `timeout` and `error`."""
    passed: int
    """Scored results with status `correct`."""
    timeouts: int
    """Results with status `timeout` (not scored)."""
    errors: int
    """Results with status `error` (not scored)."""
    statuses: Counter[Status]
    """Results per status."""

    @property
    def accuracy(self) -> Rate:
        """Passed / scored, with a Wilson interval."""
        return rate_of(self.passed, self.scored)

    @classmethod
    def of(cls, results: Iterable[CaseResult]) -> Counts:
        """Count `results`."""
        statuses = Counter(r.status for r in results)
        return cls(
            total=sum(statuses.values()),
            scored=sum(n for status, n in statuses.items() if status.scored),
            passed=statuses[Status.CORRECT],
            timeouts=statuses[Status.TIMEOUT],
            errors=statuses[Status.ERROR],
            statuses=statuses,
        )


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Accuracy of one group of results (one category, tool, difficulty or tag)."""

    key: str
    """The group's name."""
    rate: Rate
    """Accuracy within the group, its interval clustered by case (`clustered_rate`)."""
    mean_score: float
    """Mean rubric score within the group."""
    clusters: int | None = None
    """Clusters (cases, unless clustered otherwise) behind the row; None when not known."""
    effective_n: float | None = None
    """The independent trials the row's tries are worth (`Clustering.effective_n`)."""

    @property
    def too_few_to_tell(self) -> bool:
        """Whether the row's interval is wider than `TOO_WIDE` (40 points)."""
        return self.rate.interval.width > TOO_WIDE

    def to_dict(self) -> JsonObject:
        """Return the row as a JSON object."""
        data: JsonObject = {"key": self.key, **self.rate.to_dict(), "mean_score": self.mean_score}
        if self.clusters is not None:
            data["clusters"] = self.clusters
        if self.effective_n is not None:
            data["effective_n"] = self.effective_n
        data["too_few_to_tell"] = self.too_few_to_tell
        return data


def _correct_calls(result: CaseResult) -> int:
    if result.pairs:
        return sum(p.verdict == "correct" for p in result.pairs)
    # A result built without pairs (e.g. by hand) is still counted sensibly.
    return len(result.expected) if result.status is Status.CORRECT else 0


def call_level(scored: Sequence[CaseResult]) -> tuple[float, float, float]:
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
    clusters: Sequence[str] | None,
) -> tuple[Breakdown, ...]:
    groups: dict[str, list[tuple[CaseResult, str]]] = defaultdict(list)
    for result, cluster in zip(scored, clusters or cluster_keys(scored), strict=True):
        for key in keys_of(result):
            groups[key].append((result, cluster))
    rows = []
    for key in sorted(groups, key=order):
        members = groups[key]
        c = clustered_rate(
            cluster_totals((cluster, r.status is Status.CORRECT) for r, cluster in members)
        )
        score = mean([r.score for r, _ in members])
        rows.append(Breakdown(key, c.rate, score, c.clusters, c.effective_n))
    return tuple(rows)


def by_category(
    scored: Sequence[CaseResult], clusters: Sequence[str] | None = None
) -> tuple[Breakdown, ...]:
    """Accuracy per category, alphabetically; `(none)` last.

    `clusters` holds each result's cluster (`cluster_keys`); by default, its case.
    """
    return _breakdown(scored, lambda r: [r.category or NO_VALUE_KEY], _alpha_key, clusters)


def by_tool(
    scored: Sequence[CaseResult], clusters: Sequence[str] | None = None
) -> tuple[Breakdown, ...]:
    """Accuracy per tool of the cases' primary expectations (`case_tools`); `(no call)` last."""
    return _breakdown(scored, case_tools, _tool_key, clusters)


def by_difficulty(
    scored: Sequence[CaseResult], clusters: Sequence[str] | None = None
) -> tuple[Breakdown, ...]:
    """Accuracy per difficulty: easy, medium, hard, then others; `(none)` last."""
    return _breakdown(scored, lambda r: [r.difficulty or NO_VALUE_KEY], _difficulty_key, clusters)


def by_tag(
    scored: Sequence[CaseResult], clusters: Sequence[str] | None = None
) -> tuple[Breakdown, ...]:
    """Accuracy per tag, alphabetically (a result counts under each of its tags)."""
    return _breakdown(scored, lambda r: r.tags, _alpha_key, clusters)
