"""The leaderboard as plain text: what `toolgrade sweep` prints at the end.

A suite where some model's accuracy as served differs from its accuracy gets three more
columns (`As served`, its interval, `Serving faults`) and, when the order as served is
not the table's, one line naming the models that swap; other suites print as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolgrade.report import clip, pct, terminal_safe
from toolgrade.sweep._leaderboard import Leaderboard, LeaderboardEntry, SuiteBoard

__all__ = ["render_leaderboard_text"]

_LABEL_CHARS = 40
_NOTE_CHARS = 200
_SWAPS_SHOWN = 5
_HEADINGS = (
    "Rank",
    "Rank CI",
    "Model",
    "Accuracy",
    "95% CI",
    "Cases",
    "Errors",
    "Timeouts",
    "vs best",
    "Holm p",
    "Standing",
)
_SERVED_AT = _HEADINGS.index("95% CI") + 1
_SERVED_HEADINGS = ("As served", "Served CI", "Serving faults")


def render_leaderboard_text(board: Leaderboard) -> str:
    """Render the leaderboard as text, one table per suite.

    Examples:
        >>> print(render_leaderboard_text(Leaderboard("demo", 0.05, ())), end="")
        Leaderboard: demo
        =================
        No suite.
    """
    title = f"Leaderboard: {terminal_safe(board.name)}"
    lines = [title, "=" * len(title)]
    if not board.suites:
        return "\n".join([*lines, "No suite."]) + "\n"
    lines.append(
        "Accuracy over the cases every model scored (95% Wilson interval). Rank CI: the"
        " ranks a paired bootstrap of those cases supports (95%); pairs: McNemar's exact"
        " test on every pair, Holm-corrected; Rank '=': the suite separates no pair, so"
        " the rows are in accuracy order, not ranked."
    )
    lines.append(
        "Standing vs the best: regression = its pair separated (Holm p <"
        f" {board.alpha:g}) and more than {board.threshold:g} points below; equivalent ="
        f" the gap's interval inside ±{board.threshold:g} points; inconclusive = the"
        " suite cannot tell (~N: about N cases would)."
    )
    if any(s.serving_differs for s in board.suites):
        lines.append(
            "As served: the accuracy a client reading only tool_calls gets (a case passes"
            " when its calls all came as structured tool_calls), over the same cases; ranks,"
            " pairs and standings stay on accuracy. Serving faults: results in a serving"
            " fault class, the commonest named (docs/serving.md)."
        )
    for suite in board.suites:
        lines += ["", *_suite_lines(suite)]
    return "\n".join(lines) + "\n"


def _suite_lines(suite: SuiteBoard) -> list[str]:
    name = terminal_safe(clip(suite.suite, _LABEL_CHARS))
    with_runs = [e for e in suite.entries if e.run_id is not None]
    if not with_runs:
        head = f"{name}: no model has a run"
    elif len(with_runs) == 1:
        head = f"{name}: one model, {suite.compared_cases} scored cases"
    elif suite.compared_cases:
        head = f"{name}: {suite.compared_cases} cases scored by every model"
    else:
        head = f"{name}: no case scored by every model (each on its own cases, not compared)"
    lines = [head]
    if suite.suite_hash_differs:
        lines.append("  Warning: the runs used different suite contents; shared cases only")
    if suite.summary is not None:
        lines.append(f"  {terminal_safe(suite.summary)}")
    served = suite.serving_differs
    if served and suite.served_swaps:
        lines.append(f"  {_swaps_line(suite)}")
    rows = [_row(e, ranked=not suite.separates_none, served=served) for e in with_runs]
    if rows:
        headings: tuple[str, ...] = _HEADINGS
        if served:
            headings = (*_HEADINGS[:_SERVED_AT], *_SERVED_HEADINGS, *_HEADINGS[_SERVED_AT:])
        lines += _table([headings, *rows])
    for e in suite.entries:
        if e.run_id is None:
            note = terminal_safe(clip(e.note or "no run", _NOTE_CHARS))
            lines.append(f"  -  {terminal_safe(clip(e.label, _LABEL_CHARS))}: {note}")
    return lines


def _row(e: LeaderboardEntry, *, ranked: bool, served: bool) -> tuple[str, ...]:
    acc = e.accuracy
    row = (
        "-" if e.rank is None else str(e.rank) if ranked else "=",
        "-" if e.rank_interval is None else e.rank_interval.label,
        terminal_safe(clip(e.label, _LABEL_CHARS)),
        "-" if acc is None else f"{pct(acc.rate)} ({acc.passed}/{acc.n})",
        "-" if acc is None else f"{pct(acc.interval.low)} - {pct(acc.interval.high)}",
        str(acc.n if acc is not None else 0),
        str(e.errors),
        str(e.timeouts),
        "" if e.delta_vs_best is None else f"{e.delta_vs_best * 100:+.1f} pts",
        "" if e.adjusted_p is None else f"{e.adjusted_p:.4g}",
        e.standing if e.cases_to_tell is None else f"{e.standing} (~{e.cases_to_tell:,})",
    )
    if not served:
        return row
    return (*row[:_SERVED_AT], *_served_cells(e), *row[_SERVED_AT:])


def _served_cells(e: LeaderboardEntry) -> tuple[str, str, str]:
    s = e.serving
    if s is None:
        return "-", "-", "-"
    rate = s.as_served
    faults = str(s.faults)
    if s.commonest_fault is not None:
        faults += f" ({s.commonest_fault} {s.commonest_count})"
    return (
        f"{pct(rate.rate)} ({rate.passed}/{rate.n})",
        f"{pct(rate.interval.low)} - {pct(rate.interval.high)}",
        faults,
    )


def _swaps_line(suite: SuiteBoard) -> str:
    """`By accuracy as served the order changes: b passes a (27.1% vs 7.1%)`."""
    served = {e.label: e.serving.as_served for e in suite.entries if e.serving is not None}
    swaps = suite.served_swaps
    parts = [
        f"{terminal_safe(clip(ahead, _LABEL_CHARS))} passes"
        f" {terminal_safe(clip(behind, _LABEL_CHARS))}"
        f" ({pct(served[ahead].rate)} vs {pct(served[behind].rate)})"
        for ahead, behind in swaps[:_SWAPS_SHOWN]
    ]
    more = len(swaps) - _SWAPS_SHOWN
    tail = f", and {more} more pair{'s' if more > 1 else ''}" if more > 0 else ""
    return "By accuracy as served the order changes: " + ", ".join(parts) + tail


def _table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
