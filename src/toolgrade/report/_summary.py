"""How a run's numbers are worded: accuracy, repeats, the verdict, the conversations section.

The numbers are `RunMetrics`' (and a `Comparison`'s verdict): this module only words
them, as strings and `(name, value)` rows that the text, Markdown and HTML reports lay
out in their own way. The conversations section has rows only when the run has
conversations (`RunMetrics.conversations`).
"""

from __future__ import annotations

from toolgrade.metrics import Breakdown, ConversationMetrics, RunMetrics
from toolgrade.report._plain import mode_label, pct

__all__ = [
    "CHANGED_SHOWN",
    "PER_TURN_SHOWN",
    "TOO_FEW",
    "accuracy_text",
    "changed_cases",
    "noise_warning",
    "per_turn_text",
    "repeat_rows",
    "row_interval",
    "summary_rows",
]

CHANGED_SHOWN = 20
"""Cases that flipped between tries listed by the text, Markdown and HTML reports; the
JSON report keeps every one."""

PER_TURN_SHOWN = 12
"""Turn positions listed in one line; the JSON report keeps every one."""

TOO_FEW = "too few cases to tell"
"""The mark of a breakdown row whose interval is too wide to say anything
(`Breakdown.too_few_to_tell`)."""


def accuracy_text(m: RunMetrics) -> str:
    """`84.0% (95% CI: 71.5% - 91.7%)`, or `n/a (no scored cases)`.

    When the tries fall in fewer clusters than there are tries (`--repeat`, or cases
    clustered by category or tag), the interval is the clustered one and says so:
    `55.6% (95% CI: 19.4% - 86.6%, clustered: 9 tries of 3 cases)`.
    """
    if m.accuracy.n == 0:
        return "n/a (no scored cases)"
    ci = m.accuracy.interval
    level = f"{ci.level * 100:g}%"
    text = f"{pct(m.accuracy.rate)} ({level} CI: {pct(ci.low)} - {pct(ci.high)}"
    c = m.accuracy_clustering
    if c is not None and c.clusters < m.accuracy.n:
        unit = "case" if m.cluster_by == "case" else "cluster"
        of = f"{c.clusters} {unit}{'' if c.clusters == 1 else 's'}"
        by = "" if m.cluster_by == "case" else f" by {m.cluster_by}"
        text += f", clustered{by}: {m.accuracy.n} tries of {of}"
    return text + ")"


def row_interval(b: Breakdown) -> str:
    """A breakdown row's interval: `95% CI: 3.6% - 62.4%`."""
    ci = b.rate.interval
    return f"{ci.level * 100:g}% CI: {pct(ci.low)} - {pct(ci.high)}"


def repeat_rows(m: RunMetrics) -> list[tuple[str, str]]:
    """With repeats: the `Repeats`, `Consistency`, `pass^k` and `Noise floor` rows; else none."""
    if m.repeats <= 1:
        return []
    repeated = [c for c in m.per_case_consistency if c.runs >= 2]
    steady = sum(c.agreement == 1.0 for c in repeated)
    consistency = (
        "n/a (no case has two scored tries)"
        if m.consistency is None
        else f"{pct(m.consistency)} ({steady}/{len(repeated)} cases had the same outcome"
        " on every try)"
    )
    k = m.repeats
    pass_k = (
        f"n/a (no case has {k} scored tries)"
        if m.pass_hat_k is None
        else f"{pct(m.pass_hat_k)} (chance that all {k} tries of a case pass)"
    )
    rows = [("Repeats", f"{k} tries per case"), ("Consistency", consistency), (f"pass^{k}", pass_k)]
    if m.noise is not None:
        rows.append(
            (
                "Noise floor",
                f"{m.noise.summary()} (flip rate {pct(m.noise.flip_rate)}: the chance that"
                " two tries of a case disagree)",
            )
        )
    return rows


def noise_warning(m: RunMetrics) -> str | None:
    """`temperature 0, yet 7 cases flipped: this server is not deterministic`, or None."""
    return m.noise.determinism_note() if m.noise is not None else None


def changed_cases(m: RunMetrics, limit: int = CHANGED_SHOWN) -> tuple[list[str], int]:
    """The first `limit` cases whose tries disagreed, and how many more there are.

    Each reads `TC-015 (1/3 passed)`.
    """
    changed = [
        f"{c.case_id} ({c.passed}/{c.runs} passed)"
        for c in m.per_case_consistency
        if c.agreement < 1.0
    ]
    return changed[:limit], max(0, len(changed) - limit)


def summary_rows(m: RunMetrics) -> list[tuple[str, str]]:
    """The conversations section as (name, value) rows; empty without conversations.

    Rows: conversations passed (Wilson interval), progress, per-turn accuracy, failure
    causes, steps and calls used, trajectory precision / recall / F1 (when a reference
    exists), mode (accuracy per mode when the run mixes them), pass^k with its bootstrap
    interval (with repeats), and timeouts and errors (when any).
    """
    c = m.conversations
    if c is None:
        return []
    rows = [
        ("Passed", _passed(c)),
        ("Progress", f"{pct(c.mean_progress)} of turns passed on average"),
        ("Per-turn accuracy", per_turn_text(c)),
        ("Failure causes", _causes(c)),
        ("Steps and calls", f"{c.mean_steps:.1f} steps, {c.mean_calls:.1f} calls per conversation"),
    ]
    if c.precision is not None and c.recall is not None and c.f1 is not None:
        rows.append(
            (
                "Trajectory",
                f"P {c.precision:.3f}, R {c.recall:.3f}, F1 {c.f1:.3f}"
                f" ({c.with_reference} conversations with a reference)",
            )
        )
    rows.append(("Mode", _modes(c)))
    if c.pass_hat_k is not None:
        p = c.pass_hat_k
        ci = p.all_passed_interval
        rows.append(
            (
                f"pass^{p.k}",
                f"{pct(p.all_passed)} (95% CI: {pct(ci.low)} - {pct(ci.high)}, bootstrap over"
                f" {p.conversations} conversations; unbiased estimate {pct(p.unbiased)})",
            )
        )
    if c.timeouts or c.errors:
        rows.append(("Not scored", f"{c.timeouts} timeouts, {c.errors} errors"))
    return rows


def _passed(c: ConversationMetrics) -> str:
    a = c.accuracy
    if a.n == 0:
        return f"n/a (no scored conversations of {c.total})"
    ci = a.interval
    level = f"{ci.level * 100:g}%"
    return f"{a.passed}/{a.n} ({pct(a.rate)}, {level} CI: {pct(ci.low)} - {pct(ci.high)})"


def per_turn_text(c: ConversationMetrics) -> str:
    """`turn 1 80.0% (4/5) · turn 2 50.0% (2/4) · …` (turns from 1)."""
    parts = [
        f"turn {t.index + 1} {pct(t.rate.rate)} ({t.rate.passed}/{t.rate.n})"
        for t in c.per_turn[:PER_TURN_SHOWN]
    ]
    if len(c.per_turn) > PER_TURN_SHOWN:
        parts.append(f"… {len(c.per_turn) - PER_TURN_SHOWN} more")
    return " · ".join(parts) or "n/a"


def _causes(c: ConversationMetrics) -> str:
    shown = [f"{cause} {n}" for cause, n in c.failure_causes.items() if n]
    return " · ".join(shown) or "none"


def _modes(c: ConversationMetrics) -> str:
    if len(c.modes) <= 1:
        return mode_label(c.modes[0]) if c.modes else "n/a"
    return " · ".join(
        f"{mode_label(mode)} {pct(rate.rate)} ({rate.passed}/{rate.n})"
        for mode, rate in c.by_mode.items()
    )
