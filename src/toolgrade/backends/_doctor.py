"""`doctor`: is the server up, is the model there, does a one-case probe call a tool?"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Literal

from toolgrade._json import JsonObject
from toolgrade.backends._registry import create_backend
from toolgrade.backends._types import Backend, BackendSettings, ChatRequest, Mode, extractable
from toolgrade.errors import BackendError, BackendHTTPError, BackendUnreachable
from toolgrade.extract import extract_calls, list_formats
from toolgrade.suite import ToolSpec

__all__ = ["Check", "Diagnosis", "PROBE_TOOL", "adiagnose_backend", "diagnose_backend"]

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
_HINTS = {
    "vllm": "start vLLM with --enable-auto-tool-choice --tool-call-parser <parser>",
    "llamacpp": "start llama-server with --jinja",
    "sglang": "start SGLang with --tool-call-parser <parser>",
    "ollama": "use a model whose template supports tools (ollama show MODEL)",
}

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


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """Every check, and the exit code the command line uses."""

    model: str
    """The model specification checked."""
    checks: tuple[Check, ...]
    """In order: reachability, model listing, native probe, prompt probe."""

    @property
    def exit_code(self) -> int:
        """0 when a probe called the tool, 3 when unreachable, 1 otherwise."""
        if any(c.name == "server reachable" and c.outcome == "fail" for c in self.checks):
            return 3
        probes = [c for c in self.checks if c.name.endswith("probe")]
        if not probes or any(c.outcome in ("ok", "warn") for c in probes):
            return 0
        return 1


async def _probe(backend: Backend, mode: Mode) -> Check:
    name = f"{mode} tool-call probe"
    request = ChatRequest(case_id="doctor-probe", messages=_PROBE_MESSAGES, tools=(PROBE_TOOL,))
    try:
        reply = await backend.complete(request)
    except BackendHTTPError as exc:
        fix = "try --mode prompt" if mode == "native" else "check the server log"
        return Check(name, "fail", f"the server refused the request: {exc.message}; {fix}")
    except BackendError as exc:
        return Check(name, "fail", f"request failed: {exc.message}")
    if reply.error is not None:
        return Check(name, "fail", reply.error)
    found = extract_calls(extractable(reply.raw), tools=[PROBE_TOOL])
    called = [c for c in found.calls if c.name == PROBE_TOOL.name]
    structured = {f.name for f in list_formats() if f.stage == "structured"}
    if called and (mode == "prompt" or found.format in structured):
        return Check(
            name, "ok", f"called {PROBE_TOOL.name}({called[0].arguments}) [{found.format}]"
        )
    if called:
        hint = _HINTS.get(backend.provider, "enable the server's tool-call parser")
        return Check(
            name,
            "warn",
            f"the call came back as text ({found.format}), not as structured tool_calls:"
            f" toolgrade extracts it anyway; for structured calls {hint}",
        )
    text = str(reply.raw)[:120].replace("\n", " ")
    why = f"; extraction problems: {found.errors[0].message}" if found.errors else ""
    return Check(name, "fail", f"no tool call in the answer{why}: {text!r}")


async def adiagnose_backend(spec: str, *, settings: BackendSettings | None = None) -> Diagnosis:
    """Check a model server step by step (async core of `diagnose_backend`).

    Args:
        spec: the model specification, e.g. `ollama/qwen3:8b`.
        settings: request settings (base URL, timeout, ...).

    Returns:
        The checks made; later ones are skipped when the server is unreachable.

    Raises:
        ConfigError: a malformed specification.
    """
    settings = settings or BackendSettings(timeout=30.0, max_retries=0)
    backend = create_backend(spec, settings)
    checks: list[Check] = []
    try:
        try:
            info = await backend.server_info()
        except BackendUnreachable as exc:
            fix = (
                "start it, or give --base-url"
                if backend.provider != "ollama"
                else "run `ollama serve`"
            )
            return Diagnosis(spec, (Check("server reachable", "fail", f"{exc}: {fix}"),))
        except BackendError as exc:
            return Diagnosis(spec, (Check("server reachable", "fail", str(exc)),))
        checks.append(Check("server reachable", "ok", info.url or "in-process"))
        checks.append(_listing(backend, info.models))
        if backend.provider == "replay":
            return Diagnosis(spec, tuple(checks))
        for mode in ("native", "prompt"):
            probe_backend = create_backend(spec, replace(settings, mode=mode))
            try:
                checks.append(await _probe(probe_backend, mode))
            finally:
                await probe_backend.aclose()
    finally:
        await backend.aclose()
    return Diagnosis(spec, tuple(checks))


def _listing(backend: Backend, models: tuple[str, ...] | None) -> Check:
    if models is None:
        return Check("model listed", "skip", "the server does not list its models")
    wanted = backend.model
    if wanted in models or f"{wanted}:latest" in models:
        return Check("model listed", "ok", wanted)
    shown = ", ".join(models[:8]) or "none"
    fix = f"; pull it: ollama pull {wanted}" if backend.provider == "ollama" else ""
    return Check("model listed", "fail", f"{wanted!r} is not served (available: {shown}){fix}")


def diagnose_backend(spec: str, *, settings: BackendSettings | None = None) -> Diagnosis:
    """Check a model server: reachable, model listed, native and prompt tool-call probes.

    Examples:
        >>> diagnose_backend("ollama/qwen3:8b").exit_code  # doctest: +SKIP
        0
    """
    return asyncio.run(adiagnose_backend(spec, settings=settings))
