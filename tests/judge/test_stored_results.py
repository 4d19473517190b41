"""Stored results load, write back byte for byte, and judge the same.

`tests/data/judge/stored_results.jsonl` holds three `results.jsonl` lines as toolgrade
0.1.0 wrote them: a conversation (its turns' pairs carry no `credit`; a wrong-arguments
turn, an alternative matched, a malformed call in a step) and two single cases (pairs
with credit; a malformed call).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolgrade import Case, CaseResult, Conversation, Status, Suite, ToolSpec
from toolgrade._core.vocab import PairResult
from toolgrade.environments import TurnRun
from toolgrade.extract import Extraction, ExtractionProblem
from toolgrade.judging import conversation_result, judge, judge_conversation

LINES = (
    (Path(__file__).parents[1] / "data" / "judge" / "stored_results.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
)


def _schema(**props: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {k: {"type": v} for k, v in props.items()},
        "required": list(props),
    }


READ = ToolSpec(name="read_file", parameters=_schema(path="string"))
WRITE = ToolSpec(name="write_file", parameters=_schema(path="string", text="string"))
SUITE = Suite(schema_version=2, name="s", tools=[READ, WRITE])
CONVERSATION = Conversation.model_validate(
    {
        "id": "conv-pairs",
        "category": "files",
        "tags": ["t1"],
        "turns": [
            {
                "user": "read a",
                "expected": [
                    {"name": "read_file", "arguments": {"path": "a.md"}},
                    {"name": "write_file", "arguments": {"path": "b.md", "text": "hi"}},
                ],
            },
            {
                "user": "read c",
                "expected": {"name": "read_file", "arguments": {"path": "c.md"}},
                "alternatives": [{"name": "read_file", "arguments": {"path": "d.md"}}],
            },
            {
                "user": "write",
                "expected": {"name": "write_file", "arguments": {"path": "e.md", "text": "x"}},
            },
        ],
    }
)
CASE = Case.model_validate(
    {
        "id": "single-1",
        "prompt": "read a",
        "expected": [
            {"name": "read_file", "arguments": {"path": "a.md"}},
            {"name": "write_file", "arguments": {"path": "b", "text": "t"}},
        ],
    }
)


@pytest.mark.parametrize("line", LINES)
def test_stored_line_writes_back_byte_for_byte(line: str) -> None:
    result = CaseResult.model_validate_json(line)
    assert result.model_dump_json() == line
    assert CaseResult.model_validate(result.model_dump()) == result


def test_stored_turn_pairs_load_as_pairs_without_credit() -> None:
    record = CaseResult.model_validate_json(LINES[0]).conversation
    assert record is not None
    pairs = [p for t in record.turns for p in t.pairs]
    assert pairs and all(type(p) is PairResult and p.credit is None for p in pairs)
    assert [t.cause for t in record.turns] == [Status.WRONG_ARGS, None, Status.PARSE_ERROR]
    assert record.first_failure is not None and record.first_failure.cause is Status.WRONG_ARGS


def test_stored_conversation_judges_the_same() -> None:
    record = CaseResult.model_validate_json(LINES[0]).conversation
    assert record is not None
    runs = [TurnRun(index=t.index, user=t.user, steps=t.steps, reply=t.reply) for t in record.turns]
    verdict = judge_conversation(
        SUITE, CONVERSATION, runs, initial_state={}, final_state={}, rubric="partial"
    )
    assert conversation_result(CONVERSATION, verdict, repeat=1).model_dump_json() == LINES[0]


def test_stored_cases_judge_the_same() -> None:
    calls = [
        {"name": "read_file", "arguments": {"path": "a.md"}},
        {"name": "write_file", "arguments": {"path": "b", "text": "u"}},
    ]
    assert judge(CASE, calls, tools=[READ, WRITE]).model_dump_json() == LINES[1]
    malformed = ExtractionProblem(reason="parse_error", message="bad json")
    extraction = Extraction(calls=(), format="hermes", errors=(malformed,))
    judged = judge(CASE, extraction, tools=[READ, WRITE], rubric="binary")
    assert judged.model_dump_json() == LINES[2]
