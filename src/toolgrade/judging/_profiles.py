"""The judge-profile registry: `Profile`, `register_profile`, `profiles`, `find_profile`.

A profile is one `Profile`: a reply judge (`judge`'s signature, returning a `Verdict`;
None: toolgrade's own rules) and, optionally, a conversation judge that decides whole
conversations of its kind (returning None for a conversation that is not, which is then
judged turn by turn with the reply judge). All profiles live in one registry,
`PROFILES`, which reads two entry-point groups the first time a name is missing or the
names are listed:

- `toolgrade.profiles`: a `Profile`, or a reply judge (a function whose attribute
  `reads_any_name = True` keeps calls of tools not offered);
- `toolgrade.conversation_profiles`: a conversation judge, which becomes the
  conversation part of the profile of the same name (one without a conversation part
  of its own; with no profile of that name, a profile judging replies by toolgrade's
  own rules).

The built-in `bfcl` profile is the lazy entry `toolgrade.bfcl._profile:PROFILE`, imported
on first use.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol, cast

from toolgrade._core.registry import Registry, load_target
from toolgrade.errors import ConfigError

if TYPE_CHECKING:
    from toolgrade._core.json_data import JsonValue
    from toolgrade._core.vocab import Rubric, ToolCall
    from toolgrade.environments import TurnRun
    from toolgrade.extract import Extraction
    from toolgrade.results import CaseResult, Verdict
    from toolgrade.suite import Case, Suite, ToolSpec

__all__ = [
    "CONVERSATION_GROUP",
    "DEFAULT_PROFILE",
    "PROFILES",
    "ConversationJudgeFn",
    "JudgeFn",
    "Profile",
    "ProfileRegistry",
    "find_profile",
    "profile_reads_any_name",
    "profiles",
    "register_profile",
]

DEFAULT_PROFILE = "default"
"""toolgrade's own rules: not in the registry, and cannot be replaced."""
CONVERSATION_GROUP = "toolgrade.conversation_profiles"
"""The entry-point group of conversation judges, read as parts of the profiles."""


class JudgeFn(Protocol):
    """A profile's reply judge: decides one case, as `judge` was asked to judge it.

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


class ConversationJudgeFn(Protocol):
    """A profile's conversation judge: a whole conversation, or None when not of its kind."""

    def __call__(
        self,
        suite: Suite,
        conversation: Case,
        runs: Sequence[TurnRun],
        /,
        *,
        prompt_mode: bool,
    ) -> Verdict | None:
        """The verdict (`prompt_mode`: the run described tools in the prompt)."""
        ...


@dataclass(frozen=True, slots=True)
class Profile:
    """A judge profile: how it judges one reply and, optionally, a whole conversation.

    Examples:
        >>> Profile("lenient").reads_any_name
        False
    """

    name: str
    """The name users give (`--profile name`)."""
    judge: JudgeFn | None = None
    """The reply judge, also of each turn that states calls; None: toolgrade's own rules."""
    conversation: ConversationJudgeFn | None = None
    """Judges whole conversations of its kind; None: every conversation turn by turn."""
    reads_any_name: bool = False
    """The reply judge judges calls of any name, so extraction must not use the offered
    tools to set aside look-alike calls (BFCL's checker reads them all)."""


def _as_profile(name: str, found: object) -> Profile:
    """An entry as a `Profile` called `name`: a `Profile`, or a reply judge function."""
    if isinstance(found, Profile):
        return found if found.name == name else replace(found, name=name)
    if callable(found):
        reads = getattr(found, "reads_any_name", False) is True
        return Profile(name, cast("JudgeFn", found), reads_any_name=reads)
    kind = type(found).__name__
    raise ConfigError(f"judge profile {name!r} is a {kind}, not a Profile or a function")


class ProfileRegistry(Registry[Profile]):
    """The profile registry: a `Registry` that also reads `CONVERSATION_GROUP`.

    That group is read with `toolgrade.profiles`, after it. Its entries are stored as
    targets and loaded when their profile is found: `find` gives a profile without a
    conversation part of its own the group's entry of its name. A name only in that
    group is registered as a profile judging replies by toolgrade's own rules.
    """

    def __init__(self) -> None:
        super().__init__("judge profile", "toolgrade.profiles", check=_as_profile)
        self._parts: dict[str, str] | None = None
        self._parts_lock = threading.Lock()
        self._added: dict[str, Profile] = {}  # names only the conversation group gave
        self._merged: dict[str, tuple[Profile, Profile]] = {}

    def register(self, name: str, entry: Profile | str, *, replace: bool = True) -> None:
        """Register `entry` as `name` (see `Registry.register`; a profile is named `name`)."""
        entry = entry if isinstance(entry, str) else _as_profile(name, entry)
        super().register(name, entry, replace=replace)
        if replace:
            self._added.pop(name, None)

    def load_plugins(self) -> None:
        """Read `toolgrade.profiles`, then the conversation group, each once."""
        super().load_plugins()
        if self._parts is not None:
            return
        with self._parts_lock:
            if self._parts is not None:
                return
            # Imported here, as `Registry.load_plugins` does: slow, and rarely needed.
            import importlib.metadata

            points = importlib.metadata.entry_points(group=CONVERSATION_GROUP)
            parts = {p.name: p.value for p in points if p.name != DEFAULT_PROFILE}
            for name in parts:
                version = self.version
                added = Profile(name)
                super().register(name, added, replace=False)
                if self.version != version:
                    self._added[name] = added
            self._parts = parts

    def reset_plugins(self) -> None:
        """Forget the plug-ins of both groups; the next miss reads them again."""
        super().reset_plugins()
        with self._parts_lock:
            for name in self._added:
                self.unregister(name)
            self._added.clear()
            self._merged.clear()
            self._parts = None

    def find(self, name: str) -> Profile | None:
        """The profile called `name`, with its conversation part from the group if any.

        Raises:
            ConfigError: the entry, or its conversation part, cannot be imported.
        """
        profile = super().find(name)
        if profile is None or profile.conversation is not None:
            return profile
        self.load_plugins()  # which may have emptied `resolved`
        target = (self._parts or {}).get(name)
        if target is not None:
            merged = self._merged.get(name)
            if merged is None or merged[0] is not profile:
                part = load_target(target)
                if not callable(part):
                    raise ConfigError(f"conversation judge {name!r} ({target}) is not a function")
                whole = replace(profile, conversation=cast("ConversationJudgeFn", part))
                merged = self._merged[name] = (profile, whole)
            profile = merged[1]
        self.resolved[name] = profile
        return profile


PROFILES = ProfileRegistry()
"""Profile name -> `Profile`; `default` is not in it (it is `judge`'s own code)."""
PROFILES.register("bfcl", "toolgrade.bfcl._profile:PROFILE")


def register_profile(
    name: str,
    fn: JudgeFn,
    *,
    reads_any_name: bool = False,
    conversation: ConversationJudgeFn | None = None,
) -> None:
    """Make `judge(..., profile=name)` judge with `fn` (and conversations with `conversation`).

    Args:
        name: the profile name, e.g. `bfcl`.
        fn: the reply judge: a function with `judge`'s signature (without `profile` and
            `defaults`) returning a `Verdict`.
        reads_any_name: the profile judges calls of any name, so extraction must not use
            the offered tools to set aside look-alike calls (BFCL's checker reads them all);
            also set by an attribute `reads_any_name = True` of `fn`.
        conversation: the conversation judge: decides whole conversations of the
            profile's kind, returning None for the others (judged turn by turn with `fn`).

    Raises:
        ConfigError: `name` is `default` (the built-in rules cannot be replaced) or empty.
    """
    if not name or name == DEFAULT_PROFILE:
        raise ConfigError(f"cannot register a judge profile named {name!r}")
    reads = reads_any_name or getattr(fn, "reads_any_name", False) is True
    PROFILES.register(name, Profile(name, fn, conversation, reads))


def profile_reads_any_name(name: str) -> bool:
    """Whether extraction for this profile should keep calls of tools not offered.

    Raises:
        ConfigError: unknown profile.
    """
    return name != DEFAULT_PROFILE and find_profile(name).reads_any_name


def profiles() -> list[str]:
    """The profile names `judge` accepts (built-in and plug-in ones included), sorted."""
    return sorted({DEFAULT_PROFILE, *PROFILES.names()})


def find_profile(name: str) -> Profile:
    """The profile called `name` (not `default`).

    Raises:
        ConfigError: unknown profile (the message lists the known ones), or one that
            cannot be imported.
    """
    found = PROFILES.find(name)
    if found is None:
        raise ConfigError(
            f"unknown judge profile {name!r} (known: {', '.join(profiles())}); a plug-in"
            " adds one through the 'toolgrade.profiles' entry-point group, or call"
            " register_profile (see docs/extending.md)"
        )
    return found
