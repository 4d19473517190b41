"""Recorded outputs: `replay/<file.jsonl>`, one `{"case_id", "output" | "message"}` per line."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from toolgrade._files import decode_text, read_bytes, read_text
from toolgrade._json import JsonObject, JsonValue
from toolgrade.backends._types import BackendSettings, ChatReply, ChatRequest, ServerInfo
from toolgrade.errors import InputError

__all__ = ["ReplayBackend", "ReplayRecord"]


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
    repeat: int | None = None
    """Which repetition this answers (default: lines of a case in order)."""
    note: str | None = None
    """A remark for people (e.g. why the output is deliberately wrong)."""

    @model_validator(mode="after")
    def _one_answer(self) -> ReplayRecord:
        given = sum(x is not None for x in (self.output, self.message))
        if given > 1:
            raise ValueError("give 'output' or 'message', not both")
        if given == 0 and self.error is None:
            raise ValueError("give 'output', 'message' or 'error'")
        return self


def read_replay_file(path: Path, text: str | None = None) -> dict[str, list[ReplayRecord]]:
    """Read and validate a responses file, keyed by case id.

    `text` is the file's content when the caller has read it already.

    Raises:
        InputError: unreadable file or a bad line (the message gives the line).
    """
    if text is None:
        text = read_text(path)
    records: dict[str, list[ReplayRecord]] = defaultdict(list)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = ReplayRecord.model_validate_json(line)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            detail = f"{where}: {err['msg']}" if where else err["msg"]
            raise InputError(detail, path=str(path), location=f"line {number}") from None
        records[record.case_id].append(record)
    return dict(records)


class ReplayBackend:
    """Answers each case with its recorded output; a case without one is an `error`."""

    provider = "replay"
    safe_names = False

    def __init__(self, file: str, settings: BackendSettings) -> None:
        self.model = file
        self.path = Path(file)
        self._settings = settings
        data = read_bytes(self.path)  # read once: parsed, and hashed as the run's identity
        self._records = read_replay_file(self.path, decode_text(data, name=file))
        self._sha256 = hashlib.sha256(data).hexdigest()

    def settings(self) -> JsonObject:
        """The file replayed."""
        return {"provider": self.provider, "file": str(self.path.absolute())}

    async def server_info(self) -> ServerInfo:
        """The file's identity: its content hash and how many cases it answers."""
        return ServerInfo(
            identity={"file_sha256": self._sha256, "recorded_cases": len(self._records)}
        )

    async def complete(self, request: ChatRequest) -> ChatReply:
        """The recorded answer for the case (and repetition)."""
        records = self._records.get(request.case_id)
        if not records:
            return ChatReply(raw=None, error="no recorded response")
        exact = [r for r in records if r.repeat == request.repeat]
        record = exact[0] if exact else records[request.repeat % len(records)]
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
