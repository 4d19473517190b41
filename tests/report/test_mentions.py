"""GitHub mentions and issue references from model or suite text never survive in reports
that end up in pull-request comments (Markdown) or CI check runs (JUnit).

One payload holding every kind of mention and reference goes into each field a report
shows, one field at a time; the whole rendered report must then hold none of them,
while the payload (neutralised) is still there, so the field was indeed shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

import toolgrade
from toolgrade.report._mentions import ZERO_WIDTH_SPACE, neutralise_references

PAYLOAD = "@octocat @org/team #123 GH-45 owner/repo#67 https://github.com/o/r/issues/8"
# What GitHub turns into a mention, an issue reference or a link.
LINKING = re.compile(r"@[A-Za-z0-9]|#[0-9]|\bgh-[0-9]|https?://", re.IGNORECASE)
SHOWN = f"@{ZERO_WIDTH_SPACE}octocat"
GOLDEN = Path(__file__).resolve().parent.parent / "data" / "report" / "golden"

Edit = Callable[[toolgrade.RunResult], toolgrade.RunResult]


def _case(which: str, /, **update: object) -> Edit:
    def edit(run: toolgrade.RunResult) -> toolgrade.RunResult:
        results = tuple(
            r.model_copy(update=update) if r.case_id == which else r for r in run.results
        )
        return run.model_copy(update={"results": results})

    return edit


def _run(**update: object) -> Edit:
    return lambda run: run.model_copy(update=update)


def _call(name: str = "search", **arguments: object) -> toolgrade.ToolCall:
    return toolgrade.ToolCall(name=name, arguments=arguments)


FIELDS: dict[str, Edit] = {
    "case id": _case("TC-015", case_id=PAYLOAD),
    "prompt": _case("TC-015", prompt=PAYLOAD),
    "chat prompt": _case("TC-023", prompt=[{"role": "user", "content": PAYLOAD}]),
    "expected tool name": _case("TC-015", expected=(_call(PAYLOAD),)),
    "expected argument": _case("TC-015", expected=(_call(pattern=PAYLOAD),)),
    "actual tool name": _case("TC-015", actual=(_call(PAYLOAD),)),
    "actual argument": _case("TC-015", actual=(_call("read_file", path=PAYLOAD),)),
    "argument key": _case("TC-015", actual=(_call("read_file", **{PAYLOAD: 1}),)),
    "raw output text": _case("TC-042", raw_response=PAYLOAD),
    "raw output message": _case(
        "TC-042",
        raw_response={"role": "assistant", "content": PAYLOAD, "reasoning_content": PAYLOAD},
    ),
    "difference": _case(
        "TC-031",
        details=(toolgrade.Mismatch(path="$.path", reason="value", expected="a", actual=PAYLOAD),),
    ),
    "parse error": _case("TC-051", extraction_errors=(PAYLOAD,)),
    "error message": _case("TC-061", error=PAYLOAD),
    "category": _case("TC-015", category=PAYLOAD),
    "primary tool": _case("TC-015", primary_tools=(PAYLOAD,)),
    "model": _run(model=PAYLOAD),
    "suite name": _run(suite_name=PAYLOAD),
    "suite version": _run(suite_version=PAYLOAD),
    "run id": _run(run_id=PAYLOAD),
}


def _render(run: toolgrade.RunResult, fmt: toolgrade.ReportFormat) -> str:
    return toolgrade.render_report(run, fmt)


@pytest.mark.parametrize("fmt", ["markdown", "junit"])
@pytest.mark.parametrize("field", list(FIELDS))
def test_report_mention_in_field_is_neutralised(
    run: toolgrade.RunResult, fmt: toolgrade.ReportFormat, field: str
) -> None:
    text = _render(FIELDS[field](run), fmt)
    assert LINKING.findall(text) == []
    if fmt == "markdown" or field != "primary tool":  # JUnit has no per-tool rows
        assert SHOWN in text, f"{field} is not shown in the {fmt} report"


@pytest.mark.parametrize("fmt", ["markdown", "junit"])
def test_report_mention_in_baseline_label_and_ids_is_neutralised(
    run: toolgrade.RunResult, baseline: toolgrade.RunResult, fmt: toolgrade.ReportFormat
) -> None:
    rename = {"TC-015": f"{PAYLOAD} a", "TC-070": f"{PAYLOAD} b"}

    def renamed(r: toolgrade.RunResult) -> toolgrade.RunResult:
        results = tuple(
            x.model_copy(update={"case_id": rename.get(x.case_id, x.case_id)}) for x in r.results
        )
        return r.model_copy(update={"results": results})

    comparison = toolgrade.compare_runs(
        renamed(baseline).model_copy(update={"tags": (PAYLOAD,)}), renamed(run)
    )
    assert comparison.broken and PAYLOAD in comparison.baseline_label
    text = toolgrade.render_report(renamed(run), fmt, comparison=comparison)
    assert LINKING.findall(text) == []
    assert SHOWN in text


def test_markdown_repetition_mark_does_not_link_an_issue(
    run: toolgrade.RunResult,
) -> None:
    # A repetition is named `TC-015 repeat 1`; a mark such as `#2` in a comment would
    # link issue 2, so none is used.
    results = tuple(r.model_copy(update={"repeat": 1}) for r in run.results)
    text = _render(run.model_copy(update={"results": results, "repeat": 2}), "markdown")
    assert LINKING.findall(text) == []
    assert "TC-015 repeat 1" in text


def test_markdown_goldens_hold_no_mention_or_reference() -> None:
    # The page is neutralised as a whole: the report's own wording must hold nothing
    # that the pass would change.
    for path in GOLDEN.glob("*.md"):
        assert LINKING.findall(path.read_text(encoding="utf-8")) == [], path.name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("@octocat", "@\u200boctocat"),
        ("@org/team", "@\u200borg/team"),
        ("#123", "#\u200b123"),
        ("GH-123 gh-9", "GH-\u200b123 gh-\u200b9"),
        ("owner/repo#123", "owner/repo#\u200b123"),
        ("owner/repo@a1b2c3d", "owner/repo@\u200ba1b2c3d"),
        ("see https://github.com/o/r/pull/1", "see https:\u200b//github.com/o/r/pull/1"),
        ("# Heading, C# 10, a @ b, #x, 3a4f5e6d7c", "# Heading, C# 10, a @ b, #x, 3a4f5e6d7c"),
    ],
)
def test_neutralise_references_table(text: str, expected: str) -> None:
    assert neutralise_references(text) == expected
    assert neutralise_references(expected) == expected  # once is enough
