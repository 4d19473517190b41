"""Environment states stored once, by hash, and put back into the records that name them.

A conversation's record holds the environment's state at its start and at its end.
Many records share a state (conversations that start from one of the suite's named
states, every repetition of a conversation, a final state equal to the initial one),
and a state can be large, so a run stores each distinct state once, under its hash:
the SHA-256 (hex) of its compact JSON text (`state_text`). A stored record gives
`initial_state_hash` / `final_state_hash` instead of the state (`stored_form`). A state
whose JSON is no longer than a hash (`INLINE_MAX` characters, e.g. `{}`) stays in the
record, as does every state of a run written before states were stored apart.

The states are kept beside the records: `states.jsonl` in a run folder, the `states`
table in the history, a `states` object in an exported run. Loading a run puts each
state back (`StateTable.restore`), so that every reader sees the records the run made.
A stored state is checked against its hash as it is read: a state that was changed,
or a hash with no state, is an error naming the case, never a silently wrong record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Literal

from pydantic_core import from_json, to_json

from toolgrade._core.json_data import JsonValue
from toolgrade.errors import StoreError, ToolgradeError
from toolgrade.results import CaseResult

__all__ = [
    "INLINE_MAX",
    "STATES_NAME",
    "StateTable",
    "parse_state_line",
    "state_hash",
    "state_hashes",
    "state_line",
    "state_text",
    "stored_form",
]

INLINE_MAX = 64
"""States whose JSON text is at most this long (a hash's length) stay in the record."""
STATES_NAME = "states.jsonl"
"""A run folder's states: one `{"hash": ..., "state": ...}` per line."""

Which = Literal["initial", "final"]
_WHICH: tuple[Which, ...] = ("initial", "final")


def state_text(state: JsonValue) -> str:
    """The compact JSON text a state is stored and hashed as (the text a record holds).

    Examples:
        >>> state_text({"files": {"a.md": "x"}, "n": 1.5})
        '{"files":{"a.md":"x"},"n":1.5}'
    """
    return to_json(state).decode("utf-8")


def state_hash(text: str) -> str:
    """The key of a state: the SHA-256 of its JSON text, in hex.

    Examples:
        >>> state_hash(state_text({}))[:12]
        '44136fa355b3'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def state_line(digest: str, text: str) -> str:
    """One line of `states.jsonl`: `{"hash":"<hex>","state":<text>}` and a newline."""
    return f'{{"hash":"{digest}","state":{text}}}\n'


def parse_state_line(line: bytes) -> tuple[str, JsonValue] | None:
    """A line of `states.jsonl` as (hash, state); None when it is not one."""
    try:
        data = from_json(line)
    except ValueError:
        return None
    if isinstance(data, dict) and data.keys() == {"hash", "state"}:
        digest = data["hash"]
        if isinstance(digest, str):
            return digest, data["state"]
    return None


def stored_form(result: CaseResult, found: dict[str, str]) -> CaseResult:
    """`result` as stored: its conversation's large states replaced by their hashes.

    Args:
        result: a result as the run made it (or as loaded).
        found: every state replaced is added here (hash -> JSON text).

    Returns:
        The result to write; `result` itself when it keeps every state inline.

    Raises:
        StoreError: a state is given by its hash only (a stored record read without
            the store): there is no state to store.
    """
    record = result.conversation
    if record is None:
        return result
    update: dict[str, str | None] = {}
    for which in _WHICH:
        state = getattr(record, f"{which}_state")
        if getattr(record, f"{which}_state_hash") is not None:
            raise StoreError(
                f"its {which} state is given by its hash only: load the run with"
                " toolgrade.store (which puts its states back) to store it again",
                case_id=result.case_id,
            )
        if state is None:
            continue
        text = state_text(state)
        if len(text) <= INLINE_MAX:
            continue
        digest = state_hash(text)
        found.setdefault(digest, text)
        update[f"{which}_state"] = None
        update[f"{which}_state_hash"] = digest
    if not update:
        return result
    return result.model_copy(update={"conversation": record.model_copy(update=update)})


def state_hashes(result: CaseResult) -> tuple[str, ...]:
    """The hashes a stored result names (none for a result with its states inline)."""
    record = result.conversation
    if record is None:
        return ()
    return tuple(h for h in (record.initial_state_hash, record.final_state_hash) if h)


class StateTable:
    """The states of a stored run, by hash, each checked against its hash as it is added.

    Args:
        source: how messages name where the states are kept (`states.jsonl`).
        path: the file errors name (the run folder's `states.jsonl`, the database).
        error: the error raised for a state that is missing or changed.
    """

    def __init__(
        self, source: str, *, path: str | None, error: type[ToolgradeError] = StoreError
    ) -> None:
        self.source = source
        self.path = path
        self.error = error
        self.texts: dict[str, str] = {}
        """The states that match their hashes: hash -> JSON text."""
        self.bad: dict[str, str | None] = {}
        """Hashes whose stored state does not match: hash -> where it is (`line 3`)."""

    def add(self, digest: str, text: str, *, where: str | None = None) -> None:
        """Keep a stored state (a matching copy wins over a changed one of the same hash)."""
        if digest in self.texts:
            return
        if state_hash(text) == digest:
            self.texts[digest] = text
            self.bad.pop(digest, None)
        else:
            self.bad.setdefault(digest, where)

    def add_value(self, digest: str, state: JsonValue, *, where: str | None = None) -> None:
        """Keep a stored state given as a JSON value (hashed as `state_text` writes it)."""
        self.add(digest, state_text(state), where=where)

    def restore(self, result: CaseResult) -> CaseResult:
        """`result` with the states it names by hash put back (each a new object).

        Raises:
            ToolgradeError: of class `error`, naming the case: a state it names is not
                in the table, or does not match its hash.
        """
        record = result.conversation
        if record is None or not state_hashes(result):
            return result
        update: dict[str, JsonValue] = {}
        for which in _WHICH:
            digest = getattr(record, f"{which}_state_hash")
            if digest is not None:
                update[f"{which}_state"] = from_json(self._text(result, which, digest))
                update[f"{which}_state_hash"] = None
        return result.model_copy(update={"conversation": record.model_copy(update=update)})

    def restore_all(self, results: Iterable[CaseResult]) -> tuple[CaseResult, ...]:
        """`restore` of each result, in order."""
        return tuple(self.restore(r) for r in results)

    def _text(self, result: CaseResult, which: Which, digest: str) -> str:
        text = self.texts.get(digest)
        if text is not None:
            return text
        repeat = f"repeat {result.repeat}: " if result.repeat else ""
        if digest not in self.bad:
            message = f"{repeat}its {which} state {digest} is not in {self.source}"
            raise self.error(message, path=self.path, case_id=result.case_id)
        raise self.error(
            f"{repeat}its {which} state {digest} in {self.source} does not match its hash"
            " (the stored state was changed)",
            path=self.path,
            location=self.bad[digest],
            case_id=result.case_id,
        )
