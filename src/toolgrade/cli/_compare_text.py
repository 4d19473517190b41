"""Plain-text views of `Comparison` and `MultiComparison` for `toolgrade compare`."""

from __future__ import annotations

from collections.abc import Sequence

from toolgrade.compare import (
    Comparison,
    ConversationComparison,
    Delta,
    Flip,
    MultiComparison,
    MultiRow,
    ServingComparison,
    TurnDelta,
)
from toolgrade.metrics import Rate

__all__ = ["format_comparison", "format_many"]

_MAX_FLIPS = 50
_SAME = "no paired case lost a call between the model and the client"


def _pct(rate: Rate | None) -> str:
    return "-" if rate is None else f"{rate.rate:.1%}"


def _points(delta: float | None) -> str:
    return "-" if delta is None else f"{delta * 100:+.1f}"


def _counts(rate: Rate | None) -> str:
    return "(0)" if rate is None else f"({rate.passed}/{rate.n})"


def _delta_rows(title: str, rows: Sequence[Delta]) -> list[str]:
    """One row per group: both accuracies, each with its own passed/n, then the delta.

    The delta's paired interval follows, marked when it is too wide to say anything.
    """
    if not rows:
        return []
    width = max(len(d.key) for d in rows) + 1
    base_width = max(len(_counts(d.baseline)) for d in rows)
    cand_width = max(len(_counts(d.candidate)) for d in rows)
    lines = [f"{title}:"]
    for d in rows:
        row = (
            f"  {d.key + ':':<{width}} {_pct(d.baseline):>6} {_counts(d.baseline):<{base_width}}"
            f" -> {_pct(d.candidate):>6} {_counts(d.candidate):<{cand_width}}"
            f"  {_points(d.delta):>6}"
        )
        if d.interval is not None:
            low, high = d.interval.low * 100, d.interval.high * 100
            row += f"  95% CI {low:+.1f} to {high:+.1f}"
        lines.append(row + ("  too few cases to tell" if d.too_few_to_tell else ""))
    return [*lines, ""]


def _flip_rows(title: str, flips: Sequence[Flip]) -> list[str]:
    if not flips:
        return []
    lines = [f"{title} ({len(flips)}):"]
    lines += [f"  {f.case_id}: {f.baseline} -> {f.candidate}" for f in flips[:_MAX_FLIPS]]
    if len(flips) > _MAX_FLIPS:
        lines.append(f"  ... and {len(flips) - _MAX_FLIPS} more (use --json for all)")
    return [*lines, ""]


def format_comparison(comp: Comparison) -> str:
    """Render a baseline/candidate comparison as text."""
    base, cand, ci = comp.baseline_accuracy, comp.candidate_accuracy, comp.delta_interval
    lines = [
        f"Baseline:  {comp.baseline_label} ({comp.baseline_id})",
        f"Candidate: {comp.candidate_label} ({comp.candidate_id})",
    ]
    if comp.suite_hash_differs:
        lines.append(
            f"Warning: the suites differ ({comp.baseline_suite_hash} vs"
            f" {comp.candidate_suite_hash}); only shared cases are compared"
        )
    lines += [
        f"Shared cases: {comp.shared_cases}",
        f"Accuracy: {base.rate:.1%} ({base.passed}/{base.n}) -> {cand.rate:.1%}"
        f" ({cand.passed}/{cand.n})",
        f"Delta: {_points(comp.delta)} points (95% CI: {_points(ci.low)} to {_points(ci.high)})",
        f"Fixed: {len(comp.fixed)}  Broken: {len(comp.broken)}  McNemar exact p = "
        f"{comp.p_value:.4g}",
        f"Status: {comp.status} (threshold {comp.threshold:g} points, alpha {comp.alpha:g})",
        f"{comp.detectable}.",
        *_noise_rows(comp),
        "",
    ]
    if comp.serving is not None and comp.serving.shown:
        lines += _serving_rows(comp.serving)
    if comp.conversations is not None:
        lines += _conversation_rows(comp.conversations)
    lines += _delta_rows("By Category", comp.by_category)
    lines += _delta_rows("By Tool", comp.by_tool)
    lines += _flip_rows("Broken", comp.broken)
    lines += _flip_rows("Fixed", comp.fixed)
    return "\n".join(lines).rstrip() + "\n"


def _noise_rows(comp: Comparison) -> list[str]:
    """Same settings labelled; the noise floor beside the delta and the MDE."""
    lines = []
    if comp.same_settings_text is not None:
        lines.append(f"{comp.same_settings_text}.")
    if comp.noise is not None:
        lines += [f"{comp.noise.describe()}.", f"{comp.noise.repeats_text()}."]
        sides = (("baseline", comp.noise.baseline), ("candidate", comp.noise.candidate))
        for name, side in sides:
            note = side.determinism_note() if side is not None else None
            if note is not None:
                lines.append(f"Warning ({name}): {note}.")
    return lines


def _serving_rows(serving: ServingComparison) -> list[str]:
    """How the runs were served: what changed, the verdict as served, the flips by class."""
    base, cand, ci = serving.baseline_accuracy, serving.candidate_accuracy, serving.delta_interval
    lines = [f"Serving: {serving.change_text}"]
    if serving.same_as_model:
        lines.append(f"  As served: the same as the model's ({_SAME})")
    else:
        lost = serving.lost
        lines += [
            f"  As served: {base.rate:.1%} ({base.passed}/{base.n}) -> {cand.rate:.1%}"
            f" ({cand.passed}/{cand.n})  {_points(serving.delta)} points"
            f" (95% CI: {_points(ci.low)} to {_points(ci.high)})  McNemar exact p ="
            f" {serving.p_value:.4g}",
            f"  Status as served: {serving.status}",
            f"  Lost between the model and the client: {lost[0]} -> {lost[1]} paired cases"
            " (passed, but not every call came as tool_calls)",
        ]
    lines += [f"  {line}" for line in serving.flip_lines()]
    hints = {g.hint for g in (*serving.broken_as_served, *serving.broken) if g.hint}
    lines += [f"  Try: {hint}" for hint in sorted(hints)]
    return [*lines, ""]


def _turn_rows(rows: Sequence[TurnDelta]) -> list[str]:
    """One row per turn position, laid out like the category rows."""
    if not rows:
        return []
    # Turns are numbered from 1 for people; JSON keeps the 0-based `index`.
    labels = [f"turn {row.index + 1}:" for row in rows]
    width = max(len(label) for label in labels)
    base_width = max(len(_counts(row.baseline)) for row in rows)
    cand_width = max(len(_counts(row.candidate)) for row in rows)
    lines = ["By Turn:"]
    for label, row in zip(labels, rows, strict=True):
        lines.append(
            f"  {label:<{width}} {_pct(row.baseline):>6} {_counts(row.baseline):<{base_width}}"
            f" -> {_pct(row.candidate):>6} {_counts(row.candidate):<{cand_width}}"
            f"  {_points(row.delta):>6}"
        )
    return [*lines, ""]


def _conversation_rows(conv: ConversationComparison) -> list[str]:
    """Paired conversations: accuracy and progress, each turn, and the mode gap."""
    base, cand, ci = conv.baseline_accuracy, conv.candidate_accuracy, conv.delta_interval
    interval = "" if ci is None else f" (95% CI: {_points(ci.low)} to {_points(ci.high)})"
    lines = [
        f"Conversations: {conv.shared} paired",
        f"  Accuracy: {base.rate:.1%} ({base.passed}/{base.n}) -> {cand.rate:.1%}"
        f" ({cand.passed}/{cand.n})  {_points(conv.delta)} points{interval}",
        f"  Fixed: {conv.fixed}  Broken: {conv.broken}  McNemar exact p = {conv.p_value:.4g}",
        f"  Status: {conv.status}",
        f"  {conv.detectable}.",
        f"  Progress: {conv.baseline_progress:.1%} -> {conv.candidate_progress:.1%}",
    ]
    if conv.baseline_modes != conv.candidate_modes:
        lines.append(f"  Mode: {'+'.join(conv.baseline_modes)} -> {'+'.join(conv.candidate_modes)}")
    gap = conv.mode_gap
    if gap is not None:
        lines.append(
            f"  Error compounding: on-policy {_pct(gap.on_policy)} {_counts(gap.on_policy)}"
            f" vs teacher-forced {_pct(gap.teacher_forced)} {_counts(gap.teacher_forced)}:"
            f" gap {gap.gap * 100:.1f} points"
        )
    return [*lines, "", *_turn_rows(conv.per_turn)]


def format_many(many: MultiComparison) -> str:
    """Render several runs side by side; `*` marks the best run and each group's best."""
    labels = [e.label for e in many.entries]
    width = max(len(label) for label in labels) + 2
    lines = [
        f"{len(many.entries)} runs over {many.shared_cases} shared cases"
        f" (* = best; p = McNemar exact vs best, worse = p < {many.alpha:g})",
    ]
    if many.suite_hash_differs:
        lines.append("Warning: the suites differ; only shared cases are compared")
    lines.append("")
    for e in many.entries:
        acc, mark = e.accuracy, "*" if e.is_best else " "
        versus = (
            ""
            if e.p_value_vs_best is None
            else f"  {_points(e.delta_vs_best)} pts  p = {e.p_value_vs_best:.4g}"
            + ("  worse" if e.significantly_worse else "")
        )
        lines.append(
            f"{mark} {e.label:<{width}} {acc.rate:6.1%} ({acc.passed}/{acc.n})"
            f"  95% CI {acc.interval.low:.1%} - {acc.interval.high:.1%}{versus}"
        )
    for title, rows in (("By Category", many.by_category), ("By Tool", many.by_tool)):
        lines += _many_rows(title, rows, labels)
    return "\n".join(lines) + "\n"


def _many_cell(rate: Rate | None, best: bool) -> str:
    """`75.0% (3/4)*`: each run's accuracy in the group with its own passed/n."""
    text = "-" if rate is None else f"{rate.rate:.1%} ({rate.passed}/{rate.n})"
    return text + ("*" if best else " ")


def _many_rows(title: str, rows: Sequence[MultiRow], labels: Sequence[str]) -> list[str]:
    if not rows:
        return []
    key_width = max(len(r.key) for r in rows) + 2
    cells = [[_many_cell(rate, k == row.best) for k, rate in enumerate(row.rates)] for row in rows]
    col = max(8, *(len(label) + 1 for label in labels), *(len(c) for r in cells for c in r))
    header = "".join(f"{x:>{col - 1}} " for x in labels)
    lines = ["", f"{title}:", (" " * (key_width + 2) + header).rstrip()]
    for row, row_cells in zip(rows, cells, strict=True):
        text = "".join(f"{cell:>{col}}" for cell in row_cells)
        lines.append(f"  {row.key:<{key_width}}{text}".rstrip())
    return lines
