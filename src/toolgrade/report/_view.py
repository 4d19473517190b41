"""Shared presentation helpers: how calls, prompts, rates and case labels read in reports.

Model text is untrusted. These helpers only turn values into plain strings; each format
escapes them for its own medium (terminal control characters here, HTML and XML in
their writers).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonValue
from toolgrade._core.vocab import ToolCall
from toolgrade.compare import Comparison
from toolgrade.metrics import RunMetrics, compute_metrics
from toolgrade.report._describe import describe_failure
from toolgrade.results import CaseResult, RunResult, Status

__all__ = [
    "CUT_OFF",
    "FAILURES_SHOWN",
    "NO_CALL",
    "CaseView",
    "ReportInput",
    "args_text",
    "build_input",
    "call_text",
    "calls_text",
    "clip",
    "json_text",
    "label",
    "pct",
    "percentiles",
    "prompt_text",
    "terminal_safe",
]

FAILURES_SHOWN = 50
"""Failures (and, apart, timeouts and errors) the text report details by default; the
rest are counted by status. The HTML and JSON reports list every one."""
NO_CALL = "(no tool call)"
CUT_OFF = "answer cut off at the token limit"
"""The mark of a case whose answer the server stopped at the token limit."""

# C0/C1 control characters other than tab and newline: a model output holding ANSI
# escape sequences must not be able to repaint the reader's terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def pct(rate: float) -> str:
    """A fraction as a percentage with one decimal: 0.84 -> `84.0%`."""
    return f"{rate * 100:.1f}%"


def label(key: str) -> str:
    """A category name as a heading: `simple` -> `Simple`."""
    return key[:1].upper() + key[1:]


def clip(text: str, limit: int) -> str:
    """Cut `text` to `limit` characters, marking the cut."""
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + "…"


def terminal_safe(text: str) -> str:
    """Replace control characters (ANSI escapes, NUL, ...) by visible hex escapes."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


# One encoder each, made once: json.dumps builds a new encoder per call whenever an
# option differs from its defaults, which dominated the cost of large reports.
_COMPACT = json.JSONEncoder(ensure_ascii=False)
_INDENTED = json.JSONEncoder(ensure_ascii=False, indent=2)


def json_text(value: JsonValue, *, indent: bool = False) -> str:
    """A JSON value as JSON text (indented by 2 if asked), key order and non-ASCII kept."""
    return (_INDENTED if indent else _COMPACT).encode(value)


def args_text(arguments: Mapping[str, JsonValue]) -> str:
    """Arguments as `key=value, ...`, values in JSON: `pattern="main", path="src"`."""
    return ", ".join(f"{k}={json_text(v)}" for k, v in arguments.items())


def call_text(call: ToolCall) -> str:
    """A call as `name(key=value, ...)`, values in JSON: `search(pattern="main")`."""
    return f"{call.name}({args_text(call.arguments)})"


def calls_text(calls: Sequence[ToolCall]) -> str:
    """Several calls separated by `; `, or `(no tool call)`."""
    return "; ".join(call_text(c) for c in calls) if calls else NO_CALL


def prompt_text(prompt: JsonValue) -> str:
    """The prompt as plain text: a string as is, chat messages as `role: content` lines."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):
        lines = []
        for message in prompt:
            if isinstance(message, dict) and isinstance(message.get("content"), str):
                lines.append(f"{message.get('role', '?')}: {message['content']}")
            else:
                lines.append(json_text(message))
        return "\n".join(lines)
    return "" if prompt is None else json_text(prompt)


def percentiles(values: Sequence[float], *qs: float) -> tuple[float, ...] | None:
    """Linearly interpolated percentiles (numpy's default method); None without values."""
    if not values:
        return None
    ordered = sorted(values)
    out = []
    for q in qs:
        position = (len(ordered) - 1) * q / 100
        low = int(position)
        high = min(low + 1, len(ordered) - 1)
        out.append(ordered[low] + (ordered[high] - ordered[low]) * (position - low))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class CaseView:
    """A case result with its display name and failure reason worked out once."""

    result: CaseResult
    name: str
    """The case id, with `#k` appended (k from 1) when the run repeats cases."""
    reason: str
    """`describe_failure(result)`."""

    @property
    def cut_off(self) -> bool:
        """Whether the server stopped the answer at the token limit (`finish_reason` length)."""
        return self.result.finish_reason == "length"

    @property
    def headline(self) -> str:
        """The reason, marked `(answer cut off at the token limit)` when it was."""
        return f"{self.reason} ({CUT_OFF})" if self.cut_off else self.reason


@dataclass(frozen=True, slots=True)
class ReportInput:
    """Everything a writer needs, computed once per report."""

    run: RunResult
    metrics: RunMetrics
    comparison: Comparison | None
    cases: tuple[CaseView, ...]
    """Every result of the run, in run order."""
    max_failures: int | None = FAILURES_SHOWN
    """Failures the text report details (the same again for timeouts and errors); None:
    every one."""

    @property
    def failures(self) -> tuple[CaseView, ...]:
        """Scored cases that did not pass."""
        return tuple(c for c in self.cases if _failed(c.result))

    @property
    def unscored(self) -> tuple[CaseView, ...]:
        """Timeouts and errors: shown, never scored."""
        return tuple(c for c in self.cases if not c.result.status.scored)

    @property
    def cut_off(self) -> int:
        """How many answers the server stopped at the token limit."""
        return sum(c.cut_off for c in self.cases)

    @property
    def ttft_ms(self) -> tuple[float, float] | None:
        """Median and 95th percentile time to first token; None when nothing was streamed."""
        values = [r.ttft_ms for r in self.run.results if r.ttft_ms is not None]
        found = percentiles(values, 50, 95)
        return None if found is None else (found[0], found[1])


def build_input(
    run: RunResult,
    *,
    metrics: RunMetrics | None,
    comparison: Comparison | None,
    max_failures: int | None = FAILURES_SHOWN,
) -> ReportInput:
    """Compute the metrics (unless given) and every case's display name and reason."""
    repeated = run.repeat > 1 or any(r.repeat for r in run.results)
    cases = tuple(
        CaseView(
            result=r,
            name=f"{r.case_id} repeat {r.repeat}" if repeated else r.case_id,
            reason=describe_failure(r),
        )
        for r in run.results
    )
    return ReportInput(
        run=run,
        metrics=metrics if metrics is not None else compute_metrics(run),
        comparison=comparison,
        cases=cases,
        max_failures=max_failures,
    )


def _failed(result: CaseResult) -> bool:
    return result.status.scored and result.status is not Status.CORRECT
