"""Which expected call pairs with which actual call, for `score_calls`.

`pair_calls_general` is the definition (today's path): a credit matrix (a big credit for
equal arguments, 1 for the same tool, 0 otherwise) solved by `toolgrade.match.align`.
`pair_calls` returns exactly the same pairs, not only as many, mostly without comparing
every same-tool pair of calls or building the matrix: the calls of a tool fall into
classes of equal calls (`_call_classes`), every other same-tool pair scores alike, and the
pairs `align` picks among the optimal ones follow from the classes. By layout:

- no tool called twice on either side (the README's example): each call meets its tool's;
- one tool on both sides (many calls of one function): classes, then the greedy below;
- several tools in short lists (up to `_MATRIX_LIMIT` cells): the general path's matrix
  and greedy, which run in C and cost less than grouping; only its fallback changes;
- several tools in longer lists: classes tool by tool, then the greedy below.

`align` first tries `distinct_maxima`: every expected call, fewest best columns first
(then by index), takes its first untaken best actual call; its best columns are its equal
calls, or, having none, all calls of its tool. Tools share no actual calls, so on the
classes that greedy comes down to this, tool by tool:

- A tool's only expected call takes its first equal call, else the tool's first call.
- If one class holds every actual call of the tool, all expected calls have the same best
  columns: in index order, each takes the next actual call.
- Otherwise an expected call with equal calls has fewer best columns than one without, so
  goes first: the k-th expected call of a class (by index) takes the class's k-th actual
  call. Then the expected calls without equal calls, in index order, take the untaken
  actual calls in order (`_pair_tools`).

The greedy fails when a tool, or a class, has more expected than actual calls. `align`
then solves each block (here: each tool) on its own with `solve_block`, which keeps the
first best of the candidate pairings in a fixed order when there are few of them, and
asks scipy otherwise: `_first_best` finds that first best candidate from the classes, and
a block for scipy gets the tool's part of the general path's matrix, cell for cell, so
scipy breaks its ties the same way (no greedy rule is known to reproduce them).

`tests/test_calls_pairing.py` compares the two functions on random call lists (20,000 a
run; `TOOLGRADE_PAIRING_CASES=100000` for more).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import compress, filterfalse
from operator import itemgetter, not_

from toolgrade._core.toolcall import RawCalls
from toolgrade.match._align import align, distinct_maxima, first_best, solve_block
from toolgrade.match._call_classes import equal_calls
from toolgrade.match._keys import same_arguments

__all__ = ["Pairs", "pair_calls", "pair_calls_general"]

Pairs = tuple[list[tuple[int, int]], list[tuple[int, int]], list[int], list[int]]
"""The correct and the incorrect pairs, each `(expected index, actual index)` by expected
index, then the expected calls and the actual calls left unpaired, ascending."""

_Split = tuple[list[tuple[int, int]], list[tuple[int, int]]]
"""Correct pairs and incorrect pairs."""

_first, _second = itemgetter(0), itemgetter(1)

_MANY = 8
"""From this many expected calls of a tool, `_one_call_per_class` is tried first."""

_MATRIX_LIMIT = 144
"""Up to this many cells (12 calls against 12), calls of several tools are paired on the
general path's matrix: its greedy runs in C (`max`, `count`, `index` on a row) and beats
grouping by tool; only its fallback changes (`_first_best` for the exhaustive search)."""

_Tool = tuple[list[int], list[int], list[Sequence[int]]]
"""A tool's expected calls, its actual calls, and each expected call's equal actual calls."""


def pair_calls(exp: RawCalls, act: RawCalls) -> Pairs:
    """Pair the calls as `pair_calls_general(..., ordered=False)` does, only faster.

    Returns:
        The pairs and the calls left unpaired (see `Pairs`).
    """
    exp_names, act_names = exp.names, act.names
    exp_tools = set(exp_names)
    n_exp, n_act = len(exp_names), len(act_names)
    if not n_exp or not n_act:
        return _with_unpaired(([], []), n_exp, n_act)
    if len(exp_tools) == n_exp:
        found = _one_call_per_tool(exp, act, exp_tools)
        if found is not None:
            return found
    big = float(min(n_exp, n_act) + 1)  # the general path's credit for a correct pair
    if len(exp_tools) == 1 and n_exp > 1 and act_names.count(exp_names[0]) == n_act:
        # One tool on both sides (many calls of one function): no grouping, and the
        # greedy's pairs come in order.
        rows, cols = list(range(n_exp)), list(range(n_act))
        tool = (rows, cols, equal_calls(rows, cols, exp_args=exp.arguments, act_args=act.arguments))
        split = _pair_tools([tool])
        if split is None:
            split = _by_blocks([tool], big)
            split[0].sort()
            split[1].sort()
        return _with_unpaired(split, n_exp, n_act)
    if n_exp * n_act <= _MATRIX_LIMIT:
        return _with_unpaired(_by_matrix(exp, act, big), n_exp, n_act)
    return _with_unpaired(_by_tools(exp, act, big), n_exp, n_act)


def _by_matrix(exp: RawCalls, act: RawCalls, big: float) -> _Split:
    """The general path's own greedy on its matrix; its blocks solved from the classes."""
    credit = _credit(exp, act, big)
    pairs = distinct_maxima(credit)
    if pairs is None:
        cols_of = _by_tool(act.names)
        tools: list[_Tool] = []
        for name, rows in _by_tool(exp.names).items():
            cols = cols_of.get(name)
            if cols is not None:
                equal: list[Sequence[int]] = [
                    [j for j in cols if credit[i][j] == big] for i in rows
                ]
                tools.append((rows, cols, equal))
        pairs = [pair for split in _by_blocks(tools, big) for pair in split]
    pairs.sort()
    correct = [(i, j) for i, j in pairs if credit[i][j] == big]
    return correct, [(i, j) for i, j in pairs if credit[i][j] != big]


def _one_call_per_tool(exp: RawCalls, act: RawCalls, exp_tools: set[str]) -> Pairs | None:
    """Pair calls when no tool is called twice on either side; None if one is.

    Each expected call pairs with the actual call of its tool, if any: every block is one
    cell, which `distinct_maxima` takes.
    """
    # Plain loops: on these short lists a comprehension's own call costs more (3.11).
    act_names = act.names
    col_of: dict[str, int] = {}
    for col, name in enumerate(act_names):
        col_of[name] = col
    if len(col_of) < len(act_names):
        return None
    exp_args, act_args = exp.arguments, act.arguments
    correct: list[tuple[int, int]] = []
    incorrect: list[tuple[int, int]] = []
    missed: list[int] = []
    for i, name in enumerate(exp.names):
        j = col_of.get(name)
        if j is None:
            missed.append(i)
        elif same_arguments(exp_args[i], act_args[j]):
            correct.append((i, j))
        else:
            incorrect.append((i, j))
    extra: list[int] = []
    if len(correct) + len(incorrect) < len(col_of):
        for name, col in col_of.items():
            if name not in exp_tools:
                extra.append(col)
    return correct, incorrect, missed, extra


def _by_tools(exp: RawCalls, act: RawCalls, big: float) -> _Split:
    """The pairs of every tool, whatever the layout."""
    exp_args, act_args = exp.arguments, act.arguments
    cols_of = _by_tool(act.names)
    correct: list[tuple[int, int]] = []
    incorrect: list[tuple[int, int]] = []
    tools: list[_Tool] = []
    for name, rows in _by_tool(exp.names).items():
        cols = cols_of.get(name)
        if cols is None:  # a tool never called pairs with nothing: its expected calls are missed
            continue
        if len(rows) > 1:
            equal = equal_calls(rows, cols, exp_args=exp_args, act_args=act_args)
            tools.append((rows, cols, equal))
            continue
        # A tool's only expected call takes its first equal call, else the tool's first
        # call: so choose both `distinct_maxima` and the block solver.
        i = rows[0]
        args = exp_args[i]
        for j in cols:
            if same_arguments(args, act_args[j]):
                correct.append((i, j))
                break
        else:
            incorrect.append((i, cols[0]))
    # Tools come in order of their first expected call, so the pairs of single expected
    # calls are in order; those of several need sorting in.
    if tools:
        more = _pair_tools(tools) or _by_blocks(tools, big)
        correct += more[0]
        incorrect += more[1]
        correct.sort()
        incorrect.sort()
    return correct, incorrect


def _by_tool(names: Sequence[str]) -> dict[str, list[int]]:
    """The indices of each tool's calls, ascending, tools in order of first call."""
    tools = dict.fromkeys(names)
    if len(tools) == 1:
        return {names[0]: list(range(len(names)))}
    groups: dict[str, list[int]] = {name: [] for name in tools}
    for i, name in enumerate(names):
        groups[name].append(i)
    return groups


def _with_unpaired(split: _Split, n_exp: int, n_act: int) -> Pairs:
    """The pairs, and the calls of each side that none of them holds."""
    correct, incorrect = split
    n_paired = len(correct) + len(incorrect)
    missed: list[int] = []
    if n_paired < n_exp:
        missed = sorted(set(range(n_exp)).difference(map(_first, correct), map(_first, incorrect)))
    extra: list[int] = []
    if n_paired < n_act:
        extra = sorted(set(range(n_act)).difference(map(_second, correct), map(_second, incorrect)))
    return correct, incorrect, missed, extra


def _pair_tools(tools: list[_Tool]) -> _Split | None:
    """`distinct_maxima`'s pairs for these tools (see the module docstring); None if it fails."""
    correct: list[tuple[int, int]] = []
    incorrect: list[tuple[int, int]] = []
    for rows, cols, equal in tools:
        n = len(cols)
        if len(rows) > n:
            return None
        if n in map(len, equal):  # one class holds every actual call
            for i, j, eq in zip(rows, cols, equal, strict=False):  # fewer rows than columns
                (correct if eq else incorrect).append((i, j))
            continue
        if len(rows) >= _MANY:
            found = _one_call_per_class(rows, cols, equal)
            if found is not None:
                correct += found[0]
                incorrect += found[1]
                continue
        taken: dict[int, int] = {}  # per class (named by its first actual call): calls taken
        used: set[int] = set()
        left: list[int] = []
        for i, eq in zip(rows, equal, strict=True):
            if eq:
                k = taken.get(eq[0], 0)
                if k == len(eq):
                    return None
                taken[eq[0]] = k + 1
                correct.append((i, eq[k]))
                used.add(eq[k])
            else:
                left.append(i)
        if left:
            incorrect += zip(left, filterfalse(used.__contains__, cols), strict=False)
    return correct, incorrect


def _one_call_per_class(
    rows: list[int], cols: list[int], equal: list[Sequence[int]]
) -> _Split | None:
    """`_pair_tools` for one tool when no class holds two expected calls; else None.

    Each expected call then takes its class's first actual call: the same pairs as the
    loop in `_pair_tools`, found in C (it pays from `_MANY` expected calls).
    """
    firsts = list(map(_first, filter(None, equal)))  # each class named by its first call
    used = set(firsts)
    if len(used) < len(firsts):
        return None
    correct = list(zip(compress(rows, equal), firsts, strict=True))
    if len(correct) == len(rows):
        return correct, []
    left = compress(rows, map(not_, equal))
    return correct, list(zip(left, filterfalse(used.__contains__, cols), strict=False))


def _by_blocks(tools: list[_Tool], big: float) -> _Split:
    """`align`'s block-by-block solution: one block per tool, as `solve_block` solves it."""
    correct: list[tuple[int, int]] = []
    incorrect: list[tuple[int, int]] = []
    for rows, cols, equal in tools:
        if first_best(len(rows), len(cols)):
            local = _first_best(rows, cols, equal)
        else:  # scipy: the tool's part of the general path's matrix, cell for cell
            credit = [[big if j in eq else 1.0 for j in cols] for eq in equal]
            local = solve_block(credit, list(range(len(rows))), list(range(len(cols))))
        for r, c in local:
            pair = rows[r], cols[c]
            (correct if cols[c] in equal[r] else incorrect).append(pair)
    return correct, incorrect


def _first_best(
    rows: list[int], cols: list[int], equal: list[Sequence[int]]
) -> list[tuple[int, int]]:
    """The first best candidate of `solve_block`'s search, found without trying them all.

    Each call of the smaller side takes, in turn, the first free call of the larger side
    that still lets the rest reach the most correct pairs: by classes, the rest reaches
    `sum(min(expected in c, actual in c))` over classes c. Taking a call of its own class
    keeps that; taking another one keeps it only if neither call's class is short of the
    other side's calls. Credits are whole numbers, so the sums tie exactly where the search
    sees a tie, and the search keeps the first best candidate in lexicographic order.

    Returns:
        Pairs of positions in `rows` and `cols`.
    """
    # A class is named by its first actual call; calls outside every class are None.
    row_class = [eq[0] if eq else None for eq in equal]
    col_of_class = {j: eq[0] for eq in equal for j in eq}
    col_class = [col_of_class.get(j) for j in cols]
    swap = len(rows) > len(cols)
    small, large = (col_class, row_class) if swap else (row_class, col_class)
    n_small = Counter(c for c in small if c is not None)
    n_large = Counter(c for c in large if c is not None)
    free = [True] * len(large)
    chosen: list[int] = []
    for mine in small:
        spare = mine is None or n_small[mine] > n_large[mine]
        # Some completion always reaches the optimum, so some call qualifies.
        k = next(
            k
            for k, theirs in enumerate(large)
            if free[k]
            and (
                (theirs is not None and theirs == mine)
                or (spare and (theirs is None or n_large[theirs] > n_small[theirs]))
            )
        )
        free[k] = False
        chosen.append(k)
        if mine is not None:
            n_small[mine] -= 1
        if (theirs := large[k]) is not None:
            n_large[theirs] -= 1
    if swap:
        return [(k, m) for m, k in enumerate(chosen)]
    return list(enumerate(chosen))


def pair_calls_general(exp: RawCalls, act: RawCalls, *, ordered: bool) -> Pairs:
    """Pair the calls by an optimal assignment of the full credit matrix (the definition).

    Maximises the number of correct pairs, then the number of same-tool pairs; with
    `ordered`, pairs keep the order of both lists.

    Returns:
        The pairs and the calls left unpaired (see `Pairs`).
    """
    n_exp, n_act = len(exp.names), len(act.names)
    # Lexicographic objective: one correct pair outweighs every same-name pair.
    big = float(min(n_exp, n_act) + 1)
    credit = _credit(exp, act, big)
    pairs = align(credit, ordered=ordered)
    correct = [(i, j) for i, j in pairs if credit[i][j] == big]
    incorrect = [(i, j) for i, j in pairs if credit[i][j] != big]
    return _with_unpaired((correct, incorrect), n_exp, n_act)


def _credit(exp: RawCalls, act: RawCalls, big: float) -> list[list[float]]:
    """The credit matrix: `big` for equal calls of a tool, 1 for other calls of it, else 0."""
    exp_args, act_args = exp.arguments, act.arguments
    credit = [[0.0] * len(act.names) for _ in exp.names]
    rows_of: dict[str, list[int]] = {}
    for i, name in enumerate(exp.names):
        rows_of.setdefault(name, []).append(i)
    # Only calls of the same tool are compared; `same_arguments` holds exactly when
    # `compare_arguments(..., options=DEEP_EQUALITY)` finds no difference.
    for j, name in enumerate(act.names):
        for i in rows_of.get(name, ()):
            credit[i][j] = big if same_arguments(exp_args[i], act_args[j]) else 1.0
    return credit
