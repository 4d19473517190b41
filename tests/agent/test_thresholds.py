"""Score and accuracy bounds are fractions from 0 to 1: anything else is refused.

`min_accuracy=1.5` on the pytest marker could never be reached (and `-1` never fail);
it is refused before the suite runs, in one line. `assert_tool_calls(min_score=...)`
refuses the same values. A suite far below its bound lists its first failures and
counts the rest.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import toolgrade
from toolgrade.agent import fraction_bound
from toolgrade.cli._pytest_plugin import FAILURES_SHOWN

pytest_plugins = ["pytester"]

CALL = [{"name": "read_file", "arguments": {"path": "a.md"}}]


@pytest.mark.parametrize("bad", [1.5, -0.1, 90, float("nan"), float("inf"), True, "0.9", "90%"])
def test_fraction_bound_refuses_values_outside_zero_to_one(bad: object) -> None:
    with pytest.raises(toolgrade.ConfigError, match=r"must be a fraction from 0 to 1 \(0\.9"):
        fraction_bound("min_accuracy", bad)


@pytest.mark.parametrize("good", [0, 0.0, 0.5, 1, 1.0])
def test_fraction_bound_accepts_zero_to_one(good: float) -> None:
    assert fraction_bound("min_accuracy", good) == float(good)


def test_assert_tool_calls_min_score_over_one_is_refused() -> None:
    with pytest.raises(toolgrade.ConfigError, match="min_score must be a fraction"):
        toolgrade.assert_tool_calls(CALL, CALL, min_score=1.5)


def _suite(tmp: Path, *, right: int, wrong: int) -> tuple[Path, Path]:
    tool = {
        "name": "read_file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
    n = right + wrong
    cases = [
        {"id": f"c{i}", "prompt": f"Read f{i}.md", "expected": {"name": "read_file", "arguments": {"path": f"f{i}.md"}}}
        for i in range(n)
    ]  # fmt: skip
    suite = tmp / "suite.json"
    suite.write_text(
        json.dumps(
            {"schema_version": 1, "name": "mini", "version": "1", "tools": [tool], "cases": cases}
        )
    )
    lines = []
    for i in range(n):
        call = {"name": "read_file", "arguments": {"path": f"f{i}.md" if i < right else "x.md"}}
        lines.append(
            json.dumps(
                {
                    "case_id": f"c{i}",
                    "message": {"role": "assistant", "tool_calls": [{"function": call}]},
                }
            )
        )
    responses = tmp / "responses.jsonl"
    responses.write_text("\n".join(lines) + "\n")
    return suite, responses


def _marked(pytester: pytest.Pytester, suite: Path, responses: Path, bound: str) -> None:
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.toolgrade(suite={str(suite)!r}, model="replay/{responses.as_posix()}",
                               min_accuracy={bound})
        def test_suite(toolgrade_suite):
            pass
        """
    )


@pytest.mark.slow
def test_plugin_min_accuracy_outside_zero_to_one_is_refused_before_running(
    pytester: pytest.Pytester,
) -> None:
    # The responses file does not exist: running the suite would fail another way.
    suite, _ = _suite(pytester.path, right=1, wrong=0)
    model = f"replay/{(pytester.path / 'missing.jsonl').as_posix()}"
    bounds = ["1.5", "-1", "90", "'90%'"]
    pytester.makepyfile(
        "import pytest\n"
        + "".join(
            f"\n@pytest.mark.toolgrade(suite={str(suite)!r}, model={model!r}, min_accuracy={b})"
            f"\ndef test_suite_{i}(toolgrade_suite):\n    pass\n"
            for i, b in enumerate(bounds)
        )
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=len(bounds))
    result.stdout.fnmatch_lines(
        [
            "*toolgrade marker option min_accuracy must be a fraction from 0 to 1"
            f" (0.9 for 90%), got {b}"
            for b in ["1.5", "-1", "90", "'90%'"]
        ],
        consecutive=False,
    )
    assert "missing.jsonl" not in result.stdout.str()


@pytest.mark.slow
def test_plugin_far_below_bound_lists_first_failures_and_counts_the_rest(
    pytester: pytest.Pytester,
) -> None:
    suite, responses = _suite(pytester.path, right=0, wrong=FAILURES_SHOWN + 7)
    _marked(pytester, suite, responses, "1.0")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert f"  c{FAILURES_SHOWN - 1}: " in out
    assert f"  c{FAILURES_SHOWN}: " not in out
    assert "  ... and 7 more failures (persist=True in the marker keeps the run folder" in out
