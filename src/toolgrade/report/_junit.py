"""The JUnit XML report: one testcase per case, for CI dashboards.

A conversation is one testcase too (one per repetition): its failure message is the
first failure (`turn 2: wrong_args — ...`) and its `system-out` the short transcript.
Every testcase has the property `serving` (its serving class), and `serving_detail`
when that class is a fault; the testsuite has the accuracy as served and the count of
each serving class found.

Every value reaches the file through `_xml_safe`, which also neutralises GitHub
mentions and issue references: CI reporters (dorny/test-reporter, EnricoMi's
publish-unit-test-result-action, mikepenz/action-junit-report) copy test names and
failure messages into check runs and pull-request comments.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from toolgrade.metrics import Breakdown, RunMetrics
from toolgrade.report._mentions import neutralise_references
from toolgrade.report._plain import calls_text, clip, prompt_text
from toolgrade.report._raw import raw_text
from toolgrade.report._serving import fault_detail
from toolgrade.report._transcript import transcript_text
from toolgrade.report._view import CaseView, ReportInput
from toolgrade.results import Status

__all__ = ["render_junit"]

# XML 1.0 cannot hold most control characters (not even escaped), nor lone surrogates;
# a model output containing them must still give a well-formed file.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_BODY_CHARS = 4000
_TRANSCRIPT_CHARS = 20_000


def _xml_safe(text: str) -> str:
    return neutralise_references(_NOT_XML.sub("\ufffd", text))


def render_junit(data: ReportInput) -> str:
    """Render the JUnit XML report (the schema Jenkins, GitLab and GitHub actions read)."""
    run = data.run
    m = data.metrics
    seconds = (
        (run.finished_at - run.started_at).total_seconds() if run.finished_at is not None else 0.0
    )
    counts = {
        "tests": str(m.total),
        "failures": str(m.failed),
        "errors": str(m.timeouts + m.errors),
        "skipped": "0",
        "time": f"{seconds:.3f}",
    }
    root = ET.Element("testsuites", {"name": "toolgrade", **counts})
    suite = ET.SubElement(
        root,
        "testsuite",
        {
            "name": _xml_safe(run.suite_name),
            **counts,
            "timestamp": run.started_at.isoformat(),
        },
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("model", run.model),
        ("run_id", run.run_id),
        ("suite_version", run.suite_version),
        ("suite_hash", run.suite_hash),
        ("rubric", run.rubric),
        ("accuracy", f"{m.accuracy.rate:.4f}"),
        ("accuracy_ci_low", f"{m.accuracy.interval.low:.4f}"),
        ("accuracy_ci_high", f"{m.accuracy.interval.high:.4f}"),
        *_detectable_properties(data),
        *((("cut_off", str(data.cut_off)),) if data.cut_off else ()),
        *_serving_properties(m),
        *_noise_properties(m),
        *_row_properties(m),
        *_baseline_properties(data),
    ):
        ET.SubElement(properties, "property", {"name": _xml_safe(name), "value": _xml_safe(value)})
    for case in data.cases:
        _testcase(suite, case, run.suite_name)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _detectable_properties(data: ReportInput) -> list[tuple[str, str]]:
    """The smallest change a comparison of the run detects, and the discordance assumed."""
    d = data.detectable
    if d is None:
        return []
    return [
        ("detectable.mde", "" if d.mde is None else f"{d.mde:.4f}"),
        ("detectable.discordance", f"{d.discordance:.4f}"),
        ("detectable.source", d.source),
    ]


def _serving_properties(m: RunMetrics) -> list[tuple[str, str]]:
    """The accuracy as served, its interval, and the results of each serving class found.

    Named `accuracy_as_served`, `accuracy_as_served_ci_low`, `accuracy_as_served_ci_high`
    and `serving.<class>` (only the classes with results).
    """
    s = m.serving
    if s is None:
        return []
    served = s.as_served
    out = [
        ("accuracy_as_served", f"{served.rate:.4f}"),
        ("accuracy_as_served_ci_low", f"{served.interval.low:.4f}"),
        ("accuracy_as_served_ci_high", f"{served.interval.high:.4f}"),
    ]
    out += [(f"serving.{kind}", str(n)) for kind, n in s.counts.items() if n]
    return out


def _noise_properties(m: RunMetrics) -> list[tuple[str, str]]:
    """With repeats, the noise floor's properties (none without repeats).

    Named `noise_floor.share`, `.flipped`, `.cases`, `.tries`, `.flip_rate`,
    `.not_deterministic` and `.summary`.
    """
    noise = m.noise
    if noise is None:
        return []
    return [
        ("noise_floor.share", f"{noise.share:.4f}"),
        ("noise_floor.flipped", str(len(noise.flipped))),
        ("noise_floor.cases", str(noise.cases)),
        ("noise_floor.tries", str(noise.tries)),
        ("noise_floor.flip_rate", f"{noise.flip_rate:.4f}"),
        ("noise_floor.not_deterministic", "true" if noise.not_deterministic else "false"),
        ("noise_floor.summary", noise.summary()),
    ]


def _row_properties(m: RunMetrics) -> list[tuple[str, str]]:
    """Each category's and tool's accuracy, interval, cases and too-few-to-tell mark.

    Named `category.<key>.accuracy`, `.ci_low`, `.ci_high`, `.cases`, `.too_few_to_tell`,
    and the same under `tool.<key>`.
    """
    out: list[tuple[str, str]] = []
    rows: list[tuple[str, Breakdown]] = [("category", b) for b in m.by_category]
    rows += [("tool", b) for b in m.by_tool]
    for kind, b in rows:
        name = f"{kind}.{b.key}"
        out += [
            (f"{name}.accuracy", f"{b.rate.rate:.4f}"),
            (f"{name}.ci_low", f"{b.rate.interval.low:.4f}"),
            (f"{name}.ci_high", f"{b.rate.interval.high:.4f}"),
            (f"{name}.cases", str(b.rate.n)),
            (f"{name}.too_few_to_tell", "true" if b.too_few_to_tell else "false"),
        ]
    return out


def _baseline_properties(data: ReportInput) -> tuple[tuple[str, str], ...]:
    """The comparison with a baseline, as properties (none without one)."""
    c = data.comparison
    if c is None:
        return ()
    return (
        ("baseline_run_id", c.baseline_id),
        ("baseline_verdict", c.verdict),
        ("baseline_delta", f"{c.delta:.4f}"),
        ("baseline_p_value", f"{c.p_value:.4g}"),
        ("baseline_mde", "" if c.mde is None else f"{c.mde:.4f}"),
        ("baseline_status", c.status),
    )


def _testcase(parent: ET.Element, case: CaseView, suite_name: str) -> None:
    """One testcase: a failure (or error) unless the case passed.

    A conversation's transcript is its `system-out`.
    """
    r = case.result
    category = r.category or "uncategorised"
    attrs = {
        "classname": _xml_safe(f"{suite_name}.{category}"),
        "name": _xml_safe(case.name),
        "time": f"{(r.latency_ms or 0.0) / 1000:.3f}",
    }
    element = ET.SubElement(parent, "testcase", attrs)
    # A testcase's properties come before its failure (the JUnit schema's order).
    properties = ET.SubElement(element, "properties")
    served = [("serving", case.serving.kind.value)]
    fault = case.serving_fault
    if fault is not None:
        served.append(("serving_detail", fault_detail(fault)))
    for name, value in served:
        ET.SubElement(properties, "property", {"name": name, "value": _xml_safe(value)})
    conversation = case.conversation
    if r.status is not Status.CORRECT:
        tag = "failure" if r.status.scored else "error"
        message = case.headline
        if conversation is not None and conversation.first_failure is not None:
            message = conversation.first_failure
        problem = ET.SubElement(
            element, tag, {"message": _xml_safe(message), "type": r.status.value}
        )
        problem.text = _xml_safe(_body(case))
    if conversation is not None:
        out = ET.SubElement(element, "system-out")
        out.text = _xml_safe(clip(transcript_text(conversation), _TRANSCRIPT_CHARS))


def _body(case: CaseView) -> str:
    """Why the case failed; for a single case also its prompt, calls and raw output."""
    r = case.result
    if case.conversation is not None:
        return f"Reason: {case.headline}"
    lines = [
        f"Reason: {case.headline}",
        f"Prompt: {clip(prompt_text(r.prompt), _BODY_CHARS)}",
        f"Expected: {clip(calls_text(r.expected), _BODY_CHARS)}",
        f"Actual: {clip(calls_text(r.actual), _BODY_CHARS)}",
    ]
    lines += [f"Diff: {m.describe()}" for m in r.details]
    if r.raw_response is not None:
        lines.append(f"Raw output: {clip(raw_text(r.raw_response), _BODY_CHARS)}")
    return "\n".join(lines)
