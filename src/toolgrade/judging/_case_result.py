"""Making a `CaseResult`: a verdict on a case, with the case's labels.

`case_result` is the one place a single case's result is built: by `judge` from a
profile's verdict, and by the runner for a case that got no usable reply. It is on the
hot path of every judged reply, so it builds the result from trusted values, with the
fields that come from the case alone computed once per case.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, partial

from toolgrade._core.memo import IdentityMemo
from toolgrade._core.trusted import construct_trusted, trusted_builder
from toolgrade._core.vocab import Rubric, ToolCall
from toolgrade.extract import Extraction
from toolgrade.results import CaseResult, Status, Verdict
from toolgrade.suite import Case

__all__ = ["case_result"]


def case_result(
    case: Case,
    verdict: Verdict,
    *,
    rubric: Rubric,
    actual: Sequence[ToolCall] = (),
    extraction: Extraction | None = None,
    error: str | None = None,
    repeat: int = 0,
    latency_ms: float | None = None,
) -> CaseResult:
    """The result of a case: a profile's verdict, or an unscored status, with its labels.

    Every `CaseResult` is made here: by `judge` from a profile's verdict, and by the
    runner for a case that got no usable reply (`Verdict.not_scored(Status.TIMEOUT,
    message)`, its message the result's `error`).

    Args:
        case: the case.
        verdict: what the profile decided (or the unscored status).
        rubric: the rubric the score follows.
        actual: the calls the model made.
        extraction: the extraction the calls came from, for its format and errors.
        error: for `error` and `timeout`: what went wrong; None: the verdict's message.
        repeat: the repetition index.
        latency_ms: the time the model took, when known here.

    Returns:
        The result; the runner adds the reply's raw output, timings and finish reason.
    """
    errors = extraction.errors if extraction is not None else ()
    # Every field comes from validated models or typed values: no second validation.
    # The case's own fields are looked up once per case, the defaults once.
    # (Item by item into a copy: cheaper than a dict display merging two dicts.)
    hit = _CASE_ENTRIES.get(id(case))  # `_CASE_FIELDS.get`, inline for a hit
    fields = hit[1] if hit is not None and hit[0] is case else _CASE_FIELDS.get(case, _case_fields)
    values = fields.copy()
    values["status"] = verdict.status
    values["score"] = verdict.score
    values["rubric"] = rubric
    values["actual"] = actual if type(actual) is tuple else tuple(actual)
    values["pairs"] = verdict.pairs
    values["details"] = verdict.details
    values["alternative"] = verdict.alternative
    values["extraction_format"] = extraction.format if extraction is not None else None
    if errors:
        values["extraction_errors"] = errors
    values["latency_ms"] = latency_ms
    values["error"] = error if error is not None else verdict.message
    values["repeat"] = repeat
    if verdict.expected is not None:
        values["expected"] = verdict.expected
    status = verdict.status
    if status is _TIMEOUT or status is _ERROR:
        # Unscored results never had it: per-tool breakdowns use `expected` for them.
        values["primary_tools"] = None
    return _new_result(values)


# Looked up once: an enum member costs a lookup through its class each time.
_TIMEOUT, _ERROR = Status.TIMEOUT, Status.ERROR
_SET_HERE = frozenset({"case_id", "status", "score"})
"""The required fields of `CaseResult`, which `case_result` always sets."""
# Every field is set (the case's fields hold them all, when `_SET_HERE` is every
# required one): no key check, one fields set for every result.
_COMPLETE = all(n in _SET_HERE or not f.is_required() for n, f in CaseResult.model_fields.items())
_new_result = trusted_builder(CaseResult) if _COMPLETE else partial(construct_trusted, CaseResult)


@cache
def _defaults() -> dict[str, object]:
    """Every field of `CaseResult` at its default, those `case_result` sets at None.

    In the model's field order, which a result's `__dict__` keeps (its repr follows it).
    The defaults are all immutable: every result shares them.
    """
    fields: dict[str, object] = {}
    for name, info in CaseResult.model_fields.items():
        if name in _SET_HERE:
            fields[name] = None  # set by `_case_fields` or `case_result`
        elif not info.is_required():
            fields[name] = info.get_default(call_default_factory=True)
    return fields


# Per case, the result fields that come from it alone (frozen: computed once).
_CASE_FIELDS: IdentityMemo[Case, dict[str, object]] = IdentityMemo(8192)
_CASE_ENTRIES = _CASE_FIELDS.entries


def _case_fields(case: Case) -> dict[str, object]:
    """Every field of the case's results at its default, but those the case sets.

    `primary_tools`: the distinct tool names of the case's primary expectation.
    """
    fields = _defaults().copy()
    fields.update(
        case_id=case.id,
        expected=case.expected,
        primary_tools=tuple(dict.fromkeys(c.name for c in case.expected)),
        category=case.category,
        difficulty=case.difficulty,
        tags=case.tags,
        prompt=case.prompt_json(),
    )
    if case.single and case.turns[0].expect is not None:
        fields["expect"] = case.turns[0].expect
    return fields
