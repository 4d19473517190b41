"""`doctor`: is the server up, is the model there, does a one-case probe call a tool?

`replay/` and `python/` models have no server: doctor says so plainly, and checks what
there is to check instead (the responses file reads and parses; the module imports).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace

from toolgrade.backends._battery import run_battery
from toolgrade.backends._probes import (
    PROBE_TOOL,
    Check,
    listing_check,
    offline_checks,
    probe,
    server_kind,
    slots_check,
    stream_check,
)
from toolgrade.backends._registry import create_backend, parse_model_spec
from toolgrade.backends._types import BackendSettings, Mode, ServerInfo
from toolgrade.errors import BackendError, BackendUnreachable

__all__ = ["PROBE_TOOL", "Check", "Diagnosis", "adiagnose_backend", "diagnose_backend"]

_MODES: tuple[Mode, ...] = ("native", "prompt")


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """Every check, and the exit code the command line uses."""

    model: str
    """The model specification checked."""
    checks: tuple[Check, ...]
    """In order: reachability, model listing, server slots (when it says), the probes,
    then the parser battery's lines when it was asked for."""
    offline: bool = False
    """A `replay/` or `python/` model: no server, so the checks are the file's or module's."""

    @property
    def exit_code(self) -> int:
        """0 when a probe called the tool, 3 when unreachable, 1 otherwise.

        For a model without a server (`offline`): 0 when its file reads or its module
        imports, 2 (a configuration error) when not. The parser battery's lines do not
        change it: they say where the server breaks calls, and the verdict line never
        says "ready" while one of them fails.
        """
        if self.offline:
            return 2 if any(c.outcome == "fail" for c in self.checks) else 0
        if any(c.name == "server reachable" and c.outcome == "fail" for c in self.checks):
            return 3
        probes = [c for c in self.checks if c.name.endswith("probe")]
        if not probes or any(c.outcome in ("ok", "warn") for c in probes):
            return 0
        return 1

    @property
    def verdict(self) -> str:
        """One line for people: never "ready" when a check failed.

        Examples:
            >>> Diagnosis("m", (Check("native tool-call probe", "ok", ""),)).verdict
            'ready to run'
        """
        code = self.exit_code
        if self.offline:
            if code:
                return "fix the FAIL line above before a run"
            return "nothing to probe (no server): ready to run"
        if code == 3:
            return "server unreachable"
        if code == 1:
            return "no tool call came back"
        failed = [c.name for c in self.checks if c.outcome == "fail"]
        if not failed:
            return "ready to run"
        if failed == ["native tool-call probe"]:
            return "native tool calls fail: run with --mode prompt, or fix the FAIL line above"
        return "a probe called the tool, but fix the FAIL lines above before a run"


async def adiagnose_backend(
    spec: str,
    *,
    settings: BackendSettings | None = None,
    modes: Sequence[Mode] | None = None,
    battery: bool = False,
) -> Diagnosis:
    """Check a model server step by step (async core of `diagnose_backend`).

    Args:
        spec: the model specification, e.g. `ollama/qwen3:8b`.
        settings: request settings, as a run would send them (base URL, timeout,
            `options`, `max_tokens`, `stream`, ...); their `mode` is ignored.
        modes: the probes to make (default: native, then prompt). The first mode's
            probe is also asked with streaming switched the other way, to check the
            two answers agree.
        battery: also ask the parser battery (`backends/_battery.py`: five probes,
            each streamed and whole, in native mode; ten more requests).

    Returns:
        The checks made; later ones are skipped when the server is unreachable.

    Raises:
        ConfigError: a malformed specification.
    """
    settings = settings or BackendSettings(timeout=30.0, max_retries=0)
    provider, target = parse_model_spec(spec)
    if provider in ("replay", "python"):
        return Diagnosis(spec, offline_checks(provider, target), offline=True)
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
            return Diagnosis(spec, (Check("server reachable", "fail", f"{exc} ({fix})"),))
        except BackendError as exc:
            return Diagnosis(spec, (Check("server reachable", "fail", str(exc)),))
        kind = server_kind(backend, info)
        checks.append(Check("server reachable", "ok", _where(info, kind)))
        checks.append(listing_check(backend, info, kind))
        slots = slots_check(info, kind)
        if slots is not None:
            checks.append(slots)
        checks.extend(await _probes(spec, settings, modes=modes or _MODES, kind=kind))
        if battery:
            checks.extend(await run_battery(spec, settings, kind=kind))
    finally:
        await backend.aclose()
    return Diagnosis(spec, tuple(checks))


async def _probes(
    spec: str, settings: BackendSettings, *, modes: Sequence[Mode], kind: str
) -> list[Check]:
    checks: list[Check] = []
    for i, mode in enumerate(modes):
        mode_settings = replace(settings, mode=mode)
        probe_backend = create_backend(spec, mode_settings)
        try:
            check, reply = await probe(probe_backend, mode, kind=kind, settings=mode_settings)
        finally:
            await probe_backend.aclose()
        checks.append(check)
        if i == 0 and reply is not None:
            checks.append(await stream_check(spec, mode_settings, mode=mode, first=reply))
    return checks


def _where(info: ServerInfo, kind: str) -> str:
    where = info.url or "in-process"
    return f"{where} ({kind})" if info.identity.get("server") else where


def diagnose_backend(
    spec: str,
    *,
    settings: BackendSettings | None = None,
    modes: Sequence[Mode] | None = None,
    battery: bool = False,
) -> Diagnosis:
    """Check a model server: reachable, model listed, slots, tool-call probes, streaming.

    With `battery`, the parser battery too (see `adiagnose_backend`).

    Examples:
        >>> diagnose_backend("ollama/qwen3:8b").exit_code  # doctest: +SKIP
        0
    """
    return asyncio.run(adiagnose_backend(spec, settings=settings, modes=modes, battery=battery))
