"""A model server on 127.0.0.1 that follows a script per conversation.

The script of a conversation is its reference solution (each reference call one step,
then the reference reply), with deliberate deviations and faults per conversation:

    plays = {"CONV-003": Play(wrong_args_turn=1), "CONV-007": Play(faults={(0, 0): "500"})}
    with PlayServer(suite, plays) as server:
        ...  # server.openai_url

The server tells conversations apart by their first user message, the turn by the last
user message that is one of the conversation's turns (tool results in prompt mode come
back as user messages too), and the step by the assistant messages since that turn.
In prompt mode (a request without `tools`) calls are answered as Hermes `<tool_call>`
text. Faults fire on the first attempt at a step only, so a retry gets the real answer.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from runner.fakeserver import FakeServer, Step
from toolgrade.suite import Conversation, Suite

Fault = str
"""`500`, `drop`, or `slow` (answers after `PlayServer.slow` seconds)."""


@dataclass(frozen=True)
class Play:
    """How the server plays one conversation."""

    wrong_args_turn: int | None = None
    """In this turn, the first call's arguments are replaced by `{"path": "wrong.txt"}`."""
    silent_turn: int | None = None
    """In this turn, answer at once without any call."""
    faults: Mapping[tuple[int, int], Fault] = field(default_factory=dict)
    """(turn, step) -> the fault of the first attempt at that step."""


@dataclass
class PlayServer(FakeServer):
    """The fake server, answering by conversation, turn and step."""

    suite: Suite | None = None
    plays: Mapping[str, Play] = field(default_factory=dict)
    slow: float = 5.0
    default_delay: float = 0.0
    """Seconds every answer waits (a slower model)."""
    pythonic: bool = False
    """In prompt mode, write calls as `[name(key=value)]` (BFCL's prompting format)."""
    attempts: dict[tuple[str, int, int], int] = field(default_factory=lambda: defaultdict(int))

    def __post_init__(self) -> None:
        super().__post_init__()
        assert self.suite is not None
        self._by_opening: dict[str, Conversation] = {}
        for conversation in self.suite.conversations:
            opening = conversation.turns[0].user
            assert opening not in self._by_opening, f"two conversations open with {opening!r}"
            self._by_opening[opening] = conversation

    def next_step(self, body: Mapping[str, Any]) -> Step:
        with self._lock:
            self.requests.append(dict(body))
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
        conversation = self._by_opening.get(users[0]) if users else None
        if conversation is None:
            return self.default
        turns = [t.user for t in conversation.turns]
        last = max(i for i, m in enumerate(messages) if _is_turn(m, turns))
        turn = turns.index(str(messages[last].get("content")))
        step = sum(m.get("role") == "assistant" for m in messages[last + 1 :])
        key = (conversation.id, turn, step)
        with self._lock:
            attempt = self.attempts[key]
            self.attempts[key] += 1
        play = self.plays.get(conversation.id, Play())
        fault = play.faults.get((turn, step)) if attempt == 0 else None
        answer = _answer(
            conversation,
            play,
            turn,
            step,
            prompt_mode=not body.get("tools"),
            pythonic=self.pythonic,
        )
        if fault == "500":
            return Step(status=500)
        if fault == "drop":
            return Step(drop=True)
        if fault == "slow":
            return Step(calls=answer.calls, content=answer.content, delay=self.slow)
        if self.default_delay:
            return Step(calls=answer.calls, content=answer.content, delay=self.default_delay)
        return answer


def _is_turn(message: Mapping[str, Any], turns: list[str]) -> bool:
    return message.get("role") == "user" and message.get("content") in turns


def _answer(
    conversation: Conversation,
    play: Play,
    turn: int,
    step: int,
    *,
    prompt_mode: bool,
    pythonic: bool = False,
) -> Step:
    reference = conversation.reference[turn] if conversation.reference else None
    calls = [c.to_dict() for c in reference.calls] if reference else []
    reply = reference.reply if reference else "Done."
    if play.silent_turn == turn or step >= len(calls):
        return Step(content=reply or "Done.")
    call = calls[step]
    if play.wrong_args_turn == turn and step == 0:
        call = {"name": call["name"], "arguments": {"path": "wrong.txt"}}
    if prompt_mode and pythonic:
        arguments = ", ".join(f"{k}={v!r}" for k, v in call["arguments"].items())
        return Step(content=f"[{call['name']}({arguments})]")
    if prompt_mode:
        text = "<tool_call>\n" + json.dumps(call) + "\n</tool_call>"
        return Step(content=text)
    return Step(calls=[call])
