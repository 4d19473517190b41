"""Tool calls, and `score_calls`: call-level F1 of one list of calls against another.

`score_calls` is the TPMJS tool-call accuracy score with two corrections: calls are
paired by an optimal assignment rather than a greedy scan, and the score follows the
documented formula (its README's 0.667 example really scores 0.4).

`ToolCall` lives in `toolgrade._core.vocab` and `as_call` and `as_calls` in
`toolgrade._core.toolcall` (which keeps this module under the size limit); both are imported
from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal, NamedTuple

from toolgrade._core.json_data import JsonObject
from toolgrade._core.toolcall import RawCalls, as_call, as_calls, new_tuple, read_calls
from toolgrade._core.vocab import Mismatch, ToolCall

# score_calls re-uses match's equality and alignment (through `_pairing`), so that it and
# the judge can never disagree on them.
from toolgrade.match import DEEP_EQUALITY, Pairs, compare_arguments, pair_calls, pair_calls_general

__all__ = ["AccuracyScore", "CallPair", "ToolCall", "as_call", "as_calls", "score_calls"]


def _details(expected: JsonObject, actual: JsonObject) -> str:
    differences = compare_arguments(expected, actual, options=DEEP_EQUALITY)
    return "; ".join(m.describe() for m in differences)


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
        return _details(self.expected.arguments, self.actual.arguments)


def _round_half_up(value: float, places: int) -> float:
    quantum = Decimal(1).scaleb(-places)
    return float(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


class _Scored(NamedTuple):
    """What `score_calls` found, by index into each side's calls."""

    exp: RawCalls
    act: RawCalls
    correct: list[tuple[int, int]]
    incorrect: list[tuple[int, int]]
    missed: list[int]
    extra: list[int]
    total_expected: int
    total_actual: int
    precision: float
    recall: float
    f1: float


_Built = tuple[
    tuple[CallPair, ...], tuple[CallPair, ...], tuple[ToolCall, ...], tuple[ToolCall, ...]
]


class AccuracyScore:
    """The result of `score_calls`: every call classified, and precision, recall and F1.

    Immutable; equality, hashing, repr, pickling and `match` go by the nine public values,
    as a frozen dataclass's would. `score_calls` keeps the calls as it read them and
    builds the `CallPair`s and `ToolCall`s when first asked for (then keeps them): `score`,
    `summary` and `to_dict()` never need them, and building them costs more than scoring.
    """

    __slots__ = ("_built", "_scored")
    __match_args__ = (  # the public values, in constructor order
        "correct",
        "incorrect",
        "missed",
        "extra",
        "total_expected",
        "total_actual",
        "precision",
        "recall",
        "f1",
    )

    def __init__(
        self,
        correct: tuple[CallPair, ...],
        incorrect: tuple[CallPair, ...],
        missed: tuple[ToolCall, ...],
        extra: tuple[ToolCall, ...],
        total_expected: int,
        total_actual: int,
        precision: float,
        recall: float,
        f1: float,
    ) -> None:
        # Given objects are kept as they are; the raw side lists them pairs first.
        paired = correct + incorrect
        exp = [p.expected for p in paired] + list(missed)
        act = [p.actual for p in paired] + list(extra)
        self._scored = _Scored(
            RawCalls([c.name for c in exp], [c.arguments for c in exp], dict(enumerate(exp))),
            RawCalls([c.name for c in act], [c.arguments for c in act], dict(enumerate(act))),
            correct=[(k, k) for k in range(len(correct))],
            incorrect=[(k, k) for k in range(len(correct), len(paired))],
            missed=list(range(len(paired), len(exp))),
            extra=list(range(len(paired), len(act))),
            total_expected=total_expected,
            total_actual=total_actual,
            precision=precision,
            recall=recall,
            f1=f1,
        )
        self._built: _Built | None = (correct, incorrect, missed, extra)

    @classmethod
    def _of(cls, scored: _Scored) -> AccuracyScore:
        result = cls.__new__(cls)
        result._scored = scored
        result._built = None
        return result

    def _objects(self) -> _Built:
        if self._built is None:
            s = self._scored
            exp = [s.exp.call(i) for i in range(len(s.exp.names))]
            act = [s.act.call(j) for j in range(len(s.act.names))]
            self._built = (
                tuple(CallPair(exp[i], act[j]) for i, j in s.correct),
                tuple(CallPair(exp[i], act[j]) for i, j in s.incorrect),
                tuple(exp[i] for i in s.missed),
                tuple(act[j] for j in s.extra),
            )
        return self._built

    @property
    def correct(self) -> tuple[CallPair, ...]:
        """Pairs of the same tool with equal arguments."""
        return self._objects()[0]

    @property
    def incorrect(self) -> tuple[CallPair, ...]:
        """Pairs of the same tool with different arguments."""
        return self._objects()[1]

    @property
    def missed(self) -> tuple[ToolCall, ...]:
        """Expected calls left unpaired."""
        return self._objects()[2]

    @property
    def extra(self) -> tuple[ToolCall, ...]:
        """Actual calls left unpaired."""
        return self._objects()[3]

    @property
    def total_expected(self) -> int:
        """The number of expected calls."""
        return self._scored.total_expected

    @property
    def total_actual(self) -> int:
        """The number of actual calls."""
        return self._scored.total_actual

    @property
    def precision(self) -> float:
        """Correct / actual calls (0 when there are no actual calls)."""
        return self._scored.precision

    @property
    def recall(self) -> float:
        """Correct / expected calls (0 when there are no expected calls)."""
        return self._scored.recall

    @property
    def f1(self) -> float:
        """2PR / (P + R), unrounded; 1.0 when both lists are empty."""
        return self._scored.f1

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__match_args__)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AccuracyScore) or other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"AccuracyScore({shown})"

    def __reduce__(self) -> tuple[type[AccuracyScore], tuple[object, ...]]:
        return (AccuracyScore, self._fields())

    @property
    def score(self) -> float:
        """F1 rounded half-up to 3 decimals."""
        return _round_half_up(self.f1, 3)

    @property
    def summary(self) -> str:
        """One line, e.g. `Accuracy Score: 40.0% | Correct: 1/2 | ...`."""
        s = self._scored
        percent = _round_half_up(s.f1 * 100, 1)
        return (
            f"Accuracy Score: {percent:.1f}% | Correct: {len(s.correct)}/{s.total_expected}"
            f" | Incorrect: {len(s.incorrect)} | Missed: {len(s.missed)}"
            f" | Extra: {len(s.extra)}"
        )

    def to_dict(self) -> JsonObject:
        """The TPMJS scorer's output schema (camelCase), plus `precision`, `recall`, `f1`."""
        s = self._scored
        exp, act = s.exp, s.act

        def tpmjs(calls: RawCalls, i: int) -> JsonObject:
            return {"tool": calls.names[i], "args": calls.arguments[i]}  # ToolCall.to_tpmjs

        return {
            "score": self.score,
            "totalExpected": s.total_expected,
            "totalActual": s.total_actual,
            "correctCalls": [
                {
                    "expected": tpmjs(exp, i),
                    "actual": tpmjs(act, j),
                    "status": "correct",
                    "argsMatch": True,
                }
                for i, j in s.correct
            ],
            "incorrectCalls": [
                {
                    "expected": tpmjs(exp, i),
                    "actual": tpmjs(act, j),
                    "status": "incorrect",
                    "argsMatch": False,
                    "details": _details(exp.arguments[i], act.arguments[j]),
                }
                for i, j in s.incorrect
            ],
            "missedCalls": [
                {
                    "expected": tpmjs(exp, i),
                    "status": "missed",
                    "argsMatch": False,
                    "details": f"No call to '{exp.names[i]}' was made to match this expected call",
                }
                for i in s.missed
            ],
            "extraCalls": [tpmjs(act, j) for j in s.extra],
            "summary": self.summary,
            "precision": s.precision,
            "recall": s.recall,
            "f1": s.f1,
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
    exp = read_calls(expected, side="expected")
    act = read_calls(actual, side="actual")
    if order == "strict":
        return _result(exp, act, pair_calls_general(exp, act, ordered=True))
    return _result(exp, act, pair_calls(exp, act))


def _score_general(
    expected: Sequence[object],
    actual: Sequence[object],
    *,
    order: Literal["any", "strict"] = "any",
) -> AccuracyScore:
    """`score_calls` by the definition: the full credit matrix, solved by `align`.

    `score_calls` must return exactly what this returns (the same pairs, not only the same
    numbers); tests/test_calls_pairing.py holds them together.
    """
    exp = read_calls(expected, side="expected")
    act = read_calls(actual, side="actual")
    return _result(exp, act, pair_calls_general(exp, act, ordered=order == "strict"))


def _result(exp: RawCalls, act: RawCalls, pairs: Pairs) -> AccuracyScore:
    """Count the classified calls into precision, recall and F1."""
    correct, incorrect, missed, extra = pairs
    n_exp, n_act = len(exp.names), len(act.names)
    n_ok = len(correct)
    if n_ok:
        precision, recall = n_ok / n_act, n_ok / n_exp
        f1 = 2 * precision * recall / (precision + recall)
    elif n_exp or n_act:
        precision = recall = f1 = 0.0
    else:
        precision = recall = f1 = 1.0
    scored = new_tuple(  # as `_Scored(...)`, without its Python-level `__new__`
        _Scored,
        (exp, act, correct, incorrect, missed, extra, n_exp, n_act, precision, recall, f1),
    )
    return AccuracyScore._of(scored)
