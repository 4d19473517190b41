"""Semantic rules of a turn's expected outcome (`expect`, `missing`), for `suite validate`.

They run on the parsed JSON of a case of one prompt or of one turn of a conversation,
after the structural schema (which refuses an unknown `expect` value), and skip what the
schema already rejects.
"""

from __future__ import annotations

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.suite._file_rules import Checker, Offer, call_items
from toolgrade.suite._outcome import OUTCOMES

__all__ = ["check_outcome"]

_Where = tuple[str, str, str | None]


def check_outcome(chk: Checker, where: _Where, holder: JsonObject, *, offer: Offer) -> None:
    """Check the `expect` and `missing` of a case of one prompt or of a turn.

    `call` needs an expected call (or `any_call`); `clarify`, `refuse` and `answer` need
    no call (`expected` null, `[]` or absent, no alternative with calls, no `any_call`);
    `missing` goes with `clarify` only, and each name is a parameter of a tool offered
    there (the case's, or the turn's in a conversation).
    """
    expect = holder.get("expect")
    missing = holder.get("missing")
    if expect is None and missing is None:
        return
    file, path, case_id = where
    if expect is not None and expect not in OUTCOMES:
        return  # the schema says so
    states_call = bool(call_items(holder.get("expected"))) or holder.get("any_call") is True
    alternatives = holder.get("alternatives")
    listed = alternatives if isinstance(alternatives, list) else []
    alternative_call = any(call_items(a) for a in listed)
    if expect == "call" and not states_call:
        message = "expect is call, but no call is expected (give expected calls or any_call)"
        chk.add(file, f"{path}.expect", message, case_id=case_id)
    elif expect in ("clarify", "refuse", "answer") and (states_call or alternative_call):
        message = f"expect is {expect}, but a call is expected (expected must be null or [])"
        chk.add(file, f"{path}.expect", message, case_id=case_id)
    if missing is None:
        return
    if expect != "clarify":
        said = f"expect is {expect}" if expect is not None else "no expect is given"
        message = f"missing is given, but {said}: missing goes with clarify only"
        chk.add(file, f"{path}.missing", message, case_id=case_id)
        return
    if isinstance(missing, list):
        _check_missing(chk, where, missing, offer=offer)


def _check_missing(chk: Checker, where: _Where, missing: list[JsonValue], *, offer: Offer) -> None:
    """Each missing name is a parameter of a tool offered (the one tool, when only one is)."""
    file, path, case_id = where
    parameters = _offered_parameters(chk, offer)
    for i, name in enumerate(missing):
        if not isinstance(name, str) or any(name in p for p in parameters.values()):
            continue
        if not parameters:
            message = f"missing names '{name}', but {offer.who} offers no tool"
        elif len(parameters) == 1:
            tool = next(iter(parameters))
            message = f"missing names '{name}', which is not a parameter of '{tool}'"
            message += f", the tool {offer.who} offers"
        else:
            tools = ", ".join(parameters)
            message = f"missing names '{name}', not a parameter of any tool {offer.who} offers"
            message += f" (tools: {tools})"
        chk.add(file, f"{path}.missing[{i}]", message, case_id=case_id)


def _offered_parameters(chk: Checker, offer: Offer) -> dict[str, set[str]]:
    """The parameter names of each tool offered, by tool name, in the order offered."""
    names = list(chk.tools) if offer.names is None else offer.names
    found: dict[str, set[str]] = {}
    for name in [*names, *(n for n in offer.own if n not in names)]:
        definition = offer.own.get(name) or chk.tools.get(name)
        if definition is None:
            continue  # an undefined tool is reported on its own
        properties = definition.parameters.get("properties")
        found[name] = set(properties) if isinstance(properties, dict) else set()
    return found
