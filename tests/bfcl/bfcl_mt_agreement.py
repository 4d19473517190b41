"""Judge the committed BFCL multi-turn corpus with toolgrade; compare with BFCL's verdicts.

The corpus (tests/data/bfcl/multi_turn_corpus.jsonl.gz, rebuilt by `make bfcl-verdicts`)
holds only ids, variant names, the model's `result` (BFCL's recorded shape: per turn,
the raw steps) and bfcl-eval's verdict. The entries themselves come from the installed
bfcl-eval package, imported as a conversation suite (`import_bfcl`'s multi-turn path).
Each result becomes the turns a toolgrade run records (one `Step` per raw step, its
calls read as a run reads them) and is judged by `judge_conversation`.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from toolgrade._core.transcript import Step
from toolgrade._core.vocab import ToolCall
from toolgrade.bfcl._data import MultiTurnCategory, open_bfcl_data
from toolgrade.bfcl._mt_checker import (
    MultiTurnCheck,
    MultiTurnEntry,
    check_multi_turn,
    entry_from_conversation,
)
from toolgrade.bfcl._mt_import import build_multi_turn_suite
from toolgrade.environments import TurnRun
from toolgrade.extract import extract_calls
from toolgrade.judging import judge_conversation
from toolgrade.results import Verdict
from toolgrade.suite import Conversation, Suite

CORPUS = Path(__file__).resolve().parents[1] / "data" / "bfcl" / "multi_turn_corpus.jsonl.gz"


@dataclass(frozen=True)
class Item:
    """One recorded result and bfcl-eval's verdict on it."""

    id: str
    variant: str
    style: str
    model: str
    result: Any
    bfcl_valid: bool
    bfcl_error: str

    @property
    def prompt_mode(self) -> bool:
        return self.style == "prompt"


def load_items(path: Path = CORPUS) -> list[Item]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [
        Item(
            r["id"],
            r["variant"],
            r["style"],
            r["model"],
            r["result"],
            bool(r["bfcl"]["valid"]),
            r["bfcl"].get("error_type", ""),
        )
        for r in rows
    ]


@cache
def bfcl_suite() -> Suite:
    """The four multi-turn categories from the installed bfcl-eval, as conversations."""
    return build_multi_turn_suite(open_bfcl_data(), list(MultiTurnCategory), name=None)


@cache
def conversations() -> dict[str, Conversation]:
    return {c.id: c for c in bfcl_suite().cases if not c.single}


def _calls(raw: Any, *, prompt_mode: bool) -> tuple[ToolCall, ...]:
    """The calls a run would have read from one raw step."""
    if isinstance(raw, str):
        return tuple(extract_calls(raw).calls) if prompt_mode else ()
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        return ()
    calls: list[ToolCall] = []
    for item in raw:
        for name, args in item.items() if isinstance(item, dict) else ():
            try:
                value = json.loads(args) if isinstance(args, str) else args
            except ValueError:
                continue
            if isinstance(value, dict):
                calls.append(ToolCall(name=name, arguments=value))
    return tuple(calls)


def runs_for(conversation: Conversation, item: Item) -> list[TurnRun] | None:
    """The turns a run recording this result would hold (None: more turns than the
    conversation has, which no run can record)."""
    if isinstance(item.result, str):
        user = conversation.turns[0].user
        return [TurnRun(0, user, (), None, error=item.result)]
    if len(item.result) > len(conversation.turns):
        return None
    runs: list[TurnRun] = []
    for index, raw_steps in enumerate(item.result):
        steps = tuple(
            Step(raw_response=raw, calls=_calls(raw, prompt_mode=item.prompt_mode))
            for raw in raw_steps
        )
        last = raw_steps[-1] if raw_steps else None
        reply = last if isinstance(last, str) else None
        runs.append(TurnRun(index, conversation.turns[index].user, steps, reply))
    return runs


def judge_item(item: Item, profile: str) -> Verdict | MultiTurnCheck:
    """toolgrade's verdict: `judge_conversation`, or the checker for unrecordable results."""
    conversation = conversations()[item.id]
    runs = runs_for(conversation, item)
    if runs is None:
        entry: MultiTurnEntry = entry_from_conversation(conversation)
        return check_multi_turn(entry, item.result, prompt_mode=item.prompt_mode)
    return judge_conversation(
        bfcl_suite(),
        conversation,
        runs,
        initial_state=None,
        final_state=None,
        profile=profile,
        prompt_mode=item.prompt_mode,
    )


def passed(verdict: Verdict | MultiTurnCheck) -> bool:
    if isinstance(verdict, MultiTurnCheck):
        return verdict.valid
    return verdict.status.value == "correct"


def error_type(verdict: Verdict | MultiTurnCheck) -> str:
    """BFCL's error type as toolgrade reports it (`first_failure.message` starts with it)."""
    if isinstance(verdict, MultiTurnCheck):
        return verdict.error_type or ""
    first = verdict.record.first_failure
    if first is None:
        return ""
    return first.message.split(" ", 1)[0].rstrip(":") if first.check == "bfcl" else first.cause


@dataclass
class Agreement:
    profile: str
    total: int = 0
    agree: int = 0
    disagreements: list[str] = field(default_factory=list)
    by_cause: Counter[str] = field(default_factory=Counter)

    @property
    def rate(self) -> float:
        return self.agree / self.total if self.total else 0.0

    def summary(self) -> str:
        return (
            f"bfcl multi-turn corpus, profile {self.profile!r}: {self.agree}/{self.total}"
            f" agree ({100 * self.rate:.2f}%)"
        )


def agreement(items: list[Item], profile: str) -> Agreement:
    """Pass/fail agreement (and, for the bfcl profile, the same error type)."""
    result = Agreement(profile)
    for item in items:
        verdict = judge_item(item, profile)
        ours = passed(verdict)
        same = ours == item.bfcl_valid
        if same and profile == "bfcl":
            same = error_type(verdict) == item.bfcl_error
        result.total += 1
        if same:
            result.agree += 1
            continue
        label = "pass" if ours else f"fail ({error_type(verdict)})"
        result.by_cause[f"{item.variant}: BFCL {item.bfcl_error or 'pass'}, toolgrade {label}"] += 1
        result.disagreements.append(
            f"{item.id} [{item.variant}, {item.style}]: BFCL"
            f" {'pass' if item.bfcl_valid else 'fail (' + item.bfcl_error + ')'},"
            f" toolgrade {label}"
        )
    return result
