"""One line saying why a case failed: "Expected search, got read_file".

A conversation's reason is its first failure, placed: `Turn 2: wrong_args — ...`
(turns counted from 1), or `Final_state: state_mismatch — ...` for an end check.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolgrade._core.json_data import shown_json
from toolgrade._core.transcript import FirstFailure
from toolgrade._core.vocab import Mismatch, ToolCall
from toolgrade.results import CaseResult, Status

__all__ = [
    "argument_name",
    "describe_failure",
    "first_failure_text",
    "mismatch_sentence",
    "where_text",
]

_MESSAGE_CHARS = 480

# A conversational status on a result that carries no record (e.g. built by hand).
_CONVERSATIONAL: dict[Status, str] = {
    Status.FORBIDDEN_CALL: "A forbidden call was made",
    Status.STATE_MISMATCH: "The final state is not the expected one",
    Status.REPLY_MISMATCH: "A reply does not say what it must",
    Status.STEP_LIMIT: "A turn used every step it was allowed without answering",
    Status.UNCOVERED_CALL: "A call that no scripted rule covers",
}


def describe_failure(result: CaseResult) -> str:
    """Say in one line why a case did not pass.

    The reason is derived from the result's status, its call pairing and its argument
    differences, so it is the same in every report format.

    Args:
        result: the judged case.

    Returns:
        A short sentence, e.g. `Expected search, got read_file`,
        `Missing required arg 'pattern'` (the tool's schema requires it),
        `Missing expected argument 'paths'` (only the expectation names it),
        `No tool call made`, or `Correct` for a case that passed.

    Examples:
        >>> from toolgrade import CaseResult, ToolCall
        >>> describe_failure(CaseResult(case_id="TC-1", status="missed_call", score=0.0,
        ...     expected=(ToolCall(name="search", arguments={}),)))
        'No tool call made (expected search)'
    """
    status = result.status
    if status is Status.CORRECT:
        return "Correct"
    failure = result.conversation.first_failure if result.conversation is not None else None
    if failure is not None:
        text = first_failure_text(failure)
        # `Turn 2: ...` reads as a sentence; a check keeps its name (`final_state: ...`).
        return text[:1].upper() + text[1:] if failure.turn is not None else text
    if status in _CONVERSATIONAL:
        return _CONVERSATIONAL[status]
    if status is Status.TIMEOUT:
        return f"Timed out: {result.error}" if result.error else "Timed out"
    if status is Status.ERROR:
        return f"Error: {result.error}" if result.error else "Error"
    if status is Status.MISSED_CALL:
        return _missed(result)
    if status is Status.UNEXPECTED_CALL:
        return f"Unexpected call to {_names(result.actual)} (no call expected)"
    if status is Status.PARSE_ERROR:
        problem = result.extraction_errors[0] if result.extraction_errors else "unparseable"
        return f"Malformed tool call: {problem}"
    if status is Status.WRONG_TOOL:
        return _wrong_tool(result)
    if status is Status.EXTRA_CALLS:
        return _extra(result)
    return _wrong_args(result)


def where_text(failure: FirstFailure) -> str:
    """Where a conversation first failed: `turn 2` (from 1), `turn 2 step 1`, `final_state`.

    Examples:
        >>> where_text(FirstFailure(cause="wrong_args", message="", turn=1))
        'turn 2'
    """
    if failure.turn is not None:
        place = f"turn {failure.turn + 1}"
        return place if failure.step is None else f"{place} step {failure.step + 1}"
    return failure.check or "end checks"


def first_failure_text(failure: FirstFailure) -> str:
    """`turn 2: wrong_args — Wrong value for 'path'`, on one line.

    Examples:
        >>> first_failure_text(FirstFailure(cause="state_mismatch",
        ...     message="/files/a.md differs", check="final_state"))
        'final_state: state_mismatch — /files/a.md differs'
    """
    message = " ".join(failure.message.split())
    if len(message) > _MESSAGE_CHARS:
        message = message[: _MESSAGE_CHARS - 1] + "…"
    return f"{where_text(failure)}: {failure.cause} — {message}"


def argument_name(path: str) -> str:
    """The argument a mismatch path points at: `$.options.recursive` -> `options.recursive`."""
    if path.startswith("$."):
        return path[2:]
    return path[1:] if path.startswith("$") and len(path) > 1 else path


def _names(calls: Sequence[ToolCall]) -> str:
    seen = list(dict.fromkeys(c.name for c in calls))
    return ", ".join(seen) if seen else "nothing"


def _missed(result: CaseResult) -> str:
    if result.actual:
        # Some calls were made: name the expected calls left without a partner.
        missing = [
            result.expected[p.expected_index]
            for p in result.pairs
            if p.verdict == "missed" and p.expected_index is not None
        ]
        return f"Missing call to {_names(tuple(missing) or result.expected)}"
    text = "No tool call made"
    if result.expected:
        text += f" (expected {_names(result.expected)})"
    if result.extraction_errors:
        text += f"; malformed call: {result.extraction_errors[0]}"
    return text


def _wrong_tool(result: CaseResult) -> str:
    for pair in result.pairs:
        e_i, a_i = pair.expected_index, pair.actual_index
        if (
            pair.verdict == "wrong_tool"
            and e_i is not None
            and a_i is not None
            and e_i < len(result.expected)
            and a_i < len(result.actual)
        ):
            return f"Expected {result.expected[e_i].name}, got {result.actual[a_i].name}"
    actual_names = {c.name for c in result.actual}
    expected_names = {c.name for c in result.expected}
    missing = [c for c in result.expected if c.name not in actual_names] or list(result.expected)
    surplus = [c for c in result.actual if c.name not in expected_names] or list(result.actual)
    return f"Expected {_names(missing)}, got {_names(surplus)}"


def _extra(result: CaseResult) -> str:
    paired = {p.actual_index for p in result.pairs if p.verdict != "extra"}
    extra = [c for i, c in enumerate(result.actual) if i not in paired] if result.pairs else []
    if not extra:
        extra = list(result.actual[len(result.expected) :])
    if len(extra) == 1:
        return f"Extra call to {extra[0].name}"
    if extra:
        return f"{len(extra)} extra calls: {_names(extra)}"
    return "Extra tool calls"


def _wrong_args(result: CaseResult) -> str:
    if not result.details:
        return "Wrong arguments"
    text = mismatch_sentence(result.details[0])
    more = len(result.details) - 1
    return f"{text} (+{more} more)" if more else text


def mismatch_sentence(mismatch: Mismatch) -> str:
    """Say what one argument difference is, as a sentence.

    A missing argument is "required" only when the tool's schema requires it; one that
    only the expectation names is "expected". The difference's message (the schema's
    reason, a matcher's) follows the values. A difference that carries no values (the
    `bfcl` profile's) is told by its message rather than as `expected null, got null`.

    Examples:
        >>> mismatch_sentence(Mismatch(path="$.paths", reason="missing", expected=["a"]))
        "Missing expected argument 'paths'"
        >>> mismatch_sentence(Mismatch(path="$.n", reason="unexpected", actual=1))
        "Unexpected arg 'n'"
        >>> mismatch_sentence(Mismatch(path="$.n", reason="value", expected=50, actual=10,
        ...                            message="10 is less than the least accepted, 50"))
        "Wrong value for 'n': expected 50, got 10 (10 is less than the least accepted, 50)"
    """
    name = argument_name(mismatch.path)
    if mismatch.reason == "missing":
        if mismatch.required_by_schema:
            return f"Missing required arg '{name}'"
        text = f"Missing expected argument '{name}'"
        return f"{text} ({mismatch.message})" if mismatch.message else text
    if mismatch.reason == "unexpected":
        text = f"Unexpected arg '{name}'"
        if not mismatch.message:
            return text
        return (
            f"{text}: {mismatch.message}"
            if mismatch.values_known
            else f"{text} ({mismatch.message})"
        )
    if mismatch.reason == "schema":
        return f"Arg '{name}' violates the schema" + (
            f": {mismatch.message}" if mismatch.message else ""
        )
    kind = "type" if mismatch.reason == "type" else "value"
    if not mismatch.values_known:
        return f"Wrong {kind} for '{name}': {mismatch.message}"
    text = (
        f"Wrong {kind} for '{name}': expected {shown_json(mismatch.expected)}, "
        f"got {shown_json(mismatch.actual)}"
    )
    return f"{text} ({mismatch.message})" if mismatch.message else text
