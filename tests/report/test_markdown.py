"""The Markdown report: escaped, fenced safely, bounded for a PR comment."""

from __future__ import annotations

import html

import toolgrade


def test_markdown_escapes_html_and_table_syntax(run: toolgrade.RunResult) -> None:
    case = run.results[2].model_copy(update={"case_id": "a|b<img src=x>", "error": None})
    text = toolgrade.render_report(run.model_copy(update={"results": (case,)}), "markdown")
    assert "| a\\|b&lt;img src=x&gt; |" in text
    assert "<img" not in text


def test_markdown_code_fence_outgrows_backticks_in_output(run: toolgrade.RunResult) -> None:
    case = run.results[5].model_copy(update={"raw_response": "```\n</details>\n````"})
    text = toolgrade.render_report(run.model_copy(update={"results": (case,)}), "markdown")
    assert "`````text\n```\n</details>\n````\n`````" in text


def test_markdown_lists_failures_with_prompt_expected_actual(run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run, "markdown")
    assert "| TC-015 | `wrong_tool` | Expected search, got read\\_file |" in text
    # The wording of the reason is describe_failure's (tested in test_describe.py).
    tc023 = next(r for r in run.results if r.case_id == "TC-023")
    summary = html.escape(f"TC-023: {toolgrade.describe_failure(tc023)}", quote=False)
    detail = text.split(f"<summary>{summary}</summary>")[1]
    detail = detail.split("</details>")[0]
    for part in ("**Prompt**", "**Expected**", "**Actual**", "**Raw output**"):
        assert part in detail
    assert 'search(pattern="def main", path="src")' in detail


def test_markdown_many_failures_are_capped(run: toolgrade.RunResult) -> None:
    template = run.results[2]
    many = tuple(
        template.model_copy(update={"case_id": f"TC-{i:04d}", "raw_response": "x" * 3000})
        for i in range(400)
    )
    text = toolgrade.render_report(run.model_copy(update={"results": many}), "markdown")
    assert len(text) < 65_536
    assert "… and 300 more" in text
    assert text.count("<details>") == 25


def test_markdown_baseline_section_shows_verdict(
    run: toolgrade.RunResult, comparison: toolgrade.Comparison
) -> None:
    text = toolgrade.render_report(run, "markdown", comparison=comparison)
    assert "### vs Baseline (v1.2)" in text
    assert "| Accuracy | 54.5% | 27.3% | -27.3 pts |" in text
    assert "**Status:** Inconclusive: the suite cannot tell at this size" in text
    assert "This suite cannot detect a change of any size reliably" in text
    assert "within acceptable variance" not in text
    assert "Broken: TC-015, TC-031, TC-043" in text
