"""A tiny example agent, to show how toolgrade tests an agent's tool use.

It is deliberately simple and deterministic — rules instead of a language model — so the
example runs anywhere. A real agent would send `messages` and `tools` to a model and
return the assistant message it got back; toolgrade accepts that unchanged.

toolgrade calls it through the `python/` backend, which imports the module from the
current folder. From the repository root:
    toolgrade run --suite examples/agent/suite.json --model python/examples.agent.file_agent:respond
From this folder:
    toolgrade run --suite suite.json --model python/file_agent:respond
"""

from __future__ import annotations

import re
from typing import Any

_READ = re.compile(r"\b(?:read|open|show)\s+(?:the\s+file\s+)?(?P<path>[\w./-]+\.\w+)", re.I)
_SEARCH = re.compile(
    r"\bsearch\s+for\s+['\"]?(?P<pattern>[^'\"]+?)['\"]?\s+in\s+(?P<path>[\w./-]+)", re.I
)
_TESTS = re.compile(r"\brun\s+the\s+tests\b", re.I)


def respond(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
    """Answer the last user message with tool calls, or with text when no tool fits."""
    offered = {t["function"]["name"] for t in tools}
    text = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    calls: list[dict[str, Any]] = []
    if (m := _READ.search(text)) and "read_file" in offered:
        calls.append({"name": "read_file", "arguments": {"path": m["path"]}})
    if (m := _SEARCH.search(text)) and "search" in offered:
        calls.append({"name": "search", "arguments": {"pattern": m["pattern"], "path": m["path"]}})
    if _TESTS.search(text) and "run_command" in offered:
        calls.append({"name": "run_command", "arguments": {"command": "pytest -q"}})
    if calls:
        return calls
    return {"role": "assistant", "content": "I can read files, search code and run the tests."}
