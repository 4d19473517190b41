"""Recorded outputs: `replay/<file.jsonl>`, one `{"case_id", "output" | "message"}` per line.

A responses file is input like a suite: each line is read as strictly as a suite (no
NaN, no number out of range, no huge integer, no key given twice), is held to the size
a live model's answer may have (`MAX_RESPONSE_BYTES`), and the whole file to
`MAX_RESPONSES_FILE_BYTES`. A line answers one repetition of one case: the one its
`repeat` names (from 0, as in stored results), or, when no line of the case gives
`repeat`, the one its position among the case's lines gives.

A conversation's lines also give `turn` and `step` (from 0): each answers one model
reply, the request (case, repeat, turn, step); `repeat` defaults to 0 on such lines.
`replay_records` writes a run's results back as lines, every step of a conversation
included, so that `toolgrade evaluate` judges a stored run again. Reading and checking
the lines is `_replay_lines`'s.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from toolgrade._core.files import atomic_write_text, read_bytes
from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends._replay_lines import (
    MAX_RESPONSES_FILE_BYTES,
    NO_RECORDED_RESPONSE,
    ReplayRecord,
    check_repeats,
    read_answers,
    read_replay_file,
)
from toolgrade.backends._types import BackendSettings, ChatReply, ChatRequest, ServerInfo

if TYPE_CHECKING:  # results sit above backends; a result is only read here
    from toolgrade._core.transcript import Step
    from toolgrade.results import CaseResult

__all__ = [
    "MAX_RESPONSES_FILE_BYTES",
    "NO_RECORDED_RESPONSE",
    "ReplayBackend",
    "ReplayRecord",
    "read_replay_file",
    "replay_records",
    "write_replay_file",
]

_SAMPLE_IDS = 4
"""Case ids of the file kept in the run's identity, to show when they match no case."""


class ReplayBackend:
    """Answers each case with its recorded output; a case without one is an `error`."""

    provider = "replay"
    safe_names = False

    def __init__(self, file: str, settings: BackendSettings) -> None:
        self.model = file
        self.path = Path(file)
        self._settings = settings
        # Read once: parsed, and hashed as the run's identity.
        data = read_bytes(self.path, limit=MAX_RESPONSES_FILE_BYTES)
        self._records = read_answers(self.path, data)
        self._sha256 = hashlib.sha256(data).hexdigest()

    def settings(self) -> JsonObject:
        """The file replayed, and `mode` when it is `prompt` (a replay of text answers).

        The mode tells a profile how a prompting model's text is read (BFCL's prompting
        decoder); the default, native, is left out, as before the field was recorded.
        """
        settings: JsonObject = {"provider": self.provider, "file": str(self.path.absolute())}
        if self._settings.mode == "prompt":
            settings["mode"] = "prompt"
        return settings

    def check_repeat(self, repeat: int) -> None:
        """Refuse the file for a run of `repeat` repetitions when a line answers a later one.

        Called before the run starts: a case answered twice, or a `repeat` no case uses,
        is a mistake in the file (or in `--repeat`), not an answer to ignore.

        Raises:
            InputError: the file and the line (both lines for a case answered twice).
        """
        check_repeats(self._records, path=self.path, repeat=repeat)

    async def server_info(self) -> ServerInfo:
        """The file's identity: its content hash, how many cases and lines it holds."""
        sample: list[JsonValue] = [c for c in itertools.islice(self._records, _SAMPLE_IDS)]
        return ServerInfo(
            identity={
                "file_sha256": self._sha256,
                "recorded_cases": len(self._records),
                "recorded_lines": sum(len(a.lines()) for a in self._records.values()),
                "recorded_ids": sample,
            }
        )

    async def complete(self, request: ChatRequest) -> ChatReply:
        """The recorded answer for the case and repetition (an `error` reply if none)."""
        answers = self._records.get(request.case_id)
        if answers is None:
            return ChatReply(raw=None, error=NO_RECORDED_RESPONSE)
        record, missing = answers.find(request.repeat, request.turn, request.step)
        if record is None:
            return ChatReply(raw=None, error=missing)
        raw: JsonValue = record.output if record.output is not None else record.message
        return ChatReply(
            raw=raw,
            latency_ms=record.latency_ms,
            error=record.error,
            ttft_ms=record.ttft_ms,
            finish_reason=record.finish_reason,
        )

    async def aclose(self) -> None:
        """Nothing to release."""


def _answer_fields(raw: JsonValue) -> dict[str, JsonValue] | None:
    """`output` or `message` for a raw output; None when a line cannot hold it."""
    if isinstance(raw, str):
        return {"output": raw}
    if isinstance(raw, dict):
        return {"message": raw}
    return None


def replay_records(results: Iterable[CaseResult]) -> list[ReplayRecord]:
    """A run's results as responses-file lines (`toolgrade evaluate` judges them again).

    A case gives one line (its raw output, or its error); a conversation one line per
    model reply, with its `turn` and `step`. Outputs a line cannot hold (an agent's
    message list) are left out: replaying them is a `no recorded response` error.

    Examples:
        >>> from toolgrade.results import CaseResult
        >>> result = CaseResult(case_id="c1", status="correct", score=1.0, raw_response="hi")
        >>> [r.output for r in replay_records([result])]
        ['hi']
    """
    lines: list[ReplayRecord | None] = []
    for result in results:
        record = result.conversation
        if record is None:
            lines.append(_reply_line(result, result, error_with_answer=False))
            continue
        for turn in record.turns:
            lines.extend(
                _reply_line(result, step, error_with_answer=True, turn=turn.index, step=index)
                for index, step in enumerate(turn.steps)
            )
    return [line for line in lines if line is not None]


def _reply_line(
    result: CaseResult, reply: CaseResult | Step, *, error_with_answer: bool, **where: int
) -> ReplayRecord | None:
    """One model reply of `result` as a line; None when it has no answer nor error.

    `reply` is the case result itself or one step of its conversation (`where`: the
    step's `turn` and `step`). `error_with_answer`: keep the reply's error beside an
    answer (else only a reply without one keeps it). An answer a line cannot hold
    counts as none.
    """
    answer = _answer_fields(reply.raw_response)
    if answer is None and reply.error is None:
        return None
    return ReplayRecord.model_validate(
        {
            "case_id": result.case_id,
            "repeat": result.repeat,
            **where,
            "latency_ms": reply.latency_ms,
            "ttft_ms": reply.ttft_ms,
            "finish_reason": reply.finish_reason,
            "error": reply.error if error_with_answer or not answer else None,
            **(answer or {}),
        }
    )


def write_replay_file(path: str | Path, results: Iterable[CaseResult]) -> int:
    """Write `replay_records(results)` as a responses file; the number of lines written."""
    lines = replay_records(results)
    text = "".join(r.model_dump_json(exclude_none=True) + "\n" for r in lines)
    atomic_write_text(Path(path), text)
    return len(lines)
