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
included, so that `toolgrade evaluate` judges a stored run again.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from toolgrade._files import atomic_write_text, decode_text, parse_json_issues, read_bytes
from toolgrade._json import JsonObject, JsonValue
from toolgrade.backends._stream import MAX_RESPONSE_BYTES
from toolgrade.backends._types import BackendSettings, ChatReply, ChatRequest, ServerInfo
from toolgrade.errors import InputError

if TYPE_CHECKING:  # results sit above backends; a result is only read here
    from toolgrade._transcript import Step
    from toolgrade.results import CaseResult

__all__ = [
    "MAX_RESPONSES_FILE_BYTES",
    "NO_RECORDED_RESPONSE",
    "ReplayBackend",
    "ReplayRecord",
    "replay_records",
    "write_replay_file",
]

NO_RECORDED_RESPONSE = "no recorded response"
"""The error of a case the responses file has no line for."""
_SAMPLE_IDS = 4
"""Case ids of the file kept in the run's identity, to show when they match no case."""

MAX_RESPONSES_FILE_BYTES = 256 * 1024 * 1024
"""A responses file larger than this is refused before it is read."""

_Key = TypeVar("_Key", int, tuple[int, int, int])


class ReplayRecord(BaseModel):
    """One line of a responses file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str
    """The case answered."""
    output: str | None = None
    """The raw assistant text."""
    message: JsonObject | None = None
    """Or the assistant message (OpenAI or Ollama shape), or a whole chat-completion response."""
    latency_ms: float | None = None
    """Recorded answer time."""
    ttft_ms: float | None = None
    """Recorded time to the first streamed token."""
    finish_reason: str | None = None
    """Why the server stopped (`length`: cut off at the token limit), as recorded."""
    error: str | None = None
    """A recorded failure: the case is reported as `error`."""
    repeat: int | None = Field(default=None, ge=0)
    """Which repetition this answers, from 0 (as `CaseResult.repeat`); None: by position
    (conversation steps: 0)."""
    turn: int | None = Field(default=None, ge=0)
    """Conversations: the user turn this reply belongs to, from 0."""
    step: int | None = Field(default=None, ge=0)
    """Conversations: the model reply within the turn, from 0."""
    note: str | None = None
    """A remark for people (e.g. why the output is deliberately wrong)."""

    @model_validator(mode="after")
    def _one_answer(self) -> ReplayRecord:
        given = sum(x is not None for x in (self.output, self.message))
        if given > 1:
            raise ValueError("give 'output' or 'message', not both")
        if given == 0 and self.error is None:
            raise ValueError("give 'output', 'message' or 'error'")
        if (self.turn is None) != (self.step is None):
            raise ValueError("give 'turn' and 'step' together, or neither")
        return self

    @property
    def in_conversation(self) -> bool:
        """True when the line answers one step of a conversation."""
        return self.turn is not None


@dataclass(frozen=True, slots=True)
class _Answers:
    """One case's lines: the record of each repetition, and the line it is on."""

    by_repeat: dict[int, tuple[int, ReplayRecord]]
    explicit: bool
    """Whether the lines give `repeat` (else they answer repetitions in order)."""
    by_step: dict[tuple[int, int, int], tuple[int, ReplayRecord]] | None = None
    """A conversation's lines by (repeat, turn, step); None for a single case's."""

    def lines(self) -> list[tuple[int, ReplayRecord]]:
        """Every line of the case: (line number, record)."""
        found = self.by_step if self.by_step is not None else self.by_repeat
        return list(found.values())

    def find(self, repeat: int, turn: int, step: int) -> tuple[ReplayRecord | None, str]:
        """The record answering a request, or None and why there is none."""
        if self.by_step is not None:
            found = self.by_step.get((repeat, turn, step))
            if found is None:
                return None, (f"{NO_RECORDED_RESPONSE} for repeat {repeat} turn {turn} step {step}")
            return found[1], ""
        if turn or step:  # a single answer serves the first request of a conversation
            return None, f"{NO_RECORDED_RESPONSE} for turn {turn} step {step} (no line gives one)"
        single = self.by_repeat.get(repeat)
        if single is None:
            return None, self.missing(repeat)
        return single[1], ""

    def missing(self, repeat: int) -> str:
        """Why no line answers this repetition, naming the case's lines."""
        lines = ", ".join(str(line) for line, _ in self.by_repeat.values())
        if self.explicit:
            given = ", ".join(str(r) for r in self.by_repeat)
            return f"no recorded response for repeat {repeat} (lines {lines} give repeat {given})"
        return (
            f"no recorded response for repeat {repeat}: the case's {len(self.by_repeat)} "
            f"line(s) without 'repeat' (lines {lines}) answer repeats 0 to "
            f"{len(self.by_repeat) - 1} in order"
        )


def _record(data: bytes, *, path: Path, number: int) -> ReplayRecord | None:
    """Read one line (None for a blank one)."""
    if len(data) > MAX_RESPONSE_BYTES:
        raise InputError(
            f"a line of {len(data)} bytes, over {MAX_RESPONSE_BYTES} (the largest answer "
            "read from a live model)",
            path=str(path),
            location=f"line {number}",
        )
    where = {"path": str(path), "location": f"line {number}"}
    try:
        text = decode_text(data, name=str(path))
        if not text.strip():
            return None
        value, issues = parse_json_issues(text, name=str(path))
    except InputError as exc:  # not UTF-8, or not JSON: the file's line, not the text's
        column = (exc.location or "").partition(" column ")[2]
        location = f"line {number} column {column}" if column else f"line {number}"
        raise InputError(exc.message, path=str(path), location=location) from None
    if issues:
        raise InputError(f"{issues[0].path}: {issues[0].message}", **where)
    try:
        return ReplayRecord.model_validate(value)
    except ValidationError as exc:
        err = exc.errors()[0]
        at = ".".join(str(p) for p in err["loc"])
        raise InputError(f"{at}: {err['msg']}" if at else err["msg"], **where) from None


def read_replay_file(path: Path, data: bytes | str | None = None) -> dict[str, list[ReplayRecord]]:
    """Read and validate a responses file: each case's records, in file order.

    `data` is the file's content when the caller has read it already.

    Raises:
        InputError: the file is unreadable or too large, or a line is bad: not JSON, not
            a record, too large, a second answer to one repetition of a case, or a case
            whose lines give `repeat` only on some (the message names the line).
    """
    answers = _read_answers(path, data)
    return {
        case_id: [record for _, record in sorted(found.lines(), key=_line)]
        for case_id, found in answers.items()
    }


def _line(found: tuple[int, ReplayRecord]) -> int:
    return found[0]


def _read_answers(path: Path, data: bytes | str | None) -> dict[str, _Answers]:
    if data is None:
        data = read_bytes(path, limit=MAX_RESPONSES_FILE_BYTES)
    elif isinstance(data, str):
        data = data.encode("utf-8")
    lines: dict[str, list[tuple[int, ReplayRecord]]] = {}
    for number, raw in enumerate(data.split(b"\n"), start=1):
        record = _record(raw, path=path, number=number)
        if record is not None:
            lines.setdefault(record.case_id, []).append((number, record))
    return {case_id: _answers(found, path=path) for case_id, found in lines.items()}


def _steps(lines: list[tuple[int, ReplayRecord]], *, path: Path) -> _Answers:
    """A conversation's lines: one per (repeat, turn, step)."""
    first_line = lines[0][0]
    by_step: dict[tuple[int, int, int], tuple[int, ReplayRecord]] = {}
    for number, record in lines:
        if not record.in_conversation:
            raise _line_error(
                f"case {record.case_id!r}: give 'turn' and 'step' on every line of a "
                f"conversation or on none (line {first_line} gives them, line {number} does not)",
                path=path,
                number=number,
            )
        key = (record.repeat or 0, record.turn or 0, record.step or 0)
        which = f"repeat {key[0]} turn {key[1]} step {key[2]}"
        _keep_one(by_step, key, (number, record), which=which, path=path)
    return _Answers({}, explicit=True, by_step=by_step)


def _answers(lines: list[tuple[int, ReplayRecord]], *, path: Path) -> _Answers:
    first_line, first = lines[0]
    if any(record.in_conversation for _, record in lines):
        ordered = sorted(lines, key=lambda found: not found[1].in_conversation)
        return _steps(ordered, path=path)
    explicit = first.repeat is not None
    by_repeat: dict[int, tuple[int, ReplayRecord]] = {}
    for position, (number, record) in enumerate(lines):
        if (record.repeat is not None) != explicit:
            given, other = (first_line, number) if explicit else (number, first_line)
            raise _line_error(
                f"case {record.case_id!r}: give 'repeat' on every line of a case or on none "
                f"(line {given} gives it, line {other} does not)",
                path=path,
                number=number,
            )
        repeat = position if record.repeat is None else record.repeat
        _keep_one(by_repeat, repeat, (number, record), which=f"repeat {repeat}", path=path)
    return _Answers(by_repeat, explicit)


def _keep_one(
    found: dict[_Key, tuple[int, ReplayRecord]],
    key: _Key,
    line: tuple[int, ReplayRecord],
    *,
    which: str,
    path: Path,
) -> None:
    """File a line under the request it answers; a second answer to it is an error."""
    number, record = line
    if key in found:
        raise _line_error(
            f"a second answer to case {record.case_id!r} {which} (first at line {found[key][0]})",
            path=path,
            number=number,
        )
    found[key] = line


def _line_error(message: str, *, path: Path, number: int) -> InputError:
    return InputError(message, path=str(path), location=f"line {number}")


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
        self._records = _read_answers(self.path, data)
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
