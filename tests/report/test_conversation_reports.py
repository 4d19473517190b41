"""Reports on conversations: transcripts, summaries, timelines, and hostile model text.

The run is built by hand: one conversation that passed, and failed ones with an
uncovered call, an injected tool error, a forbidden call and a state mismatch, plus an
ordinary single case. Hostile text (`<script>`, `@channel`, Markdown links) sits in user
turns, replies, tool results and the state.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest

import toolgrade
from toolgrade._core.transcript import (
    FAILURE_CAUSES,
    CheckResult,
    ConversationRecord,
    Exchange,
    FirstFailure,
    Step,
    TurnResult,
)
from toolgrade._core.vocab import Mismatch, PairResult, ToolCall
from toolgrade.metrics import ConversationMetrics
from toolgrade.report import report_schema
from toolgrade.report._sections import ConversationView, state_diff
from toolgrade.report._transcript import transcript_text
from toolgrade.report._view import build_input

SCRIPT = "<script>document.title='PWNED'</script>"
IMG = "<img src=x onerror=\"document.body.dataset.pwned='1'\">"
LINK = "[click me](https://evil.example/x)"
PING = "@channel"


def _call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)  # type: ignore[arg-type]


def _step(*exchanges: Exchange, text: str | None = None) -> Step:
    return Step(
        raw_response=text,
        calls=tuple(e.call for e in exchanges),
        exchanges=exchanges,
        extraction_format="hermes" if exchanges else "none",
    )


def _exchange(call_id: str, call: ToolCall, result: object, **kw: object) -> Exchange:
    return Exchange(id=call_id, call=call, result=result, **kw)  # type: ignore[arg-type]


STATE = {"files": {"a.md": "# A", "src/main.py": "print(1)"}, "log": []}


def _passed() -> toolgrade.CaseResult:
    read = _call("read_file", path="a.md")
    record = ConversationRecord(
        turns=(
            TurnResult(
                index=0,
                user="What is in a.md?",
                steps=(
                    _step(_exchange("call_0_0_0", read, {"content": "# A"})),
                    _step(text="It holds a heading."),
                ),
                reply="It holds a heading.",
                checked=True,
                expected=(read,),
            ),
        ),
        total_turns=1,
        checks=(CheckResult(name="turns", passed=True),),
        passed=True,
        progress=1.0,
        initial_state=STATE,
        final_state=STATE,
        precision=1.0,
        recall=1.0,
        f1=1.0,
    )
    return toolgrade.CaseResult(
        case_id="CONV-PASS",
        status="correct",
        score=1.0,
        category="read",
        expected=(read,),
        actual=record.calls,
        conversation=record,
    )


def _uncovered() -> toolgrade.CaseResult:
    call = _call("read_file", path="b.md")
    note = 'no rule covers read_file(path="b.md"); add a rule for read_file with path "b.md"'
    failure = FirstFailure(
        cause="uncovered_call", message='read_file(path="b.md") is not covered', turn=0, step=0
    )
    record = ConversationRecord(
        turns=(
            TurnResult(
                index=0,
                user=f"Read b.md {SCRIPT} {PING} {LINK}",
                steps=(
                    _step(_exchange("call_0_0_0", call, None, outcome="uncovered", note=note)),
                    _step(text="Done."),
                ),
                reply="Done.",
                passed=False,
                checked=True,
                cause="uncovered_call",
                message='read_file(path="b.md") is not covered',
            ),
        ),
        total_turns=3,
        checks=(CheckResult(name="turns", passed=False, message="turn 1 failed"),),
        progress=0.0,
        first_failure=failure,
        initial_state=STATE,
        final_state=STATE,
    )
    return toolgrade.CaseResult(
        case_id="CONV-UNCOVERED",
        status="uncovered_call",
        score=0.0,
        category="read",
        actual=record.calls,
        conversation=record,
    )


def _injected() -> toolgrade.CaseResult:
    search = _call("search", pattern="TODO")
    error = {"error": f"503 Service Unavailable {SCRIPT}"}
    found = {"matches": ["a.md:1 TODO " + "x" * 200]}
    record = ConversationRecord(
        turns=(
            TurnResult(
                index=0,
                user="Find the TODOs",
                steps=(
                    _step(_exchange("call_0_0_0", search, error, outcome="injected")),
                    _step(_exchange("call_0_1_0", search, found)),
                    _step(text=f"One TODO {IMG} {PING}"),
                ),
                reply=f"One TODO {IMG} {PING}",
                checked=True,
            ),
            TurnResult(
                index=1,
                user="How many?",
                steps=(_step(text=f"See {LINK}"),),
                reply=f"See {LINK} \x1b[31mred",
                passed=False,
                checked=True,
                cause="reply_mismatch",
                message='reply does not contain "1"',
            ),
        ),
        total_turns=2,
        checks=(CheckResult(name="turns", passed=False),),
        progress=0.5,
        first_failure=FirstFailure(
            cause="reply_mismatch", message='reply does not contain "1"', turn=1
        ),
        initial_state=STATE,
        final_state=STATE,
    )
    return toolgrade.CaseResult(
        case_id="CONV-INJECTED",
        status="reply_mismatch",
        score=0.5,
        category="recovery",
        actual=record.calls,
        conversation=record,
    )


def _forbidden() -> toolgrade.CaseResult:
    delete = _call("delete_file", path="src/main.py")
    after = {"files": {"a.md": "# A"}, "log": ["deleted src/main.py"]}
    record = ConversationRecord(
        turns=(
            TurnResult(
                index=0,
                user="Clean up the repo",
                steps=(
                    _step(_exchange("call_0_0_0", delete, {"ok": True})),
                    _step(text="Deleted."),
                ),
                reply="Deleted.",
            ),
        ),
        total_turns=1,
        checks=(
            CheckResult(name="turns", passed=True),
            CheckResult(
                name="forbidden",
                passed=False,
                message='delete_file(path="src/main.py") is forbidden',
            ),
            CheckResult(name="max_calls", passed=True, deciding=False),
        ),
        progress=1.0,
        first_failure=FirstFailure(
            cause="forbidden_call",
            message='delete_file(path="src/main.py") is forbidden',
            turn=0,
            step=0,
        ),
        initial_state=STATE,
        final_state=after,
    )
    return toolgrade.CaseResult(
        case_id="CONV-FORBIDDEN",
        status="forbidden_call",
        score=0.5,
        category="destructive",
        actual=record.calls,
        conversation=record,
    )


def _state_mismatch() -> toolgrade.CaseResult:
    write = _call("write_file", path="a.md", content=f"# B {SCRIPT}")
    after = {"files": {"a.md": f"# B {SCRIPT} {PING} {LINK}", "src/main.py": "print(1)"}, "log": []}
    mismatch = Mismatch(path="$.files['a.md']", reason="value", expected="# A2", actual="# B")
    record = ConversationRecord(
        mode="teacher_forced",
        turns=(
            TurnResult(
                index=0,
                user="Rename the heading to A2",
                steps=(
                    _step(_exchange("call_0_0_0", write, {"ok": True})),
                    _step(text="Renamed."),
                ),
                reply="Renamed.",
                forced=True,
            ),
        ),
        total_turns=1,
        checks=(
            CheckResult(name="turns", passed=True),
            CheckResult(
                name="final_state",
                passed=False,
                message="/files/a.md differs",
                details=(mismatch,),
            ),
        ),
        progress=1.0,
        first_failure=FirstFailure(
            cause="state_mismatch", message="/files/a.md differs", check="final_state"
        ),
        initial_state=STATE,
        final_state=after,
    )
    return toolgrade.CaseResult(
        case_id="CONV-STATE",
        status="state_mismatch",
        score=0.5,
        category="edit",
        actual=record.calls,
        conversation=record,
    )


def _single() -> toolgrade.CaseResult:
    call = _call("search", pattern="main")
    return toolgrade.CaseResult(
        case_id="TC-001",
        status="correct",
        score=1.0,
        category="simple",
        expected=(call,),
        actual=(call,),
        prompt="Find main",
    )


def conversation_run() -> toolgrade.RunResult:
    """A run of five conversations (one passed) and one single case."""
    return toolgrade.RunResult(
        run_id="run-conv",
        suite_name="coding-agent-multiturn",
        suite_version="1",
        suite_hash="0" * 64,
        model="scripted/model",
        toolgrade_version="0",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        finished_at=datetime(2026, 1, 1, 0, 1, tzinfo=UTC),
        results=(_passed(), _uncovered(), _injected(), _forbidden(), _state_mismatch(), _single()),
    )


RUN = conversation_run()


def _render(fmt: str) -> str:
    return toolgrade.render_report(RUN, fmt)


# --- text ------------------------------------------------------------------------------


def test_text_report_lists_failed_conversations_as_transcripts() -> None:
    text = _render("text")
    failures = text.split("\nFailures:\n", 1)[1]
    assert "CONV-PASS" not in failures
    for case_id in ("CONV-UNCOVERED", "CONV-INJECTED", "CONV-FORBIDDEN", "CONV-STATE"):
        assert f"  {case_id}: " in failures
    assert '      → read_file(path="b.md")' in failures
    assert '      ← [uncovered] null (no rule covers read_file(path="b.md");' in failures
    assert '      ← [injected] {"error": "503 Service Unavailable' in failures
    assert '    ✗ turn 2: reply_mismatch — reply does not contain "1"' in failures
    assert "    ✗ final_state: state_mismatch — /files/a.md differs" in failures
    assert '✗ forbidden: delete_file(path="src/main.py") is forbidden' in failures
    assert "(2 turns not reached)" in failures
    assert "mode: teacher-forced" in failures
    assert "      reply: One TODO <img src=x" in failures


def test_text_report_bounds_tool_results_and_escapes_control_characters() -> None:
    text = _render("text")
    results = [line for line in text.splitlines() if line.lstrip().startswith("← ")]
    assert results and all(len(line.split("← ", 1)[1]) <= 200 for line in results)
    long = next(line for line in results if "matches" in line)
    assert long.endswith("…") and len(long.split("← ", 1)[1]) == 80
    assert "\x1b" not in text and "\\x1b[31mred" in text


def test_text_report_shows_conversation_summary() -> None:
    text = _render("text")
    block = text.split("\nConversations:\n", 1)[1].split("\n\n", 1)[0]
    assert "  Passed: 1/5 (20.0%, 95% CI: " in block
    assert "  Progress: 70.0% of turns passed on average" in block
    assert "  Per-turn accuracy: turn 1 80.0% (4/5) · turn 2 0.0% (0/2)" in block
    assert "forbidden_call 1 · state_mismatch 1 · reply_mismatch 1 · uncovered_call 1" in block
    assert "  Steps and calls: 2.4 steps, 1.2 calls per conversation" in block
    assert "  Mode: on-policy 25.0% (1/4) · teacher-forced 0.0% (0/1)" in block


def test_text_report_single_case_run_has_no_conversation_block(
    run: toolgrade.RunResult,
) -> None:
    assert "Conversations:" not in toolgrade.render_report(run, "text")


# --- describe_failure -------------------------------------------------------------------


def test_describe_failure_conversation_names_place_and_cause() -> None:
    by_id = {r.case_id: toolgrade.describe_failure(r) for r in RUN.results}
    assert by_id["CONV-PASS"] == "Correct"
    assert by_id["CONV-INJECTED"] == 'Turn 2: reply_mismatch — reply does not contain "1"'
    assert by_id["CONV-UNCOVERED"].startswith("Turn 1 step 1: uncovered_call — ")
    assert by_id["CONV-STATE"] == "final_state: state_mismatch — /files/a.md differs"


@pytest.mark.parametrize(
    "status", [s for s in toolgrade.Status if s.conversational], ids=lambda s: s.value
)
def test_describe_failure_conversational_status_without_record_has_sentence(
    status: toolgrade.Status,
) -> None:
    result = toolgrade.CaseResult(case_id="C", status=status, score=0.0)
    reason = toolgrade.describe_failure(result)
    assert reason and reason != "Wrong arguments"


# --- Markdown ---------------------------------------------------------------------------


def _outside_fences(markdown: str) -> str:
    return re.sub(r"(?ms)^(`{3,})text$.*?^\1$", "", markdown)


def test_markdown_report_has_summary_and_transcripts() -> None:
    md = _render("markdown")
    assert "### Conversations" in md
    assert "| Passed | 1/5 (20.0%, 95% CI: " in md
    assert "**Transcript**" in md
    assert '→ read_file(path="b.md")' in md
    assert md.count("<summary>CONV-") == 4


def test_markdown_report_neutralises_hostile_conversation_text() -> None:
    md = _render("markdown")
    assert "@channel" not in md and "@\u200bchannel" in md
    assert "https://evil" not in md
    outside = _outside_fences(md)
    assert "<script" not in outside and "<img" not in outside
    assert "](" not in outside
    assert "\x1b" not in md


# --- JUnit ------------------------------------------------------------------------------


def _junit(run: toolgrade.RunResult = RUN) -> dict[str, ET.Element]:
    root = ET.fromstring(toolgrade.render_report(run, "junit"))
    return {c.attrib["name"]: c for c in root.iter("testcase")}


def test_junit_report_one_testcase_per_conversation_with_first_failure() -> None:
    cases = _junit()
    assert list(cases) == [r.case_id for r in RUN.results]
    failure = cases["CONV-UNCOVERED"].find("failure")
    assert failure is not None and failure.attrib["type"] == "uncovered_call"
    assert failure.attrib["message"].startswith("turn 1 step 1: uncovered_call — read_file")
    out = cases["CONV-UNCOVERED"].find("system-out")
    assert out is not None and out.text is not None
    assert 'no rule covers read_file(path="b.md")' in out.text
    assert cases["CONV-PASS"].find("failure") is None
    assert cases["CONV-PASS"].find("system-out") is not None
    assert cases["TC-001"].find("system-out") is None


def test_junit_report_neutralises_and_keeps_xml_well_formed() -> None:
    text = toolgrade.render_report(RUN, "junit")
    assert "@channel" not in text and "\x1b" not in text
    out = _junit()["CONV-UNCOVERED"].find("system-out")
    assert out is not None and out.text is not None and SCRIPT in out.text


def test_junit_report_one_testcase_per_repeat() -> None:
    conv = RUN.results[1]
    run = RUN.model_copy(
        update={"repeat": 2, "results": (conv, conv.model_copy(update={"repeat": 1}))}
    )
    assert list(_junit(run)) == ["CONV-UNCOVERED repeat 0", "CONV-UNCOVERED repeat 1"]


# --- JSON -------------------------------------------------------------------------------


def test_json_report_carries_conversations_and_validates() -> None:
    doc = json.loads(_render("json"))
    errors = [e.message for e in jsonschema.Draft202012Validator(report_schema()).iter_errors(doc)]
    assert errors == []
    by_id = {c["case_id"]: c for c in doc["cases"]}
    exchange = by_id["CONV-UNCOVERED"]["conversation"]["turns"][0]["steps"][0]["exchanges"][0]
    assert exchange["outcome"] == "uncovered" and "no rule covers" in exchange["note"]
    assert "conversation" not in by_id["TC-001"]
    conversations = doc["metrics"]["conversations"]
    assert conversations["accuracy"]["passed"] == 1
    assert conversations["failure_causes"]["forbidden_call"] == 1


def test_json_report_conversation_reads_back(tmp_path: Path) -> None:
    path = toolgrade.write_report(RUN, "json", tmp_path / "report.json")
    assert toolgrade.resolve_run(str(path)) == RUN


def test_json_report_single_case_run_has_no_conversation_metrics(
    run: toolgrade.RunResult,
) -> None:
    assert "conversations" not in json.loads(toolgrade.render_report(run, "json"))["metrics"]


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("conversation", ConversationRecord),
        ("turn", TurnResult),
        ("step", Step),
        ("exchange", Exchange),
        ("turn_pair", PairResult),
        ("check", CheckResult),
        ("first_failure", FirstFailure),
    ],
)
def test_json_report_schema_lists_every_conversation_field(name: str, model: type) -> None:
    fields = set(model.model_fields)
    if name == "turn_pair":
        fields.discard("credit")  # a turn's pairs record no credit, and write none
    assert set(report_schema()["$defs"][name]["properties"]) == fields


def test_json_report_schema_lists_every_status_and_cause() -> None:
    defs = report_schema()["$defs"]
    assert set(defs["case"]["properties"]["status"]["enum"]) == {s.value for s in toolgrade.Status}
    assert defs["first_failure"]["properties"]["cause"]["enum"] == list(FAILURE_CAUSES)
    metric_fields = set(ConversationMetrics.__dataclass_fields__)
    assert set(defs["conversation_metrics"]["properties"]) == metric_fields


# --- HTML -------------------------------------------------------------------------------


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(text: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(text)
    return parser.tags


def test_html_report_has_a_timeline_per_conversation() -> None:
    text = _render("html")
    tags = _tags(text)
    panels = [a for t, a in tags if t == "details" and "conversation" in (a.get("class") or "")]
    assert [a["data-name"] for a in panels] == [r.case_id for r in RUN.results[:5]]
    assert [a["data-status"] for a in panels][1:] == [
        "uncovered_call",
        "reply_mismatch",
        "forbidden_call",
        "state_mismatch",
    ]
    assert 'data-check="forbidden"' in text and "k-fail" in text
    assert "First failure: turn 1 step 1: uncovered_call" in text
    assert "no rule covers read_file(path=&#34;b.md&#34;)" in text


def test_html_report_state_diff_lists_changed_added_removed_paths() -> None:
    text = _render("html")
    chunks = text.split('<details class="conversation ')[1:]
    panels = {re.findall(r'data-name="([^"]+)"', c)[0]: c for c in chunks}
    assert "<code>/files/a.md</code></td><td>changed</td>" in panels["CONV-STATE"]
    forbidden = panels["CONV-FORBIDDEN"]
    assert "<code>/files/src~1main.py</code></td><td>removed</td>" in forbidden
    assert "<code>/log/0</code></td><td>added</td>" in forbidden
    assert "<code>/files/a.md</code>" not in forbidden
    assert "The state did not change." in panels["CONV-PASS"]


def test_html_report_escapes_hostile_conversation_text() -> None:
    text = _render("html")
    tags = _tags(text)
    assert [t for t, _ in tags].count("script") == 1
    assert not any(t == "img" for t, _ in tags)
    assert not any(name.startswith("on") for _, attrs in tags for name in attrs)
    assert not any(attrs.get("href") or attrs.get("src") for _, attrs in tags)
    assert "&lt;script&gt;document.title=&#39;PWNED&#39;&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=" in text
    assert "\x1b" not in text


def test_html_report_style_pinned_by_csp_with_conversation_css() -> None:
    text = _render("html")
    style = text.split("<style>", 1)[1].split("</style>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert f"style-src &#39;sha256-{digest}&#39;" in text
    assert "details.conversation" in style


def test_html_report_single_case_run_has_no_conversation_section(
    run: toolgrade.RunResult,
) -> None:
    text = toolgrade.render_report(run, "html")
    assert 'id="conversations"' not in text and "details.conversation" not in text


# --- state diff -------------------------------------------------------------------------


def test_state_diff_escapes_pointer_tokens_and_compares_types() -> None:
    diff = state_diff({"a/b": 1, "t~": True, "n": 1}, {"a/b": 2, "t~": 1, "n": 1})
    assert [(d.path, d.kind, d.before, d.after) for d in diff] == [
        ("/a~1b", "changed", "1", "2"),
        ("/t~0", "changed", "true", "1"),
    ]


def test_state_diff_whole_value_and_limit() -> None:
    assert [(d.path, d.kind) for d in state_diff([1], {"a": 1})] == [("", "changed")]
    many = state_diff({}, {str(i): i for i in range(500)}, limit=10)
    assert len(many) == 10
    assert state_diff(STATE, STATE) == ()


def test_case_view_has_conversation_sections_only_for_a_conversation() -> None:
    data = build_input(RUN, metrics=None, comparison=None)
    by_id = {c.result.case_id: c for c in data.cases}
    assert by_id["TC-001"].conversation is None
    injected = by_id["CONV-INJECTED"].conversation
    assert injected is not None
    assert (injected.mode, injected.turns_passed, injected.total_turns) == ("on-policy", 1, 2)
    assert [(t.number, t.passed, t.first_failure) for t in injected.turns] == [
        (1, True, False),
        (2, False, True),
    ]
    assert injected.turns[1].verdict == 'failed: reply_mismatch — reply does not contain "1"'
    assert [s.number for s in injected.turns[0].steps] == [1, 2, 3]
    assert injected.first_failure == 'turn 2: reply_mismatch — reply does not contain "1"'
    uncovered = by_id["CONV-UNCOVERED"].conversation
    assert uncovered is not None and uncovered.unreached == 2
    forbidden = by_id["CONV-FORBIDDEN"].conversation
    assert forbidden is not None
    assert [c.name for c in forbidden.checks] == ["turns", "forbidden", "max_calls"]
    assert [(d.path, d.kind) for d in forbidden.diff] == [
        ("/files/src~1main.py", "removed"),
        ("/log/0", "added"),
    ]


def test_transcript_text_marks_unreached_turns_and_first_failure() -> None:
    record = RUN.results[1].conversation
    assert record is not None
    text = transcript_text(ConversationView.of(record))
    assert text.splitlines()[0].startswith("mode: on-policy · turns passed: 0/3")
    assert "(2 turns not reached)" in text
