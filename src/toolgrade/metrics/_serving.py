"""The serving section: how answers reached the client, and the accuracy *as served*.

Two accuracies of one run: the model's (its calls read from wherever it put them:
`RunMetrics.accuracy`) and *as served* (a result counts only when it passes and every
call it made reached the client as structured `tool_calls`: `serving.delivered`). Their
difference is the share of results the server lost; in prompt mode they are equal.
Every result gets a serving class (`serving.serving_verdict`); each class is counted
with the Wilson interval of its share.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.metrics._clustered import cluster_totals, clustered_rate
from toolgrade.results import CaseResult, Status
from toolgrade.serving import (
    ServingClass,
    ServingVerdict,
    delivered,
    parser_hint,
    server_of,
    serving_verdict,
)
from toolgrade.stats import Rate, rate_of

__all__ = ["ServingMetrics", "run_is_native", "serving_section"]

_LOST_SHOWN = 5


@dataclass(frozen=True, slots=True)
class ServingMetrics:
    """How a run's answers reached the client (docs/serving.md)."""

    native: bool
    """Whether tools were sent in the request (`--mode native`)."""
    counts: dict[str, int]
    """Results per serving class (every class, zeros included)."""
    shares: dict[str, Rate]
    """Each class's share of all results, with its Wilson interval."""
    as_served: Rate
    """Scored results that pass *and* whose calls all came as `tool_calls`, over scored
    results; its interval clustered as the run's accuracy is."""
    lost: Rate
    """Scored results that pass but whose calls came some other way: the model accuracy
    minus the accuracy as served."""
    formats_in_text: dict[str, int]
    """The formats of calls found only in text or reasoning, with their counts."""
    server: str
    """The server software, when known (`serving.server_of`)."""
    hint: str | None
    """The flag that would parse the commonest format found in text, for this server."""
    examples: dict[str, tuple[str, ...]]
    """Up to three case ids per fault class."""
    lost_examples: tuple[str, ...] = ()
    """Up to five case ids of the results counted in `lost`, in run order."""

    @property
    def faults(self) -> int:
        """Results in a fault class."""
        return sum(n for c, n in self.counts.items() if not ServingClass(c).clean)

    @property
    def differs(self) -> bool:
        """Whether the accuracy as served differs from the model's."""
        return self.lost.passed > 0

    def to_dict(self) -> JsonObject:
        """The section as JSON."""
        data: JsonObject = {
            "native": self.native,
            "counts": dict(self.counts),
            "shares": {k: v.to_dict() for k, v in self.shares.items()},
            "faults": self.faults,
            "as_served": self.as_served.to_dict(),
            "lost": self.lost.to_dict(),
            "formats_in_text": dict(self.formats_in_text),
            "server": self.server,
            "hint": self.hint,
            "examples": {k: list(v) for k, v in self.examples.items()},
            "lost_examples": list(self.lost_examples),
        }
        return data


def run_is_native(backend: Mapping[str, JsonValue]) -> bool:
    """Whether a run sent its tools in the request: its recorded mode is not `prompt`.

    Examples:
        >>> run_is_native({"mode": "prompt"}), run_is_native({})
        (False, True)
    """
    return backend.get("mode") != "prompt"


def serving_section(
    results: Sequence[CaseResult],
    clusters: Sequence[str],
    *,
    native: bool,
    server: Mapping[str, JsonValue],
    model: str,
) -> ServingMetrics:
    """The serving section of a run.

    Args:
        results: every result.
        clusters: the cluster key of each *scored* result, in order (`cluster_keys`).
        native: whether the run sent tools in the request.
        server: the run's `server` record (for the server software, hence the flag
            to try).
        model: the run's model specification (its provider, when the server did not
            say what it is).
    """
    counts: Counter[ServingClass] = Counter()
    formats: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    served: list[bool] = []
    lost: list[str] = []
    for result in results:
        verdict = serving_verdict(result, native=native)
        counts[verdict.kind] += 1
        _note(verdict, result.case_id, formats, examples)
        if result.status.scored:
            passed = result.status is Status.CORRECT
            ok = passed and delivered(result, native=native)
            served.append(ok)
            if passed and not ok:
                lost.append(result.case_id)
    total = len(results)
    kind = server_of(server, model)
    common = formats.most_common(1)[0][0] if formats else None
    return ServingMetrics(
        native=native,
        counts={c.value: counts[c] for c in ServingClass},
        shares={c.value: rate_of(counts[c], total) for c in ServingClass},
        as_served=clustered_rate(cluster_totals(zip(clusters, served, strict=True))).rate,
        lost=rate_of(len(lost), len(served)),
        formats_in_text=dict(formats.most_common()),
        server=kind,
        hint=parser_hint(common, kind),
        examples={k: tuple(v) for k, v in examples.items()},
        lost_examples=tuple(dict.fromkeys(lost))[:_LOST_SHOWN],
    )


def _note(
    verdict: ServingVerdict, case_id: str, formats: Counter[str], examples: dict[str, list[str]]
) -> None:
    if verdict.kind.clean:
        return
    if verdict.fmt:  # only calls found in text or reasoning name a format
        formats[verdict.fmt] += 1
    shown = examples.setdefault(verdict.kind.value, [])
    if len(shown) < 3 and case_id not in shown:
        shown.append(case_id)
