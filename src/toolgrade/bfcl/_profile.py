"""The `bfcl` judge profile: BFCL's AST checker's answers on toolgrade cases, as verdicts.

`PROFILE` is the profile, which the profile registry imports the first time `bfcl` is
asked for: `judge_bfcl` judges replies, and `judge_bfcl_conversation`
(`toolgrade.bfcl._mt_checker`) the conversations imported from BFCL. `judge_bfcl`
recovers BFCL's function docs from the tools' schemas and BFCL's possible answers from
the expected calls (`toolgrade.bfcl._codec`), compiles BFCL's checker rules for them
once per case and tools (`toolgrade.bfcl._compiled`, the rules of
`toolgrade.bfcl._checker`), and returns its check as a `Verdict`, which `judge` makes a
result. The rules, and where they differ from the default profile, are in docs/bfcl.md.
BFCL gives no partial credit: every case scores 1 or 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from toolgrade._core.json_data import JsonValue
from toolgrade._core.memo import IdentityMemo
from toolgrade._core.toolcall import as_calls
from toolgrade._core.trusted import construct_trusted, slots_builder, trusted_builder
from toolgrade._core.vocab import (
    REQUIRED_BY_SCHEMA,
    Mismatch,
    MismatchReason,
    PairKind,
    Rubric,
    ToolCall,
)
from toolgrade.bfcl._answer import prepare_answer
from toolgrade.bfcl._check_result import BfclCheck, ErrorType
from toolgrade.bfcl._checker import BfclFunction, Language
from toolgrade.bfcl._codec import decode_answer, function_from_schema
from toolgrade.bfcl._compiled import FIRST_PAIR, CompiledChecker, compile_checker
from toolgrade.bfcl._mt_checker import judge_bfcl_conversation
from toolgrade.extract import Extraction
from toolgrade.judging import Profile
from toolgrade.results import PairResult, Status, Verdict
from toolgrade.suite import Case, ToolSpec

__all__ = ["PROFILE", "checker_for", "judge_bfcl", "language_of"]

_LANGUAGE_TAGS: dict[str, Language] = {
    "language:java": "java",
    "language:javascript": "javascript",
}
_CATEGORY_LANGUAGES: dict[str, Language] = {
    "simple_java": "java",
    "simple_javascript": "javascript",
}
_REASONS: dict[ErrorType, MismatchReason] = {
    "missing_required": "missing",
    "missing_optional": "missing",
    "unexpected_param": "unexpected",
    "type_error:simple": "type",
    "type_error:nested": "type",
    "type_error:java": "type",
    "type_error:js": "type",
}


# BFCL's own wording where it misleads: "missing_optional" is an argument the possible
# answer names without accepting its absence, whatever the doc's `required` says.
_MESSAGES: dict[ErrorType, str] = {
    "missing_required": REQUIRED_BY_SCHEMA,
    "missing_optional": "the possible answer expects it and does not accept leaving it out",
}


_CORRECT = Verdict(status=Status.CORRECT, score=1.0)
# Looked up once: an enum member costs a lookup through its class each time.
_CORRECT_STATUS, _MISSED, _UNEXPECTED = Status.CORRECT, Status.MISSED_CALL, Status.UNEXPECTED_CALL


def language_of(case: Case) -> Language:
    """The language BFCL checks a case's values in: its `language:` tag, else its category."""
    for tag in case.tags:
        if tag in _LANGUAGE_TAGS:
            return _LANGUAGE_TAGS[tag]
    return _CATEGORY_LANGUAGES.get(case.category, "python")


def judge_bfcl(
    case: Case,
    actual: Extraction | Sequence[ToolCall | Mapping[str, JsonValue]],
    /,
    *,
    tools: Sequence[ToolSpec] | None,
    rubric: Rubric | None = None,
    strict: bool = False,
) -> Verdict:
    """Judge a case with BFCL's AST-checker rules (see docs/bfcl.md).

    An extraction that reported a malformed call counts as BFCL's decode failure: the
    case fails, except an irrelevance case (no call must be made), which passes.

    Args:
        case: the case (expected calls encoded as the BFCL importer writes them).
        actual: the extraction of the model's output, or a list of calls.
        tools: the tools offered (their schemas carry BFCL's types).
        rubric: ignored; BFCL's check is binary, so is the score.
        strict: ignored; BFCL always fails unexpected arguments.

    Returns:
        The verdict, with BFCL's error type in the details.
    """
    if isinstance(actual, Extraction):
        calls = actual.calls
        decoded = None if actual.errors else calls
    else:
        calls = decoded = as_calls(actual, side="actual")
    status, check = _decide(case, decoded, tools or ())
    if status is _CORRECT_STATUS:
        if check is FIRST_PAIR:
            return _CORRECT_FIRST
        return _CORRECT if check is None else _correct_verdict(check.pairs)
    # Built as the valid values they are: every field, in order.
    pairs, details = _pairs(case, calls, status), _details(check)
    return _new_verdict(status, 0.0, pairs, details, None, None, None, None, None, None)


def _decide(
    case: Case, decoded: Sequence[ToolCall] | None, tools: Sequence[ToolSpec]
) -> tuple[Status, BfclCheck | None]:
    if case.any_call:
        # live_relevance: any decoded call passes, whatever its name and arguments.
        return (_CORRECT_STATUS if decoded else _MISSED), None
    if not case.expected:
        return (_UNEXPECTED if decoded else _CORRECT_STATUS), None
    if decoded is None:
        return Status.PARSE_ERROR, _DECODER_FAILED
    # `_CHECKERS.find(case)` and `fits(tools)`, inline for the commonest hit: the
    # tools of the last judging, the same tuple (`Suite.tools_for` gives one per case).
    hit = _CHECKER_ENTRIES.get(id(case))
    if hit is not None and hit[0] is case and hit[1].tools is tools:
        checker = hit[1]
    else:
        checker = checker_for(case, tools)
    check = checker.check(decoded)
    if check.valid:
        return _CORRECT_STATUS, check
    return _status(check, len(case.expected), len(decoded)), check


_DECODER_FAILED = BfclCheck(False, "ast_decoder:decoder_failed", "Invalid syntax.")
# Per case, BFCL's checker compiled for the tools it was last judged with.
_CHECKERS: IdentityMemo[Case, CompiledChecker] = IdentityMemo(8192)
_CHECKER_ENTRIES = _CHECKERS.entries
_FUNCTIONS: IdentityMemo[ToolSpec, dict[Language, BfclFunction]] = IdentityMemo(4096)


def checker_for(case: Case, tools: Sequence[ToolSpec]) -> CompiledChecker:
    """BFCL's checker for a case offering `tools`, compiled once per case and tools."""
    found = _CHECKERS.find(case)
    if found is not None and found.fits(tools):
        return found
    language = language_of(case)
    # BFCL knows one possible answer per entry; alternatives are only tried after it.
    expectations = [
        [prepare_answer(call.name, decode_answer(call.arguments)) for call in expectation]
        for expectation in (case.expected, *case.alternatives)
    ]
    # Only the docs of the functions the answers call are read (the first of each name).
    wanted = {answer.name for expectation in expectations for answer in expectation}
    functions = [
        _FUNCTIONS.get(t, _no_docs).get(language) or _function(t, language)
        for t in tools
        if t.name in wanted
    ]
    compiled = compile_checker(functions, expectations, language=language, tools=tools)
    _CHECKERS.put(case, compiled)
    return compiled


def _function(tool: ToolSpec, language: Language) -> BfclFunction:
    doc = function_from_schema(tool.name, tool.parameters, language)
    _FUNCTIONS.get(tool, _no_docs)[language] = doc
    return doc


def _no_docs(_tool: ToolSpec) -> dict[Language, BfclFunction]:
    return {}


def _status(check: BfclCheck, n_expected: int, n_actual: int) -> Status:
    if check.valid:
        return Status.CORRECT
    if check.error_type == "wrong_count":
        if n_actual == 0:
            return Status.MISSED_CALL
        return Status.EXTRA_CALLS if n_actual > n_expected else Status.MISSED_CALL
    if check.error_type == "wrong_func_name":
        return Status.WRONG_TOOL
    return Status.WRONG_ARGS


def _pairs(case: Case, calls: Sequence[ToolCall], status: Status) -> tuple[PairResult, ...]:
    """The pairs of a failed verdict: one call against one expected call, judged."""
    if len(case.expected) == 1 and len(calls) == 1:
        return _WRONG_TOOL_PAIR if status is Status.WRONG_TOOL else _WRONG_ARGS_PAIR
    return ()


@lru_cache(maxsize=256)
def _correct_verdict(pairs: tuple[tuple[int, int], ...]) -> Verdict:
    # Frozen: every correct verdict with the same pairing is the same value.
    return Verdict(status=Status.CORRECT, score=1.0, pairs=_correct_pairs(pairs))


@lru_cache(maxsize=256)
def _correct_pairs(pairs: tuple[tuple[int, int], ...]) -> tuple[PairResult, ...]:
    # Frozen, so the same pairing can share its instances with every result.
    return tuple(_pair(i, j, "correct", 1.0) for i, j in pairs)


def _pair(expected_index: int, actual_index: int, kind: PairKind, credit: float) -> PairResult:
    """A pair with no argument differences, built as the valid values it is given."""
    return construct_trusted(
        PairResult,
        {
            "expected_index": expected_index,
            "actual_index": actual_index,
            "verdict": kind,
            "credit": credit,
            "details": (),
        },
    )


# Frozen: every failed one-to-one pairing of a kind is the same value.
_WRONG_TOOL_PAIR = (_pair(0, 0, "wrong_tool", 0.0),)
_WRONG_ARGS_PAIR = (_pair(0, 0, "wrong_args", 0.0),)


def _details(check: BfclCheck | None) -> tuple[Mismatch, ...]:
    if check is None or check.valid:
        return ()
    reason = _REASONS.get(check.error_type, "value")
    path = f"$.{check.param}" if check.param else "$"
    # The details carry no values: reports tell them by their message (docs/bfcl.md).
    text = _MESSAGES.get(check.error_type, check.message)
    message = f"BFCL {check.error_type}: {text}"
    # Built as validated values: a path, one of the reasons, a message.
    return (
        _new_mismatch(
            {
                "path": path,
                "reason": reason,
                "expected": None,
                "actual": None,
                "message": message,
                "call": None,
            }
        ),
    )


_new_verdict = slots_builder(Verdict)
_new_mismatch = trusted_builder(Mismatch)


_CORRECT_FIRST = _correct_verdict(FIRST_PAIR.pairs)

PROFILE = Profile("bfcl", judge_bfcl, judge_bfcl_conversation, reads_any_name=True)
"""The `bfcl` profile: BFCL's AST checker on replies, its multi-turn checker on the
conversations imported from BFCL (the profile registry's entry `bfcl` names it)."""
