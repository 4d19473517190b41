"""The Markdown report, sized and escaped for a pull-request comment.

Model and suite text is escaped for HTML and Markdown where it is placed (`_inline`,
`_code_block`), and the whole page then goes through `neutralise_references` once, so
that no `@mention` or `#123` anywhere in it (the repetition mark `#2` included) can
notify anyone or link an issue when the report is posted as a comment.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from toolgrade.compare import Comparison
from toolgrade.metrics import Breakdown
from toolgrade.report._decisions import case_decision, decision_matrix, decision_rows
from toolgrade.report._mentions import neutralise_references
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
    summary_rows,
)
from toolgrade.report._transcript import transcript_text
from toolgrade.report._view import CaseView, ReportInput
from toolgrade.results import RunResult

__all__ = ["render_markdown"]

# GitHub rejects comments over 65,536 characters: list at most this many failures in the
# table, show at most this many in full, and cut each shown value.
_TABLE_ROWS = 100
_DETAILED = 25
_FIELD_CHARS = 1500
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_BACKTICKS = re.compile(r"`+")


def render_markdown(data: ReportInput) -> str:
    """Render the Markdown report."""
    m = data.metrics
    run = data.run
    out = [
        "## Tool-Call Correctness Report",
        "",
        f"**Model:** {_inline(run.model)} · **Suite:** {_inline(run.suite_name)} "
        f"{_inline(run.suite_version)} · **Run:** {_inline(run.run_id)}",
        "",
        "| Total | Passed | Failed | Timeouts | Errors | Accuracy |",
        "|---:|---:|---:|---:|---:|---|",
        f"| {m.total} | {m.passed} | {m.failed} | {m.timeouts} | {m.errors} "
        f"| **{_inline(accuracy_text(m))}** |",
    ]
    if data.cut_off:
        out += ["", f"**Cut off:** {data.cut_off} answers stopped at the token limit."]
    if data.detectable is not None:
        out += ["", f"**Detectable:** {_inline(data.detectable.describe())}."]
    out += _serving(data)
    out += _stream_checks(data.run)
    out += _repeats(data)
    if data.comparison is not None:
        out += _baseline(data.comparison)
    out += _conversations(data)
    out += _decisions(data)
    out += _breakdown("Category", m.by_category, headings=True)
    out += _breakdown("Tool", m.by_tool, headings=False)
    out += _failures("Failures", data.failures)
    out += _failures("Timeouts and errors", data.unscored)
    # The one place every piece of text passes: nothing added later can slip through.
    return neutralise_references("\n".join(out) + "\n")


def _repeats(data: ReportInput) -> list[str]:
    """With `--repeat K`: consistency, pass^k, the noise floor and the cases that flipped."""
    rows = repeat_rows(data.metrics)
    if not rows:
        return []
    out = ["", " · ".join(f"**{_inline(name)}:** {_inline(value)}" for name, value in rows)]
    not_deterministic = noise_warning(data.metrics)
    if not_deterministic is not None:
        out += ["", f"> **Warning:** {_inline(not_deterministic)}."]
    changed, more = changed_cases(data.metrics)
    if changed:
        shown = ", ".join(_inline(c) for c in changed)
        rest = f" … and {more:,} more" if more else ""
        out += ["", f"Outcome changed between tries: {shown}{rest}"]
    return out


def _serving(data: ReportInput) -> list[str]:
    """How the answers reached the client: one line when nothing was lost, else a table."""
    line = serving_line(data.metrics)
    if line is not None:
        return ["", f"**Serving:** {_inline(line)}."]
    rows = serving_rows(data.metrics)
    if not rows:
        return []
    out = ["", "### Serving", "", "| | |", "|---|---|"]
    out += [f"| {_inline(name)} | {_inline(value)} |" for name, value in rows]
    return out


def _decisions(data: ReportInput) -> list[str]:
    """Expected outcome against what the model did: the matrix, then the rates."""
    header, rows = decision_matrix(data.metrics)
    if not rows:
        return []
    out = ["", "### Decisions", "", "| " + " | ".join(_inline(h) for h in header) + " |"]
    out.append("|---|" + "---:|" * (len(header) - 1))
    out += ["| " + " | ".join(_inline(c) for c in row) + " |" for row in rows]
    out += ["", "| | |", "|---|---|"]
    out += [f"| {_inline(k)} | {_inline(v)} |" for k, v in decision_rows(data.metrics)]
    return out


def _stream_checks(run: RunResult) -> list[str]:
    """`--stream-check N`: the count per verdict, and both answers of each divergence."""
    checks = run.stream_checks
    if not checks:
        return []
    out = ["", "### Stream check", "", _inline(stream_check_counts(checks)) + "."]
    shown, more = divergences(checks)
    for check in shown:
        title = divergence_title(check, repeated=run.repeat > 1)
        summary = html.escape(terminal_safe(clip(title, 200)), quote=False)
        out += ["", "<details>", f"<summary>{summary}</summary>", ""]
        out += ["**Streamed**", "", *_code_block(raw_text(check.streamed)), ""]
        out += ["**Whole**", "", *_code_block(raw_text(check.whole)), "", "</details>"]
    if more:
        out += ["", f"… and {more:,} more divergences (see the HTML or JSON report)."]
    return out


def _conversations(data: ReportInput) -> list[str]:
    """The conversations section of the summary (only when the run has conversations)."""
    rows = summary_rows(data.metrics)
    if not rows:
        return []
    out = ["", "### Conversations", "", "| | |", "|---|---|"]
    out += [f"| {_inline(name)} | {_inline(value)} |" for name, value in rows]
    return out


def _inline(text: str) -> str:
    """Escape text for a Markdown line or table cell (HTML and Markdown syntax)."""
    flat = terminal_safe(text).replace("\r", " ").replace("\n", " ")
    return _MD_SPECIAL.sub(r"\\\1", html.escape(flat, quote=False))


def _code_block(text: str, lang: str = "text") -> list[str]:
    """A fenced block whose fence is longer than any backtick run inside it."""
    body = terminal_safe(clip(text, _FIELD_CHARS))
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{lang}", body, fence]


def _baseline(c: Comparison) -> list[str]:
    out = [
        "",
        f"### vs Baseline ({_inline(c.baseline_label)})",
        "",
        "| | Baseline | This run | Delta |",
        "|---|---:|---:|---:|",
        f"| Accuracy | {pct(c.baseline_accuracy.rate)} | {pct(c.candidate_accuracy.rate)} "
        f"| {c.delta * 100:+.1f} pts |",
        "",
        f"**Status:** {c.status} — {c.shared_cases} shared cases, "
        f"{len(c.fixed)} fixed, {len(c.broken)} broken (McNemar p = {c.p_value:.3g})",
        "",
        f"{c.detectable}.",
    ]
    if c.same_settings_text is not None:
        out += ["", f"{_inline(c.same_settings_text)}."]
    if c.noise is not None:
        out += ["", f"{_inline(c.noise.describe())}. {_inline(c.noise.repeats_text())}."]
    if c.suite_hash_differs:
        out += ["", "> **Warning:** the suites differ; only shared case ids were compared."]
    conv = c.conversations
    if conv is not None:
        out += [
            "",
            f"**Conversations:** {conv.status} — {conv.shared} paired,"
            f" {conv.delta * 100:+.1f} pts, {conv.fixed} fixed, {conv.broken} broken"
            f" (McNemar p = {conv.p_value:.3g}). {conv.detectable}.",
        ]
    out += _baseline_serving(c)
    if c.broken:
        ids = ", ".join(_inline(f.case_id) for f in c.broken[:_TABLE_ROWS])
        out += ["", f"Broken: {ids}" + (" …" if len(c.broken) > _TABLE_ROWS else "")]
    if c.fixed:
        ids = ", ".join(_inline(f.case_id) for f in c.fixed[:_TABLE_ROWS])
        out += ["", f"Fixed: {ids}" + (" …" if len(c.fixed) > _TABLE_ROWS else "")]
    return out


def _baseline_serving(c: Comparison) -> list[str]:
    """How the runs were served, when there is anything to say (`ServingComparison`)."""
    s = c.serving
    if s is None or not s.shown:
        return []
    served = (
        "the same as the model's"
        if s.same_as_model
        else f"{s.status} — {pct(s.baseline_accuracy.rate)} → {pct(s.candidate_accuracy.rate)}"
        f" ({s.delta * 100:+.1f} pts, McNemar p = {s.p_value:.3g})"
    )
    out = ["", f"**Serving:** {_inline(s.change_text)}. **As served:** {served}"]
    lines = s.flip_lines()
    return out + (["", *(f"- {_inline(line)}" for line in lines)] if lines else [])


def _breakdown(title: str, rows: Sequence[Breakdown], *, headings: bool) -> list[str]:
    if not rows:
        return []
    out = ["", f"### By {title.lower()}", "", f"| {title} | Accuracy | Passed | 95% CI |"]
    out.append("|---|---:|---:|---|")
    for b in rows:
        name = _inline(label(b.key) if headings else b.key)
        ci = b.rate.interval
        mark = f" ({TOO_FEW})" if b.too_few_to_tell else ""
        out.append(
            f"| {name} | {pct(b.rate.rate)} | {b.rate.passed}/{b.rate.n} "
            f"| {pct(ci.low)} - {pct(ci.high)}{mark} |"
        )
    return out


def _failures(title: str, cases: Sequence[CaseView]) -> list[str]:
    if not cases:
        return []
    listed = cases[:_TABLE_ROWS]
    # The serving column only when a listed case has a fault: a clean run has none.
    served = any(c.serving_fault is not None for c in listed)
    columns = ["Case", "Status", "Reason", *(["Serving"] if served else [])]
    out = ["", f"### {title} ({len(cases)})", "", f"| {' | '.join(columns)} |"]
    out.append("|---" * len(columns) + "|")
    for case in listed:
        row = f"| {_inline(case.name)} | `{case.result.status.value}` | {_inline(case.headline)} |"
        if served:
            row += f" `{case.serving.kind.value}` |"
        out.append(row)
    if len(cases) > _TABLE_ROWS:
        out += ["", f"… and {len(cases) - _TABLE_ROWS} more (see the HTML or JSON report)."]
    for case in cases[:_DETAILED]:
        out += _detail(case)
    if len(cases) > _DETAILED:
        out += ["", f"Details of the first {_DETAILED} shown; the HTML report has them all."]
    return out


def _detail(case: CaseView) -> list[str]:
    r = case.result
    summary = html.escape(terminal_safe(clip(f"{case.name}: {case.headline}", 200)), quote=False)
    out = ["", "<details>", f"<summary>{summary}</summary>", ""]
    fault = case.serving_fault
    if fault is not None:
        out += [f"**Serving:** {_inline(fault_text(fault))}", ""]
    decided = case_decision(r)
    if decided is not None:
        out += [f"**Decision:** {_inline(decided)}", ""]
    if case.conversation is not None:
        # The transcript sits in a code block: no Markdown or HTML in it is rendered.
        out += ["**Transcript**", "", *_code_block(transcript_text(case.conversation)), ""]
        out.append("</details>")
        return out
    out += ["**Prompt**", "", *_code_block(prompt_text(r.prompt)), ""]
    out += ["**Expected**", "", *_code_block(calls_text(r.expected)), ""]
    out += ["**Actual**", "", *_code_block(calls_text(r.actual)), ""]
    if r.details:
        out += ["**Differences**", ""]
        out += [f"- {_inline(m.describe())}" for m in r.details[:20]]
        out.append("")
    if r.raw_response is not None:
        out += ["**Raw output**", "", *_code_block(raw_text(r.raw_response)), ""]
    out.append("</details>")
    return out
