"""Reading a responses file: each line checked, and filed under the request it answers.

A line answers one repetition of one case: the one its `repeat` names (from 0, as in
stored results), or, when no line of the case gives `repeat`, the one its position
among the case's lines gives. A conversation's lines also give `turn` and `step` (from
0): each answers one model reply, the request (case, repeat, turn, step). Two lines for
one request, and (before a run, `check_repeats`) a line for a repetition the run does
not have, are refused with the file and the lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from toolgrade._core.files import decode_text, parse_json_issues, read_bytes
from toolgrade._core.json_data import JsonObject
from toolgrade.backends._stream import MAX_RESPONSE_BYTES
from toolgrade.errors import InputError

__all__ = [
    "MAX_RESPONSES_FILE_BYTES",
    "NO_RECORDED_RESPONSE",
    "Answers",
    "ReplayRecord",
    "check_repeats",
    "read_answers",
    "read_replay_file",
]

NO_RECORDED_RESPONSE = "no recorded response"
"""The error of a case the responses file has no line for."""
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
class Answers:
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

    def beyond(self, case_id: str, repeat: int) -> tuple[int, str] | None:
        """The first line (number, why) answering a repetition `repeat` or later, if any.

        A run of `repeat` repetitions asks for repeats 0 to `repeat - 1` only: a line
        past them is an answer nothing reads, most often a case answered twice.
        """
        if self.by_step is not None:
            steps = [(line, key) for key, (line, _) in self.by_step.items() if key[0] >= repeat]
            if not steps:
                return None
            line, (k, turn, step) = min(steps)
            where = f"case {case_id!r} repeat {k} turn {turn} step {step}"
            return line, f"{where}: no case uses repeat {k}: {_repeats(repeat)}"
        late = sorted((line, k) for k, (line, _) in self.by_repeat.items() if k >= repeat)
        if not late:
            return None
        line, k = late[0]
        if self.explicit:
            return line, f"case {case_id!r} repeat {k}: no case uses it: {_repeats(repeat)}"
        earlier = ", ".join(str(self.by_repeat[i][0]) for i in range(k))
        nth = f"a second answer to case {case_id!r} (first at line {earlier})"
        if k > 1:
            nth = f"answer {k + 1} to case {case_id!r} (after lines {earlier})"
        return line, (
            f"{nth}: lines without 'repeat' answer repeats 0, 1, ... in order,"
            f" and {_repeats(repeat)}"
        )

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


def _repeats(repeat: int) -> str:
    runs = "once" if repeat == 1 else f"{repeat} times (repeats 0 to {repeat - 1})"
    return f"the run repeats each case {runs} (--repeat {repeat})"


def check_repeats(answers: dict[str, Answers], *, path: Path, repeat: int) -> None:
    """Refuse a line that no request of a run of `repeat` repetitions reads.

    Raises:
        InputError: naming the file and the first such line (for a case answered twice,
            both lines).
    """
    found = [late for case_id, a in answers.items() if (late := a.beyond(case_id, repeat))]
    if found:
        line, why = min(found)
        raise _line_error(why, path=path, number=line)


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
    answers = read_answers(path, data)
    return {
        case_id: [record for _, record in sorted(found.lines(), key=_line)]
        for case_id, found in answers.items()
    }


def _line(found: tuple[int, ReplayRecord]) -> int:
    return found[0]


def read_answers(path: Path, data: bytes | str | None) -> dict[str, Answers]:
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


def _steps(lines: list[tuple[int, ReplayRecord]], *, path: Path) -> Answers:
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
    return Answers({}, explicit=True, by_step=by_step)


def _answers(lines: list[tuple[int, ReplayRecord]], *, path: Path) -> Answers:
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
    return Answers(by_repeat, explicit)


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
