"""Matchers on untrusted numbers: `$approx` never raises on what a model may write."""

from __future__ import annotations

import pytest

from toolgrade import Case, Status, ToolSpec, judge

_TOOL = ToolSpec(name="f", parameters={"type": "object", "properties": {"x": {"type": "number"}}})


@pytest.mark.parametrize(
    ("target", "actual", "passes"),
    [
        (1.5, 10**400, False),  # an integer too large for a float is far from any float
        (10**400, 1.5, False),
        (10**400, 10**400, True),  # two such integers compare exactly
        (10**400, 10**400 + 1, False),
    ],
)
def test_approx_with_an_integer_too_large_for_a_float(
    target: float, actual: float, passes: bool
) -> None:
    case = Case(id="c", prompt="p", expected={"name": "f", "arguments": {"x": {"$approx": target}}})
    result = judge(case, [{"name": "f", "arguments": {"x": actual}}], tools=[_TOOL])
    assert (result.status is Status.CORRECT) is passes
