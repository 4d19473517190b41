"""The judge: one case, expected calls against actual calls, under a rubric.

`judge` decides whether the calls a model made are what a case expects, says why not
(per-argument differences with JSON paths), and scores the result. Argument values
compare semantically, guided by each tool's JSON Schema (see docs/matching.md);
several calls are paired by an optimal assignment shared with `score_calls`.

Other matching rules plug in as profiles: `register_profile("bfcl", fn)` makes
`judge(..., profile="bfcl")` call `fn`, which returns a `Verdict`; `case_result` turns
a verdict into the `CaseResult`, here and wherever else a result is made (the runner's
timeouts and errors). The profile registry lives in `toolgrade.judging._profiles`: the `bfcl`
profile is imported on first use, and plug-ins come from the `toolgrade.profiles`
entry-point group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache, partial
from typing import get_args

from toolgrade._core.json_data import JsonValue
from toolgrade._core.memo import IdentityMemo
from toolgrade._core.toolcall import as_calls
from toolgrade._core.trusted import construct_trusted, trusted_builder
from toolgrade._core.vocab import ToolCall
from toolgrade.errors import ConfigError, SuiteError
from toolgrade.extract import Extraction
from toolgrade.judging._profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    JudgeFn,
    find_profile,
    profile_reads_any_name,
    profiles,
    register_profile,
)
from toolgrade.match import CallJudge, MatcherError, RubricName, matcher_problems
from toolgrade.match import Verdict as CallsVerdict
from toolgrade.results import CaseResult, PairResult, Status, Verdict
from toolgrade.suite import Case, SuiteDefaults, ToolSpec

__all__ = [
    "JudgeFn",
    "case_result",
    "judge",
    "profile_reads_any_name",
    "profiles",
    "register_profile",
]

_RUBRICS: tuple[str, ...] = get_args(RubricName)
_KNOWN_RUBRICS = frozenset(_RUBRICS)
_DEFAULT_PROFILE = DEFAULT_PROFILE
_profile = find_profile
_RESOLVED = PROFILES.resolved  # the profiles looked up already (`find_profile` fills it)


def judge(
    case: Case,
    actual: Extraction | Sequence[ToolCall | Mapping[str, JsonValue]],
    *,
    tools: Sequence[ToolSpec] | None,
    rubric: RubricName | None = None,
    strict: bool = False,
    profile: str = _DEFAULT_PROFILE,
    defaults: SuiteDefaults | None = None,
) -> CaseResult:
    """Judge the calls a model made against what a case expects.

    Tool names compare exactly; arguments compare semantically, guided by each tool's
    JSON Schema, and may be matchers (`{"$regex": ...}`). Several calls are paired by an
    optimal assignment (in sequence when the case's order is `strict`). The case passes
    when the calls match its expectation or any alternative; the best-scoring one is
    reported.

    Args:
        case: the case.
        actual: the extraction of the model's output, or a list of calls.
        tools: the tools offered to the case (`Suite.tools_for(case)`); a call to any
            other tool is a wrong tool. None accepts any tool name, without schemas.
        rubric: `binary`, `partial` or `f1`; None uses the case's, then the suite's
            (`defaults`), then `partial`.
        strict: fail on arguments the expectation does not mention.
        profile: the matching rules: `default`, `bfcl`, or a registered profile.
        defaults: the suite's defaults: rubric and order, for cases that leave them unset,
            and whether strings are trimmed where their schema does not say
            (`trim_strings`).

    Returns:
        The verdict: status, score, pairing and every argument difference.

    Raises:
        ConfigError: unknown profile or rubric.
        SuiteError: the expectation holds a malformed matcher, or a tool's schema is invalid.
        InputError: `actual` is a list holding something that is not a call.

    Examples:
        >>> case = Case(id="t1", prompt="Read the readme",
        ...             expected={"name": "read_file", "arguments": {"path": "README.md"}})
        >>> tool = ToolSpec(name="read_file", parameters={"type": "object",
        ...     "properties": {"path": {"type": "string"}}, "required": ["path"]})
        >>> r = judge(case, [{"name": "read_file", "arguments": {"path": "./README.md"}}],
        ...           tools=[tool])
        >>> r.status.value, r.score
        ('correct', 1.0)
    """
    chosen = rubric or case.rubric or (defaults.rubric if defaults else None) or "partial"
    if chosen not in _KNOWN_RUBRICS:
        raise ConfigError(f"unknown rubric {chosen!r} (known: {', '.join(_RUBRICS)})")
    extraction = actual if isinstance(actual, Extraction) else None
    if profile == _DEFAULT_PROFILE:
        calls = extraction.calls if extraction is not None else as_calls(actual, side="actual")
        verdict = _default_profile(
            case,
            calls,
            tools=tools,
            rubric=chosen,
            strict=strict,
            defaults=defaults,
            parse_failed=bool(extraction is not None and extraction.errors),
        )
    else:
        fn = _RESOLVED.get(profile) or _profile(profile)
        decided = fn(case, actual, tools=tools, rubric=chosen, strict=strict)
        if not isinstance(decided, Verdict):
            return decided  # a profile that builds its own result
        verdict = decided
        calls = extraction.calls if extraction is not None else as_calls(actual, side="actual")
    return case_result(case, verdict, rubric=chosen, actual=calls, extraction=extraction)


def case_result(
    case: Case,
    verdict: Verdict,
    *,
    rubric: RubricName,
    actual: Sequence[ToolCall] = (),
    extraction: Extraction | None = None,
    error: str | None = None,
    repeat: int = 0,
    latency_ms: float | None = None,
) -> CaseResult:
    """The result of a case: a profile's verdict, or an unscored status, with its labels.

    Every `CaseResult` is made here: by `judge` from a profile's verdict, and by the
    runner for a case that got no usable reply (`Verdict(Status.TIMEOUT, 0.0)` with
    the `error` saying why).

    Args:
        case: the case.
        verdict: what the profile decided (or the unscored status).
        rubric: the rubric the score follows.
        actual: the calls the model made.
        extraction: the extraction the calls came from, for its format and errors.
        error: for `error` and `timeout`: what went wrong.
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
        values["extraction_errors"] = tuple(f"{e.reason}: {e.message}" for e in errors)
    values["latency_ms"] = latency_ms
    values["error"] = error
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
    return fields


def _default_profile(
    case: Case,
    calls: Sequence[ToolCall],
    *,
    tools: Sequence[ToolSpec] | None,
    rubric: RubricName,
    strict: bool,
    defaults: SuiteDefaults | None,
    parse_failed: bool,
) -> Verdict:
    """Toolgrade's own rules (docs/matching.md): semantic values, optimal pairing."""
    judge_ = _call_judge(
        calls,
        tools=tools,
        strict=strict,
        parse_failed=parse_failed,
        trim=defaults.trim_strings if defaults else True,
    )
    order = case.order or (defaults.order if defaults else "any")
    index, found = _verdict(case, judge_, rubric=rubric, ordered=order == "strict")
    pairs = tuple(
        PairResult(
            expected_index=p.expected_index,
            actual_index=p.actual_index,
            verdict=p.kind,
            credit=p.credit if rubric == "partial" else float(p.kind == "correct"),
            details=p.mismatches,
        )
        for p in found.pairs
    )
    return Verdict(
        status=Status(found.status),
        score=found.score,
        pairs=pairs,
        details=tuple(found.details),
        expected=None if index is None else case.alternatives[index],
        alternative=index,
    )


def _call_judge(
    calls: Sequence[ToolCall],
    *,
    tools: Sequence[ToolSpec] | None,
    strict: bool,
    parse_failed: bool,
    trim: bool,
) -> CallJudge:
    return CallJudge(
        calls,
        schemas={t.name: t.parameters for t in tools or ()},
        offered=None if tools is None else frozenset(t.name for t in tools),
        strict=strict,
        parse_failed=parse_failed,
        trim=trim,
    )


def _verdict(
    case: Case, judge_: CallJudge, *, rubric: RubricName, ordered: bool
) -> tuple[int | None, CallsVerdict]:
    """The verdict, and which alternative it is against (None: the primary expectation).

    Raises:
        SuiteError: a malformed matcher, or an invalid tool schema, with the case id.
    """
    _check_matchers(case)
    try:
        if case.any_call:
            return None, _any_call(judge_)
        return _best(case, judge_, rubric=rubric, ordered=ordered)
    except MatcherError as exc:
        message = "malformed matcher in the expectation"
        raise SuiteError(message, case_id=case.id, problems=exc.problems) from None
    except SuiteError as exc:
        raise SuiteError(exc.message, case_id=case.id, location="tools") from None


# Cases whose matchers were checked, by identity (a case is frozen).
_CHECKED: IdentityMemo[Case, bool] = IdentityMemo(4096)


def _check_matchers(case: Case) -> None:
    """Refuse a malformed matcher even where the comparison would never reach it.

    Raises:
        SuiteError: every malformed matcher of the case, with its location.
    """
    _CHECKED.get(case, _matchers_checked)


def _matchers_checked(case: Case) -> bool:
    """True when every matcher of the case is well formed (see `_check_matchers`)."""
    problems: list[str] = []
    for k, expectation in enumerate((case.expected, *case.alternatives)):
        where = "expected" if k == 0 else f"alternatives[{k - 1}]"
        for i, call in enumerate(expectation):
            problems += matcher_problems(call.arguments, f"{where}[{i}].arguments")
    if problems:
        message = "malformed matcher in the expectation"
        raise SuiteError(message, case_id=case.id, problems=tuple(problems))
    return True


def _best(
    case: Case, judge_: CallJudge, *, rubric: RubricName, ordered: bool
) -> tuple[int | None, CallsVerdict]:
    """The best-scoring of the expectation and its alternatives (the earliest on ties)."""
    best_index: int | None = None
    best = judge_.verdict(case.expected, rubric=rubric, ordered=ordered)
    for k, alternative in enumerate(case.alternatives):
        if best.status == "correct":
            break
        verdict = judge_.verdict(alternative, rubric=rubric, ordered=ordered)
        if (verdict.score, verdict.closeness) > (best.score, best.closeness):
            best_index, best = k, verdict
    return best_index, best


def _any_call(judge_: CallJudge) -> CallsVerdict:
    """Relevance: any call of an offered tool passes, whatever its arguments."""
    if any(judge_.is_offered(c.name) for c in judge_.actual):
        return CallsVerdict("correct", 1.0, 1.0)
    if judge_.actual:
        return CallsVerdict("wrong_tool", 0.0, 0.0)
    return CallsVerdict("parse_error" if judge_.parse_failed else "missed_call", 0.0, 0.0)
