"""Tool calls, and `score_calls`: call-level F1 of one list of calls against another.

`score_calls` is the TPMJS tool-call accuracy score with two corrections: calls are
paired by an optimal assignment rather than a greedy scan, and the score follows the
documented formula (its README's 0.667 example really scores 0.4).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from toolscore._json import JsonObject
from toolscore.errors import InputError

# score_calls re-uses match's equality and alignment, so that it and the judge can never
# disagree on them.
from toolscore.match import DEEP_EQUALITY, Mismatch, align, compare_arguments, deep_key

__all__ = ["AccuracyScore", "CallPair", "ToolCall", "as_call", "as_calls", "score_calls"]

_ARG_KEYS = ("arguments", "args", "parameters")


class ToolCall(BaseModel):
    """One call of a tool: its name and its arguments.

    Input also accepts the aliases `tool` (for `name`), `args` and `parameters` (for
    `arguments`), and an OpenAI-style `function` object whose `arguments` may be a JSON
    string.

    Examples:
        >>> ToolCall(name="read_file", arguments={"path": "README.md"}).name
        'read_file'
        >>> ToolCall.model_validate({"tool": "search", "args": {"q": "x"}}).arguments
        {'q': 'x'}
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """The name of the tool called."""
    arguments: JsonObject = {}
    """The arguments, a JSON object (empty when the call had none)."""

    @model_validator(mode="before")
    @classmethod
    def _accept_aliases(cls, data: Any) -> Any:
        # Stored results hold calls in the canonical shape: let them through untouched,
        # since loading a large run validates tens of thousands of calls.
        if _is_canonical(data):
            return data
        if isinstance(data, Mapping) and not isinstance(data, ToolCall):
            name, arguments = _name_and_arguments(data)
            return {"name": name, "arguments": arguments}
        return data

    def to_dict(self) -> JsonObject:
        """Return the call as `{"name": ..., "arguments": ...}`."""
        return {"name": self.name, "arguments": self.arguments}

    def to_tpmjs(self) -> JsonObject:
        """Return the call as `{"tool": ..., "args": ...}` (the TPMJS scorer's shape)."""
        return {"tool": self.name, "args": self.arguments}


def _is_canonical(data: Any) -> bool:
    """True for `{"name": <non-blank str>, "arguments": <dict>}` and nothing else."""
    return (
        type(data) is dict
        and len(data) == 2
        and type(data.get("arguments")) is dict
        and type(data.get("name")) is str
        and bool(data["name"].strip())
    )


def _name_and_arguments(data: Mapping[str, Any]) -> tuple[str, JsonObject]:
    """Read a call's name and arguments from any accepted mapping shape.

    Raises:
        ValueError: the mapping has no usable name, or arguments that are not an object.
    """
    function = data.get("function")
    if function is not None and isinstance(function, Mapping):
        data = function
    name: Any = data["name"] if "name" in data else data.get("tool")
    if name is None and isinstance(function, str):
        name = function
    if not isinstance(name, str) or not name.strip():
        raise ValueError(_bad_name(name))
    arguments: Any = None
    for key in _ARG_KEYS:
        if key in data:
            arguments = data[key]
            break
    if isinstance(arguments, dict):
        return name, arguments
    if isinstance(arguments, str):
        # OpenAI sends arguments as a JSON string; an empty string means no arguments.
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise ValueError(f"arguments of '{name}' are not valid JSON: {exc.msg}") from None
    if arguments is None:
        return name, {}
    if not isinstance(arguments, Mapping):
        raise ValueError(f"arguments of '{name}' must be an object, got {_kind(arguments)}")
    return name, dict(arguments)


def _bad_name(name: object) -> str:
    if name is None:
        return "call has no name (give 'name' or 'tool')"
    if not isinstance(name, str):
        return f"call name must be a string, got {_kind(name)}"
    return "call name is empty"


def _kind(value: object) -> str:
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "an array"
    if value is None:
        return "null"
    return type(value).__name__


def _trusted_call(
    name: str, arguments: JsonObject, _new: Any = object.__new__, _set: Any = object.__setattr__
) -> ToolCall:
    """Build a ToolCall from values already checked, skipping pydantic validation.

    This is what `BaseModel.model_construct` does, in a third of its time; scoring
    builds one call per input, so it matters (tests compare it with a validated call).
    """
    call = _new(ToolCall)
    _set(call, "__dict__", {"name": name, "arguments": arguments})
    _set(call, "__pydantic_fields_set__", {"name", "arguments"})
    _set(call, "__pydantic_extra__", None)
    _set(call, "__pydantic_private__", None)
    return call  # type: ignore[no-any-return]


def as_call(value: object, *, where: str = "call") -> ToolCall:
    """Turn a `ToolCall` or a call mapping into a `ToolCall`.

    Args:
        value: a `ToolCall`, or a mapping with a name and arguments (any accepted alias).
        where: how to name the value in an error message, e.g. `expected[2]`.

    Returns:
        The call.

    Raises:
        InputError: the value is not a call.

    Examples:
        >>> as_call({"tool": "search", "args": {"q": "x"}}).to_dict()
        {'name': 'search', 'arguments': {'q': 'x'}}
    """
    if type(value) is not dict:  # the common case first: a plain dict
        if isinstance(value, ToolCall):
            return value
        if not isinstance(value, Mapping):
            raise InputError(f"{where}: a call must be an object, got {_kind(value)}")
    try:
        name, arguments = _name_and_arguments(value)
    except ValueError as exc:
        raise InputError(f"{where}: {exc}") from None
    return _trusted_call(name, arguments)


def as_calls(values: object, *, side: str = "calls") -> tuple[ToolCall, ...]:
    """Turn a list of calls (objects or `ToolCall`s) into a tuple of `ToolCall`.

    Raises:
        InputError: `values` is not a list, or one item is not a call (named by index).
    """
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Sequence):
        raise InputError(f"{side}: must be a list of calls, got {_kind(values)}")
    return tuple(as_call(v, where=f"{side}[{i}]") for i, v in enumerate(values))


@dataclass(frozen=True, slots=True)
class CallPair:
    """An expected call paired with an actual call of the same tool."""

    expected: ToolCall
    actual: ToolCall

    @property
    def mismatches(self) -> tuple[Mismatch, ...]:
        """The argument differences (computed on access); empty when the call is correct."""
        return tuple(
            compare_arguments(self.expected.arguments, self.actual.arguments, options=DEEP_EQUALITY)
        )

    @property
    def details(self) -> str:
        """The differences in words: path, expected value, actual value."""
        return "; ".join(m.describe() for m in self.mismatches)


def _round_half_up(value: float, places: int) -> float:
    quantum = Decimal(1).scaleb(-places)
    return float(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


@dataclass(frozen=True, slots=True)
class AccuracyScore:
    """The result of `score_calls`: every call classified, and precision, recall and F1."""

    correct: tuple[CallPair, ...]
    incorrect: tuple[CallPair, ...]
    missed: tuple[ToolCall, ...]
    extra: tuple[ToolCall, ...]
    total_expected: int
    total_actual: int
    precision: float
    """correct / actual calls (0 when there are no actual calls)."""
    recall: float
    """correct / expected calls (0 when there are no expected calls)."""
    f1: float
    """2PR / (P + R), unrounded; 1.0 when both lists are empty."""

    @property
    def score(self) -> float:
        """F1 rounded half-up to 3 decimals."""
        return _round_half_up(self.f1, 3)

    @property
    def summary(self) -> str:
        """One line, e.g. `Accuracy Score: 40.0% | Correct: 1/2 | ...`."""
        percent = _round_half_up(self.f1 * 100, 1)
        return (
            f"Accuracy Score: {percent:.1f}% | Correct: {len(self.correct)}/{self.total_expected}"
            f" | Incorrect: {len(self.incorrect)} | Missed: {len(self.missed)}"
            f" | Extra: {len(self.extra)}"
        )

    def to_dict(self) -> JsonObject:
        """The TPMJS scorer's output schema (camelCase), plus `precision`, `recall`, `f1`."""
        return {
            "score": self.score,
            "totalExpected": self.total_expected,
            "totalActual": self.total_actual,
            "correctCalls": [
                {
                    "expected": p.expected.to_tpmjs(),
                    "actual": p.actual.to_tpmjs(),
                    "status": "correct",
                    "argsMatch": True,
                }
                for p in self.correct
            ],
            "incorrectCalls": [
                {
                    "expected": p.expected.to_tpmjs(),
                    "actual": p.actual.to_tpmjs(),
                    "status": "incorrect",
                    "argsMatch": False,
                    "details": p.details,
                }
                for p in self.incorrect
            ],
            "missedCalls": [
                {
                    "expected": c.to_tpmjs(),
                    "status": "missed",
                    "argsMatch": False,
                    "details": f"No call to '{c.name}' was made to match this expected call",
                }
                for c in self.missed
            ],
            "extraCalls": [c.to_tpmjs() for c in self.extra],
            "summary": self.summary,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }


def score_calls(
    expected: Sequence[object],
    actual: Sequence[object],
    *,
    order: Literal["any", "strict"] = "any",
) -> AccuracyScore:
    """Score actual tool calls against expected ones (call-level F1).

    Each call is classified as correct (same name, equal arguments), incorrect (same
    name, different arguments), missed (expected, left unpaired) or extra (actual,
    left unpaired). Pairing is optimal: it first maximises the number of correct
    pairs, then the number of same-name pairs. With `order="strict"` pairs must keep
    the order of both lists (an order-preserving alignment, like a diff).

    Arguments compare by deep equality: key order is ignored, arrays compare in order,
    `1 == 1.0`, but `1 != "1"`, `true != 1`, and `null` equals only `null`.

    Args:
        expected: the calls that should have been made.
        actual: the calls that were made.
        order: `"any"` to pair regardless of position, `"strict"` to keep order.

    Returns:
        The classification with precision, recall, F1 and the rounded score.

    Raises:
        InputError: either side is not a list of calls (the message names side and index).

    Examples:
        >>> s = score_calls(
        ...     [{"tool": "searchWeb", "args": {"query": "AI news"}},
        ...      {"tool": "summarize", "args": {"text": "long article..."}}],
        ...     [{"tool": "searchWeb", "args": {"query": "AI news"}},
        ...      {"tool": "summarize", "args": {"text": "different text"}},
        ...      {"tool": "translateText", "args": {"text": "hello", "to": "es"}}])
        >>> s.score
        0.4
    """
    exp = as_calls(expected, side="expected")
    act = as_calls(actual, side="actual")
    # One hashable key per call: equal keys <=> no difference under DEEP_EQUALITY.
    exp_keys = [deep_key(c.arguments) for c in exp]
    act_keys = [deep_key(c.arguments) for c in act]
    big = float(min(len(exp), len(act)) + 1)
    credit = [[0.0] * len(act) for _ in exp]
    for i, e in enumerate(exp):
        row = credit[i]
        for j, a in enumerate(act):
            if e.name == a.name:
                # Lexicographic objective: one correct pair outweighs every same-name pair.
                row[j] = big if exp_keys[i] == act_keys[j] else 1.0
    pairs = align(credit, ordered=order == "strict")
    correct = [CallPair(exp[i], act[j]) for i, j in pairs if credit[i][j] == big]
    incorrect = [CallPair(exp[i], act[j]) for i, j in pairs if credit[i][j] != big]
    paired_exp = {i for i, _ in pairs}
    paired_act = {j for _, j in pairs}
    n_ok = len(correct)
    precision = n_ok / len(act) if act else 0.0
    recall = n_ok / len(exp) if exp else 0.0
    if not exp and not act:
        precision = recall = f1 = 1.0
    else:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return AccuracyScore(
        correct=tuple(correct),
        incorrect=tuple(incorrect),
        missed=tuple(c for i, c in enumerate(exp) if i not in paired_exp),
        extra=tuple(c for j, c in enumerate(act) if j not in paired_act),
        total_expected=len(exp),
        total_actual=len(act),
        precision=precision,
        recall=recall,
        f1=f1,
    )
