"""`doctor`'s checks, one function each, with advice fitted to the server found."""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends._registry import create_backend
from toolgrade.backends._types import (
    Backend,
    BackendSettings,
    ChatReply,
    ChatRequest,
    Mode,
    ServerInfo,
    extractable,
)
from toolgrade.errors import BackendError, BackendHTTPError, ToolgradeError
from toolgrade.extract import extract_calls, list_formats
from toolgrade.serving import SERVER_FIXES, parser_hint, server_of
from toolgrade.suite import ToolSpec

__all__ = [
    "PROBE_TOOL",
    "Check",
    "Outcome",
    "listing_check",
    "offline_checks",
    "probe",
    "server_kind",
    "slots_check",
    "stream_check",
]

PROBE_TOOL = ToolSpec(
    name="get_weather",
    description="Get the current weather for a city.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string", "description": "City name, e.g. Paris"}},
        "required": ["city"],
    },
)
_PROBE_MESSAGES: tuple[JsonObject, ...] = (
    {"role": "system", "content": "You are a helpful assistant that uses tools when useful."},
    {"role": "user", "content": "What is the weather in Paris right now? Use the tool."},
)
_REQUEST = ChatRequest(case_id="doctor-probe", messages=_PROBE_MESSAGES, tools=(PROBE_TOOL,))
_TOOL_CHOICE_HINT = (
    "llama-cpp-python's chatml-function-calling ignores the tools unless tool_choice=auto"
    " is sent: try --option tool_choice=auto"
)

_UNKNOWN_SERVER_HINT = (
    "the server did not say which software it is; some servers use the tools only when"
    " asked: try --option tool_choice=auto"
)

Outcome = Literal["ok", "warn", "fail", "skip"]


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the diagnosis."""

    name: str
    """What was checked."""
    outcome: Outcome
    """`ok`, `warn`, `fail` or `skip`."""
    detail: str
    """What was found, and what to do about it."""


def server_kind(backend: Backend, info: ServerInfo) -> str:
    """The server software: what it said about itself, else what the provider suggests."""
    return server_of(info.identity, f"{backend.provider}/{backend.model}")


def offline_checks(provider: str, target: str) -> tuple[Check, ...]:
    """A `replay/` or `python/` model: what can be checked without a server, and why no probe.

    Args:
        provider: `replay` or `python`.
        target: the responses file, or `module:function`.

    Returns:
        The file's or the module's check, then a `skip` line saying there is no server.
    """
    if provider == "replay":
        found = _replay_check(target)
        why = "each case's answer is read from the file"
    else:
        found = _import_check(target)
        why = "the function is called in-process, once per case"
    return found, Check("server", "skip", f"a {provider}/ model has no server to probe: {why}")


def _replay_check(target: str) -> Check:
    from toolgrade.backends._replay import read_replay_file

    name = "responses file"
    path = Path(target)
    try:
        records = read_replay_file(path)
    except ToolgradeError as exc:
        return Check(name, "fail", str(exc))
    answers = sum(len(r) for r in records.values())
    if not answers:
        return Check(name, "fail", f"{path}: no answer in the file (every case would be an error)")
    return Check(
        name,
        "ok",
        f"{path}: readable, {answers} answer lines for {len(records)} cases"
        " (a case without one is reported as an error)",
    )


def _import_check(target: str) -> Check:
    from toolgrade.backends._python import load_callable

    name = "module import"
    try:
        function = load_callable(target)
    except ToolgradeError as exc:
        return Check(name, "fail", str(exc))
    except Exception as exc:  # the user's module failed while being imported
        return Check(name, "fail", f"importing {target!r} raised {type(exc).__name__}: {exc}")
    kind = "async function" if inspect.iscoroutinefunction(function) else "callable"
    return Check(name, "ok", f"{target} imports; it is a {kind}")


def listing_check(backend: Backend, info: ServerInfo, kind: str) -> Check:
    """Is the model among the served ones? Servers that answer any name only get a warning."""
    models = info.models
    if models is None:
        return Check("model listed", "skip", "the server does not list its models")
    wanted = backend.model
    if wanted in models or f"{wanted}:latest" in models:
        return Check("model listed", "ok", wanted)
    shown = ", ".join(models[:8]) or "none"
    # These answer any model name with the model they have loaded: the run works, but
    # it records a name the server does not use.
    if kind == "llama-cpp-python":
        return Check(
            "model listed",
            "warn",
            f"{wanted!r} is not a served name (served: {shown}); llama-cpp-python answers"
            f" any name with its default model; to serve it under this name start it with"
            f" --model_alias {wanted}",
        )
    if kind == "llama-server" and len(models) == 1:
        return Check(
            "model listed",
            "warn",
            f"{wanted!r} is not the served name ({shown}); llama-server with one model"
            f" answers any name; to serve it under this name start it with --alias {wanted}",
        )
    fix = f"; pull it: ollama pull {wanted}" if backend.provider == "ollama" else ""
    return Check("model listed", "fail", f"{wanted!r} is not served (available: {shown}){fix}")


def slots_check(info: ServerInfo, kind: str) -> Check | None:
    """Advice on `--concurrency` when the server says how many requests it serves at once."""
    slots = info.parallel
    if slots is None:
        return None
    if slots > 1:
        return Check(
            "server slots", "ok", f"{slots} requests at once: use --concurrency {slots} or less"
        )
    extra = (
        "; llama-cpp-python also cuts a running stream short when another request arrives"
        if kind == "llama-cpp-python"
        else ""
    )
    return Check(
        "server slots",
        "warn",
        f"the server answers one request at a time{extra}: run with --concurrency 1, or"
        " queued cases spend their --timeout waiting",
    )


async def probe(
    backend: Backend, mode: Mode, *, kind: str, settings: BackendSettings
) -> tuple[Check, ChatReply | None]:
    """Ask the probe question; the check, and the reply when one came."""
    name = f"{mode} tool-call probe"
    try:
        reply = await backend.complete(_REQUEST)
    except BackendHTTPError as exc:
        fix = "try --mode prompt" if mode == "native" else "check the server log"
        return Check(name, "fail", f"the server refused the request: {exc.message}; {fix}"), None
    except BackendError as exc:
        return Check(name, "fail", f"request failed: {exc.message}"), None
    if reply.error is not None:
        return Check(name, "fail", reply.error), None
    found = extract_calls(extractable(reply.raw), tools=[PROBE_TOOL])
    called = [c for c in found.calls if c.name == PROBE_TOOL.name]
    structured = {f.name for f in list_formats() if f.stage == "structured"}
    if called and (mode == "prompt" or found.format in structured):
        detail = f"called {PROBE_TOOL.name}({called[0].arguments}) [{found.format}]"
        return Check(name, "ok", detail), reply
    if called:
        hint = parser_hint(found.format, kind) or "enable the server's tool-call parser"
        detail = (
            f"the call came back as text ({found.format}), not as structured tool_calls:"
            f" toolgrade extracts it anyway; for structured calls {hint}"
        )
        return Check(name, "warn", detail), reply
    why = f"; extraction problems: {found.errors[0].message}" if found.errors else ""
    detail = f"no tool call in the answer{why}: {_text(reply.raw)!r}"
    if mode == "native":
        detail += _prose_hint(backend, kind, settings)
    return Check(name, "fail", detail), reply


def _prose_hint(backend: Backend, kind: str, settings: BackendSettings) -> str:
    """Why a native probe may get prose back: tools ignored without `tool_choice`.

    llama-cpp-python is named only when the server said it is llama-cpp-python; a
    server that did not say which it is gets the same advice in neutral words.
    """
    if kind == "llama-cpp-python":
        if "tool_choice" not in settings.options:
            return "; " + _TOOL_CHOICE_HINT
        return "; " + SERVER_FIXES["llama-cpp-python"]
    if not kind and backend.provider == "openai" and "tool_choice" not in settings.options:
        return "; " + _UNKNOWN_SERVER_HINT
    return ""


async def stream_check(
    spec: str, settings: BackendSettings, *, mode: Mode, first: ChatReply
) -> Check:
    """Ask again with streaming switched the other way: the tool calls must agree.

    `first` is the probe's reply with the settings a run would use.
    """
    name = "streaming agrees"
    streams = settings.streams()
    options = {k: v for k, v in settings.options.items() if k != "stream"}
    other_settings = replace(settings, mode=mode, stream=not streams, options=options)
    backend = create_backend(spec, other_settings)
    try:
        other = await backend.complete(_REQUEST)
    except BackendError as exc:
        what = "non-streamed" if streams else "streamed"
        return Check(name, "warn", f"the {what} probe failed: {exc.message}")
    finally:
        await backend.aclose()
    ours, theirs = _calls(first.raw), _calls(other.raw)
    if ours == theirs:
        return Check(name, "ok", f"streamed and non-streamed answers agree: {_summary(first)}")
    streamed, plain = (first, other) if streams else (other, first)
    switch = "--option stream=false" if streams else "--option stream=true"
    detail = (
        "the streamed and non-streamed answers disagree (a server bug worth reporting,"
        f" with both answers): streamed: {_summary(streamed)}; not streamed: {_summary(plain)}"
    )
    if not ours and theirs:
        # The way a run would ask loses the call the other way gets.
        return Check(name, "fail", f"{detail}; run with {switch}")
    return Check(name, "warn", detail)


def _calls(raw: JsonValue) -> tuple[tuple[str, str], ...]:
    found = extract_calls(extractable(raw), tools=[PROBE_TOOL])
    return tuple(
        (c.name, json.dumps(c.arguments, sort_keys=True, ensure_ascii=False)) for c in found.calls
    )


def _summary(reply: ChatReply) -> str:
    found = extract_calls(extractable(reply.raw), tools=[PROBE_TOOL])
    if not found.calls:
        return f"no call, text {_text(reply.raw)!r}"
    calls = ", ".join(f"{c.name}({c.arguments})" for c in found.calls)
    return f"{calls} [{found.format}]"


def _text(raw: JsonValue) -> str:
    if isinstance(raw, dict):
        content = raw.get("content")
        raw = content if isinstance(content, str) else raw
    return str(raw)[:120].replace("\n", " ")
