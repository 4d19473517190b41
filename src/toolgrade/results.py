"""Results of judging: one case (`CaseResult`) and one run (`RunResult`).

These are what the runner writes (one `CaseResult` per line of `results.jsonl`), what
the store keeps, and what metrics and reports read. `Status` and `PairResult` are
declared in `toolgrade._core.vocab` (the bottom layer), `Verdict` (what every judge
returns) in `toolgrade._core.verdict`; all three are re-exported from here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.problems import StoredProblem
from toolgrade._core.transcript import ConversationRecord
from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import Mismatch, PairResult, Rubric, Status, ToolCall

__all__ = [
    "CaseResult",
    "ConversationRecord",
    "PairResult",
    "RunResult",
    "Status",
    "StreamCheck",
    "StreamVerdict",
    "Verdict",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class CaseResult(BaseModel):
    """The verdict on one case, with everything needed to see why."""

    model_config = _FROZEN

    case_id: str
    """The case's id."""
    status: Status
    """The verdict."""
    score: float
    """The score under `rubric`, 0 to 1 (0 for unscored statuses)."""
    rubric: Rubric = "partial"
    """The rubric the score follows."""
    expected: tuple[ToolCall, ...] = ()
    """The expectation the result was judged against (the best alternative)."""
    actual: tuple[ToolCall, ...] = ()
    """The calls the model made, as extracted."""
    pairs: tuple[PairResult, ...] = ()
    """The pairing of expected and actual calls."""
    details: tuple[Mismatch, ...] = ()
    """Every argument difference, with its JSON path and reason."""
    alternative: int | None = None
    """Which alternative matched best (None: the primary expectation)."""
    primary_tools: tuple[str, ...] | None = None
    """The distinct tool names of the case's primary expectation (empty: no call
    expected), under which per-tool breakdowns file the case whichever alternative
    matched; None in results recorded before the field existed (then `expected`)."""
    category: str = ""
    """The case's category."""
    difficulty: str = ""
    """The case's difficulty."""
    tags: tuple[str, ...] = ()
    """The case's tags."""
    prompt: JsonValue = None
    """The prompt as sent (a string or chat messages)."""
    extraction_format: str | None = None
    """The output format the calls were extracted from (`none` when no call was found)."""
    extraction_errors: tuple[StoredProblem, ...] = ()
    """Problems the extractor reported (malformed calls), each kept as `reason: message`
    text."""
    raw_response: JsonValue = None
    """The model's raw output: text, or the assistant message / whole response."""
    latency_ms: float | None = None
    """Time the model took to answer."""
    ttft_ms: float | None = None
    """Time to the first streamed token (None when the answer was not streamed)."""
    finish_reason: str | None = None
    """Why the server stopped: OpenAI's `finish_reason` or Ollama's `done_reason`
    (`stop`, `tool_calls`, `length`: cut off by the token limit); None when not told."""
    error: str | None = None
    """For `error` and `timeout`: what went wrong."""
    repeat: int = 0
    """Repetition index when a case runs several times."""
    conversation: ConversationRecord | None = None
    """For a conversation: every turn, step, tool exchange and check (None for a case,
    and then left out of the JSON, as before the field existed)."""
    endpoint: str | None = None
    """With several endpoints: the one that answered (for a conversation, its last
    request's; each step records its own). None with one server, and then left out of
    the JSON, so that such runs read as before the field existed."""
    expect: str | None = None
    """The outcome the case states (`call`, `clarify`, `refuse`, `answer`: its turn's
    `expect`); None when it states none, and then left out of the JSON. Metrics score
    the decision against it (`metrics.decisions`)."""

    @model_serializer(mode="wrap")
    def _without_empty_conversation(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            if data.get("endpoint", 0) is None:
                del data["endpoint"]
            if data.get("expect", 0) is None:
                del data["expect"]
            if "conversation" in data and data["conversation"] is None:
                del data["conversation"]
        return data


StreamVerdict = Literal["agree", "diverge", "noise", "failed"]
"""What a stream check found: `agree` the streamed and whole answers carry the same calls;
`diverge` they differ while two whole answers agree (the server's streaming path changes
the answer); `noise` the two whole answers differ too (sampling, not the stream: nothing
to blame); `failed` a request failed."""


class StreamCheck(BaseModel):
    """One sampled case asked whole, streamed, and whole again with the same settings."""

    model_config = _FROZEN

    case_id: str
    """The case's id."""
    repeat: int = 0
    """The repetition asked."""
    verdict: StreamVerdict
    """What the three answers say together."""
    detail: str = ""
    """What differs, for people."""
    streamed: JsonValue = None
    """The streamed answer (the raw output, as a result keeps it)."""
    whole: JsonValue = None
    """The answer asked without streaming."""
    whole_again: JsonValue = None
    """A second answer asked without streaming, to tell the stream from sampling."""


class RunResult(BaseModel):
    """A whole run: its settings, every case result, and its metrics."""

    model_config = _FROZEN

    schema_version: Literal[2] = 2
    """Version of this format."""
    run_id: str
    """Unique id of the run."""
    suite_name: str
    """Suite name."""
    suite_version: str
    """Suite content version."""
    suite_hash: str
    """The suite's `content_hash`: exactly what ran."""
    model: str
    """The model specification, e.g. `ollama/qwen3:8b`."""
    backend: JsonObject = {}
    """Backend and request settings (base URL, temperature, mode, ...)."""
    server: JsonObject = {}
    """What the server said about itself (fingerprint, model digest)."""
    toolgrade_version: str
    """The toolgrade version that ran."""
    started_at: datetime
    """When the run began (UTC)."""
    finished_at: datetime | None = None
    """When it ended; None while running or when interrupted."""
    status: Literal["running", "complete", "interrupted"] = "complete"
    """Whether every selected case has a result."""
    seed: int | None = None
    """Seed sent to the server and used for sampling cases."""
    rubric: Rubric = "partial"
    """The run's rubric."""
    profile: str = "default"
    """The matching profile (`default` or `bfcl`)."""
    repeat: int = 1
    """How many times each case ran."""
    selection: JsonObject = {}
    """The selection options used."""
    tags: tuple[str, ...] = ()
    """Labels given to the run (e.g. `baseline`, `v1.2`)."""
    results: tuple[CaseResult, ...] = ()
    """One result per case and repetition."""
    stream_checks: tuple[StreamCheck, ...] = ()
    """`--stream-check N`: the sampled cases asked streamed and whole (left out of the
    JSON when empty, so that runs without a check read as before the field existed)."""

    @model_serializer(mode="wrap")
    def _without_empty_checks(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and not data.get("stream_checks", 1):
            del data["stream_checks"]
        return data
