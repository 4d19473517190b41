"""The plain-text report: what `toolgrade run` prints at the end."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from toolgrade._health import timeout_warning
from toolgrade.compare import Comparison
from toolgrade.metrics import Breakdown, RunMetrics
from toolgrade.report._decisions import case_decision, decision_matrix, decision_rows
from toolgrade.report._plain import calls_text, clip, label, pct, prompt_text, terminal_safe
from toolgrade.report._raw import raw_text
from toolgrade.report._serving import (
    divergence_title,
    divergences,
    fault_text,
    serving_line,
    serving_rows,
    stream_check_counts,
)
from toolgrade.report._summary import (
    TOO_FEW,
    accuracy_text,
    changed_cases,
    noise_warning,
    repeat_rows,
    row_interval,
    summary_rows,
)
from toolgrade.report._transcript import transcript_lines
from toolgrade.report._view import CaseView, ReportInput
from toolgrade.results import RunResult

__all__ = ["render_text"]

_TITLE = "Tool-Call Correctness Report"
# Long prompts and calls are cut in the terminal; the JSON and HTML reports keep them whole.
_FIELD_CHARS = 1000
_OUTPUT_CHARS = 300


def render_text(data: ReportInput) -> str:
    """Render the text report (layout of the project's specification example)."""
    m = data.metrics
    run = data.run
    lines = [_TITLE, "=" * len(_TITLE)]
    lines.append(f"Model: {terminal_safe(run.model)}")
    lines.append(f"Suite: {terminal_safe(run.suite_name)} {terminal_safe(run.suite_version)}")
    lines += [
        f"Total Cases: {m.total}",
        f"Passed: {m.passed}",
        f"Failed: {m.failed}",
        f"Timeouts: {m.timeouts}",
        f"Errors: {m.errors}",
    ]
    if data.cut_off:
        lines.append(f"Cut Off: {data.cut_off} (answers stopped at the token limit)")
    lines.append(f"Accuracy: {accuracy_text(m)}")
    served = serving_line(m)
    if served is not None:
        lines.append(f"Serving: {served}")
    lines += [f"{name}: {value}" for name, value in repeat_rows(m)]
    if data.detectable is not None:
        lines.append(f"Detectable: {data.detectable.describe()}")
    not_deterministic = noise_warning(m)
    if not_deterministic is not None:
        lines.append(f"Warning: {not_deterministic}")
    warning = timeout_warning(run)
    if warning is not None:
        lines.append(f"Warning: {warning}")
    serving = serving_rows(m)
    if serving:
        lines += ["", "Serving:", *(f"  {k}: {terminal_safe(v)}" for k, v in serving)]
    lines += _stream_checks(run)
    conversations = summary_rows(m)
    if conversations:
        lines += ["", "Conversations:", *(f"  {k}: {terminal_safe(v)}" for k, v in conversations)]
    lines += _decisions(m)
    lines += _breakdown("By Category", m.by_category, headings=True)
    lines += _breakdown("By Tool", m.by_tool, headings=False)
    changed, more = changed_cases(m)
    if changed:
        lines += ["", "Changed Between Tries:", *(f"  {terminal_safe(c)}" for c in changed)]
        if more:
            lines.append(f"  ... and {more:,} more (the JSON report lists every one)")
    lines += _failures("Failures", data.failures, data.max_failures, run.run_id)
    lines += _failures("Timeouts and Errors", data.unscored, data.max_failures, run.run_id)
    if data.comparison is not None:
        lines += _baseline(data.comparison)
    return "\n".join(lines) + "\n"


def _decisions(m: RunMetrics) -> list[str]:
    """The confusion matrix, its columns aligned, then the rates."""
    header, rows = decision_matrix(m)
    if not rows:
        return []
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    table = [
        "  "
        + "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in (header, *rows)
    ]
    return ["", "Decisions:", *table, *(f"  {k}: {terminal_safe(v)}" for k, v in decision_rows(m))]


def _breakdown(title: str, rows: Sequence[Breakdown], *, headings: bool) -> list[str]:
    """`  Edge:    20.0% (1/5)    95% CI: 3.6% - 62.4%    too few cases to tell`."""
    if not rows:
        return []
    names = [terminal_safe(label(b.key) if headings else b.key) + ":" for b in rows]
    rates = [f"{pct(b.rate.rate)} ({b.rate.passed}/{b.rate.n})" for b in rows]
    intervals = [row_interval(b) for b in rows]
    width = max(len(n) for n in names) + 2
    rate_width = max(len(r) for r in rates) + 2
    interval_width = max(len(i) for i in intervals) + 2
    out = ["", f"{title}:"]
    for name, rate, interval, b in zip(names, rates, intervals, rows, strict=True):
        line = f"  {name:<{width}}{rate:<{rate_width}}{interval:<{interval_width}}"
        out.append((line + TOO_FEW) if b.too_few_to_tell else line.rstrip())
    return out


def _failures(title: str, cases: Sequence[CaseView], limit: int | None, run_id: str) -> list[str]:
    """Each case in detail, up to `limit`; the rest counted by status."""
    if not cases:
        return []
    shown = cases if limit is None else cases[:limit]
    out = ["", f"{title}:"]
    for case in shown:
        r = case.result
        out.append(f"  {terminal_safe(case.name)}: {terminal_safe(case.headline)}")
        fault = case.serving_fault
        if fault is not None:
            out += _field("Serving", fault_text(fault), _FIELD_CHARS)
        decided = case_decision(r)
        if decided is not None:
            out += _field("Decision", decided, _FIELD_CHARS)
        sections = case.conversation
        if sections is not None:
            # A conversation reads as its sections: prompt/expected/actual say too little.
            out += [terminal_safe(line) for line in transcript_lines(sections, indent="    ")]
            continue
        out += _field("Prompt", prompt_text(r.prompt), _FIELD_CHARS)
        out += _field("Expected", calls_text(r.expected), _FIELD_CHARS)
        out += _field("Actual", calls_text(r.actual), _FIELD_CHARS)
        if not r.actual and r.raw_response is not None:
            out += _field("Output", raw_text(r.raw_response), _OUTPUT_CHARS)
        # Every difference, the first included: the reason names it only in short (values
        # cut to a few characters), and a detail must never be lost.
        for mismatch in r.details:
            out += _field("Diff", mismatch.describe(), _FIELD_CHARS)
    rest = len(cases) - len(shown)
    if rest:
        counts = Counter(c.result.status.value for c in cases[len(shown) :])
        tally = " · ".join(f"{status} {n:,}" for status, n in counts.most_common())
        out.append(
            f"  ... and {rest:,} more {title.lower()} ({tally}): the HTML and JSON reports"
            f" list every one (toolgrade report {terminal_safe(run_id)} --format html"
            " -o report.html), and so does this one with --max-failures all"
        )
    return out


def _stream_checks(run: RunResult) -> list[str]:
    """`--stream-check N`: the count per verdict, and both answers of each divergence."""
    checks = run.stream_checks
    if not checks:
        return []
    out = ["", "Stream Check:", f"  {stream_check_counts(checks)}"]
    shown, more = divergences(checks)
    for check in shown:
        out.append(f"  {terminal_safe(divergence_title(check, repeated=run.repeat > 1))}")
        out += _field("Streamed", raw_text(check.streamed), _OUTPUT_CHARS)
        out += _field("Whole", raw_text(check.whole), _OUTPUT_CHARS)
    if more:
        out.append(f"  ... and {more:,} more divergences (the HTML and JSON reports show them)")
    return out


def _field(name: str, value: str, limit: int) -> list[str]:
    """`    Name:     value`, continuation lines indented under the value."""
    head = f"    {name + ':':<10}"
    body = terminal_safe(clip(value, limit)).split("\n")
    return [head + body[0]] + [" " * len(head) + line for line in body[1:]]


def _baseline(c: Comparison) -> list[str]:
    out = [
        "",
        f"vs Baseline ({terminal_safe(c.baseline_label)}):",
        f"  Delta: {c.delta * 100:+.1f}% (was {pct(c.baseline_accuracy.rate)})",
        f"  Status: {c.status}",
        f"  Cases: {c.shared_cases} shared, {len(c.fixed)} fixed, {len(c.broken)} broken"
        f" (McNemar p = {c.p_value:.3g})",
        f"  {c.detectable}.",
    ]
    if c.same_settings_text is not None:
        out.append(f"  {c.same_settings_text}.")
    if c.noise is not None:
        out += [f"  {c.noise.describe()}.", f"  {c.noise.repeats_text()}."]
    if c.suite_hash_differs:
        out.append("  Warning: the suites differ; only shared case ids were compared")
    conv = c.conversations
    if conv is not None:
        out += [
            f"  Conversations: {conv.shared} paired, {conv.delta * 100:+.1f} points,"
            f" {conv.fixed} fixed, {conv.broken} broken (McNemar p = {conv.p_value:.3g})",
            f"    Status: {conv.status}",
            f"    {conv.detectable}.",
        ]
    return out + _baseline_serving(c)


def _baseline_serving(c: Comparison) -> list[str]:
    """How the runs were served, when there is anything to say (`ServingComparison`)."""
    s = c.serving
    if s is None or not s.shown:
        return []
    out = [f"  Serving: {terminal_safe(s.change_text)}"]
    if s.same_as_model:
        out.append("    As served: the same as the model's")
    else:
        out += [
            f"    As served: {s.delta * 100:+.1f}% (was {pct(s.baseline_accuracy.rate)},"
            f" now {pct(s.candidate_accuracy.rate)}; McNemar p = {s.p_value:.3g})",
            f"    Status as served: {s.status}",
        ]
    return out + [f"    {terminal_safe(line)}" for line in s.flip_lines()]
