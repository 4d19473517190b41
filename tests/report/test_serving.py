"""The serving verdict in every report: the accuracy as served beside the model's, the
fault classes with their intervals, the class of each case, and nothing of it on a run
where every answer reached the client as sent."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from xml.etree import ElementTree as ET

import jsonschema
import pytest

import toolgrade
from conftest import BAD_ID
from runner.real_recordings import replayed
from toolgrade.report import as_served_line, report_schema
from toolgrade.report._mentions import ZERO_WIDTH_SPACE
from toolgrade.results import StreamCheck
from toolgrade.serving import FAULTS, ServingClass

EXTENSIONS = {
    "text": "txt",
    "json": "json",
    "markdown": "md",
    "html": "html",
    "junit": "xml",
    "prometheus": "prom",
}
FAULT_NAMES = [c.value for c in FAULTS]


def _render(run: toolgrade.RunResult, fmt: str) -> str:
    return toolgrade.render_report(run, fmt)  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", sorted(EXTENSIONS))
def test_report_serving_run_matches_golden(
    fmt: str, serving_run: toolgrade.RunResult, golden: Callable[[str, str], None]
) -> None:
    golden(f"serving-run.{EXTENSIONS[fmt]}", _render(serving_run, fmt))


# -- a run with faults: each format carries the section, the counts and the classes


def test_text_report_shows_both_accuracies_faults_and_the_flag(
    serving_run: toolgrade.RunResult,
) -> None:
    text = _render(serving_run, "text")
    section = text.split("\nServing:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert section[0] == (
        "  Accuracy: model 27.3% (3/11, 95% CI 9.7% - 56.6%) · as served 18.2% (2/11, 95% CI"
        " 5.1% - 47.7%): 1 passing case did not reach the client as tool_calls, e.g. TC-002"
    )
    assert section[1].startswith("  calls_in_text: 6 of 13 (46.2%, 95% CI 23.2% - 70.9%): ")
    assert section[1].endswith("e.g. TC-002, TC-015, TC-023")
    names = [line.split(":")[0].strip() for line in section]
    assert names == [
        "Accuracy",
        "calls_in_text",
        "calls_in_reasoning",
        "malformed_call",
        "empty",
        "request_failed",
        "Formats in text",
        "Try",
        "Clean",
    ]
    assert "  Formats in text: hermes 3, json 2, fenced_json 1, pythonic 1" in section
    assert "  Try: start vLLM with --enable-auto-tool-choice --tool-call-parser hermes" in section
    assert "\nServing: " not in text  # the one-line form is for runs where nothing was lost


def test_text_report_failure_shows_the_serving_fault(serving_run: toolgrade.RunResult) -> None:
    text = _render(serving_run, "text")
    assert (
        "  TC-015: Expected search, got read_file\n"
        "    Serving:  calls_in_text: 1 call(s) as json in the text, none in tool_calls\n"
    ) in text
    assert "    Serving:  calls_in_reasoning: 1 call(s) as json in the reasoning only\n" in text
    # A timeout's request_failed is its status already: no line for it.
    timeout = text.split("  TC-060: ", 1)[1].split("\n  TC-061", 1)[0]
    assert "Serving" not in timeout


def test_markdown_report_has_a_serving_table_and_column(
    serving_run: toolgrade.RunResult,
) -> None:
    text = _render(serving_run, "markdown")
    assert "### Serving\n\n| | |\n|---|---|\n| Accuracy | model 27.3% (3/11" in text
    assert "| calls\\_in\\_text | 6 of 13 (46.2%, 95% CI 23.2% - 70.9%): " in text
    assert "| Case | Status | Reason | Serving |\n|---|---|---|---|\n" in text
    assert "| TC-042 | `missed_call` | No tool call made (expected read\\_file) |" in text
    assert "| `calls_in_reasoning` |" in text
    assert (
        "**Serving:** calls\\_in\\_text: 1 call(s) as json in the text, none in tool\\_calls"
    ) in text
    # The unscored table has no fault beyond its statuses: no serving column.
    assert "| Case | Status | Reason |\n|---|---|---|\n| TC-060 |" in text


def test_html_report_has_the_section_the_card_the_labels_and_the_filter(
    serving_run: toolgrade.RunResult,
) -> None:
    text = _render(serving_run, "html")
    assert '<span class="big bad" id="accuracy-as-served">18.2%</span>' in text
    section = text.split('<section id="serving">', 1)[1].split("</section>", 1)[0]
    assert "<dt>Accuracy</dt><dd>model 27.3% (3/11" in section
    assert "<dt>calls_in_text</dt><dd>6 of 13 (46.2%" in section
    select = text.split('<select id="filter-serving">', 1)[1].split("</select>", 1)[0]
    options = re.findall(r'<option value="([^"]*)">', select)
    assert options == [
        "",
        "calls_in_reasoning",
        "calls_in_text",
        "malformed_call",
        "request_failed",
        "structured",
    ]
    bodies = re.findall(r'<tbody class="case" data-name="([^"]+)"[^>]*data-serving="(\w+)"', text)
    assert dict(bodies)["TC-042"] == "calls_in_reasoning"
    assert dict(bodies)["TC-050"] == "structured"
    assert (
        '<span class="serving fault" title="calls_in_text: 1 call(s) as json in the text,'
        ' none in tool_calls">calls_in_text</span>'
    ) in text
    assert '<span class="serving">structured</span>' in text


def test_junit_report_has_serving_properties(serving_run: toolgrade.RunResult) -> None:
    root = ET.fromstring(_render(serving_run, "junit"))
    suite = root.find("testsuite")
    assert suite is not None
    props = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    assert props["accuracy_as_served"] == "0.1818"
    assert props["accuracy_as_served_ci_low"] == "0.0514"
    assert props["accuracy_as_served_ci_high"] == "0.4770"
    assert props["serving.calls_in_text"] == "6" and "serving.truncated" not in props
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    own = {
        name: {p.get("name"): p.get("value") for p in c.findall("properties/property")}
        for name, c in cases.items()
    }
    assert own["TC-001"] == {"serving": "structured"}
    assert own["TC-002"] == {
        "serving": "calls_in_text",
        "serving_detail": "1 call(s) as fenced_json in the text, none in tool_calls",
    }
    assert own["TC-060"] == {"serving": "request_failed"}
    # The properties come first, then the failure (the JUnit schema's order).
    assert [child.tag for child in cases["TC-015"]] == ["properties", "failure"]


def test_prometheus_report_has_every_serving_class_and_the_accuracy_as_served(
    serving_run: toolgrade.RunResult,
) -> None:
    text = _render(serving_run, "prometheus")
    base = 'model="ollama/qwen3:8b-q4_K_M",suite="coding-agent"'
    for kind in ServingClass:
        assert f'toolgrade_serving_results{{class="{kind.value}",{base}}} ' in text
    assert f'toolgrade_serving_results{{class="calls_in_text",{base}}} 6.0' in text
    assert f"toolgrade_accuracy_as_served{{{base}}} 0.18181818181818182" in text
    assert f"toolgrade_accuracy_as_served_ci_low{{{base}}} 0.0513" in text
    assert f"toolgrade_accuracy_as_served_ci_high{{{base}}} 0.4769" in text


def test_json_report_has_each_case_serving_and_validates(
    serving_run: toolgrade.RunResult,
) -> None:
    doc = json.loads(_render(serving_run, "json"))
    validator = jsonschema.Draft202012Validator(report_schema())
    assert [e.message for e in validator.iter_errors(doc)] == []
    by_id = {c["case_id"]: c["serving"] for c in doc["cases"]}
    assert by_id["TC-001"] == {"class": "structured", "detail": ""}
    assert by_id["TC-002"] == {
        "class": "calls_in_text",
        "detail": "1 call(s) as fenced_json in the text, none in tool_calls",
        "format": "fenced_json",
    }
    assert by_id["TC-043"]["class"] == "malformed_call" and BAD_ID in by_id["TC-043"]["detail"]
    serving = doc["metrics"]["serving"]
    assert serving["as_served"]["passed"] == 2 and serving["lost"]["passed"] == 1
    assert serving["hint"] == "start vLLM with --enable-auto-tool-choice --tool-call-parser hermes"
    assert [c["verdict"] for c in doc["run"]["stream_checks"]] == [
        "agree",
        "diverge",
        "noise",
        "failed",
    ]


# -- a clean run: one short line, no fault anywhere


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "junit"])
def test_clean_run_shows_no_serving_fault(fmt: str, clean_run: toolgrade.RunResult) -> None:
    text = _render(clean_run, fmt).split("<script>", 1)[0]  # the page's own script aside
    for name in FAULT_NAMES:
        assert name not in text
    assert "as served" not in text and "serving_detail" not in text
    assert "Stream" not in text


@pytest.mark.parametrize(
    ("fmt", "line"),
    [
        (
            "text",
            "\nServing: every answer reached the client as sent (structured 2, text_only 1)\n",
        ),
        (
            "markdown",
            "\n**Serving:** every answer reached the client as sent (structured 2,"
            " text\\_only 1).\n",
        ),
        (
            "html",
            '<p class="serving-line">Serving: every answer reached the client as sent'
            " (structured 2, text_only 1).</p>",
        ),
    ],
)
def test_clean_run_has_one_serving_line(
    fmt: str, line: str, clean_run: toolgrade.RunResult
) -> None:
    text = _render(clean_run, fmt)
    assert line in text
    assert "### Serving" not in text and 'id="serving"' not in text
    assert "| Case | Status | Reason |\n" in text if fmt == "markdown" else True


def test_clean_run_prometheus_and_json_count_zero_faults(clean_run: toolgrade.RunResult) -> None:
    prom = _render(clean_run, "prometheus")
    for name in FAULT_NAMES:
        assert re.search(rf'toolgrade_serving_results\{{class="{name}",.*\}} 0\.0$', prom, re.M)
    doc = json.loads(_render(clean_run, "json"))
    assert doc["metrics"]["serving"]["faults"] == 0
    assert {c["serving"]["class"] for c in doc["cases"]} == {"structured", "text_only"}
    assert "stream_checks" not in doc["run"]
    assert as_served_line(toolgrade.compute_metrics(clean_run)) is None


def test_only_failed_requests_still_give_one_line(run: toolgrade.RunResult) -> None:
    """A timeout or an error is its status already: the line counts it, no section."""
    text = _render(run, "text")
    assert (
        "Serving: every answer that came reached the client as sent (structured 2, prompted 9;"
        " request_failed 2)\n"
    ) in text
    assert "\nServing:\n" not in text


def test_prompt_mode_says_the_check_is_about_native_mode(run: toolgrade.RunResult) -> None:
    prompted = run.model_copy(update={"backend": {**run.backend, "mode": "prompt"}})
    text = _render(prompted, "text")
    assert (
        "Serving: prompt mode (prompted 11; request_failed 2): calls are read from the text by"
        " design; the serving check is about native mode\n"
    ) in text


def test_prompt_mode_shows_only_its_own_faults(run: toolgrade.RunResult) -> None:
    results = tuple(
        r.model_copy(update={"finish_reason": "length"}) if r.case_id == "TC-031" else r
        for r in run.results
    )
    prompted = run.model_copy(
        update={"results": results, "backend": {**run.backend, "mode": "prompt"}}
    )
    text = _render(prompted, "text")
    section = text.split("\nServing:\n", 1)[1].split("\n\n", 1)[0]
    assert section.splitlines()[0] == (
        "  Mode: prompt: calls are read from the text by design; the serving check is about"
        " native mode"
    )
    assert "  truncated: 1 of 13" in section and "  request_failed: 2 of 13" in section
    assert "Accuracy" not in section and "calls_in_text" not in section


# -- model text in a fault's detail and a stream check's answers stays inert


def test_fault_detail_is_escaped_in_html(serving_run: toolgrade.RunResult) -> None:
    text = _render(serving_run, "html")
    assert "<img" not in text.split("<body>", 1)[1].replace(
        '&lt;img src=x onerror="document.body.dataset.promptpwned', ""
    )
    assert "share the id &#39;call_&lt;img src=x onerror=alert(1)&gt;@octocat #12&#39;" in text
    streamed = text.split('<section id="stream-check">', 1)[1].split("</section>", 1)[0]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in streamed and "<script>" not in streamed


def test_fault_detail_is_neutralised_in_markdown(serving_run: toolgrade.RunResult) -> None:
    text = _render(serving_run, "markdown")
    line = next(x for x in text.splitlines() if x.startswith("**Serving:** malformed"))
    assert "&lt;img src=x onerror=alert(1)&gt;" in line and "<img" not in line
    assert f"@{ZERO_WIDTH_SPACE}octocat #{ZERO_WIDTH_SPACE}12" in line
    assert "call\\_" in line  # Markdown syntax escaped
    section = text.split("### Stream check", 1)[1].split("### By category", 1)[0]
    assert f"ask @{ZERO_WIDTH_SPACE}octocat about #{ZERO_WIDTH_SPACE}12" in section
    # The streamed answer holds a ``` run: its fence is longer, so nothing escapes it.
    assert "\n````text\n<script>alert(1)</script>" in section


def test_fault_detail_is_neutralised_in_junit(serving_run: toolgrade.RunResult) -> None:
    text = _render(serving_run, "junit")
    root = ET.fromstring(text)
    detail = next(
        p.get("value")
        for p in root.iter("property")
        if p.get("name") == "serving_detail" and "share the id" in (p.get("value") or "")
    )
    assert detail is not None
    assert f"@{ZERO_WIDTH_SPACE}octocat #{ZERO_WIDTH_SPACE}12" in detail


def test_fault_detail_control_characters_are_escaped_in_text(
    serving_run: toolgrade.RunResult,
) -> None:
    results = tuple(
        r.model_copy(update={"error": "boom \x1b[31mred\x1b[0m"}) if r.case_id == "TC-061" else r
        for r in serving_run.results
    )
    text = _render(serving_run.model_copy(update={"results": results}), "text")
    assert "\x1b" not in text and "\\x1b[31mred" in text


# -- stream checks


@pytest.mark.parametrize(
    ("fmt", "counts"),
    [
        ("text", "  4 cases asked streamed and whole: agree 1 · diverge 1 · noise 1 · failed 1\n"),
        (
            "markdown",
            "\n4 cases asked streamed and whole: agree 1 · diverge 1 · noise 1 · failed 1.",
        ),
        (
            "html",
            "<p>4 cases asked streamed and whole: agree 1 · diverge 1 · noise 1 · failed 1.</p>",
        ),
    ],
)
def test_stream_checks_are_counted_and_divergences_shown(
    fmt: str, counts: str, serving_run: toolgrade.RunResult
) -> None:
    text = _render(serving_run, fmt)
    assert counts in text
    assert text.count("diverge — ") == 1  # only the divergence has both answers
    assert "TC-015: diverge — streamed: no call; whole: search(" in text
    assert 'search(pattern="parse_config")' in text or "search(pattern=&#34;parse_config" in text


def test_stream_check_divergences_are_capped_in_text(serving_run: toolgrade.RunResult) -> None:
    checks = tuple(
        StreamCheck(case_id=f"TC-{i:03d}", verdict="diverge", streamed="a", whole="b")
        for i in range(12)
    )
    text = _render(serving_run.model_copy(update={"stream_checks": checks}), "text")
    assert text.count(": diverge\n") == 10
    assert "  ... and 2 more divergences (the HTML and JSON reports show them)\n" in text
    html = _render(serving_run.model_copy(update={"stream_checks": checks}), "html")
    assert html.count('<div class="divergence">') == 12


# -- the real recorded run: Qwen2.5-Coder on llama-cpp-python, calls in fenced JSON


@pytest.fixture(scope="module")
def real_native() -> toolgrade.RunResult:
    return replayed("qwen2.5-coder-0.5b", "native")


@pytest.fixture(scope="module")
def real_prompt() -> toolgrade.RunResult:
    return replayed("qwen2.5-coder-0.5b", "prompt")


REAL_MARKS = {
    "text": [
        "  Accuracy: model 27.1% (23/85, 95% CI 18.8% - 37.3%) · as served 7.1% (6/85, 95% CI"
        " 3.3% - 14.6%): 17 passing cases did not reach the client as tool_calls, e.g. TC-001,"
        " TC-004, TC-005, TC-007, TC-008\n",
        "  calls_in_text: 74 of 85 (87.1%, 95% CI 78.3% - 92.6%): calls only in the text,"
        " none in tool_calls; e.g. TC-001, TC-002, TC-003\n",
        "  Formats in text: fenced_json 69, json 5\n",
    ],
    "markdown": [
        "| Accuracy | model 27.1% (23/85, 95% CI 18.8% - 37.3%) · as served 7.1% (6/85",
        "| calls\\_in\\_text | 74 of 85 (87.1%",
    ],
    "html": [
        '<span class="big bad" id="accuracy-as-served">7.1%</span>',
        "<dt>calls_in_text</dt><dd>74 of 85 (87.1%",
        '<option value="calls_in_text">calls_in_text</option>',
    ],
    "junit": [
        '<property name="accuracy_as_served" value="0.0706" />',
        '<property name="serving.calls_in_text" value="74" />',
    ],
    "prometheus": ['toolgrade_serving_results{class="calls_in_text",'],
}


@pytest.mark.parametrize("fmt", sorted(REAL_MARKS))
def test_real_recording_shows_both_accuracies(fmt: str, real_native: toolgrade.RunResult) -> None:
    text = _render(real_native, fmt)
    for mark in REAL_MARKS[fmt]:
        assert mark in text


def test_real_recording_json_classes_every_case(real_native: toolgrade.RunResult) -> None:
    doc = json.loads(_render(real_native, "json"))
    validator = jsonschema.Draft202012Validator(report_schema())
    assert [e.message for e in validator.iter_errors(doc)] == []
    classes = [c["serving"]["class"] for c in doc["cases"]]
    assert classes.count("calls_in_text") == 74 and classes.count("text_only") == 11
    formats = {c["serving"].get("format") for c in doc["cases"]} - {None}
    assert formats == {"fenced_json", "json"}
    assert doc["metrics"]["serving"]["as_served"]["passed"] == 6


def test_real_recording_end_of_run_line(
    real_native: toolgrade.RunResult, real_prompt: toolgrade.RunResult
) -> None:
    native = as_served_line(toolgrade.compute_metrics(real_native))
    assert native == "As served: 7.1% (6/85) vs model 27.1% (23/85): calls_in_text 74"
    assert as_served_line(toolgrade.compute_metrics(real_prompt)) is None
    summary = _render(real_prompt, "text").split("\nBy Category:", 1)[0]
    assert "Serving: prompt mode (prompted 85): calls are read from the text by design" in summary
    for name in FAULT_NAMES:
        assert name not in summary


# -- the schema names every field the report writes


def test_schema_lists_every_serving_field(serving_run: toolgrade.RunResult) -> None:
    defs = report_schema()["$defs"]
    serving = toolgrade.compute_metrics(serving_run).serving
    assert serving is not None
    assert set(defs["serving_metrics"]["properties"]) == set(serving.to_dict())
    assert set(defs["stream_check"]["properties"]) == set(StreamCheck.model_fields)
    verdict = defs["serving_verdict"]["properties"]
    assert verdict["class"]["enum"] == [c.value for c in ServingClass]
    assert set(verdict) == {"class", "detail", "format", "where"}


def test_conversation_fault_says_where(serving_run: toolgrade.RunResult) -> None:
    """A conversation's fault names the answer at fault: turn and step, from 1."""
    conversations = replayed("qwen2.5-coder-0.5b", "conversations")
    text = _render(conversations, "text")
    assert (
        "    Serving:  calls_in_text: 1 call(s) as fenced_json in the text, none in tool_calls"
        " (turn 2, step 1)\n"
    ) in text
    doc = json.loads(_render(conversations, "json"))
    wheres = {c["serving"].get("where") for c in doc["cases"]}
    assert "turn 1, step 1" in wheres
    html = _render(conversations, "html")
    conversation = html.split('<section id="conversations">', 1)[1]
    assert '<span class="serving fault" title="calls_in_text: 1 call(s) as ' in conversation
