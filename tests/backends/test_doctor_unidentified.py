"""`doctor` names a server's software only when the server says which it is.

An OpenAI-compatible server that does not give itself away (no `owned_by` toolgrade
knows, no `Server` header) answering the native probe with prose gets neutral advice;
llama-cpp-python is named only when it identified itself.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from backends.streamserver import DONE, Reply, StreamServer, chunk, completion, models
from toolgrade.backends import BackendSettings, Diagnosis
from toolgrade.backends import adiagnose_backend as diagnose

PROSE = {"role": "assistant", "content": "It is sunny in Paris."}
HERMES = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'


def _server(owned_by: str | None) -> StreamServer:
    def chat(body: dict[str, Any]) -> Reply:
        message = PROSE if "tools" in body else {"role": "assistant", "content": HERMES}
        if not body["stream"]:
            return completion(message)
        return Reply(chunks=[chunk(message), chunk({}, finish="stop"), DONE])

    return StreamServer(
        {"GET /v1/models": [models("m", owned_by=owned_by)], "POST /v1/chat/completions": chat}
    )


def _native(owned_by: str | None, **options: Any) -> tuple[str, str, Diagnosis]:
    with _server(owned_by) as server:
        settings = BackendSettings(
            base_url=server.openai_url, timeout=10, max_retries=0, options=options
        )
        diagnosis = asyncio.run(diagnose("openai/m", settings=settings))
    (check,) = [c for c in diagnosis.checks if c.name == "native tool-call probe"]
    return check.outcome, check.detail, diagnosis


def test_unidentified_server_gets_neutral_advice() -> None:
    outcome, detail, diagnosis = _native(None)
    assert outcome == "fail"
    assert "llama-cpp-python" not in json.dumps([c.detail for c in diagnosis.checks])
    assert "--option tool_choice=auto" in detail
    assert "--mode prompt" in diagnosis.verdict


def test_unidentified_server_with_tool_choice_sent_gets_no_tool_choice_advice() -> None:
    outcome, detail, _ = _native(None, tool_choice="auto")
    assert outcome == "fail"
    assert "tool_choice" not in detail.split("no tool call in the answer", 1)[1].split("'")[-1]
    assert "llama-cpp-python" not in detail


def test_llama_cpp_python_is_named_when_it_says_so() -> None:
    outcome, detail, _ = _native("me")
    assert outcome == "fail"
    assert "llama-cpp-python's chatml-function-calling ignores the tools" in detail
