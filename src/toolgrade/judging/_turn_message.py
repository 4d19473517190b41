"""What was wrong with a turn's calls, in one line that says what happened.

A missed expected call is told by what became of its tool in the turn, from the
verdict's pairs: not called at all (`read_file not called`), called fewer times than
expected (`read_file called 1 of 2 times`), called but the call failed (`edit_file was
called but failed: ...`, see `toolgrade.judging._failed_calls`), or called with other
arguments (`read_file called 2 of 3 times, but 1 with other arguments: $.path: ...`). A
`wrong_args` turn names the tool and the first difference (`read_file: $.path: ...`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toolgrade._core.toolcall import call_at
from toolgrade._core.verdict import Verdict
from toolgrade._core.vocab import PairResult, Status, ToolCall
from toolgrade.judging._trajectory import describe_call

__all__ = ["calls_message"]


def calls_message(
    judged: Verdict,
    calls: Sequence[ToolCall],
    expected: Sequence[ToolCall],
    failed: Mapping[int, str],
) -> str:
    """What was wrong with the turn's calls (not a malformed call), in one line.

    A plug-in profile's verdict may name no pair, or indices out of range: the message
    then says less, never fails.

    Args:
        judged: the verdict on the turn's calls (not correct).
        calls: the turn's calls.
        expected: the expectation judged against.
        failed: the calls whose result was an error, by index, with why.
    """
    status = judged.status
    if status == Status.UNEXPECTED_CALL:
        return f"no call expected, got {_described(call_at(calls, 0), 'a call')}"
    if status == Status.EXTRA_CALLS:
        extra = next((p.actual_index for p in judged.pairs if p.verdict == "extra"), None)
        return f"extra call {_described(call_at(calls, extra), 'made')}" + _failed_note(
            extra, failed
        )
    if status == Status.MISSED_CALL:
        return _missed(judged.pairs, calls, expected, failed)
    if status == Status.WRONG_TOOL:
        pair = next((p for p in judged.pairs if p.verdict == "wrong_tool"), None)
        if pair is None:
            return "a call of the wrong tool"
        want, got = call_at(expected, pair.expected_index), call_at(calls, pair.actual_index)
        told = f"expected {want.name if want else '?'}, got {got.name if got else '?'}"
        return told + _failed_note(pair.actual_index, failed)
    details = judged.details
    named = call_at(expected, details[0].call) if details else None
    first = details[0].describe() if details else "arguments differ"
    more = f" (and {len(details) - 1} more)" if len(details) > 1 else ""
    if named is None:
        return first + more
    pair = next((p for p in judged.pairs if p.expected_index == details[0].call), None)
    told = f"{named.name}: {first}{more}"
    return told + _failed_note(pair.actual_index if pair else None, failed)


def _failed_note(index: int | None, failed: Mapping[int, str]) -> str:
    """`, which failed: ...` when the call at `index` failed; else nothing."""
    why = failed.get(index) if index is not None else None
    return f", which failed: {why}" if why else ""


def _described(call: ToolCall | None, otherwise: str) -> str:
    return describe_call(call) if call is not None else otherwise


def _missed(
    pairs: Sequence[PairResult],
    calls: Sequence[ToolCall],
    expected: Sequence[ToolCall],
    failed: Mapping[int, str],
) -> str:
    """Each tool with a missed expected call, and what became of it in the turn.

    Tools expected once and not called at all share one clause (`cd, mkdir not called`).
    """
    missed = (call_at(expected, p.expected_index) for p in pairs if p.verdict == "missed")
    names = list(dict.fromkeys(c.name for c in missed if c is not None))
    if not names:
        return "an expected call not called"
    told = {name: _tool_missed(name, pairs, calls, expected, failed) for name in names}
    plain = [name for name in names if told[name] == f"{name} not called"]
    clauses = [f"{', '.join(plain)} not called"] if plain else []
    clauses += [text for name, text in told.items() if name not in plain]
    return "; ".join(clauses)


def _tool_missed(
    name: str,
    pairs: Sequence[PairResult],
    calls: Sequence[ToolCall],
    expected: Sequence[ToolCall],
    failed: Mapping[int, str],
) -> str:
    """What became of one tool with a missed expected call.

    Examples:
        >>> read = ToolCall(name="read_file", arguments={"path": "a.md"})
        >>> made = PairResult(expected_index=0, actual_index=0, verdict="correct")
        >>> missed = PairResult(expected_index=1, actual_index=None, verdict="missed")
        >>> _tool_missed("read_file", [made, missed], [read], [read, read], {})
        'read_file called 1 of 2 times'
        >>> failing = PairResult(expected_index=None, actual_index=0, verdict="extra")
        >>> _tool_missed("read_file", [missed, failing], [read], [read], {0: "503"})
        'read_file was called but failed: 503'
        >>> _tool_missed("read_file", [missed], [], [read, read], {})
        'read_file not called (expected 2 times)'
        >>> _tool_missed("read_file", [missed, failing], [read], [read], {})
        'read_file called, but with other arguments'
    """
    wanted = sum(c.name == name for c in expected)

    def of_tool(pair: PairResult) -> bool:
        call = call_at(expected, pair.expected_index) or call_at(calls, pair.actual_index)
        return call is not None and call.name == name

    ours = [p for p in pairs if of_tool(p)]
    made = sum(p.verdict == "correct" for p in ours)
    failing = [failed[j] for p in ours if (j := p.actual_index) is not None and j in failed]
    other = [
        p
        for p in ours
        if p.verdict in ("wrong_args", "extra")
        and (j := p.actual_index) is not None
        and j not in failed
        and call_at(calls, j) is not None
    ]
    attempts = made + len(failing) + len(other)
    if not attempts:
        return f"{name} not called" + (f" (expected {wanted} times)" if wanted > 1 else "")
    differs = next((d.describe() for p in other for d in p.details), None)
    if wanted == 1 and attempts == 1:
        if failing:
            return f"{name} was called but failed: {failing[0]}"
        return f"{name} called, but with other arguments" + (f": {differs}" if differs else "")
    head = (
        f"{name} called {attempts} of {wanted} times"
        if attempts <= wanted
        else f"{name} called {attempts} times for {wanted} expected"
    )
    buts = []
    if failing:
        buts.append(f"{len(failing)} failed: {failing[0]}")
    if other:
        buts.append(f"{len(other)} with other arguments" + (f": {differs}" if differs else ""))
    return head + (", but " + "; ".join(buts) if buts else "")
