"""What a real server adds: answers cut off at the token limit, time to first token, and
assistant messages shown as text, reasoning and calls in every format."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from xml.etree import ElementTree as ET

import pytest

import toolgrade

CUT = "answer cut off at the token limit"

# (format, how the cut-off case TC-042 is headed, how the run summary counts it)
MARKS = [
    (
        "text",
        f"  TC-042: No tool call made (expected read_file) ({CUT})\n",
        "Cut Off: 1 (answers stopped at the token limit)\n",
    ),
    (
        "markdown",
        f"| TC-042 | `missed_call` | No tool call made (expected read\\_file) ({CUT}) |",
        "**Cut off:** 1 answers stopped at the token limit.",
    ),
    (
        "html",
        f"<td>No tool call made (expected read_file) ({CUT})</td>",
        '<span class="big bad">1</span><span>Cut off at the token limit</span>',
    ),
    (
        "junit",
        f'message="No tool call made (expected read_file) ({CUT})"',
        '<property name="cut_off" value="1" />',
    ),
    (
        "prometheus",
        None,
        'toolgrade_cut_off_cases{model="ollama/qwen3:8b-q4_K_M",suite="coding-agent"} 1.0',
    ),
]


@pytest.mark.parametrize(("fmt", "heading", "count"), MARKS, ids=[m[0] for m in MARKS])
def test_report_cut_off_case_is_marked_and_counted(
    fmt: str, heading: str | None, count: str, server_run: toolgrade.RunResult
) -> None:
    text = toolgrade.render_report(server_run, fmt)  # type: ignore[arg-type]
    if heading is not None:
        assert heading in text
        assert text.count(CUT) == 2 if fmt == "markdown" else 1  # markdown: table + details
    assert count in text


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "junit"])
def test_report_without_cut_off_shows_no_mark(fmt: str, run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run, fmt)  # type: ignore[arg-type]
    assert CUT not in text
    assert "Cut off" not in text and "Cut Off" not in text and "cut_off" not in text


def test_report_json_carries_finish_reason_and_ttft(server_run: toolgrade.RunResult) -> None:
    data = json.loads(toolgrade.render_report(server_run, "json"))
    case = next(c for c in data["cases"] if c["case_id"] == "TC-042")
    assert (case["finish_reason"], case["ttft_ms"]) == ("length", 150.0)
    assert data["run"]["backend"]["mode"] == "native"


def test_report_html_shows_ttft_beside_latency(server_run: toolgrade.RunResult) -> None:
    page = toolgrade.render_report(server_run, "html")
    assert "<span>Time to first token p50 (p95 " in page
    # Median of 80, 95, 120, 150 (numpy's linear method) = 107.5 -> "108 ms".
    assert '<span class="big">108 ms</span>' in page
    assert '<td>400 <small title="time to first token">(ttft 150)</small></td>' in page
    plain = toolgrade.render_report(
        server_run.model_copy(update={"results": server_run.results[:1]}), "html"
    )
    assert "Time to first token" in plain


def test_report_html_without_ttft_has_no_ttft(run: toolgrade.RunResult) -> None:
    page = toolgrade.render_report(run, "html")
    assert "Time to first token" not in page and "ttft" not in page


def test_report_prometheus_ttft_gauges_only_when_streamed(
    run: toolgrade.RunResult, server_run: toolgrade.RunResult
) -> None:
    streamed = toolgrade.render_report(server_run, "prometheus")
    assert re.search(r"^toolgrade_ttft_p50_seconds\{.*\} 0\.1075$", streamed, re.M)
    assert "toolgrade_ttft" not in toolgrade.render_report(run, "prometheus")


# (format, text showing TC-015's whole chat completion as reasoning and a call)
MESSAGES = [
    ("markdown", 'Tool call: read_file(path="config.py")\nReasoning: Open the config file first.'),
    ("junit", 'Raw output: Tool call: read_file(path="config.py")\nReasoning: Open the config'),
    (
        "html",
        '<h4>Tool calls</h4><pre class="raw raw-calls">read_file(path=&#34;config.py&#34;)</pre>\n'
        '<h4>Reasoning</h4><pre class="raw raw-reasoning">Open the config file first.</pre>',
    ),
]


@pytest.mark.parametrize(("fmt", "shown"), MESSAGES, ids=[m[0] for m in MESSAGES])
def test_report_assistant_message_shown_as_calls_and_reasoning(
    fmt: str, shown: str, server_run: toolgrade.RunResult
) -> None:
    text = toolgrade.render_report(server_run, fmt)  # type: ignore[arg-type]
    assert shown in text
    assert '"tool_calls"' not in text and "&#34;tool_calls&#34;" not in text


def test_report_text_output_of_cut_off_case_shows_reasoning(
    server_run: toolgrade.RunResult,
) -> None:
    text = toolgrade.render_report(server_run, "text")
    assert (
        "    Output:   Reasoning: The user asks what config.yaml holds. I should call read_file with\n"
        in text
    )


def test_report_junit_with_cut_off_stays_well_formed(server_run: toolgrade.RunResult) -> None:
    root = ET.fromstring(toolgrade.render_report(server_run, "junit"))
    failure = root.find(".//testcase[@name='TC-042']/failure")
    assert failure is not None and failure.get("message", "").endswith(f"({CUT})")


@pytest.mark.parametrize(
    ("fmt", "ext"),
    [
        ("text", "txt"),
        ("markdown", "md"),
        ("html", "html"),
        ("junit", "xml"),
        ("prometheus", "prom"),
    ],
)
def test_report_server_run_matches_golden(
    fmt: str, ext: str, server_run: toolgrade.RunResult, golden: Callable[[str, str], None]
) -> None:
    golden(f"server-run.{ext}", toolgrade.render_report(server_run, fmt))  # type: ignore[arg-type]
