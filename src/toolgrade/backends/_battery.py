"""`doctor --battery`: a fixed set of probes that find where a server's tool-call parser breaks.

Five probes, each asked streamed and whole with tools in the request (native mode: the
parser is the server's), ten requests in all, one after the other (a one-slot server
cuts a stream short when another request arrives):

- one call: one `get_weather` call;
- two parallel calls: `get_weather` for two cities in one answer;
- a call after reasoning: the system prompt asks the model to think first inside
  `<think>` (a reasoning model does anyway), which confuses some parsers;
- nested, non-ASCII arguments: `send_message` with an object, a list and text in
  four scripts;
- no call: a greeting, where any call is wrong.

Each probe's line gives the serving class of both answers (`serving.served`), whether
they agree (`serving.compare_answers`), whether the calls are right (the probe knows
the expected call) and, for a fault, the flag to try (`serving.parser_hint`). A last
line sums the battery up with the flags found.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends._probes import PROBE_TOOL, Check, Outcome
from toolgrade.backends._registry import create_backend
from toolgrade.backends._types import Backend, BackendSettings, ChatRequest, extractable
from toolgrade.errors import BackendError
from toolgrade.extract import extract_calls
from toolgrade.serving import (
    Asked,
    ServingClass,
    ServingVerdict,
    compare_answers,
    parser_hint,
    served,
)
from toolgrade.suite import ToolSpec

__all__ = ["BATTERY", "BatteryProbe", "run_battery"]

_MESSAGE_TOOL = ToolSpec(
    name="send_message",
    description="Send a message to a person.",
    parameters={
        "type": "object",
        "properties": {
            "to": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "city": {"type": "string"}},
                "required": ["name", "city"],
            },
            "text": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["to", "text", "tags"],
    },
)
_SYSTEM = "You are a helpful assistant that uses tools when useful."
_THINK = (
    "Before you answer, think step by step inside <think> and </think>; then act."
    " Use the tools when useful."
)
_NON_ASCII_REQUEST = "Send José in Zürich the message „Grüße aus Köln, 東京で会いましょう“"


@dataclass(frozen=True, slots=True)
class BatteryProbe:
    """One probe of the battery: what is asked, and the calls a right answer makes."""

    name: str
    """Its line's name (`battery: NAME`)."""
    system: str
    """The system prompt."""
    user: str
    """The question."""
    tools: tuple[ToolSpec, ...]
    """The tools offered."""
    expected: tuple[tuple[str, JsonObject], ...]
    """The calls a right answer makes (name, arguments); empty: no call."""

    def request(self) -> ChatRequest:
        """The probe as a request."""
        messages: tuple[JsonObject, ...] = (
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user},
        )
        return ChatRequest(case_id=f"doctor-{self.name}", messages=messages, tools=self.tools)


BATTERY: tuple[BatteryProbe, ...] = (
    BatteryProbe(
        "one call",
        _SYSTEM,
        "What is the weather in Paris right now? Use the tool.",
        (PROBE_TOOL,),
        (("get_weather", {"city": "Paris"}),),
    ),
    BatteryProbe(
        "two parallel calls",
        _SYSTEM,
        "What is the weather in Paris and in Tokyo right now? Call the tool for both"
        " cities at once, in one answer.",
        (PROBE_TOOL,),
        (("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo"})),
    ),
    BatteryProbe(
        "call after reasoning",
        _THINK,
        "Which city is the capital of France? Get its weather right now with the tool.",
        (PROBE_TOOL,),
        (("get_weather", {"city": "Paris"}),),
    ),
    BatteryProbe(
        "nested, non-ASCII arguments",
        _SYSTEM,
        f"{_NON_ASCII_REQUEST}, tagged urgent and café. Use the tool.",
        (_MESSAGE_TOOL, PROBE_TOOL),
        (
            (
                "send_message",
                {
                    "to": {"name": "José", "city": "Zürich"},
                    "text": "Grüße aus Köln, 東京で会いましょう",
                    "tags": ["urgent", "café"],
                },
            ),
        ),
    ),
    BatteryProbe(
        "no call",
        _SYSTEM,
        "Say hello in one short sentence. Do not use any tool.",
        (PROBE_TOOL,),
        (),
    ),
)
"""The battery's probes, in the order they are asked."""


def _fits(expected: JsonValue, actual: JsonValue) -> bool:
    """Whether `actual` holds `expected`: strings alike but for case, quotes and spaces."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and _fits(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return isinstance(actual, list) and all(any(_fits(e, a) for a in actual) for e in expected)
    if isinstance(expected, str):
        return isinstance(actual, str) and _plain(expected) == _plain(actual)
    return expected == actual


def _plain(text: str) -> str:
    for quote in "„“”\"'":
        text = text.replace(quote, "")
    return " ".join(text.casefold().split())


def _correctness(probe: BatteryProbe, asked: Asked) -> str:
    """`calls right` (or `no call, as asked`), or what is wrong with the calls.

    The calls are read wherever the model put them: this is the model's verdict, beside
    the serving classes.
    """
    found = extract_calls(extractable(asked.raw), tools=list(probe.tools)).calls
    if not probe.expected:
        return "no call, as asked" if not found else f"wrong: it called {found[0].name}"
    missing = [
        f"{name}({args})"
        for name, args in probe.expected
        if not any(c.name == name and _fits(args, c.arguments) for c in found)
    ]
    if not found:
        return "wrong: no call"
    if missing:
        return f"wrong: no call {missing[0]} among {', '.join(c.name for c in found)}"
    if len(found) > len(probe.expected):
        return f"wrong: {len(found)} calls, {len(probe.expected)} expected"
    return "calls right"


async def _ask(backend: Backend, request: ChatRequest, timeout: float) -> Asked:
    try:
        async with asyncio.timeout(timeout):
            reply = await backend.complete(request)
    except TimeoutError:
        return Asked(failure=f"no answer within {timeout:g} s")
    except BackendError as exc:
        return Asked(failure=exc.message)
    if reply.error is not None:
        return Asked(reply.raw, failure=reply.error)
    return Asked(reply.raw, finish_reason=reply.finish_reason)


def _words(verdict: ServingVerdict) -> str:
    return f"{verdict.kind.value} ({verdict.fmt})" if verdict.fmt else verdict.kind.value


def _flag(verdicts: Sequence[ServingVerdict], kind: str, differs: bool) -> str | None:
    """What to try for the faults of a probe's two answers (streamed, whole)."""
    for verdict in verdicts:
        if verdict.kind in (ServingClass.CALLS_IN_TEXT, ServingClass.CALLS_IN_REASONING):
            hint = parser_hint(verdict.fmt, kind)
            if hint:
                return hint
    if differs and verdicts[1].kind.clean:
        return "run with --no-stream, and report the streamed answer to the server's authors"
    kinds = {v.kind for v in verdicts}
    if ServingClass.MALFORMED_CALL in kinds:
        return "report the malformed call to the server's authors, with the answer"
    if ServingClass.EMPTY in kinds:
        return "report the swallowed call (HTTP 200, no call, no text) to the server's authors"
    if ServingClass.TRUNCATED in kinds:
        return "raise --max-tokens"
    return None


def _check(probe: BatteryProbe, streamed: Asked, whole: Asked, kind: str) -> Check:
    verdicts = (served(streamed), served(whole))
    differs = compare_answers(streamed, whole)
    right = _correctness(probe, whole if whole.failure is None else streamed)
    parts = [f"streamed {_words(verdicts[0])}, whole {_words(verdicts[1])}"]
    parts.append("agree" if differs is None else f"diverge: {differs}")
    parts.append(right)
    flag = _flag(verdicts, kind, differs is not None)
    faults = [v for v in verdicts if not v.kind.clean]
    for verdict in faults[:1]:
        if verdict.detail:
            parts.append(verdict.detail)
    if flag:
        parts.append(f"try: {flag}")
    outcome: Outcome = "warn" if right.startswith("wrong") else "ok"
    if faults or differs is not None:
        outcome = "fail"
    return Check(f"battery: {probe.name}", outcome, "; ".join(parts))


def _summary(checks: Sequence[Check]) -> Check:
    clean = sum(c.outcome != "fail" for c in checks)
    flags: list[str] = []
    for check in checks:
        _, _, flag = check.detail.partition("try: ")
        if flag and flag not in flags:
            flags.append(flag)
    detail = f"{clean} of {len(checks)} probes served clean"
    if flags:
        return Check("parser battery", "fail", f"{detail}; try: {' | '.join(flags)}")
    outcome: Outcome = "ok" if clean == len(checks) else "fail"
    return Check("parser battery", outcome, detail)


async def run_battery(spec: str, settings: BackendSettings, *, kind: str) -> list[Check]:
    """Ask every probe of `BATTERY` streamed and whole; a line each, then a summary.

    Args:
        spec: the model specification.
        settings: the request settings (their mode and streaming are set here: native,
            both ways); each request is bounded by their `timeout`.
        kind: the server software (`server_kind`), for the flags.
    """
    options = {k: v for k, v in settings.options.items() if k != "stream"}
    native = dataclasses.replace(settings, mode="native", options=options)
    streamed = create_backend(spec, dataclasses.replace(native, stream=True))
    whole = create_backend(spec, dataclasses.replace(native, stream=False))
    checks: list[Check] = []
    try:
        for probe in BATTERY:
            request = probe.request()
            one = await _ask(streamed, request, settings.timeout)
            two = await _ask(whole, request, settings.timeout)
            checks.append(_check(probe, one, two, kind))
    finally:
        await streamed.aclose()
        await whole.aclose()
    return [*checks, _summary(checks)]
