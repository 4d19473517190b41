"""Accuracy intervals clustered by case: the tries of one case are not independent.

Under `--repeat k` a case's k tries share the case: a case the model cannot do fails on
every try. Counting each try as an independent trial (a Wilson interval over all the
tries) then claims k times more evidence than the suite holds, and the interval is too
narrow. The interval here is the **design-effect-adjusted Wilson interval**: the
cluster-robust variance of the pass rate (Miller 2024, "Adding Error Bars to Evals",
arXiv 2411.00640, section 2.2, clustered standard errors) divided by the variance the
tries would have if independent gives the design effect; the Wilson interval is then
taken at the effective sample size, tries / design effect (Kish's effective n).

Why this form and not the clustered Wald interval `p ± z·SE` that Miller writes down:
the Wald form collapses to zero width at 0% and 100% and under-covers on small suites,
the very failure Wilson's interval fixes for one try per case; the effective-n Wilson
interval keeps Wilson's behaviour at the edges and Miller's variance in the middle.
Why not a cluster bootstrap: this one is closed form (no seed, no resampling cost) and
equals the plain Wilson interval exactly when every case ran once.

Details (docs/metrics.md has the long form, with an example):

- the cluster-robust variance carries the usual small-sample factor G/(G-1) for G
  clusters (Cameron & Miller 2015, "A Practitioner's Guide to Cluster-Robust
  Inference", the CR1 correction);
- the design effect is at least 1: tries of one case are exchangeable, so their
  correlation is not negative, and a smaller estimate is noise;
- when every try had the same outcome (0% or 100%) the variance says nothing, and the
  effective size is the number of clusters (each case counts once);
- one cluster of several tries counts as one observation.

Clusters are cases by default; `cluster_keys` also groups cases by category or by shared
tags, for suites whose cases share a context (`cluster_keys`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from toolgrade._core.json_data import JsonObject
from toolgrade.results import CaseResult
from toolgrade.stats import Interval, Rate, rate_of

__all__ = [
    "CLUSTER_BY",
    "Clustering",
    "check_cluster_by",
    "cluster_keys",
    "cluster_totals",
    "clustered_rate",
]

CLUSTER_BY: tuple[str, ...] = ("case", "category", "tag", "tag:PREFIX")
"""How tries can be grouped into clusters (`cluster_keys`), as the command line lists them."""


@dataclass(frozen=True, slots=True)
class Clustering:
    """A clustered pass rate: the rate and how much independent evidence it rests on."""

    rate: Rate
    """Passes and tries, the pass rate, and the clustered interval."""
    clusters: int
    """Clusters the tries fall in (cases, by default)."""
    effective_n: float
    """Tries / design effect: the independent trials the tries are worth."""
    design_effect: float
    """Cluster-robust variance / the variance of independent tries (at least 1)."""

    def to_dict(self) -> JsonObject:
        """Return `{"clusters", "effective_n", "design_effect"}` (the rate is elsewhere)."""
        return {
            "clusters": self.clusters,
            "effective_n": self.effective_n,
            "design_effect": self.design_effect,
        }


def check_cluster_by(cluster_by: str) -> str:
    """Return `cluster_by` when it is one of `CLUSTER_BY`'s forms.

    Raises:
        ValueError: any other value (a `tag:` without a prefix included).

    Examples:
        >>> check_cluster_by("tag:ctx-")
        'tag:ctx-'
    """
    if cluster_by in ("case", "category", "tag"):
        return cluster_by
    if cluster_by.startswith("tag:") and len(cluster_by) > len("tag:"):
        return cluster_by
    raise ValueError(f"cluster by must be case, category, tag or tag:PREFIX, got {cluster_by!r}")


def cluster_keys(results: Sequence[CaseResult], cluster_by: str = "case") -> list[str]:
    """The cluster of each result, in order.

    - `case`: the case id: a case's tries form one cluster.
    - `category`: the case's category (an empty one is its own cluster per case).
    - `tag`: cases that share a tag are one cluster, and so, transitively, are cases
      linked through a chain of shared tags; a case without tags is its own cluster.
    - `tag:PREFIX`: the same, over the tags that start with PREFIX only (e.g.
      `tag:ctx-` when tags `ctx-repo-a`, `ctx-repo-b` name the shared contexts).

    Whatever the grouping, the tries of one case are always in one cluster.

    Args:
        results: the results (tries) to group.
        cluster_by: one of `CLUSTER_BY`'s forms.

    Returns:
        One key per result.

    Raises:
        ValueError: an unknown `cluster_by`.
    """
    check_cluster_by(cluster_by)
    if cluster_by == "case":
        return [f"case:{r.case_id}" for r in results]
    if cluster_by == "category":
        return [f"category:{r.category}" if r.category else f"case:{r.case_id}" for r in results]
    prefix = cluster_by.removeprefix("tag").removeprefix(":")
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for r in results:
        case = find(f"case:{r.case_id}")
        for tag in r.tags:
            if tag.startswith(prefix):
                parent[find(f"tag:{tag}")] = case
    return [find(f"case:{r.case_id}") for r in results]


def cluster_totals(outcomes: Iterable[tuple[Hashable, bool]]) -> list[tuple[int, int]]:
    """`(passes, tries)` per cluster, from `(cluster, passed)` per try (first-seen order)."""
    totals: dict[Hashable, list[int]] = {}
    for key, passed in outcomes:
        cell = totals.setdefault(key, [0, 0])
        cell[0] += passed
        cell[1] += 1
    return [(p, n) for p, n in totals.values()]


def clustered_rate(clusters: Sequence[tuple[int, int]], *, level: float = 0.95) -> Clustering:
    """The pass rate of clustered tries with its design-effect-adjusted Wilson interval.

    Args:
        clusters: `(passes, tries)` of each cluster (a cluster of no tries is ignored).
        level: confidence level.

    Returns:
        The rate over every try with its clustered interval; when every cluster holds
        one try the interval is `rate_of`'s Wilson interval, unchanged.

    Raises:
        ValueError: counts out of range or a level outside (0, 1).

    Examples:
        >>> c = clustered_rate([(3, 3), (0, 3), (3, 3), (1, 3)])
        >>> c.rate.passed, c.rate.n, c.clusters, round(c.design_effect, 2)
        (7, 12, 4, 3.09)
        >>> plain = rate_of(7, 12).interval
        >>> c.rate.interval.width > plain.width
        True
    """
    cells = [(p, n) for p, n in clusters if n]
    if any(n < 0 or not 0 <= p <= n for p, n in clusters):
        raise ValueError("each cluster needs 0 <= passes <= tries")
    passed = sum(p for p, _ in cells)
    tries = sum(n for _, n in cells)
    groups = len(cells)
    plain = rate_of(passed, tries, level=level)
    if groups == tries:
        return Clustering(plain, groups, float(tries), 1.0)
    effective = _effective_n(cells, passed, tries)
    interval = _wilson(passed / tries, effective, level)
    return Clustering(
        Rate(passed, tries, plain.rate, interval), groups, effective, tries / effective
    )


def _effective_n(cells: Sequence[tuple[int, int]], passed: int, tries: int) -> float:
    """Tries / design effect, within [1, tries]; the clusters' count at 0% or 100%."""
    groups = len(cells)
    p = passed / tries
    if groups < 2:
        return 1.0
    if passed in (0, tries):
        return float(groups)
    independent = p * (1 - p) / tries
    spread = sum((s - p * n) ** 2 for s, n in cells) / tries**2
    robust = spread * groups / (groups - 1)
    design_effect = max(1.0, robust / independent)
    return max(1.0, tries / design_effect)


def _wilson(p: float, n: float, level: float) -> Interval:
    """Wilson's score interval at a sample size that need not be whole."""
    z = NormalDist().inv_cdf((1 + level) / 2)
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return Interval(max(0.0, centre - half), min(1.0, centre + half), level)
