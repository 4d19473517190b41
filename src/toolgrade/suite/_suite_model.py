"""The suite model: defaults, tools, environments, cases and conversations."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    WrapValidator,
    field_validator,
    model_validator,
)

from toolgrade._core.json_data import JsonObject
from toolgrade.suite._case import Case, read_case
from toolgrade.suite._environments import Environment
from toolgrade.suite._models import Order, Rubric, ToolSpec
from toolgrade.suite._states import resolve_state

__all__ = ["Suite", "SuiteDefaults"]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


def _new_fields(case: Case, *, resolved: bool) -> dict[str, Any]:
    """The fields of a case to leave out of its dump: those it does not use."""
    fields: dict[str, Any] = {}
    if not case.tool_definitions:
        fields["tool_definitions"] = True
    if not case.single:
        if resolved or case.state is None:
            fields["state"] = True
        final = case.checks.final_state
        if final is not None and not final.from_reference:
            fields["checks"] = {"final_state": {"from_reference"}}
    return fields


class SuiteDefaults(BaseModel):
    """Suite-wide defaults that cases may override."""

    model_config = _FROZEN

    system: str | None = None
    """Default system prompt."""
    order: Order = "any"
    """Default call order rule."""
    rubric: Rubric = "partial"
    """Default rubric."""
    trim_strings: bool = True
    """Ignore the surrounding whitespace of string arguments whose schema does not say
    otherwise (`x-toolgrade-trim`, `contentMediaType`; see docs/matching.md)."""
    null_is_absent: bool = False
    """Read a `null` for an optional argument as the argument left out, whatever its
    schema says (where the schema allows null it is read so anyway; a required
    argument's `null` is a value; see docs/matching.md)."""


class Suite(BaseModel):
    """A versioned set of tools and cases."""

    model_config = _FROZEN

    schema_version: Literal[1, 2] = 1
    """Version of the file format: 2 when the suite has conversations or environments."""
    name: str = Field(min_length=1)
    """Suite name, e.g. `coding-agent`."""
    version: str = ""
    """Version of the content; bump it whenever a case changes. Empty when the file
    gives none (or gives `""`): the suite has no version, and says so."""
    description: str = ""
    """What the suite measures."""
    categories: tuple[str, ...] | None = None
    """Allowed categories; None allows any."""
    defaults: SuiteDefaults = SuiteDefaults()
    """Defaults for cases."""
    tools: tuple[ToolSpec, ...] = ()
    """Every tool a case may offer."""
    environments: Mapping[str, Environment] = {}
    """Environments that answer the tool calls of conversations, by name."""
    states: Mapping[str, JsonObject] = {}
    """Named initial states, shared by the conversations that name one (`state`)."""
    cases: tuple[Annotated[Case, WrapValidator(read_case)], ...] = ()
    """The cases, in file order; a case that names a state starts from it, resolved
    when the suite is built (see `Case.written_state`)."""

    _source_dir: Path | None = PrivateAttr(default=None)

    @property
    def source_dir(self) -> Path | None:
        """The folder the suite was loaded from, where its Python environments are found.

        Set by `load_suite` on a file or a folder; None for a built-in or an in-memory
        suite (whose Python environments come from installed modules only).
        """
        return self._source_dir

    def with_source_dir(self, folder: Path) -> Suite:
        """This suite, as loaded from `folder` (see `source_dir`)."""
        suite = self.model_copy()
        suite._source_dir = folder
        return suite

    @field_validator("cases", mode="after")
    @classmethod
    def _start_from_states(cls, cases: tuple[Case, ...], info: ValidationInfo) -> tuple[Case, ...]:
        states = info.data.get("states")
        if states is None:  # the states did not validate: that is the error
            return cases
        return tuple(c if c.single else resolve_state(c, states) for c in cases)

    @model_validator(mode="after")
    def _version_covers_content(self) -> Suite:
        if self.schema_version < 2 and (self.environments or self.states or self.conversations):
            raise ValueError("conversations, environments and states need schema_version 2")
        return self

    @property
    def conversations(self) -> tuple[Case, ...]:
        """The cases written as turns (conversations), in file order."""
        return tuple(c for c in self.cases if not c.single)

    @property
    def single_cases(self) -> tuple[Case, ...]:
        """The cases written as one prompt, in file order."""
        return tuple(c for c in self.cases if c.single)

    def tool(self, name: str) -> ToolSpec | None:
        """Return the suite's tool with this name, or None (case definitions aside)."""
        return next((t for t in self.tools if t.name == name), None)

    def tools_for(self, case: Case) -> tuple[ToolSpec, ...]:
        """The tools offered to a case, in a stable order.

        First the suite's tools the case offers (all, or those `case.tools` names), in
        suite order, each replaced by the case's own definition of the same name; then
        the case's other `tool_definitions`, in their order.

        Examples:
            >>> suite = Suite(name="s", tools=[ToolSpec(name="a"), ToolSpec(name="b")])
            >>> case = Case(id="c", prompt="p", expected=None, tools=["b"],
            ...             tool_definitions=[ToolSpec(name="c"), ToolSpec(name="b")])
            >>> [(t.name, t is case.tool_definitions[1]) for t in suite.tools_for(case)]
            [('b', True), ('c', False)]
        """
        if case.tools is None:
            offered = self.tools
        else:
            wanted = set(case.tools)
            offered = tuple(t for t in self.tools if t.name in wanted)
        if not case.tool_definitions:
            return offered
        own = {t.name: t for t in case.tool_definitions}
        replaced = tuple(own.pop(t.name, t) for t in offered)
        return replaced + tuple(t for t in case.tool_definitions if t.name in own)

    def tools_for_turn(self, conversation: Case, turn: int) -> tuple[ToolSpec, ...]:
        """The tools offered in one turn (from 0) of a conversation.

        `tools_for`, less the tools later turns add, plus the suite's tools this and
        earlier turns add.
        """
        later = {n for t in conversation.turns[turn + 1 :] for n in t.add_tools}
        added = [n for t in conversation.turns[: turn + 1] for n in t.add_tools]
        offered = [
            t for t in self.tools_for(conversation) if t.name not in later or t.name in added
        ]
        have = {t.name for t in offered}
        for name in added:
            tool = self.tool(name)
            if tool is not None and name not in have:
                offered.append(tool)
                have.add(name)
        return tuple(offered)

    @property
    def content_hash(self) -> str:
        """A stable hash of the normalised suite: `sha256:` + 64 hex digits.

        Named states are hashed resolved, as each conversation starts from them: a suite
        written with `states` hashes as the same suite written with every conversation's
        whole `initial_state` (and a changed named state changes the hash).
        """
        canonical = json.dumps(
            self._dump(exclude_none=False, resolved=True),
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
        )
        return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def _dump(self, *, exclude_none: bool, resolved: bool = False) -> JsonObject:
        # A field added to the format dumps only when used (a case without tool
        # definitions, a conversation without a named state, a final_state check not
        # from the reference), so that the hashes of existing suites stay the same.
        # Likewise a suite that keeps the default string trimming and reading of null.
        exclude: dict[str, Any] = {}
        per_case = {i: _new_fields(c, resolved=resolved) for i, c in enumerate(self.cases)}
        if any(per_case.values()):
            exclude["cases"] = {i: fields for i, fields in per_case.items() if fields}
        unused = {"trim_strings"} if self.defaults.trim_strings else set()
        if not self.defaults.null_is_absent:
            unused.add("null_is_absent")
        if unused:
            exclude["defaults"] = unused
        if not self.version:  # an unversioned suite is written without one
            exclude["version"] = True
        if not self.environments:  # a version 1 suite hashes as before they existed
            exclude["environments"] = True
        if resolved or not self.states:
            exclude["states"] = True
        data: JsonObject = self.model_dump(
            mode="json", exclude_none=exclude_none, exclude=exclude or None, by_alias=True
        )
        if not resolved:  # a conversation naming a state is written with its changes only
            cases = data.get("cases")
            for i, case in enumerate(self.cases):
                if not case.single and case.state is not None:
                    entry = cases[i] if isinstance(cases, list) else None
                    assert isinstance(entry, dict)
                    entry["initial_state"] = copy.deepcopy(case.written_state)
        return data

    def to_dict(self) -> JsonObject:
        """The suite in the file format: `load_suite` reads it back to an equal suite.

        Examples:
            >>> Suite(name="demo").to_dict()["schema_version"]
            1
        """
        return self._dump(exclude_none=True)
