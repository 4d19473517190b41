"""Python agents that run their own tools: the trajectory is kept raw, and its calls judged."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import toolgrade
from toolgrade.backends import ChatRequest, create_backend, extractable
from toolgrade.errors import BackendError
from toolgrade.extract import extract_calls
from toolgrade.suite import ToolSpec

AGENT = '''
import json

def _call(id, name, args):
    return {"id": id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}

def trajectory(messages, tools):
    path = "README.md"
    return [
        *messages,
        {"role": "assistant", "content": None, "tool_calls": [_call("c1", "read_file", {"path": path})]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"name": "rm", "arguments": {}})},
        {"role": "assistant", "content": None, "tool_calls": [
            _call("c2", "write_file", {"path": path, "text": "hi"})]},
        {"role": "tool", "tool_call_id": "c2", "content": "ok"},
        {"role": "assistant", "content": "Done."},
    ]

class _Message:
    """An SDK-style message object (pydantic-like: model_dump)."""
    def __init__(self, **fields):
        self.fields = fields
    def model_dump(self, mode="python"):
        return dict(self.fields)

def sdk_objects(messages, tools):
    return [
        _Message(role="assistant", content=None, tool_calls=[_call("a", "read_file", {"path": "x"})]),
        _Message(role="tool", tool_call_id="a", content="text"),
        _Message(role="assistant", content="It says text."),
    ]

def mixed(messages, tools):
    return [{"role": "assistant", "content": "x"}, {"name": "read_file"}, 3]

def not_json(messages, tools):
    return [{"role": "assistant", "content": {1, 2}}]
'''


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    (tmp_path / "trajectory_agent_mod.py").write_text(AGENT, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "trajectory_agent_mod"
    sys.modules.pop("trajectory_agent_mod", None)


def _ask(spec: str) -> Any:
    async def go() -> Any:
        backend = create_backend(spec)
        try:
            request = ChatRequest(
                case_id="TC-1",
                messages=({"role": "user", "content": "Fix README.md"},),
                tools=(ToolSpec(name="read_file"), ToolSpec(name="write_file")),
            )
            return await backend.complete(request)
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_python_trajectory_is_kept_raw_unchanged(agent: str) -> None:
    raw = _ask(f"python/{agent}:trajectory").raw
    assert isinstance(raw, list)
    assert raw[0] == {"role": "user", "content": "Fix README.md"}
    assert raw[-1] == {"role": "assistant", "content": "Done."}
    assert len(raw) == 6


def test_python_trajectory_extracts_every_call_and_no_tool_result(agent: str) -> None:
    raw = _ask(f"python/{agent}:trajectory").raw
    found = extract_calls(extractable(raw))
    assert [(c.name, c.arguments) for c in found.calls] == [
        ("read_file", {"path": "README.md"}),
        ("write_file", {"path": "README.md", "text": "hi"}),
    ]
    assert found.errors == ()


def test_python_trajectory_of_sdk_objects_is_dumped(agent: str) -> None:
    raw = _ask(f"python/{agent}:sdk_objects").raw
    assert raw[1] == {"role": "tool", "tool_call_id": "a", "content": "text"}
    assert [c.name for c in extract_calls(extractable(raw)).calls] == ["read_file"]


@pytest.mark.parametrize(
    ("fn", "message"),
    [("mixed", "neither calls nor messages"), ("not_json", "messages that are not JSON")],
)
def test_python_bad_trajectory_is_backend_error(agent: str, fn: str, message: str) -> None:
    with pytest.raises(BackendError, match=message):
        _ask(f"python/{agent}:{fn}")


def test_extractable_trajectory_without_calls_is_the_reply_text() -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}]
    assert extractable(messages) == {"role": "assistant", "content": "Hello."}


def test_extractable_other_lists_are_still_json_text() -> None:
    assert extractable([1, 2]) == "[1, 2]"
    assert extractable([]) == "[]"


def test_single_case_run_with_trajectory_agent_judges_all_calls(agent: str, tmp_path: Path) -> None:
    suite_file = tmp_path / "suite.json"
    suite_file.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "name": "fix",
                "tools": [
                    {"name": "read_file", "parameters": {"type": "object"}},
                    {"name": "write_file", "parameters": {"type": "object"}},
                ],
                "cases": [
                    {
                        "id": "fix",
                        "prompt": "Fix README.md",
                        "order": "strict",
                        "expected": [
                            {"name": "read_file", "arguments": {"path": "README.md"}},
                            {"name": "write_file", "arguments": {"path": "README.md"}},
                        ],
                    }
                ],
            }
        ),
        "utf-8",
    )
    suite = toolgrade.load_suite(suite_file)
    options = toolgrade.RunOptions(persist=False)
    run = toolgrade.run_suite(suite, f"python/{agent}:trajectory", options=options)
    (result,) = run.results
    assert result.status is toolgrade.Status.CORRECT, result
    assert [c.name for c in result.actual] == ["read_file", "write_file"]
