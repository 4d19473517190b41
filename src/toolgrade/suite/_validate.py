"""A suite's semantic problems: the checks of tools and cases, then of conversations."""

from __future__ import annotations

from collections.abc import Sequence

from toolgrade.suite._conversation_rules import (
    check_conversation,
    check_environments,
    check_states,
)
from toolgrade.suite._file_rules import Checker as Checker
from toolgrade.suite._file_rules import (
    Problem,
    SourceFile,
    check_case,
    check_tools,
    items_of,
)
from toolgrade.suite._outcome_rules import check_outcome

__all__ = ["semantic_problems"]


def semantic_problems(files: Sequence[SourceFile]) -> list[Problem]:
    """Every semantic problem of one suite file, or of a directory's files taken together.

    Checks: duplicate and conflicting tools (a case's own `tool_definitions` included),
    tool parameters that are not valid JSON Schemas, duplicate case ids, categories the
    suite does not declare, offered or expected tools neither the suite nor the case
    defines, expected arguments that violate the parameter schema of the tool the case
    offers (matcher values aside), malformed matchers; an expected outcome that
    contradicts the calls, or names a missing argument no offered tool takes
    (`_outcome_rules`); and `_conversation_rules`'s (environments, named states,
    conversations).

    Args:
        files: the parsed files, in load order.

    Returns:
        The problems, in file order; empty when valid.
    """
    chk = Checker(files)
    for src in files:
        check_tools(chk, src)
    for src in files:
        check_environments(chk, src)
        check_states(chk, src)
    for src in files:
        for index, case in items_of(src.data, "cases"):
            if "turns" in case:
                check_conversation(chk, src, case, index=index)
            else:
                where, offer = check_case(chk, src, case, index=index)
                check_outcome(chk, where, case, offer=offer)
    return chk.problems
