"""The judge-profile registry: `register_profile`, `profiles`, and how `judge` finds one.

A profile is a function with `judge`'s signature returning a `Verdict`. The built-in
`bfcl` profile is a lazy entry (`toolgrade.bfcl._profile`, imported on first use);
plug-ins add theirs through the `toolgrade.profiles` entry-point group. A plug-in
profile whose function has `reads_any_name = True` keeps calls of tools not offered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from toolgrade._core.registry import Registry
from toolgrade.errors import ConfigError

if TYPE_CHECKING:
    from toolgrade._core.json_data import JsonValue
    from toolgrade._core.vocab import Rubric, ToolCall
    from toolgrade.extract import Extraction
    from toolgrade.results import CaseResult, Verdict
    from toolgrade.suite import Case, ToolSpec

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "JudgeFn",
    "find_profile",
    "profile_reads_any_name",
    "profiles",
    "register_profile",
]

DEFAULT_PROFILE = "default"
"""toolgrade's own rules: not in the registry, and cannot be replaced."""


class JudgeFn(Protocol):
    """A matching profile: decides one case, as `judge` was asked to judge it.

    It returns a `Verdict`, which `judge` makes the `CaseResult`. A profile returning a
    whole `CaseResult` (as profiles did before verdicts) has it returned as it is.
    """

    def __call__(
        self,
        case: Case,
        actual: Extraction | Sequence[ToolCall | Mapping[str, JsonValue]],
        /,
        *,
        tools: Sequence[ToolSpec] | None,
        rubric: Rubric | None = None,
        strict: bool = False,
    ) -> Verdict | CaseResult:
        """Judge one case (`rubric` is the one the result records)."""
        ...


PROFILES: Registry[JudgeFn] = Registry("judge profile", "toolgrade.profiles")
"""Profile name -> function; `default` is not in it (it is `judge`'s own code)."""
# The bfcl module registers itself (with reads_any_name) when imported.
PROFILES.register("bfcl", "toolgrade.bfcl._profile:judge_bfcl")
_reads_any_name: set[str] = set()


def register_profile(name: str, fn: JudgeFn, *, reads_any_name: bool = False) -> None:
    """Make `judge(..., profile=name)` judge with `fn`.

    Args:
        name: the profile name, e.g. `bfcl`.
        fn: a function with `judge`'s signature (without `profile` and `defaults`)
            returning a `Verdict`.
        reads_any_name: the profile judges calls of any name, so extraction must not use
            the offered tools to set aside look-alike calls (BFCL's checker reads them all).

    Raises:
        ConfigError: `name` is `default` (the built-in rules cannot be replaced) or empty.
    """
    if not name or name == DEFAULT_PROFILE:
        raise ConfigError(f"cannot register a judge profile named {name!r}")
    PROFILES.register(name, fn)
    if reads_any_name:
        _reads_any_name.add(name)
    else:
        _reads_any_name.discard(name)


def profile_reads_any_name(name: str) -> bool:
    """Whether extraction for this profile should keep calls of tools not offered.

    Raises:
        ConfigError: unknown profile.
    """
    if name == DEFAULT_PROFILE:
        return False
    fn = find_profile(name)  # imports a built-in profile, so that it has registered itself
    return name in _reads_any_name or getattr(fn, "reads_any_name", False) is True


def profiles() -> list[str]:
    """The profile names `judge` accepts (built-in and plug-in ones included), sorted."""
    return sorted({DEFAULT_PROFILE, *PROFILES.names()})


def find_profile(name: str) -> JudgeFn:
    """The profile function called `name` (not `default`).

    Raises:
        ConfigError: unknown profile; the message lists the known ones.
    """
    fn = PROFILES.find(name)
    if fn is None:
        raise ConfigError(
            f"unknown judge profile {name!r} (known: {', '.join(profiles())}); a plug-in"
            " adds one through the 'toolgrade.profiles' entry-point group, or call"
            " register_profile (see docs/extending.md)"
        )
    return fn
