"""Judging a list of actual calls against one expectation: pairing, status, score.

The judge (`toolgrade.judging._judge`) asks `CallJudge` for a `Verdict` on the primary
expectation and on each alternative: its status, its score, its pairs (each a
`PairResult` with its credit under the rubric) and its closeness, which breaks ties
between alternatives. Work that depends only on an actual call (its schema coercion and
validation) is done once per call, however many expectations and pairs it takes part in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from toolgrade._core.json_data import JsonObject
from toolgrade._core.trusted import slots_builder, trusted_builder
from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import Mismatch, PairKind, PairResult, Rubric, Status
from toolgrade.match._align import align
from toolgrade.match._coerce import coerce_value
from toolgrade.match._nulls import without_absent_nulls
from toolgrade.match._schema import merge_mismatches, schema_mismatches
from toolgrade.match._values import SEMANTIC, MatchOptions, _Walker

__all__ = ["WRONG_ARGS_CREDIT", "CallJudge", "CallLike"]

# Partial credit of a pair (the task specification's defaults); under the other rubrics
# a pair's credit is 1 when it is correct, else 0.
CORRECT_CREDIT = 1.0
WRONG_ARGS_CREDIT = 0.5


class CallLike(Protocol):
    """Anything with a tool name and an arguments object (a `ToolCall`)."""

    @property
    def name(self) -> str:
        """The tool called."""
        ...

    @property
    def arguments(self) -> JsonObject:
        """The arguments."""
        ...


class CallJudge:
    """Judges one list of actual calls against expectations.

    Args:
        actual: the calls the model made.
        schemas: parameters JSON Schema per offered tool name.
        offered: the names of the offered tools; None accepts any name.
        strict: fail on arguments the expectation does not mention.
        parse_failed: the extractor reported malformed calls.
        trim: ignore surrounding whitespace of strings whose schema does not decide.
        null_is_absent: read every `null` argument as left out (where its schema allows
            null, it is read so anyway).
    """

    def __init__(
        self,
        actual: Sequence[CallLike],
        *,
        schemas: Mapping[str, JsonObject],
        offered: frozenset[str] | None,
        strict: bool = False,
        parse_failed: bool = False,
        trim: bool = True,
        null_is_absent: bool = False,
    ) -> None:
        self.actual = actual
        self.schemas = schemas
        self.offered = offered
        self.options = (
            MatchOptions(
                strict=strict,
                semantic=True,
                matchers=True,
                trim=trim,
                null_is_absent=null_is_absent,
            )
            if strict or not trim or null_is_absent
            else SEMANTIC
        )
        self.parse_failed = parse_failed
        self._prepared: dict[int, tuple[JsonObject, list[Mismatch]]] = {}

    def is_offered(self, name: str) -> bool:
        """Whether a tool of this name was offered (a call to any other is a wrong tool)."""
        return self.offered is None or name in self.offered

    def _prepare(self, j: int) -> tuple[JsonObject, list[Mismatch]]:
        """The actual call's arguments coerced by its schema, and its schema violations.

        A `null` read as the argument left out (docs/matching.md) is validated as left
        out: the tool is not told to refuse a value the rule says was not given.
        """
        ready = self._prepared.get(j)
        if ready is None:
            call = self.actual[j]
            schema = self.schemas.get(call.name)
            arguments = call.arguments
            violations: list[Mismatch] = []
            if schema:
                coerced = coerce_value(arguments, schema)
                arguments = coerced if isinstance(coerced, dict) else arguments
                everywhere = self.options.null_is_absent
                given = without_absent_nulls(arguments, schema, everywhere=everywhere)
                violations = schema_mismatches(
                    given if isinstance(given, dict) else arguments, schema
                )
            ready = (arguments, violations)
            self._prepared[j] = ready
        return ready

    def compare(self, expected: CallLike, j: int) -> list[Mismatch]:
        """The differences between an expected call and actual call `j` of the same tool."""
        arguments, violations = self._prepare(j)
        walker = _Walker(self.options)
        walker.object(expected.arguments, arguments, "$", schema=self.schemas.get(expected.name))
        return merge_mismatches(walker.out, violations)

    def verdict(self, expected: Sequence[CallLike], *, rubric: Rubric, ordered: bool) -> Verdict:
        """Judge the actual calls against one expectation (a list of calls, maybe empty)."""
        n_exp, n_act = len(expected), len(self.actual)
        if not n_exp or not n_act:
            return self._trivial(n_exp, n_act)
        found: dict[tuple[int, int], list[Mismatch]] = {}
        # f1 counts correct calls, so one correct pair must outweigh any number of
        # same-tool pairs (as in score_calls); the others maximise summed partial credit.
        right, near = (float(min(n_exp, n_act) + 1), 1.0) if rubric == "f1" else (1.0, 0.5)
        credit = [[0.0] * n_act for _ in range(n_exp)]
        for i, e in enumerate(expected):
            if not self.is_offered(e.name):
                continue
            for j, a in enumerate(self.actual):
                if a.name == e.name:
                    found[i, j] = self.compare(e, j)
                    credit[i][j] = near if found[i, j] else right
        near_credit = WRONG_ARGS_CREDIT if rubric == "partial" else 0.0
        aligned = align(credit, ordered=ordered)
        pairs = _pair_up(aligned, found, n_exp=n_exp, n_act=n_act, near_credit=near_credit)
        return self._finish(pairs, n_exp, n_act, rubric=rubric)

    def _trivial(self, n_exp: int, n_act: int) -> Verdict:
        if n_exp == 0 and n_act == 0:
            if self.parse_failed:
                return _NOTHING_READ
            return _NOTHING_EXPECTED
        if n_exp == 0:
            extra = tuple(_pair(None, j, "extra", 0.0) for j in range(n_act))
            return _verdict(_UNEXPECTED_CALL, 0.0, 0.0, extra)
        missed = tuple(_pair(i, None, "missed", 0.0) for i in range(n_exp))
        status = _PARSE_ERROR if self.parse_failed else _MISSED_CALL
        return _verdict(status, 0.0, 0.0, missed)

    def _finish(
        self, pairs: list[PairResult], n_exp: int, n_act: int, *, rubric: Rubric
    ) -> Verdict:
        kinds = [p.verdict for p in pairs]
        n_correct = kinds.count("correct")
        n_near = kinds.count("wrong_args")
        closeness = (n_correct * CORRECT_CREDIT + n_near * WRONG_ARGS_CREDIT) / max(n_exp, n_act)
        status: Status
        if n_correct == n_exp:
            status = _EXTRA_CALLS if n_act > n_exp else _CORRECT
        elif self.parse_failed and n_correct == 0:
            status = _PARSE_ERROR
        elif "wrong_tool" in kinds:
            status = _WRONG_TOOL
        elif "missed" in kinds:
            status = _MISSED_CALL
        else:
            status = _WRONG_ARGS
        if rubric == "binary":
            score = 1.0 if status is _CORRECT else 0.0
        elif rubric == "f1":
            precision, recall = n_correct / n_act, n_correct / n_exp
            score = 2 * precision * recall / (precision + recall) if n_correct else 0.0
        else:
            score = closeness
        details = tuple(m for p in pairs for m in p.details) if n_near else ()
        return _verdict(status, score, closeness, tuple(pairs), details)


# Looked up once: an enum member costs a lookup through its class each time.
_CORRECT, _WRONG_ARGS, _WRONG_TOOL = Status.CORRECT, Status.WRONG_ARGS, Status.WRONG_TOOL
_MISSED_CALL, _UNEXPECTED_CALL = Status.MISSED_CALL, Status.UNEXPECTED_CALL
_EXTRA_CALLS, _PARSE_ERROR = Status.EXTRA_CALLS, Status.PARSE_ERROR
_new_pair = trusted_builder(PairResult)
_new_verdict = slots_builder(Verdict)


def _verdict(
    status: Status,
    score: float,
    closeness: float,
    pairs: tuple[PairResult, ...] = (),
    details: tuple[Mismatch, ...] = (),
) -> Verdict:
    """The call judge's verdict, built as the valid values it is given (every field)."""
    return _new_verdict(status, score, pairs, details, None, None, closeness, None, None, None)


_NOTHING_EXPECTED = _verdict(_CORRECT, 1.0, 1.0)
_NOTHING_READ = _verdict(_PARSE_ERROR, 0.0, 0.0)


def _pair(
    expected_index: int | None,
    actual_index: int | None,
    kind: PairKind,
    credit: float,
    details: tuple[Mismatch, ...] = (),
) -> PairResult:
    """A pair, built as the valid values it is given (every field)."""
    return _new_pair(
        {
            "expected_index": expected_index,
            "actual_index": actual_index,
            "verdict": kind,
            "credit": credit,
            "details": details,
        }
    )


def _pair_up(
    aligned: list[tuple[int, int]],
    found: Mapping[tuple[int, int], list[Mismatch]],
    *,
    n_exp: int,
    n_act: int,
    near_credit: float,
) -> list[PairResult]:
    """Turn the alignment into judged pairs; leftovers pair up as wrong tools, in order.

    `near_credit` is a `wrong_args` pair's credit under the rubric.
    """
    pairs: list[PairResult] = []
    for i, j in aligned:
        mismatches = found[i, j]
        if mismatches:
            # Each difference names its expected call, so the flat list stays readable.
            tagged = tuple(m.model_copy(update={"call": i}) for m in mismatches)
            pairs.append(_pair(i, j, "wrong_args", near_credit, tagged))
        else:
            pairs.append(_pair(i, j, "correct", CORRECT_CREDIT))
    used_exp = {i for i, _ in aligned}
    used_act = {j for _, j in aligned}
    left_exp = [i for i in range(n_exp) if i not in used_exp]
    left_act = [j for j in range(n_act) if j not in used_act]
    for i, j in zip(left_exp, left_act, strict=False):
        pairs.append(_pair(i, j, "wrong_tool", 0.0))
    pairs.extend(_pair(i, None, "missed", 0.0) for i in left_exp[len(left_act) :])
    pairs.extend(_pair(None, j, "extra", 0.0) for j in left_act[len(left_exp) :])
    pairs.sort(key=lambda p: (p.expected_index is None, p.expected_index, p.actual_index or 0))
    return pairs
