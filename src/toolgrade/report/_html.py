"""The HTML report: one self-contained file (no network), built with Jinja2.

Every value that can hold model or suite text reaches the page through Jinja2's
autoescaping; the page's own script and style are pinned by hash in a
Content-Security-Policy, so even markup that slipped through could not run a script.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources

import jinja2
import markupsafe

from toolgrade._core.json_data import JsonValue
from toolgrade.report._charts import Chart, bar_chart
from toolgrade.report._decisions import case_decision, decision_matrix, decision_rows
from toolgrade.report._diff import PairView, pair_views
from toolgrade.report._plain import (
    call_text,
    clip,
    count_text,
    json_text,
    label,
    pct,
    prompt_text,
    terminal_safe,
)
from toolgrade.report._raw import RawPart, clip_parts, group_calls, raw_parts, raw_text
from toolgrade.report._sections import ConversationView
from toolgrade.report._serving import (
    divergence_title,
    divergences,
    fault_text,
    serving_line,
    serving_rows,
    stream_check_counts,
)
from toolgrade.report._summary import changed_cases, noise_warning, summary_rows
from toolgrade.report._view import CaseView, ReportInput

__all__ = ["render_html"]

# Long texts are cut so that one runaway output cannot make the page unusable; the JSON
# report keeps everything.
_TEXT_CHARS = 20_000
_SEARCH_CHARS = 2_000
_SECTION_CHARS = 4_000
"""A conversation's values are cut to this in its timeline unless the template says less."""
_TEMPLATES = "templates"


@dataclass(frozen=True, slots=True)
class RawStep:
    """One step's raw output in a conversation's failure row."""

    title: str
    """`Turn 1, step 2`."""
    parts: tuple[RawPart, ...]
    """Empty when the step has no answer (`note` says why)."""
    note: str | None = None


@dataclass(frozen=True, slots=True)
class FailureRow:
    """One failed (or unscored) case as the failure table shows it."""

    name: str
    category: str
    status: str
    tools: str
    reason: str
    score: float
    latency: str
    """Milliseconds, for sorting."""
    ttft: str
    """Milliseconds to the first token; empty when the answer was not streamed."""
    search: str
    """Lower-cased text the filter box searches."""
    prompt: str
    raw: tuple[RawPart, ...] | None
    """The raw output as text, reasoning and calls (one JSON part if unrecognised)."""
    raw_steps: tuple[RawStep, ...]
    """A conversation's raw output, step by step (empty for a single case)."""
    pairs: tuple[PairView, ...]
    details: tuple[tuple[str, str, str, str, str], ...]
    """(path, reason, expected JSON, actual JSON) of every argument difference."""
    error: str | None
    serving: str
    """The case's serving class (`ServingClass` value), for its label and the filter."""
    serving_fault: str
    """The serving fault in one line (`fault_text`), empty when the class is clean."""
    decision: str = ""
    """What the model did, for a case that states its outcome (`case_decision`); empty
    otherwise."""


@dataclass(frozen=True, slots=True)
class Divergence:
    """One stream check whose streamed and whole answers differ, as the page shows it."""

    title: str
    """`TC-015: diverge — <what differs>`."""
    streamed: str
    whole: str


def _read(name: str) -> str:
    path = resources.files("toolgrade.report") / _TEMPLATES / name
    return path.read_text(encoding="utf-8")


def _bounded(text: str, limit: int = _SECTION_CHARS) -> str:
    """Text cut to `limit`, control characters escaped: the template's `bounded` filter.

    Autoescaping then makes the model or suite text inert.
    """
    return terminal_safe(clip(text, limit))


def _json_bounded(value: JsonValue, limit: int) -> str:
    """A JSON value as indented JSON, `_bounded` (the template's `json_bounded` filter)."""
    return _bounded(json_text(value, indent=True), limit)


def _facts(view: ConversationView) -> str:
    """`on-policy · 2/3 turns passed (progress 66.7%) · 5 steps · 4 calls`."""
    return (
        f"{view.mode} · {view.turns_passed}/{view.total_turns} turns passed"
        f" (progress {pct(view.progress)}) · {count_text(view.steps, 'step')}"
        f" · {count_text(view.calls, 'call')}"
    )


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(_read),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters.update(bounded=_bounded, json_bounded=_json_bounded, call_text=call_text)
    return environment


@cache
def _assets(conversations: bool = False) -> tuple[str, str, str]:
    """The page's script and style, and the CSP that allows exactly these two.

    The conversation timelines' style is added only to pages that have conversations,
    so a page without them carries no style it does not use.
    """
    script = _read("report.js")
    style = _read("report.css")
    if conversations:
        style += _read("conversation.css")
    digest = {
        kind: base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
        for kind, text in (("script", script), ("style", style))
    }
    csp = (
        "default-src 'none'; img-src data:; "
        f"script-src 'sha256-{digest['script']}'; style-src 'sha256-{digest['style']}'"
    )
    return script, style, csp


def _row(case: CaseView) -> FailureRow:
    r = case.result
    prompt = prompt_text(r.prompt)
    tools = ", ".join(dict.fromkeys(c.name for c in r.expected)) or "(none)"
    serving = case.serving.kind.value
    fault = case.serving_fault
    search = " ".join(
        (case.name, r.category, r.status.value, serving, tools, case.headline, prompt)
    )
    return FailureRow(
        name=case.name,
        category=r.category,
        status=r.status.value,
        tools=tools,
        reason=case.headline,
        score=r.score,
        latency="" if r.latency_ms is None else f"{r.latency_ms:.0f}",
        ttft="" if r.ttft_ms is None else f"{r.ttft_ms:.0f}",
        search=clip(search, _SEARCH_CHARS).lower(),
        prompt=terminal_safe(clip(prompt, _TEXT_CHARS)),
        raw=None if r.raw_response is None else _raw(r.raw_response),
        raw_steps=() if case.conversation is None else _raw_steps(case.conversation),
        pairs=pair_views(r),
        details=tuple(
            (
                m.path,
                m.reason,
                # A difference told only by its message (BFCL's) has no values to show.
                _json_or_blank(m.expected, m.reason == "unexpected" or not m.values_known),
                _json_or_blank(m.actual, m.reason == "missing" or not m.values_known),
                clip(m.message, 500),
            )
            for m in r.details
        ),
        error=r.error,
        serving=serving,
        serving_fault="" if fault is None else terminal_safe(clip(fault_text(fault), 500)),
        decision=terminal_safe(clip(case_decision(r) or "", 500)),
    )


def _divergences(data: ReportInput) -> tuple[Divergence, ...]:
    """Every stream check that diverged, both answers as text, cut and made printable."""
    shown, _ = divergences(data.run.stream_checks, None)
    repeated = data.run.repeat > 1
    return tuple(
        Divergence(
            title=_bounded(divergence_title(c, repeated=repeated), 1000),
            streamed=_bounded(raw_text(c.streamed)),
            whole=_bounded(raw_text(c.whole)),
        )
        for c in shown
    )


def _raw(raw: JsonValue) -> tuple[RawPart, ...]:
    parts = clip_parts(group_calls(raw_parts(raw)), _TEXT_CHARS)
    return tuple(RawPart(p.kind, terminal_safe(p.text)) for p in parts)


def _raw_steps(view: ConversationView) -> tuple[RawStep, ...]:
    """Every step's raw output, titled by turn and step, all cut to one budget."""
    out: list[RawStep] = []
    steps = [(t.number, s) for t in view.turns for s in t.steps]
    left = _TEXT_CHARS
    for n, (turn_number, step) in enumerate(steps):
        title = f"Turn {turn_number}, step {step.number}"
        if left <= 0:
            rest = len(steps) - n
            out.append(RawStep(f"{rest} more step{'s' if rest > 1 else ''}", (), _CUT_NOTE))
            break
        if step.raw_response is None:
            why = f"no answer: {clip(step.error, 500)}" if step.error else "no answer recorded"
            out.append(RawStep(title, (), terminal_safe(why)))
            continue
        parts = clip_parts(group_calls(raw_parts(step.raw_response)), left)
        left -= sum(len(p.text) for p in parts)
        out.append(RawStep(title, tuple(RawPart(p.kind, terminal_safe(p.text)) for p in parts)))
    return tuple(out)


_CUT_NOTE = "cut here: the JSON report keeps every step"


def _json_or_blank(value: JsonValue, blank: bool) -> str:
    return "" if blank else clip(json_text(value), 500)


def render_html(data: ReportInput) -> str:
    """Render the HTML report.

    The summary, the failure table, and each conversation's sections as a timeline.
    """
    conversations = [c for c in data.cases if c.conversation is not None]
    script, style, csp = _assets(bool(conversations))
    m = data.metrics
    rows = [_row(c) for c in (*data.failures, *data.unscored)]
    charts: list[Chart] = []
    if m.by_category:
        charts.append(bar_chart("Accuracy by category", m.by_category, headings=True))
    if m.by_tool:
        charts.append(bar_chart("Accuracy by tool", m.by_tool, headings=False))
    changed, changed_more = changed_cases(m)
    template = _environment().get_template("report.html.j2")
    return template.render(  # conversations: empty for a run without them
        changed=changed,
        changed_more=changed_more,
        noise_warning=noise_warning(m),
        conversations=conversations,
        conversation_rows=summary_rows(m),
        facts=_facts,
        fault_text=fault_text,
        run=data.run,
        m=m,
        comparison=data.comparison,
        verdict=data.comparison.status if data.comparison else "",
        charts=charts,
        cut_off=data.cut_off,
        detectable=data.detectable,
        ttft=data.ttft_ms,
        rows=rows,
        statuses=sorted({r.status for r in rows}),
        categories=sorted({r.category for r in rows}),
        servings=sorted({r.serving for r in rows}),
        serving_line=serving_line(m),
        serving_rows=serving_rows(m),
        decision_matrix=decision_matrix(m),
        decision_rows=decision_rows(m),
        stream_checks=(
            stream_check_counts(data.run.stream_checks) if data.run.stream_checks else None
        ),
        divergences=_divergences(data),
        pct=pct,
        label=label,
        csp=csp,
        script=markupsafe.Markup(script),
        style=markupsafe.Markup(style),
    )
