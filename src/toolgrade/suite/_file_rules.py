"""Semantic rules of suite files that a JSON Schema cannot express (`suite validate`).

They run on the parsed JSON of one file or of every file of a directory together (so
that a case may call a tool defined in a sibling file), and defensively skip anything
the structural schema check already rejects, so that every problem is found in one pass.
`_conversation_rules` builds on this module for environments and conversations.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from referencing.exceptions import Unresolvable

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.match import matcher_problems
from toolgrade.suite._schema_rules import (
    argument_path,
    arguments_validator,
    fast_arguments_validator,
    schema_error,
    through_matcher,
)

__all__ = [
    "Checker",
    "Offer",
    "Problem",
    "SourceFile",
    "ToolDef",
    "call_items",
    "case_offer",
    "check_arguments",
    "check_call",
    "check_case",
    "check_expected",
    "check_identity",
    "check_tools",
    "items_of",
]

# Errors of these keywords judge a whole value from its parts: one matcher inside makes
# their verdict meaningless, so they are skipped when the value holds a matcher.


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One parsed suite file."""

    name: str
    """How to name the file in messages."""
    data: JsonObject
    """Its parsed JSON."""
    text: str = ""
    """Its text (to find the line of a problem); empty when unknown."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of a suite file."""

    file: str
    """The file's name."""
    path: str
    """The JSON path of the value at fault, e.g. `$.cases[2].expected`."""
    message: str
    """What is wrong."""
    case_id: str | None = None
    """The id of the case it is in, when it is in one."""

    def render(self, line: int | None = None) -> str:
        """`file:LINE: $.json.path (case ID): message` (no `:LINE` when unknown)."""
        where = f"{self.file}:{line}: {self.path}" if line else f"{self.file}: {self.path}"
        if self.case_id:
            where += f" (case {self.case_id})"
        return f"{where}: {self.message}"


@dataclass(slots=True)
class ToolDef:
    file: str
    path: str
    canonical: str
    parameters: JsonObject
    parameters_key: str
    """The parameters as canonical JSON: the cache key of their validators."""


@dataclass(slots=True)
class Checker:
    files: Sequence[SourceFile]
    problems: list[Problem] = field(default_factory=list)
    tools: dict[str, ToolDef] = field(default_factory=dict)
    case_ids: dict[str, tuple[str, str]] = field(default_factory=dict)
    environments: dict[str, tuple[str, str, JsonValue]] = field(default_factory=dict)
    states: dict[str, tuple[str, str, JsonValue]] = field(default_factory=dict)

    def add(self, file: str, path: str, message: str, *, case_id: str | None = None) -> None:
        self.problems.append(Problem(file, path, message, case_id))


def items_of(data: JsonObject, key: str) -> Iterator[tuple[int, JsonObject]]:
    values = data.get(key)
    if isinstance(values, list):
        for i, value in enumerate(values):
            if isinstance(value, dict):
                yield i, value


def _flat_tool(raw: JsonObject) -> tuple[str, JsonObject, JsonObject, str] | None:
    """A tool's name, canonical flat form, parameters and JSON path suffix of those."""
    function = raw.get("function")
    flat, prefix = (function, ".function") if isinstance(function, dict) else (raw, "")
    name = flat.get("name")
    if not isinstance(name, str):
        return None
    params = flat.get("parameters")
    if not isinstance(params, dict):
        params = {"type": "object", "properties": {}}
    canonical: JsonObject = {
        "name": name,
        "description": flat.get("description", ""),
        "parameters": params,
    }
    return name, canonical, params, f"{prefix}.parameters"


def _tool_def(
    chk: Checker, where: tuple[str, str, str | None], raw: JsonObject
) -> tuple[str, ToolDef] | None:
    """A tool definition's name and checked definition (its schema problems reported)."""
    file, path, case_id = where
    found = _flat_tool(raw)
    if found is None:
        return None
    name, flat, params, params_at = found
    key = json.dumps(params, sort_keys=True)
    error = schema_error(key)
    if error is not None:
        message = f"tool '{name}': not a valid JSON Schema: {error[1]}"
        chk.add(file, path + params_at + error[0], message, case_id=case_id)
    canonical = json.dumps(flat, sort_keys=True)
    return name, ToolDef(file, path, canonical, params, key)


def check_tools(chk: Checker, src: SourceFile) -> None:
    for i, raw in items_of(src.data, "tools"):
        path = f"$.tools[{i}]"
        found = _tool_def(chk, (src.name, path, None), raw)
        if found is None:
            continue
        name, definition = found
        first = chk.tools.get(name)
        if first is None:
            chk.tools[name] = definition
        elif first.file == src.name:
            chk.add(src.name, path, f"duplicate tool '{name}' (first defined at {first.path})")
        elif first.canonical != definition.canonical:
            chk.add(
                src.name,
                path,
                f"tool '{name}' conflicts with its definition in {first.file} at {first.path}",
            )


def _case_tools(
    chk: Checker, file: str, case: JsonObject, *, path: str, case_id: str | None
) -> dict[str, ToolDef]:
    """A case's own tool definitions by name (checked like the suite's tools)."""
    own: dict[str, ToolDef] = {}
    for i, raw in items_of(case, "tool_definitions"):
        at = f"{path}.tool_definitions[{i}]"
        found = _tool_def(chk, (file, at, case_id), raw)
        if found is None:
            continue
        name, definition = found
        first = own.setdefault(name, definition)
        if first is not definition:
            message = f"duplicate tool '{name}' (first defined at {first.path})"
            chk.add(file, at, message, case_id=case_id)
    return own


def check_arguments(
    chk: Checker,
    where: tuple[str, str, str | None],
    tool: str,
    *,
    definition: ToolDef,
    arguments: JsonObject,
) -> None:
    file, path, case_id = where
    for problem in matcher_problems(arguments, path):
        at, sep, message = problem.partition(": ")
        chk.add(file, at if sep else path, message if sep else problem, case_id=case_id)
    required = definition.parameters.get("required")
    for key, value in arguments.items():
        if value == {"$absent": True} and isinstance(required, list) and key in required:
            chk.add(
                file,
                f"{path}.{key}",
                f"'{key}' is required by tool '{tool}' and cannot be expected absent",
                case_id=case_id,
            )
    key = definition.parameters_key
    fast = fast_arguments_validator(key)
    if fast is not None and fast.is_valid(arguments):
        return
    validator = arguments_validator(key)
    if validator is None:
        return
    try:
        errors = list(validator.iter_errors(arguments))
    except Unresolvable as exc:
        message = f"cannot check the arguments of '{tool}': unresolvable reference {exc.ref!r}"
        chk.add(file, path, message + " (remote references are never fetched)", case_id=case_id)
        return
    for error in errors:
        if not through_matcher(arguments, error):
            chk.add(
                file,
                argument_path(path, error),
                f"violates the parameters of '{tool}': {error.message}",
                case_id=case_id,
            )


def call_items(value: JsonValue) -> list[tuple[str, JsonValue]]:
    """The calls of an `expected` value (one call, a list, or null), with their suffixes."""
    if isinstance(value, dict):
        return [("", value)]
    if isinstance(value, list):
        return [(f"[{i}]", v) for i, v in enumerate(value)]
    return []


@dataclass(frozen=True, slots=True)
class Offer:
    """What a case offers: the suite tools it names (None: all) and its own tools."""

    names: list[str] | None
    own: dict[str, ToolDef]
    who: str = "the case"  # for messages: "the case", "turn 2"


def check_call(
    chk: Checker, where: tuple[str, str, str | None], call: JsonValue, *, offer: Offer
) -> None:
    file, path, case_id = where
    if not isinstance(call, dict):
        return
    name = call.get("tool", call.get("name"))
    if not isinstance(name, str):
        return
    # The case's own definition is the one the model sees, so it is the one to check.
    definition = offer.own.get(name) or chk.tools.get(name)
    if definition is None:
        chk.add(file, path, f"expected call to undefined tool '{name}'", case_id=case_id)
        return
    if offer.names is not None and name not in offer.names and name not in offer.own:
        offered = [*offer.names, *(n for n in offer.own if n not in offer.names)]
        chk.add(
            file,
            path,
            f"expected call to '{name}', which {offer.who} does not offer "
            f"(tools: {', '.join(offered) or 'none'})",
            case_id=case_id,
        )
    arguments = call.get("arguments", call.get("args", {}))
    if isinstance(arguments, dict):
        key = "args" if "args" in call and "arguments" not in call else "arguments"
        where = (file, f"{path}.{key}", case_id)
        check_arguments(chk, where, name, definition=definition, arguments=arguments)


def check_case(
    chk: Checker, src: SourceFile, case: JsonObject, *, index: int
) -> tuple[tuple[str, str, str | None], Offer]:
    """Check a case of one prompt; return where it is and what it offers."""
    path = f"$.cases[{index}]"
    where = (src.name, path, check_identity(chk, src, case, path=path, category="simple"))
    offer = case_offer(chk, case, where=where)
    check_expected(chk, where, case, offer=offer)
    return where, offer


def check_expected(
    chk: Checker, where: tuple[str, str, str | None], holder: JsonObject, *, offer: Offer
) -> None:
    """Check the calls of the `expected` and `alternatives` of a case or a turn."""
    file, path, case_id = where
    for suffix, call in call_items(holder.get("expected")):
        check_call(chk, (file, f"{path}.expected{suffix}", case_id), call, offer=offer)
    alternatives = holder.get("alternatives")
    for i, alternative in enumerate(alternatives if isinstance(alternatives, list) else []):
        for suffix, call in call_items(alternative):
            where = (file, f"{path}.alternatives[{i}]{suffix}", case_id)
            check_call(chk, where, call, offer=offer)


def check_identity(
    chk: Checker, src: SourceFile, case: JsonObject, *, path: str, category: str
) -> str | None:
    """Check a case's id (unique across files) and category; return the id when usable."""
    raw_id = case.get("id")
    case_id = raw_id if isinstance(raw_id, str) else None
    if case_id is not None:
        first = chk.case_ids.get(case_id)
        if first is None:
            chk.case_ids[case_id] = (src.name, path)
        else:
            first_at = first[1] if first[0] == src.name else f"{first[1]} of {first[0]}"
            message = f"duplicate case id '{case_id}' (first at {first_at})"
            chk.add(src.name, f"{path}.id", message, case_id=case_id)
    categories = src.data.get("categories")
    given = case.get("category", category)
    if isinstance(categories, list) and isinstance(given, str) and given not in categories:
        chk.add(
            src.name,
            f"{path}.category",
            f"unknown category '{given}' (the suite "
            f"declares: {', '.join(str(c) for c in categories)})",
            case_id=case_id,
        )
    return case_id


def case_offer(chk: Checker, case: JsonObject, *, where: tuple[str, str, str | None]) -> Offer:
    """What a case offers: its own tool definitions and the suite tools it names (checked)."""
    file, path, case_id = where
    own = _case_tools(chk, file, case, path=path, case_id=case_id)
    tools = case.get("tools")
    if not isinstance(tools, list):
        return Offer(None, own)
    names = [t for t in tools if isinstance(t, str)]
    for i, name in enumerate(names):
        if name not in chk.tools and name not in own:
            message = f"offers undefined tool '{name}'"
            chk.add(file, f"{path}.tools[{i}]", message, case_id=case_id)
    return Offer(names, own)
