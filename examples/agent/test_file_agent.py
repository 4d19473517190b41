"""The example agent's own tests, using toolgrade's pytest plugin (no import needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from file_agent import respond

SUITE = str(Path(__file__).with_name("suite.json"))
TOOLS = [
    {
        "type": "function",
        "function": {"name": name, "description": "", "parameters": {"type": "object"}},
    }
    for name in ("read_file", "search", "run_command")
]


def ask(prompt: str) -> object:
    return respond([{"role": "user", "content": prompt}], TOOLS)


def test_reads_the_file_it_is_asked_for(assert_tool_calls):
    assert_tool_calls(
        ask("Please read ./docs/intro.md"),
        {"name": "read_file", "arguments": {"path": "docs/intro.md"}},
    )


def test_search_then_tests_in_any_order(assert_tool_calls):
    assert_tool_calls(
        ask("Run the tests, then search for FIXME in lib"),
        [
            {"name": "run_command", "arguments": {"command": {"$contains": "pytest"}}},
            {"name": "search", "arguments": {"pattern": "FIXME", "path": "lib"}},
        ],
    )


def test_small_talk_calls_no_tool(assert_tool_calls):
    assert_tool_calls(ask("Hello there"), None)


@pytest.mark.toolgrade(suite=SUITE, model="python/file_agent:respond", min_accuracy=1.0)
def test_whole_suite_passes(toolgrade_suite):
    assert toolgrade_suite.metrics.accuracy.n == 6
