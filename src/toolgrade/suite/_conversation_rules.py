"""Semantic rules of environments and conversations (suite `schema_version` 2).

They build on `_file_rules`' checker (its tools, case ids and problem list), so a
conversation's calls are checked exactly as a single case's are: the tool is defined and
offered, the arguments satisfy its parameters (matchers aside), the matchers are well
formed. What is offered changes from turn to turn (`add_tools`), so each turn's calls are
checked against that turn's tools. Nothing here imports or runs a Python environment.
"""

from __future__ import annotations

import json
import re

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.match import is_matcher, matcher_problems
from toolgrade.suite._end_checks import CHECK_NAMES
from toolgrade.suite._file_rules import (
    Checker,
    Offer,
    SourceFile,
    ToolDef,
    call_items,
    case_offer,
    check_arguments,
    check_call,
    check_expected,
    check_identity,
    items_of,
)
from toolgrade.suite._outcome_rules import check_outcome

__all__ = ["check_conversation", "check_environments", "check_states", "is_json_pointer"]

_Where = tuple[str, str, str | None]
"""A problem's file, JSON path and case id."""

_POINTER = re.compile(r"(/([^~/]|~[01])*)*")
_CLASS = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


def is_json_pointer(text: str) -> bool:
    """True when `text` is a JSON Pointer (RFC 6901): `""`, or `/`-separated tokens.

    Examples:
        >>> [is_json_pointer(p) for p in ("", "/files/a~1b", "files", "/a~2")]
        [True, True, False, False]
    """
    return _POINTER.fullmatch(text) is not None


def check_environments(chk: Checker, src: SourceFile) -> None:
    """Check a file's `environments`, and record them for the conversations.

    An environment defined in two files of a directory must be defined identically;
    a python environment's `class` must name a module and a class; a scripted rule
    must answer a tool some part of the suite defines, with well-formed matchers.
    """
    environments = src.data.get("environments")
    if not isinstance(environments, dict):
        return
    for name, env in environments.items():
        path = f"$.environments.{name}"
        _record(chk, chk.environments, src, (name, path, env), "environment")
        if not isinstance(env, dict):
            continue
        if env.get("kind") == "python":
            _check_class(chk, (src.name, f"{path}.class", None), env.get("class"))
        elif env.get("kind") == "scripted":
            for i, rule in items_of(env, "rules"):
                _check_rule(chk, (src.name, f"{path}.rules[{i}]", None), rule)


def check_states(chk: Checker, src: SourceFile) -> None:
    """Record a file's named `states` for the conversations that name one.

    A state defined in two files of a directory must be defined identically.
    """
    states = src.data.get("states")
    if not isinstance(states, dict):
        return
    for name, state in states.items():
        _record(chk, chk.states, src, (name, f"$.states.{name}", state), "state")


def _record(
    chk: Checker,
    table: dict[str, tuple[str, str, JsonValue]],
    src: SourceFile,
    entry: tuple[str, str, JsonValue],
    kind: str,
) -> None:
    """Record a named entry; one defined differently in another file is a problem."""
    name, path, value = entry
    first = table.setdefault(name, (src.name, path, value))
    if first[0] != src.name and first[2] != value:
        message = f"{kind} '{name}' conflicts with its definition in {first[0]} at {first[1]}"
        chk.add(src.name, path, message)


def _check_class(chk: Checker, where: _Where, value: JsonValue) -> None:
    if not isinstance(value, str) or _CLASS.fullmatch(value) is None:
        return  # the schema says so
    module = value.partition(":")[0]
    if not all(part.isidentifier() for part in module.split(".")):
        chk.add(where[0], where[1], f"'{module}' is not a module name (dotted identifiers)")


def _check_rule(chk: Checker, where: _Where, rule: JsonObject) -> None:
    file, path, _ = where
    when = rule.get("when")
    if not isinstance(when, dict) or not isinstance(when.get("tool"), str):
        return
    tool = str(when["tool"])
    arguments = when.get("arguments", {})
    definition = chk.tools.get(tool)
    if definition is None and tool not in _defined_anywhere(chk):
        chk.add(file, f"{path}.when.tool", f"rule for undefined tool '{tool}'")
    if not isinstance(arguments, dict):
        return
    at = (file, f"{path}.when.arguments", None)
    if definition is not None:
        check_arguments(chk, at, tool, definition=_pattern(definition), arguments=arguments)
    else:
        _add_matcher_problems(chk, at, arguments)


def _pattern(definition: ToolDef) -> ToolDef:
    """The tool's definition for checking a pattern: it may leave required arguments out."""
    params = {k: v for k, v in definition.parameters.items() if k != "required"}
    key = json.dumps(params, sort_keys=True)
    return ToolDef(definition.file, definition.path, definition.canonical, params, key)


def _defined_anywhere(chk: Checker) -> set[str]:
    """Every tool the suite or any of its cases defines."""
    names = set(chk.tools)
    for src in chk.files:
        for _, case in items_of(src.data, "cases"):
            for _, tool in items_of(case, "tool_definitions"):
                flat = tool.get("function", tool)
                if isinstance(flat, dict) and isinstance(flat.get("name"), str):
                    names.add(str(flat["name"]))
    return names


def _add_matcher_problems(chk: Checker, where: _Where, value: JsonValue) -> None:
    file, path, case_id = where
    for problem in matcher_problems(value, path):
        at, sep, message = problem.partition(": ")
        chk.add(file, at if sep else path, message if sep else problem, case_id=case_id)


def check_conversation(chk: Checker, src: SourceFile, case: JsonObject, *, index: int) -> None:
    """Check one conversation (a case with `turns`) of a file.

    Checks, besides what single cases get (id, category, own tools, offered tools):
    the environment exists (and a python one gets keyword-argument state); each turn's
    `add_tools` names suite tools, its calls name tools offered in that turn with valid
    arguments, its `reply` is a string or a well-formed matcher; the end checks (matchers,
    JSON Pointers, trajectory calls, forbidden patterns, `success` naming checks the
    conversation has); `fail` names an offered tool; `reference` has one entry per turn
    whose calls are offered in that turn; `expect_error` is set only on a turn that
    expects a call, `allow_other_calls` only on one whose every expectation holds a call;
    each turn's expected outcome (`_outcome_rules`).
    """
    path = f"$.cases[{index}]"
    where = (src.name, path, check_identity(chk, src, case, path=path, category="multi_turn"))
    base = case_offer(chk, case, where=where)
    _check_state(chk, where, case)
    _check_environment(chk, where, case)
    turns = case.get("turns")
    if (
        not isinstance(turns, list)
        or not turns
        or not all(isinstance(t, str | dict) for t in turns)
    ):
        return  # the schema says so; what each turn offers is unknown
    offers = [_turn_offer(chk, where, turns, t, base=base) for t in range(len(turns))]
    whole = Offer(offers[-1].names, offers[-1].own, "the conversation")
    for t, turn in enumerate(turns):
        if isinstance(turn, dict):
            at = (where[0], f"{path}.turns[{t}]", where[2])
            check_expected(chk, at, turn, offer=offers[t])
            check_outcome(chk, at, turn, offer=offers[t])
            if turn.get("expect_error") is True and not _states_a_call(turn):
                message = "expect_error is set, but the turn expects no call"
                chk.add(at[0], f"{at[1]}.expect_error", message, case_id=at[2])
            if turn.get("allow_other_calls") is True:
                _check_other_calls(chk, (at[0], f"{at[1]}.allow_other_calls", at[2]), turn)
            if turn.get("reply") is not None:
                _check_reply(chk, (at[0], f"{at[1]}.reply", at[2]), turn["reply"])
    checks = case.get("checks")
    if isinstance(checks, dict):
        _check_end(chk, where, checks, offer=whole, has=_checks_given(turns, checks))
    for i, fail in items_of(case, "fail"):
        tool = fail.get("tool")
        if isinstance(tool, str) and not _offers(chk, whole, tool):
            message = f"fail names '{tool}', which the conversation does not offer"
            chk.add(where[0], f"{path}.fail[{i}].tool", message, case_id=where[2])
    _check_reference(chk, where, case.get("reference"), offers=offers)
    final = checks.get("final_state") if isinstance(checks, dict) else None
    derived = isinstance(final, dict) and final.get("from_reference") is True
    if derived and not isinstance(case.get("reference"), list):
        message = "final_state from_reference needs a reference: the state it leaves is expected"
        chk.add(where[0], f"{path}.checks.final_state.from_reference", message, case_id=where[2])


def _turn_offer(
    chk: Checker, where: _Where, turns: list[JsonValue], turn: int, *, base: Offer
) -> Offer:
    """What one turn offers: as `Suite.tools_for_turn` (later `add_tools` withheld)."""
    later = {n for t in turns[turn + 1 :] for n in _add_tools(t)}
    added = [n for t in turns[: turn + 1] for n in _add_tools(t)]
    current = _add_tools(turns[turn])
    for i, name in enumerate(current):
        if name not in chk.tools:
            message = f"add_tools names '{name}', which the suite does not define"
            chk.add(where[0], f"{where[1]}.turns[{turn}].add_tools[{i}]", message, case_id=where[2])
    names = list(chk.tools) if base.names is None else base.names
    kept = [n for n in names if n not in later or n in added]
    kept += [n for n in dict.fromkeys(added) if n in chk.tools and n not in kept]
    own = {n: d for n, d in base.own.items() if n not in later or n in added}
    return Offer(kept, own, f"turn {turn + 1}")


def _states_a_call(turn: JsonObject) -> bool:
    """Whether a turn's `expected` or one of its `alternatives` holds a call."""
    alternatives = turn.get("alternatives")
    lists = [turn.get("expected"), *(alternatives if isinstance(alternatives, list) else [])]
    return any(call_items(calls) for calls in lists)


def _check_other_calls(chk: Checker, where: _Where, turn: JsonObject) -> None:
    """A turn that allows other calls must expect a call in each of its expectations.

    Other calls allowed beside an expectation of no call would let any calls pass.
    """
    file, path, case_id = where
    if not _states_a_call(turn):
        chk.add(
            file, path, "allow_other_calls is set, but the turn expects no call", case_id=case_id
        )
        return
    alternatives = turn.get("alternatives")
    named = [("expected", turn.get("expected"))] + [
        (f"alternatives[{k}]", calls)
        for k, calls in enumerate(alternatives if isinstance(alternatives, list) else [])
    ]
    for name, calls in named:
        if not call_items(calls):
            message = f"allow_other_calls is set, but {name} is no call: any calls would pass"
            chk.add(file, path, message, case_id=case_id)


def _add_tools(turn: JsonValue) -> list[str]:
    names = turn.get("add_tools") if isinstance(turn, dict) else None
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def _offers(chk: Checker, offer: Offer, tool: str) -> bool:
    if tool in offer.own:
        return True
    return tool in chk.tools and (offer.names is None or tool in offer.names)


def _check_environment(chk: Checker, where: _Where, case: JsonObject) -> None:
    file, path, case_id = where
    name = case.get("environment")
    if not isinstance(name, str):
        return
    found = chk.environments.get(name)
    if found is None:
        known = ", ".join(chk.environments) or "none"
        message = f"environment '{name}' is not defined (environments: {known})"
        chk.add(file, f"{path}.environment", message, case_id=case_id)
        return
    if not isinstance(found[2], dict) or found[2].get("kind") != "python":
        return
    why = "a python environment's class is built with the initial_state as keyword arguments"
    patch = case.get("initial_state")
    patch = patch if isinstance(patch, dict) else {}
    name = case.get("state")
    named = chk.states.get(name) if isinstance(name, str) else None
    for key in patch:
        removed = named is not None and patch[key] is None  # a change removing the key
        if not removed and not key.isidentifier():
            message = f"'{key}' is not a Python identifier: {why}"
            chk.add(file, f"{path}.initial_state.{key}", message, case_id=case_id)
    state = named[2] if named is not None else None
    for key in state if isinstance(state, dict) else ():
        if key not in patch and not key.isidentifier():
            message = f"state '{name}' has the key '{key}', not a Python identifier: {why}"
            chk.add(file, f"{path}.state", message, case_id=case_id)


def _check_state(chk: Checker, where: _Where, case: JsonObject) -> None:
    """A named `state` must be one of the suite's `states`."""
    file, path, case_id = where
    name = case.get("state")
    if isinstance(name, str) and name not in chk.states:
        known = ", ".join(sorted(chk.states)) or "none"
        message = f"state '{name}' is not defined (states: {known})"
        chk.add(file, f"{path}.state", message, case_id=case_id)


def _check_reply(chk: Checker, where: _Where, reply: JsonValue) -> None:
    if isinstance(reply, str):
        return
    if is_matcher(reply):
        _add_matcher_problems(chk, where, reply)
        return
    message = 'a reply is a string or a matcher such as {"$contains": "3 files"}'
    chk.add(where[0], where[1], message, case_id=where[2])


def _checks_given(turns: list[JsonValue], checks: JsonObject) -> list[str]:
    """The checks a conversation has (as `Case.deciding` without `success`)."""
    given = {
        "turns": any(
            isinstance(t, dict) and ("expected" in t or t.get("reply") is not None) for t in turns
        ),
        "final_state": checks.get("final_state") is not None,
        "unchanged": bool(checks.get("unchanged")),
        "trajectory": checks.get("trajectory") is not None,
        "forbidden": bool(checks.get("forbidden")),
        "max_calls": checks.get("max_calls") is not None,
    }
    return [name for name in CHECK_NAMES if given[name]]


def _check_end(
    chk: Checker, where: _Where, checks: JsonObject, *, offer: Offer, has: list[str]
) -> None:
    file, path, case_id = where
    path += ".checks"
    final = checks.get("final_state")
    if isinstance(final, dict) and isinstance(final.get("state"), dict):
        _add_matcher_problems(chk, (file, f"{path}.final_state.state", case_id), final["state"])
    unchanged = checks.get("unchanged")
    for i, pointer in enumerate(unchanged if isinstance(unchanged, list) else []):
        if isinstance(pointer, str) and not is_json_pointer(pointer):
            message = (
                f"'{pointer}' is not a JSON Pointer (RFC 6901): '' or '/'-separated "
                "names, with '~' written '~0' and '/' written '~1'"
            )
            chk.add(file, f"{path}.unchanged[{i}]", message, case_id=case_id)
    trajectory = checks.get("trajectory")
    if isinstance(trajectory, dict):
        for suffix, call in call_items(trajectory.get("calls")):
            at = (file, f"{path}.trajectory.calls{suffix}", case_id)
            check_call(chk, at, call, offer=offer)
    for i, pattern in items_of(checks, "forbidden"):
        _check_pattern(chk, (file, f"{path}.forbidden[{i}]", case_id), pattern, offer=offer)
    success = checks.get("success")
    for i, name in enumerate(success if isinstance(success, list) else []):
        if name in CHECK_NAMES and name not in has:
            message = (
                f"success names '{name}', which the conversation does not check "
                f"(it checks: {', '.join(has) or 'nothing'})"
            )
            chk.add(file, f"{path}.success[{i}]", message, case_id=case_id)


def _check_pattern(chk: Checker, where: _Where, pattern: JsonObject, *, offer: Offer) -> None:
    file, path, case_id = where
    name = pattern.get("name", pattern.get("tool"))
    if not isinstance(name, str):
        return
    definition: ToolDef | None = offer.own.get(name) or chk.tools.get(name)
    arguments = pattern.get("arguments", {})
    if definition is None:
        chk.add(file, path, f"forbidden call to undefined tool '{name}'", case_id=case_id)
    elif isinstance(arguments, dict):
        at = (file, f"{path}.arguments", case_id)
        check_arguments(chk, at, name, definition=_pattern(definition), arguments=arguments)


def _check_reference(
    chk: Checker, where: _Where, reference: JsonValue, *, offers: list[Offer]
) -> None:
    file, path, case_id = where
    if not isinstance(reference, list):
        return
    if len(reference) != len(offers):
        message = f"reference has {len(reference)} entries for {len(offers)} turns (one per turn)"
        chk.add(file, f"{path}.reference", message, case_id=case_id)
    for t, entry in enumerate(reference[: len(offers)]):
        calls = entry.get("calls") if isinstance(entry, dict) else entry
        prefix = f"{path}.reference[{t}]" + (".calls" if isinstance(entry, dict) else "")
        for suffix, call in call_items(calls):
            check_call(chk, (file, prefix + suffix, case_id), call, offer=offers[t])
