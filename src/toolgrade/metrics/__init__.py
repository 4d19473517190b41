"""Run metrics: pure functions from a `RunResult` to numbers with intervals.

`compute_metrics(run)` is the one computation; its `RunMetrics` holds every number, and
a run with conversations adds their section (`RunMetrics.conversations`). Definitions
(docs/metrics.md has the long form):

- **Scored** results are those whose status is not `timeout` or `error`: a model that
  never answered gives no evidence about its tool calling. They are counted and shown,
  never scored.
- **Accuracy** = correct / scored, with a 95% Wilson interval, clustered by case when a
  case ran more than once (`clustered_rate`: the design-effect-adjusted Wilson interval;
  `cluster_by` groups cases that share a context by category or tag instead).
- **Mean score** = mean rubric score over scored results, with a seeded percentile
  bootstrap interval (the same run and seed always give the same interval).
- **Call-level precision / recall / F1** pool every scored result: precision = correct
  calls / actual calls, recall = correct calls / expected calls.
- **Breakdowns** by category, tool, difficulty and tag, over scored results, each with
  its clustered interval; a row whose interval is wider than 40 points is too few
  cases to tell (`Breakdown.too_few_to_tell`). A result
  counts once for each distinct tool of its case's **primary** expectation, whichever
  alternative it matched, so a case always counts for the same tools; results where no
  call was expected form the row `(no call)`.
- **Repeats** (a case run k times): with k > 1, per-case consistency, pass^k and the
  noise floor (`NoiseFloor`: the cases whose tries gave different verdicts with nothing
  changed, the flip rate, and whether a run at temperature 0 still flipped).
  With repeats, accuracy counts every repetition as a trial, its interval clustered.
- **Latency** p50/p95 over the results that have one.
- **Serving**: every result's serving class (how its answer reached the client) and
  the accuracy *as served*: passing with every call delivered as `tool_calls`.
- **Decisions** (only when a case or turn states its outcome): a confusion matrix of
  the expected outcome (call, clarify, refuse, answer) against what the model did,
  per-outcome precision and recall, macro-F1, decision accuracy, the call rate,
  accuracy when called and the tool-hallucination rate.
- **Conversations** (only when the run has some): their counts and accuracy, progress,
  per-turn accuracy, trajectory P/R/F1, steps and calls, first-failure causes, modes,
  and pass^k with bootstrap intervals that resample whole conversations.

The package is split by responsibility: `_clustered` (the clustered interval and the
clusters), `_rates` (counts, rates, breakdowns, call-level P/R/F1), `_repeats`
(consistency, pass^k and its intervals), `_noise` (the noise floor), `_conversations`
(the conversations section), `_serving` (the serving section), `_decisions` (the
decisions section) and `_run` (`RunMetrics`, `compute_metrics`).
"""

from toolgrade.metrics._clustered import (
    CLUSTER_BY,
    Clustering,
    check_cluster_by,
    cluster_keys,
    cluster_totals,
    clustered_rate,
)
from toolgrade.metrics._conversations import (
    ConversationMetrics,
    TurnAccuracy,
    modes_present,
    per_turn_accuracy,
)
from toolgrade.metrics._decisions import (
    DID,
    EXPECTED,
    DecisionMetrics,
    OutcomeScore,
    decision_section,
)
from toolgrade.metrics._detectable import Detectable, detectable_change
from toolgrade.metrics._noise import NoiseFloor, noise_floor, request_temperature
from toolgrade.metrics._rates import NO_CALL_KEY, NO_VALUE_KEY, TOO_WIDE, Breakdown, case_tools
from toolgrade.metrics._repeats import CaseConsistency, PassHatK, pass_hat_k
from toolgrade.metrics._run import RunMetrics, compute_metrics
from toolgrade.metrics._serving import ServingMetrics, run_is_native, serving_section
from toolgrade.stats import Rate, rate_of

__all__ = [
    "Breakdown",
    "CLUSTER_BY",
    "CaseConsistency",
    "Clustering",
    "ConversationMetrics",
    "DID",
    "DecisionMetrics",
    "Detectable",
    "EXPECTED",
    "NO_CALL_KEY",
    "NO_VALUE_KEY",
    "NoiseFloor",
    "OutcomeScore",
    "PassHatK",
    "Rate",
    "RunMetrics",
    "ServingMetrics",
    "TOO_WIDE",
    "TurnAccuracy",
    "case_tools",
    "check_cluster_by",
    "cluster_keys",
    "cluster_totals",
    "clustered_rate",
    "compute_metrics",
    "decision_section",
    "detectable_change",
    "modes_present",
    "noise_floor",
    "pass_hat_k",
    "per_turn_accuracy",
    "rate_of",
    "request_temperature",
    "run_is_native",
    "serving_section",
]
