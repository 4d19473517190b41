"""BFCL v4 multi-turn entries -> a toolgrade conversation suite.

Each entry becomes one conversation with BFCL's id, answered by the `bfcl` environment
(`toolgrade.bfcl._mt_apis:BfclApis`, built from the entry's `involved_classes`,
`initial_config` and long-context flag). The involved classes' function docs are the
suite's tools (converted as the single-turn importer converts docs); a conversation
offers its classes' functions, in `involved_classes` order, except miss_func's held-out
functions, which its held-out turn adds (`add_tools`) with the message BFCL sends then.
Each turn expects that turn's ground-truth calls, their positional arguments bound to
parameter names by the real BFCL method's signature (in any order, at most 20 steps),
and the same calls are the turn's reference. Ground-truth call text is parsed with
`ast` and literal values only: nothing is evaluated.
"""

from __future__ import annotations

import ast
import inspect
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard, TypeVar

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._core.vocab import ToolCall
from toolgrade.bfcl._data import BfclData, MultiTurnCategory
from toolgrade.bfcl._mt_apis import (
    ENVIRONMENT_CLASS,
    BfclApis,
    bfcl_api_classes,
    is_long_context,
)
from toolgrade.bfcl._tools import tool_from_bfcl
from toolgrade.errors import InputError
from toolgrade.extract import quiet_source
from toolgrade.suite import Case, PythonEnvironment, ReferenceTurn, Suite, ToolSpec, Turn

__all__ = [
    "ADDED_FUNCTIONS_PROMPT",
    "ENVIRONMENT",
    "MAX_STEPS",
    "BfclMultiTurnEntry",
    "bind_ground_truth",
    "build_multi_turn_suite",
    "entry_to_conversation",
    "read_multi_turn_entries",
]

logger = logging.getLogger(__name__)

T = TypeVar("T")

ADDED_FUNCTIONS_PROMPT = "I have updated some more functions you can choose from. What about now?"
"""BFCL's `DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC`: the user message of a
held-out turn, when the withheld functions are offered."""
ENVIRONMENT = "bfcl"
"""The environment name the conversations use."""
MAX_STEPS = 21
"""Replies allowed in one turn: BFCL force-quits a turn once more than its
`MAXIMUM_STEP_LIMIT` (20) steps with calls ran, i.e. after the 21st."""


@dataclass(frozen=True, slots=True)
class BfclMultiTurnEntry:
    """One BFCL multi-turn entry joined with its ground truth."""

    id: str
    """BFCL's id, e.g. `multi_turn_base_0`."""
    turns: tuple[tuple[str, ...], ...]
    """The text of each turn's user messages (a held-out turn has none)."""
    involved_classes: tuple[str, ...]
    """The API classes of the entry, in BFCL's order (their docs are offered in it)."""
    initial_config: JsonObject
    """Per class name, the scenario its `_load_scenario` gets."""
    ground_truth: tuple[tuple[str, ...], ...]
    """Per turn, the ground-truth calls as Python call text (`cd(folder='docs')`)."""
    missed_function: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    """miss_func: turn index -> the functions withheld until that turn."""
    excluded_function: tuple[str, ...] = ()
    """BFCL's `excluded_function` (no BFCL code reads it: kept as a note)."""


def read_multi_turn_entries(
    data: BfclData, category: MultiTurnCategory
) -> list[BfclMultiTurnEntry]:
    """Every entry of a multi-turn category, joined with its ground truth.

    Raises:
        InputError: a file is missing or malformed, or a ground truth is missing.
    """
    name = f"BFCL_v4_{category.value}.json"
    truths = {
        str(r.get("id")): r.get("ground_truth") for r in data.json_lines(f"possible_answer/{name}")
    }
    return [_entry(row, truths, data.location) for row in data.json_lines(name)]


def _entry(row: JsonObject, truths: Mapping[str, JsonValue], location: str) -> BfclMultiTurnEntry:
    entry_id = str(row.get("id"))
    if entry_id not in truths:
        raise InputError(f"no ground truth for {entry_id}", path=location)
    messages = _nested(row.get("question"), dict, entry_id, "question")
    calls = _nested(truths[entry_id], str, entry_id, "ground_truth")
    classes = row.get("involved_classes")
    config = row.get("initial_config", {})
    missed = row.get("missed_function", {})
    excluded = row.get("excluded_function", [])
    if len(messages) != len(calls):
        raise InputError(f"entry {entry_id}: {len(messages)} turns, {len(calls)} ground truths")
    if not _strings(classes) or not classes or not isinstance(config, dict):
        raise InputError(f"entry {entry_id}: malformed involved_classes or initial_config")
    if not isinstance(missed, dict) or not _strings(excluded):
        raise InputError(f"entry {entry_id}: malformed missed_function or excluded_function")
    held_out: dict[int, tuple[str, ...]] = {}
    for key, names in missed.items():
        if not key.isdigit() or int(key) >= len(messages) or not _strings(names):
            raise InputError(f"entry {entry_id}: malformed missed_function")
        held_out[int(key)] = tuple(names)
    texts: list[tuple[str, ...]] = []
    for turn in messages:
        if any(m.get("role") != "user" or not isinstance(m.get("content"), str) for m in turn):
            raise InputError(f"entry {entry_id}: a turn has a message that is not the user's")
        texts.append(tuple(str(m["content"]) for m in turn))
    return BfclMultiTurnEntry(
        entry_id, tuple(texts), tuple(classes), config, calls, held_out, tuple(excluded)
    )


def _strings(value: JsonValue) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _nested(value: JsonValue, kind: type[T], entry_id: str, what: str) -> tuple[tuple[T, ...], ...]:
    """A list of lists of `kind` (turns of messages, or of call texts)."""
    if not isinstance(value, list):
        raise InputError(f"entry {entry_id}: malformed {what}")
    out: list[tuple[T, ...]] = []
    for turn in value:
        if not isinstance(turn, list) or not all(isinstance(v, kind) for v in turn):
            raise InputError(f"entry {entry_id}: malformed {what}")
        out.append(tuple(v for v in turn if isinstance(v, kind)))
    return tuple(out)


def bind_ground_truth(text: str) -> ToolCall:
    """One ground-truth call text as a call with every argument named.

    Positional arguments are bound to parameter names by the BFCL method's signature.

    Raises:
        InputError: the text is not a call of a BFCL method with literal arguments.
        ConfigError: bfcl-eval is not installed.

    Examples:
        >>> bind_ground_truth("sort('report.pdf')")  # doctest: +SKIP
        ToolCall(name='sort', arguments={'file_name': 'report.pdf'})
    """
    try:
        node = ast.parse(quiet_source(text.strip()), mode="eval").body
    except SyntaxError:
        raise InputError(f"ground truth {text!r} is not a call") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise InputError(f"ground truth {text!r} is not a call of a named function")
    name = node.func.id
    bfcl_api_classes()  # ConfigError when bfcl-eval is missing
    method = getattr(BfclApis, name, None) if not name.startswith("_") else None
    if not callable(method):
        raise InputError(f"ground truth {text!r} calls {name!r}, which no BFCL API class has")
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
    except ValueError:
        raise InputError(f"ground truth {text!r} has an argument that is not a literal") from None
    if len(kwargs) != len(node.keywords):
        raise InputError(f"ground truth {text!r} unpacks arguments (**)")
    try:
        bound = inspect.signature(method).bind(None, *args, **kwargs)
    except TypeError as exc:
        raise InputError(f"ground truth {text!r} does not fit {name}: {exc}") from None
    arguments = dict(list(bound.arguments.items())[1:])  # without self
    return ToolCall(name=name, arguments={k: _json(v, text) for k, v in arguments.items()})


def _json(value: object, text: str) -> JsonValue:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, list | tuple):
        return [_json(v, text) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _json(v, text) for k, v in value.items()}
    raise InputError(f"ground truth {text!r} has a value JSON cannot hold: {value!r}")


def entry_to_conversation(
    entry: BfclMultiTurnEntry, category: MultiTurnCategory, docs: Mapping[str, Sequence[ToolSpec]]
) -> Case:
    """One BFCL multi-turn entry as a conversation (see the module docstring).

    Two repairs keep BFCL's ground truth valid against what the conversation offers
    (each said in the conversation's `notes`): a ground-truth argument whose JSON type
    the doc does not allow widens that parameter's type in a conversation-level copy of
    the tool (`close_ticket(ticket_id='ticket_001')` against an integer `ticket_id`); a
    held-out function the ground truth calls before its held-out turn is offered from
    the first turn that calls it (miss_func_49 calls `tail` two turns early).

    Args:
        entry: the entry.
        category: its category.
        docs: per API class, its function docs as tools.

    Raises:
        InputError: the entry is malformed (an empty turn that adds no function, a
            held-out function of no involved class, a ground truth that is not a call).
    """
    specs = {t.name: t for c in entry.involved_classes for t in _docs(docs, c, entry.id)}
    held_out = {n: i for i, names in entry.missed_function.items() for n in names}
    if not set(held_out) <= set(specs):
        raise InputError(f"entry {entry.id}: a missed function is not among its classes' docs")
    calls = [tuple(bind_ground_truth(t) for t in truth) for truth in entry.ground_truth]
    early = _early_offers(held_out, calls)
    notes = [
        f"{n} is offered from turn {i + 1}, where BFCL's ground truth calls it "
        f"(BFCL holds it out until turn {held_out[n] + 1})"
        for n, i in early.items()
    ]
    widened = _widened(specs, [c for turn in calls for c in turn], notes)
    turns: list[Turn] = []
    for index, texts in enumerate(entry.turns):
        if bool(texts) == (index in entry.missed_function):
            raise InputError(
                f"entry {entry.id}: turn {index + 1} must have user messages or add functions"
            )
        added = tuple(n for n, i in {**held_out, **early}.items() if i == index)
        user = "\n\n".join(texts) if texts else ADDED_FUNCTIONS_PROMPT
        turns.append(
            Turn(
                user=user, expected=calls[index], order="any", max_steps=MAX_STEPS, add_tools=added
            )
        )
    if entry.excluded_function:
        notes.append(
            f"BFCL excluded_function (no BFCL code uses it): {', '.join(entry.excluded_function)}"
        )
    return Case(
        id=entry.id,
        category=category.value,
        tags=("bfcl", category.value),
        tools=tuple(n for n in specs if n not in held_out),
        tool_definitions=widened,
        turns=tuple(turns),
        environment=ENVIRONMENT,
        initial_state={
            "involved_classes": list(entry.involved_classes),
            "initial_config": entry.initial_config,
            "long_context": is_long_context(entry.id),
        },
        reference=tuple(ReferenceTurn(calls=c, reply="") for c in calls),
        notes="; ".join(notes) or None,
    )


def _early_offers(
    held_out: Mapping[str, int], calls: Sequence[Sequence[ToolCall]]
) -> dict[str, int]:
    """Held-out functions the ground truth calls before their turn -> the first such turn."""
    early: dict[str, int] = {}
    for index, turn in enumerate(calls):
        for call in turn:
            if index < held_out.get(call.name, index) and call.name not in early:
                early[call.name] = index
    return early


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def _json_type(value: JsonValue) -> str:
    for name, kinds in _JSON_TYPES.items():
        if isinstance(value, kinds) and (name == "boolean" or not isinstance(value, bool)):
            return name
    return "string"  # unreachable for JSON values


def _widened(
    specs: Mapping[str, ToolSpec], calls: Sequence[ToolCall], notes: list[str]
) -> tuple[ToolSpec, ...]:
    """Copies of the tools whose parameter types some ground-truth argument violates."""
    out: dict[str, ToolSpec] = {}
    for call in calls:
        spec = out.get(call.name, specs[call.name])
        props = spec.parameters.get("properties")
        if not isinstance(props, dict):
            continue
        changed = dict(props)
        for key, value in call.arguments.items():
            prop = changed.get(key)
            if not isinstance(prop, dict) or not isinstance(prop.get("type"), str | list):
                continue
            allowed = prop["type"] if isinstance(prop["type"], list) else [prop["type"]]
            actual = _json_type(value)
            if actual in allowed or (actual == "integer" and "number" in allowed):
                continue
            changed[key] = {**prop, "type": [*allowed, actual]}
            notes.append(
                f"{call.name}.{key} also accepts {actual}: BFCL's ground truth passes {value!r}"
            )
        if changed != props:
            parameters = {**spec.parameters, "properties": changed}
            out[call.name] = spec.model_copy(update={"parameters": parameters})
    return tuple(out.values())


def _docs(docs: Mapping[str, Sequence[ToolSpec]], name: str, entry_id: str) -> Sequence[ToolSpec]:
    found = docs.get(name)
    if found is None:
        raise InputError(f"entry {entry_id}: unknown API class {name!r}")
    return found


def build_multi_turn_suite(
    data: BfclData, categories: Sequence[MultiTurnCategory], *, name: str | None
) -> Suite:
    """The conversation suite of some multi-turn categories (see `import_bfcl`).

    Raises:
        InputError: BFCL's files are malformed.
        ConfigError: bfcl-eval is not installed (its API classes bind the ground truth).
    """
    entries = [(c, e) for c in categories for e in read_multi_turn_entries(data, c)]
    used = {c for _, e in entries for c in e.involved_classes}
    docs = {c: _class_tools(data, c) for c in bfcl_api_classes() if c in used}
    conversations = [entry_to_conversation(e, c, docs) for c, e in entries]
    logger.debug("imported %d BFCL multi-turn entries from %s", len(entries), data.location)
    environment = PythonEnvironment.model_validate(
        {
            "kind": "python",
            "class": ENVIRONMENT_CLASS,
            "description": "BFCL's multi-turn API classes (from the installed bfcl-eval)",
        }
    )
    return Suite(
        schema_version=2,
        name=name or "bfcl-multi-turn",
        version=f"bfcl-eval {data.version}",
        description=f"BFCL v4 {', '.join(c.value for c in categories)}, imported from "
        f"{Path(data.location).name}",
        categories=tuple(c.value for c in categories),
        tools=tuple(t for tools in docs.values() for t in tools),
        environments={ENVIRONMENT: environment},
        cases=tuple(conversations),
    )


def _class_tools(data: BfclData, class_name: str) -> tuple[ToolSpec, ...]:
    return tuple(tool_from_bfcl(doc, "python") for doc in data.class_docs(class_name))
