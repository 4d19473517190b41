"""The JUnit XML report: one testcase per case, well-formed whatever the model said."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import toolgrade


def test_junit_has_one_testcase_per_result(run: toolgrade.RunResult) -> None:
    root = ET.fromstring(toolgrade.render_report(run, "junit"))
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == [r.case_id for r in run.results]
    assert root.get("tests") == "13"
    assert root.get("failures") == "8"
    assert root.get("errors") == "2"


def test_junit_failure_carries_reason_and_evidence(run: toolgrade.RunResult) -> None:
    root = ET.fromstring(toolgrade.render_report(run, "junit"))
    case = root.find("./testsuite/testcase[@name='TC-015']")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message") == "Expected search, got read_file"
    assert failure.get("type") == "wrong_tool"
    assert "Prompt: Where is parse_config defined?" in (failure.text or "")
    assert 'Actual: read_file(path="config.py")' in (failure.text or "")
    timeout = root.find("./testsuite/testcase[@name='TC-060']/error")
    assert timeout is not None and timeout.get("type") == "timeout"
    assert root.find("./testsuite/testcase[@name='TC-001']/failure") is None


def test_junit_control_characters_still_give_wellformed_xml(run: toolgrade.RunResult) -> None:
    bad = run.results[2].model_copy(
        update={"case_id": "nul\x00id", "raw_response": "a\x00b\x1b[0m\ud800c"}
    )
    text = toolgrade.render_report(run.model_copy(update={"results": (bad,)}), "junit")
    root = ET.fromstring(text)
    failure = root.find("./testsuite/testcase/failure")
    assert failure is not None
    assert "a\ufffdb\ufffd[0m\ufffdc" in (failure.text or "")
