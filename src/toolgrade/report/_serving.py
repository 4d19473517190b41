"""How a run's serving section is worded: the two accuracies, the faults, the flag to try.

The numbers are `RunMetrics.serving`'s (`ServingMetrics`) and the run's stream checks
(`RunResult.stream_checks`); this module only words them, as strings and `(name,
value)` rows that the text, Markdown and HTML reports lay out in their own way, each
escaping them for its medium (the example case ids and a fault's detail can quote
suite and model text).

A run where nothing was lost gets one short line (`serving_line`); a run whose accuracy
as served differs from the model's, or with a fault, gets rows (`serving_rows`). A
request that failed (`request_failed`) is already told by the case's status (timeout,
error), so a run whose only fault is that still gets the one line, which counts them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import get_args

from toolgrade.metrics import RunMetrics, ServingMetrics
from toolgrade.report._plain import count_text, pct
from toolgrade.results import StreamCheck, StreamVerdict
from toolgrade.serving import FAULTS, ServingClass, ServingVerdict
from toolgrade.stats import Rate

__all__ = [
    "DIVERGENCES_SHOWN",
    "GLOSSES",
    "PROMPT_FAULTS",
    "as_served_line",
    "divergence_title",
    "divergences",
    "fault_detail",
    "fault_text",
    "serving_line",
    "serving_rows",
    "stream_check_counts",
]

GLOSSES: dict[ServingClass, str] = {
    ServingClass.CALLS_IN_TEXT: "calls only in the text, none in tool_calls",
    ServingClass.CALLS_IN_REASONING: "calls only in the reasoning field",
    ServingClass.MALFORMED_CALL: "tool_calls a client cannot use",
    ServingClass.TRUNCATED: "cut at the token limit",
    ServingClass.EMPTY: "no call and no text came back",
    ServingClass.REQUEST_FAILED: "no answer: the request failed or timed out",
}
"""Each fault class in a few words, for the rows that count them."""

PROMPT_FAULTS = (ServingClass.EMPTY, ServingClass.TRUNCATED, ServingClass.REQUEST_FAILED)
"""The faults a prompt-mode run can have: calls are read from the text by design."""

DIVERGENCES_SHOWN = 10
"""Stream checks whose streamed and whole answers diverged shown with both answers by
the text and Markdown reports; the HTML and JSON reports show every one."""

_VERDICTS: tuple[StreamVerdict, ...] = get_args(StreamVerdict)
_PROMPT_MODE = (
    "prompt: calls are read from the text by design; the serving check is about native mode"
)


def serving_line(m: RunMetrics) -> str | None:
    """The one line of a run where nothing was lost; None when there are rows instead.

    Also None for metrics without a serving section (built by hand).

    Examples: `every answer reached the client as sent (structured 40, text_only 5)`,
    `every answer that came ... (structured 38, text_only 5; request_failed 2)`, or in
    prompt mode `prompt mode (prompted 85): calls are read from the text by design; the
    serving check is about native mode`.
    """
    s = m.serving
    failed = s.counts.get(ServingClass.REQUEST_FAILED.value, 0) if s is not None else 0
    if s is None or s.differs or s.faults > failed:
        return None
    counts = "; ".join(
        part for part in (_clean_counts(s), f"request_failed {failed}" if failed else "") if part
    )
    if not s.native:
        return (
            f"prompt mode ({counts}): calls are read from the text by design; the serving"
            " check is about native mode"
        )
    answers = "every answer that came" if failed else "every answer"
    return f"{answers} reached the client as sent ({counts})"


def serving_rows(m: RunMetrics) -> list[tuple[str, str]]:
    """The serving section as (name, value) rows; empty when `serving_line` says it all.

    Rows: `Accuracy` (the model's and as served, side by side with their intervals, when
    they differ), `Mode` (prompt mode), one row per fault class found (its count, share
    with its Wilson interval, what it means, up to three example case ids), `Formats in
    text`, `Try` (the server flag that would parse them) and `Clean` (the clean classes).
    """
    if serving_line(m) is not None or m.serving is None:
        return []
    s = m.serving
    rows: list[tuple[str, str]] = []
    if s.differs:
        rows.append(("Accuracy", _accuracies(m, s)))
    if not s.native:
        rows.append(("Mode", _PROMPT_MODE))
    total = sum(s.counts.values())
    for kind in PROMPT_FAULTS if not s.native else FAULTS:
        n = s.counts.get(kind.value, 0)
        if n:
            rows.append((kind.value, _fault(s, kind, n, total)))
    if s.formats_in_text:
        rows.append(("Formats in text", _tally(s.formats_in_text)))
    if s.hint:
        rows.append(("Try", s.hint))
    clean = _clean_counts(s)
    if clean:
        rows.append(("Clean", clean))
    return rows


def as_served_line(m: RunMetrics) -> str | None:
    """The end-of-run line when the accuracy as served differs; None when it does not.

    Examples: `As served: 7.1% (6/85) vs model 27.1% (23/85): calls_in_text 74`.
    """
    s = m.serving
    if s is None or not s.differs:
        return None
    faults = ", ".join(f"{k} {n}" for k in FAULTS if (n := s.counts.get(k.value, 0)))
    a, served = m.accuracy, s.as_served
    return (
        f"As served: {pct(served.rate)} ({served.passed}/{served.n}) vs model"
        f" {pct(a.rate)} ({a.passed}/{a.n})" + (f": {faults}" if faults else "")
    )


def fault_text(verdict: ServingVerdict) -> str:
    """A case's serving fault in one line: its class, what was found, and where.

    Examples: `calls_in_text: 1 call(s) as fenced_json in the text, none in tool_calls`,
    `empty: no call and no text came back (turn 2, step 1)`.
    """
    detail = fault_detail(verdict)
    return f"{verdict.kind.value}: {detail}" if detail else verdict.kind.value


def fault_detail(verdict: ServingVerdict) -> str:
    """What was found, and where in a conversation: `fault_text` without the class."""
    return f"{verdict.detail} ({verdict.where})" if verdict.where else verdict.detail


def stream_check_counts(checks: Sequence[StreamCheck]) -> str:
    """`10 cases asked streamed and whole: agree 8 · diverge 1 · noise 1 · failed 0`."""
    counts = Counter(c.verdict for c in checks)
    tally = " · ".join(f"{v} {counts[v]}" for v in _VERDICTS)
    return f"{count_text(len(checks), 'case')} asked streamed and whole: {tally}"


def divergence_title(check: StreamCheck, *, repeated: bool) -> str:
    """`TC-015: diverge — <what differs>` (`TC-015 repeat 1: ...` when the run repeats)."""
    name = f"{check.case_id} repeat {check.repeat}" if repeated else check.case_id
    return f"{name}: diverge — {check.detail}" if check.detail else f"{name}: diverge"


def divergences(
    checks: Sequence[StreamCheck], limit: int | None = DIVERGENCES_SHOWN
) -> tuple[tuple[StreamCheck, ...], int]:
    """The first `limit` checks whose streamed and whole answers diverged, and the rest."""
    found = tuple(c for c in checks if c.verdict == "diverge")
    shown = found if limit is None else found[:limit]
    return shown, len(found) - len(shown)


def _rate(rate: Rate) -> str:
    ci = rate.interval
    return (
        f"{pct(rate.rate)} ({rate.passed}/{rate.n}, {ci.level * 100:g}% CI"
        f" {pct(ci.low)} - {pct(ci.high)})"
    )


def _accuracies(m: RunMetrics, s: ServingMetrics) -> str:
    lost = s.lost.passed
    if m.repeats <= 1:
        noun = count_text(lost, "passing case")
    else:
        noun = "1 passing try" if lost == 1 else f"{lost} passing tries"
    shown = f", e.g. {', '.join(s.lost_examples)}" if s.lost_examples else ""
    return (
        f"model {_rate(m.accuracy)} · as served {_rate(s.as_served)}: {noun} did not"
        f" reach the client as tool_calls{shown}"
    )


def _fault(s: ServingMetrics, kind: ServingClass, n: int, total: int) -> str:
    """`74 of 85 (87.1%, 95% CI 78.3% - 92.6%): calls only in ...; e.g. TC-001, TC-002`."""
    share = s.shares[kind.value]
    ci = share.interval
    text = (
        f"{n} of {total} ({pct(share.rate)}, {ci.level * 100:g}% CI {pct(ci.low)} -"
        f" {pct(ci.high)}): {GLOSSES[kind]}"
    )
    examples = s.examples.get(kind.value, ())
    if examples:
        text += f"; e.g. {', '.join(examples)}"
    return text


def _clean_counts(s: ServingMetrics) -> str:
    return _tally({k: n for k, n in s.counts.items() if n and ServingClass(k).clean})


def _tally(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {n}" for k, n in counts.items())
