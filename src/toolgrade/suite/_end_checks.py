"""What a conversation checks at the end: the check names, the trajectory modes, the checks.

`Checks` holds each end check of a conversation (all optional): the state at the end
(`final_state`, written out or the reference's), paths that must not change, the whole
trajectory against a reference list, forbidden calls, a call budget, and which of them
decide (`success`). docs/conversations.md describes each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from toolgrade._core.json_data import JsonObject
from toolgrade.suite._models import CallList

__all__ = [
    "CHECK_NAMES",
    "CallPattern",
    "CheckName",
    "Checks",
    "FinalStateCheck",
    "TrajectoryCheck",
    "TrajectoryMode",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")

TrajectoryMode = Literal["exact", "in_order", "unordered", "subset", "superset"]
"""How the calls of a whole conversation are compared with a reference list:

- `exact`: the same calls in the same order, nothing else;
- `in_order`: every reference call, in this order, other calls allowed between;
- `unordered`: the same calls in any order, nothing else;
- `subset`: no call outside the reference (some may be left out);
- `superset`: every reference call made (others allowed), in any order.
"""

CheckName = Literal["turns", "final_state", "unchanged", "trajectory", "forbidden", "max_calls"]
"""The checks a conversation can have; `turns` is what the turns themselves state."""

CHECK_NAMES: tuple[CheckName, ...] = get_args(CheckName)
"""Every check, in the order they are reported."""


class CallPattern(BaseModel):
    """A call pattern: the tool's name and matchers on some of its arguments (a subset)."""

    model_config = _FROZEN

    name: str = Field(min_length=1)
    """The tool."""
    arguments: JsonObject = {}
    """Matchers (or plain values) on the arguments named; others are not looked at."""

    @model_validator(mode="before")
    @classmethod
    def _accept_tool_key(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "tool" in data and "name" not in data:
            return {("name" if k == "tool" else k): v for k, v in data.items()}
        return data


class FinalStateCheck(BaseModel):
    """The environment's state at the end, compared with `state` (matchers allowed).

    With `from_reference`, the expected state is the one the conversation's reference
    leaves, replayed through its environment (once per conversation and run) instead
    of a copy written in the suite.
    """

    model_config = _FROZEN

    state: JsonObject | None = None
    """The expected state (None with `from_reference`)."""
    from_reference: bool = False
    """True: expect the state the reference leaves (then `state` is not given)."""
    exact: bool = False
    """True: the whole state must equal it; False: only what it mentions is checked."""

    @model_validator(mode="after")
    def _one_source(self) -> FinalStateCheck:
        if (self.state is None) == (not self.from_reference):
            raise ValueError(
                "give the expected state as 'state', or 'from_reference': true, not both"
            )
        return self


class TrajectoryCheck(BaseModel):
    """The calls of the whole conversation against a reference list."""

    model_config = _FROZEN

    calls: CallList
    """The reference calls (matchers allowed)."""
    mode: TrajectoryMode = "in_order"
    """How they are compared (see `TrajectoryMode`)."""


class Checks(BaseModel):
    """What is checked at the end of a conversation; each check is optional."""

    model_config = _FROZEN

    final_state: FinalStateCheck | None = None
    """Expected state at the end."""
    unchanged: tuple[str, ...] = ()
    """State paths (JSON Pointers, e.g. `/files/README.md`) that must not change."""
    trajectory: TrajectoryCheck | None = None
    """The whole conversation's calls against a reference."""
    forbidden: tuple[CallPattern, ...] = ()
    """Calls that fail the conversation whenever made."""
    max_calls: int | None = Field(default=None, ge=0)
    """At most this many calls in the whole conversation."""
    success: tuple[CheckName, ...] | None = None
    """Which checks decide pass or fail; None: every check given (and `turns`)."""
