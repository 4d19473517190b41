"""BFCL v4 single-turn entries -> a toolgrade suite (multi-turn ones: see `_mt_import`).

Each BFCL entry becomes one case with BFCL's id. Its function docs become the case's own
`tool_definitions` (BFCL types mapped to JSON Schema, see `toolgrade.bfcl._codec`),
under BFCL's names, and the case offers no suite-level tool: BFCL gives different docs
the same name in different entries, and each case shows the model exactly its entry's
docs. The possible answer becomes the expected calls (`$any_of` for several acceptable
values, `$absent` for BFCL's `""`); irrelevance entries expect no call; live_relevance
entries pass with any call (`any_call`). Dotted names (`uber.ride`) are kept: the
runner sends them as `uber_ride` to servers that forbid dots and renames the answers
back, and the `bfcl` profile accepts both spellings.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.bfcl._checker import Language
from toolgrade.bfcl._codec import encode_answer
from toolgrade.bfcl._data import (
    BfclCategory,
    BfclData,
    BfclEntry,
    MultiTurnCategory,
    open_bfcl_data,
)
from toolgrade.bfcl._data import parse_category as _parse
from toolgrade.bfcl._tools import tool_from_bfcl
from toolgrade.errors import ConfigError, InputError
from toolgrade.suite import Case, ChatMessage, Suite, ToolSpec

__all__ = [
    "bfcl_categories",
    "entry_to_case",
    "import_bfcl",
]

logger = logging.getLogger(__name__)

_ROLES = frozenset({"system", "user", "assistant", "tool"})


def bfcl_categories(data_dir: str | Path | None = None) -> list[tuple[str, int | None]]:
    """Every importable BFCL category with its number of entries (None: file missing).

    The single-turn categories come first, then the multi-turn ones.

    Raises:
        ConfigError: no BFCL data was found.
    """
    data = open_bfcl_data(data_dir)
    return [(c.value, data.size(c)) for c in (*BfclCategory, *MultiTurnCategory)]


def import_bfcl(
    categories: Sequence[str],
    *,
    data_dir: str | Path | None = None,
    name: str | None = None,
) -> Suite:
    """Convert BFCL v4 categories into one toolgrade suite.

    Single-turn categories give a suite of cases; multi-turn categories
    (`multi_turn_base`, `_miss_func`, `_miss_param`, `_long_context`) give a suite of
    conversations answered by BFCL's own API classes (which need the `bfcl-eval`
    package installed, see `toolgrade.bfcl._mt_import`). One suite holds one kind.

    Args:
        categories: BFCL category names, e.g. `["simple_python", "live_multiple"]`.
        data_dir: a folder or wheel holding BFCL's data; None reads the installed
            `bfcl_eval` package.
        name: the suite name (default `bfcl-<categories joined by +>`, and
            `bfcl-multi-turn` for multi-turn categories).

    Returns:
        The suite: one case (or conversation) per entry, ids as in BFCL.

    Raises:
        ConfigError: an unknown or out-of-scope category, single-turn and multi-turn
            categories mixed, no BFCL data found, or (multi-turn) no bfcl-eval installed.
        InputError: BFCL's files are malformed.

    Examples:
        >>> suite = import_bfcl(["simple_python"])  # doctest: +SKIP
        >>> suite.cases[0].id  # doctest: +SKIP
        'simple_python_0'
    """
    chosen = list(dict.fromkeys(_parse(c) for c in categories))
    if not chosen:
        raise InputError("give at least one BFCL category")
    multi = [c for c in chosen if isinstance(c, MultiTurnCategory)]
    single = [c for c in chosen if isinstance(c, BfclCategory)]
    if multi and single:
        raise ConfigError(
            "multi-turn and single-turn BFCL categories make different suites (conversations "
            f"and cases): import {', '.join(multi)} and {', '.join(single)} separately"
        )
    data = open_bfcl_data(data_dir)
    if multi:
        from toolgrade.bfcl._mt_import import build_multi_turn_suite

        return build_multi_turn_suite(data, multi, name=name)
    return _build(data, single, name=name)


def _build(data: BfclData, categories: Sequence[BfclCategory], *, name: str | None) -> Suite:
    cases = [entry_to_case(e, category) for category in categories for e in data.entries(category)]
    logger.debug("imported %d BFCL entries from %s", len(cases), data.location)
    joined = "+".join(c.value for c in categories)
    return Suite(
        name=name or f"bfcl-{joined}",
        version=f"bfcl-eval {data.version}",
        description=f"BFCL v4 {', '.join(c.value for c in categories)}, imported from "
        f"{Path(data.location).name}",
        categories=tuple(c.value for c in categories),
        cases=tuple(cases),
    )


def entry_to_case(entry: BfclEntry, category: BfclCategory) -> Case:
    """One BFCL entry as a case offering exactly the entry's function docs.

    Raises:
        InputError: the entry is multi-turn or malformed.
    """
    language: Language = "python"
    if category.language == "java":
        language = "java"
    elif category.language == "javascript":
        language = "javascript"
    specs: dict[str, ToolSpec] = {}
    for function in entry.functions:
        spec = tool_from_bfcl(function, language)
        if specs.setdefault(spec.name, spec) != spec:
            raise InputError(f"entry {entry.id}: two different function docs named {spec.name!r}")
    expected = [_expected_call(entry.id, call, specs) for call in entry.answer or ()]
    return Case(
        id=entry.id,
        category=category.value,
        tags=("bfcl", f"language:{language}"),
        prompt=_prompt(entry),
        tools=(),
        tool_definitions=tuple(specs.values()),
        expected=expected,
        any_call=category is BfclCategory.LIVE_RELEVANCE,
    )


def _expected_call(entry_id: str, call: JsonObject, specs: Mapping[str, ToolSpec]) -> JsonObject:
    if len(call) != 1:
        raise InputError(f"entry {entry_id}: a possible-answer call must have one name")
    ((bfcl_name, answer),) = call.items()
    spec = specs.get(bfcl_name)
    if spec is None or not isinstance(answer, dict):
        raise InputError(f"entry {entry_id}: answer calls {bfcl_name!r}, which has no doc")
    return {"name": bfcl_name, "arguments": encode_answer(answer, spec.parameters)}


def _prompt(entry: BfclEntry) -> str | tuple[ChatMessage, ...]:
    turns = entry.question
    if not isinstance(turns, list) or len(turns) != 1 or not isinstance(turns[0], list):
        raise InputError(f"entry {entry.id}: not a single-turn question")
    messages = [m for m in turns[0] if isinstance(m, dict)]
    if len(messages) == 1 and messages[0].get("role") == "user":
        content = messages[0].get("content")
        if isinstance(content, str):
            return content
    return tuple(_message(entry.id, m) for m in messages)


def _message(entry_id: str, message: JsonObject) -> ChatMessage:
    role = message.get("role")
    content = message.get("content")
    if role not in _ROLES or not (content is None or isinstance(content, str)):
        raise InputError(f"entry {entry_id}: unsupported message {_short(message)}")
    return ChatMessage.model_validate({"role": role, "content": content})


def _short(value: JsonValue) -> str:
    text = json.dumps(value)
    return text if len(text) < 80 else text[:77] + "..."
