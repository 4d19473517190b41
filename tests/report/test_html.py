"""The HTML report: self-contained, escaped, script pinned by its CSP hash."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser

import toolgrade


class _Collector(HTMLParser):
    """Collects tags, attributes and script bodies of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def _parse(text: str) -> _Collector:
    collector = _Collector()
    collector.feed(text)
    return collector


def test_html_model_payloads_are_escaped(run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run, "html")
    page = _parse(text)
    assert [t for t, _ in page.tags].count("script") == 1
    assert not any(t == "img" for t, _ in page.tags)
    assert not any(name.startswith("on") for _, attrs in page.tags for name in attrs)
    assert "&lt;script&gt;document.title=&#39;PWNED&#39;&lt;/script&gt;" in text
    assert "\x1b" not in text and "\\x1b[31m" in text


def test_html_is_self_contained(run: toolgrade.RunResult) -> None:
    page = _parse(toolgrade.render_report(run, "html"))
    for tag, attrs in page.tags:
        for name in ("src", "href"):
            assert attrs.get(name) is None, (tag, attrs)
    assert not any(t in ("link", "iframe", "object", "embed") for t, _ in page.tags)


def test_html_csp_allows_exactly_the_inline_script(run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run, "html")
    page = _parse(text)
    csp = next(a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv"))
    assert csp is not None and "default-src 'none'" in csp
    digest = base64.b64encode(hashlib.sha256(page.scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp
    assert "unsafe-inline" not in csp


def test_html_has_charts_and_filterable_failure_table(run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run, "html")
    page = _parse(text)
    svgs = [a for t, a in page.tags if t == "svg"]
    assert [a["aria-label"] for a in svgs] == ["Accuracy by category", "Accuracy by tool"]
    bodies = [a for t, a in page.tags if t == "tbody" and a.get("class") == "case"]
    assert len(bodies) == 10
    assert {b["data-status"] for b in bodies} >= {"wrong_tool", "timeout", "error"}
    for control in ("filter-text", "filter-status", "filter-category"):
        assert f'id="{control}"' in text


def test_html_marks_argument_differences(run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run, "html")
    tc031 = text.split('data-name="TC-031"')[1].split('<tbody class="case"')[0]
    assert re.search(r'<tr class="arg a-differs"><th>path</th>', tc031)
    assert re.search(r'<tr class="arg a-extra"><th>backup</th>', tc031)
    assert re.search(r'<tr class="arg a-same"><th>old</th>', tc031)
    tc023 = text.split('data-name="TC-023"')[1].split('<tbody class="case"')[0]
    assert re.search(r'<tr class="arg a-missing"><th>pattern</th>', tc023)


def test_html_every_failure_shows_prompt_expected_actual_raw(run: toolgrade.RunResult) -> None:
    text = toolgrade.render_report(run, "html")
    tc042 = text.split('data-name="TC-042"')[1].split('<tbody class="case"')[0]
    assert "What does config.yaml contain?" in tc042
    assert "Expected: read_file" in tc042
    assert "Actual: (no call)" in tc042
    assert "I think you should open config.yaml yourself" in tc042


def test_html_without_failures_says_so(run: toolgrade.RunResult) -> None:
    passed = run.model_copy(update={"results": run.results[:2]})
    text = toolgrade.render_report(passed, "html")
    assert "<p>No failures.</p>" in text
    assert 'id="failures"' not in text


def test_html_detail_without_values_shows_its_message(run: toolgrade.RunResult) -> None:
    # BFCL's checker explains a difference in words only: no "expected null, got null".
    message = "BFCL value_error:string: Invalid value for parameter 'city': 'Berlin'."
    results = [
        r.model_copy(
            update={
                "details": (toolgrade.Mismatch(path="$.city", reason="value", message=message),)
            }
        )
        if r.case_id == "TC-023"
        else r
        for r in run.results
    ]
    text = toolgrade.render_report(run.model_copy(update={"results": results}), "html")
    tc023 = text.split('data-name="TC-023"')[1].split('<tbody class="case"')[0]
    diffs = tc023.split('<ul class="diffs">')[1].split("</ul>")[0]
    assert "Invalid value for parameter" in diffs
    assert "null" not in diffs
