"""Fixtures of the report tests: two stored runs and golden-file comparison.

Regenerate every golden file after an intended change of a report's layout with:

    TOOLGRADE_UPDATE_GOLDENS=1 .venv/bin/pytest tests/report -q

then review the diff of tests/data/report/golden/ before committing it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser import chromium

import toolgrade
from toolgrade.results import Status, StreamCheck

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

DATA = Path(__file__).resolve().parent.parent / "data" / "report"
GOLDEN = DATA / "golden"


def load_run(name: str) -> toolgrade.RunResult:
    return toolgrade.RunResult.model_validate_json((DATA / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def run() -> toolgrade.RunResult:
    """The candidate run: every status, chat prompts, HTML and ANSI payloads."""
    return load_run("run.json")


@pytest.fixture(scope="session")
def baseline() -> toolgrade.RunResult:
    """The same suite on another model, tagged v1.2."""
    return load_run("baseline.json")


# What a real server adds to results: the assistant message (OpenAI or Ollama shape, or a
# whole chat completion), why the answer stopped, and the time to the first token.
SERVER_UPDATES: dict[str, dict[str, object]] = {
    "TC-001": {"ttft_ms": 80.0, "finish_reason": "tool_calls"},
    "TC-015": {
        "ttft_ms": 120.0,
        "finish_reason": "tool_calls",
        "raw_response": {
            "id": "chatcmpl-7",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "reasoning_content": "Open the config file first.",
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {
                                    "name": "read_file",
                                    "arguments": '{"path": "config.py"}',
                                },
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
        },
    },
    "TC-042": {
        "ttft_ms": 150.0,
        "finish_reason": "length",
        "raw_response": {
            "role": "assistant",
            "content": "",
            "thinking": "The user asks what config.yaml holds. I should call read_file with",
        },
    },
    "TC-050": {"ttft_ms": 95.0, "finish_reason": "stop"},
}


@pytest.fixture(scope="session")
def server_run(run: toolgrade.RunResult) -> toolgrade.RunResult:
    """The candidate run as a real server would record it: messages, finish reasons, ttft."""
    results = tuple(
        r.model_copy(update=SERVER_UPDATES[r.case_id]) if r.case_id in SERVER_UPDATES else r
        for r in run.results
    )
    backend = {**run.backend, "mode": "native"}
    return run.model_copy(update={"results": results, "backend": backend})


# Three tries of every case of the candidate run, made at temperature 0: three cases
# gave different verdicts on one of their tries.
FLIPS = {("TC-001", 1): "wrong_args", ("TC-023", 2): "correct", ("TC-070", 0): "missed_call"}


@pytest.fixture(scope="session")
def repeated_run(run: toolgrade.RunResult) -> toolgrade.RunResult:
    """The candidate run made with `--repeat 3` at temperature 0, with three cases flipping."""
    results = []
    for k in range(3):
        for r in run.results:
            status = FLIPS.get((r.case_id, k))
            update: dict[str, object] = {"repeat": k}
            if status is not None:
                update |= {"status": Status(status), "score": float(status == "correct")}
            results.append(r.model_copy(update=update))
    return run.model_copy(update={"results": tuple(results), "repeat": 3})


@pytest.fixture(scope="session")
def comparison(baseline: toolgrade.RunResult, run: toolgrade.RunResult) -> toolgrade.Comparison:
    return toolgrade.compare_runs(baseline, run)


@pytest.fixture
def golden() -> Callable[[str, str], None]:
    """Compare text with a golden file (or rewrite it when TOOLGRADE_UPDATE_GOLDENS=1)."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if os.environ.get("TOOLGRADE_UPDATE_GOLDENS") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="\n")
        assert path.exists(), f"missing golden {path}; run with TOOLGRADE_UPDATE_GOLDENS=1"
        expected = path.read_text(encoding="utf-8")
        assert text == expected, f"{name} differs from its golden file"

    return check


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    """A headless Chromium for the browser tests (skipped when there is none)."""
    yield from chromium(tmp_path_factory)


def _said(content: str, **fields: object) -> dict[str, object]:
    """An assistant message whose calls (if any) are in its text only."""
    return {"role": "assistant", "content": content, **fields}


# A server whose tool-call parser misses most calls: what the serving verdict is for.
# The duplicated call id is model text that must stay inert in every format.
BAD_ID = "call_<img src=x onerror=alert(1)>@octocat #12"
SERVING_UPDATES: dict[str, dict[str, object]] = {
    "TC-002": {
        "extraction_format": "fenced_json",
        "raw_response": _said(
            '```json\n{"name": "search", "arguments": {"pattern": "TODO", "path": "src"}}\n```'
        ),
    },
    "TC-015": {
        "raw_response": _said('{"name": "read_file", "arguments": {"path": "config.py"}}'),
    },
    "TC-023": {
        "raw_response": _said(
            '<tool_call>\n{"name": "search", "arguments": {"path": "src"}}\n</tool_call>'
        ),
    },
    "TC-031": {
        "raw_response": _said(
            "edit_file(path='src/main.py', old='x = 1', new='x = 2', backup=True)"
        ),
    },
    "TC-042": {
        "raw_response": _said(
            "",
            reasoning_content='I will call {"name": "read_file", "arguments": {"path":'
            ' "config.yaml"}}',
        ),
    },
    "TC-043": {
        "extraction_format": "openai",
        "raw_response": _said(
            "",
            tool_calls=[
                {
                    "id": BAD_ID,
                    "type": "function",
                    "function": {"name": "search", "arguments": '{"pattern": "today"}'},
                }
            ]
            * 2,
        ),
    },
    "TC-051": {
        "finish_reason": "length",
        "raw_response": _said('<tool_call>{"name": "search", "arguments": {"pattern": "deprec'),
    },
    "TC-070": {"raw_response": _said("")},
    "TC-099": {
        "raw_response": _said(
            '<tool_call>{"name": "write_file", "arguments": {"path": "a.txt", "content":'
            " \"<script>document.title='PWNED'</script>\"}}</tool_call>"
        ),
    },
}

STREAMED = _said("<script>alert(1)</script> ask @octocat about #12 | *bold* ``` done")
WHOLE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "search", "arguments": '{"pattern": "parse_config"}'},
        }
    ],
}
STREAM_CHECKS = (
    StreamCheck(case_id="TC-001", verdict="agree", streamed=WHOLE, whole=WHOLE, whole_again=WHOLE),
    StreamCheck(
        case_id="TC-015",
        verdict="diverge",
        detail='streamed: no call; whole: search(pattern="parse_config") twice',
        streamed=STREAMED,
        whole=WHOLE,
        whole_again=WHOLE,
    ),
    StreamCheck(
        case_id="TC-023",
        verdict="noise",
        detail="the two whole answers differ too",
        streamed=WHOLE,
        whole=WHOLE,
        whole_again=STREAMED,
    ),
    StreamCheck(case_id="TC-061", verdict="failed", detail="HTTP 500 from the server"),
)


@pytest.fixture(scope="session")
def serving_run(run: toolgrade.RunResult) -> toolgrade.RunResult:
    """The candidate run served by a vLLM whose parser misses calls, with a stream check.

    Structured 2, calls_in_text 6 (one passing: the accuracy as served drops from 3/11 to
    2/11), calls_in_reasoning 1, malformed_call 1, empty 1, request_failed 2.
    """
    results = tuple(
        r.model_copy(update=SERVING_UPDATES[r.case_id]) if r.case_id in SERVING_UPDATES else r
        for r in run.results
    )
    return run.model_copy(
        update={
            "results": results,
            "backend": {**run.backend, "mode": "native"},
            "server": {**run.server, "server": "vllm"},
            "stream_checks": STREAM_CHECKS,
        }
    )


@pytest.fixture(scope="session")
def clean_run(run: toolgrade.RunResult) -> toolgrade.RunResult:
    """A native run where every answer reached the client as sent: structured or text."""
    kept = {"TC-001", "TC-050", "TC-070"}
    results = tuple(
        r.model_copy(update={"raw_response": _said("Hello!")}) if r.case_id == "TC-070" else r
        for r in run.results
        if r.case_id in kept
    )
    return run.model_copy(update={"results": results, "backend": {**run.backend, "mode": "native"}})
