"""Which pairs of models a suite separates: every pair tested, the family corrected.

Each pair of models is compared on the cases both scored with McNemar's exact test
(`toolgrade.stats.mcnemar_exact`): only the cases one model passed and the other failed
carry evidence. A leaderboard of `m` models makes `m(m-1)/2` such tests at once, and
at alpha 0.05 some of them come out "significant" by chance alone; Holm's step-down
correction (Holm 1979) keeps the chance of declaring *any* equal pair separated at
most alpha, whatever the pairs' dependence, and is uniformly more powerful than
Bonferroni. Sorted ascending, the k-th smallest of `t` p-values is multiplied by
`t - k + 1`, then made non-decreasing (each adjusted p-value is at least the one
before it) and capped at 1; a pair is *separated* when its adjusted p-value is below
alpha.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolgrade._core.json_data import JsonObject
from toolgrade.stats import mcnemar_exact

__all__ = ["PairTest", "holm_adjust", "pair_tests", "separation_summary"]


@dataclass(frozen=True, slots=True)
class PairTest:
    """Two models compared on the cases both scored; `first` has the higher accuracy."""

    first: str
    """The model with the higher accuracy on the shared cases (on a tie, the one listed first)."""
    second: str
    """The other model."""
    cases: int
    """Cases both models scored."""
    delta: float
    """`first`'s accuracy minus `second`'s on those cases, a fraction (>= 0)."""
    first_only: int
    """Cases only `first` passed."""
    second_only: int
    """Cases only `second` passed."""
    p_value: float
    """McNemar's exact p-value."""
    adjusted_p: float
    """The p-value after Holm's correction over every pair of the leaderboard."""
    separated: bool
    """`adjusted_p` < alpha: the suite tells the two models apart."""

    def to_dict(self) -> JsonObject:
        """Return the test as a JSON object."""
        return {
            "first": self.first,
            "second": self.second,
            "cases": self.cases,
            "delta": self.delta,
            "first_only": self.first_only,
            "second_only": self.second_only,
            "p_value": self.p_value,
            "adjusted_p": self.adjusted_p,
            "separated": self.separated,
        }


def holm_adjust(p_values: Sequence[float]) -> tuple[float, ...]:
    """Holm's step-down adjusted p-values, in the order given (see the module docstring).

    Examples:
        >>> holm_adjust([0.01, 0.04, 0.03])
        (0.03, 0.06, 0.06)
    """
    order = sorted(range(len(p_values)), key=lambda k: p_values[k])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for position, k in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - position) * p_values[k]))
        adjusted[k] = running
    return tuple(adjusted)


def pair_tests(
    labels: Sequence[str], outcomes: Sequence[Mapping[str, bool]], *, alpha: float = 0.05
) -> tuple[PairTest, ...]:
    """Test every pair of models and correct the family with Holm's method.

    Args:
        labels: the models' labels.
        outcomes: per model, whether it passed each case it scored, by case id.
        alpha: the family-wise significance level.

    Returns:
        One test per pair that shares a case, in the order of the models given
        (0-1, 0-2, ..., 1-2, ...).

    Raises:
        ValueError: labels and outcomes differ in length, or alpha is outside (0, 1).

    Examples:
        >>> a = {f"c{i}": True for i in range(12)}
        >>> b = {f"c{i}": i < 2 for i in range(12)}
        >>> (test,) = pair_tests(["a", "b"], [a, b])
        >>> (test.first, test.second, test.first_only, test.separated)
        ('a', 'b', 10, True)
    """
    if len(labels) != len(outcomes):
        raise ValueError(f"{len(labels)} labels for {len(outcomes)} models")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    raw: list[tuple[int, int, int, int, int]] = []  # i, j, shared cases, only i, only j
    for i in range(len(outcomes)):
        for j in range(i + 1, len(outcomes)):
            shared = outcomes[i].keys() & outcomes[j].keys()
            if not shared:
                continue
            only_i = sum(outcomes[i][c] and not outcomes[j][c] for c in shared)
            only_j = sum(outcomes[j][c] and not outcomes[i][c] for c in shared)
            raw.append((i, j, len(shared), only_i, only_j))
    p_values = [mcnemar_exact(only_i, only_j) for _, _, _, only_i, only_j in raw]
    tests = []
    for (i, j, cases, only_i, only_j), p, adjusted in zip(
        raw, p_values, holm_adjust(p_values), strict=True
    ):
        if only_j > only_i:  # the better model first
            i, j, only_i, only_j = j, i, only_j, only_i
        tests.append(
            PairTest(
                first=labels[i],
                second=labels[j],
                cases=cases,
                delta=(only_i - only_j) / cases,
                first_only=only_i,
                second_only=only_j,
                p_value=p,
                adjusted_p=adjusted,
                separated=adjusted < alpha,
            )
        )
    return tuple(tests)


def separation_summary(tests: Sequence[PairTest], *, alpha: float, cases: int) -> str | None:
    """One sentence on what the suite separates; None when there is no pair to test.

    Examples:
        >>> test = PairTest("a", "b", 20, 0.05, 2, 1, 1.0, 1.0, False)
        >>> summary = separation_summary([test], alpha=0.05, cases=20)
        >>> print(summary[:71])
        The suite does not separate these models: no pair differs at alpha 0.05
    """
    if not tests:
        return None
    family = f"Holm-corrected over {len(tests)} pair{'s' * (len(tests) != 1)}, {cases} cases"
    separated = [t for t in tests if t.separated]
    if not separated:
        return (
            "The suite does not separate these models: no pair differs at alpha"
            f" {alpha:g} (McNemar's exact test, {family}); their order is not a ranking."
        )
    listed = ", ".join(f"{t.first} > {t.second} (Holm p {t.adjusted_p:.3g})" for t in separated)
    if len(separated) == len(tests):
        return f"The suite separates every pair at alpha {alpha:g} ({family}): {listed}."
    return (
        f"The suite separates {len(separated)} of {len(tests)} pairs at alpha {alpha:g}"
        f" ({family}): {listed}; the other pairs it cannot tell apart."
    )
