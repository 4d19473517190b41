"""The pytest plugin, run inside pytest's own pytester."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # subprocesses, servers or corpora: `make test` runs it

pytest_plugins = ["pytester"]


def test_plugin_fixture_passes_without_import(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_agent(assert_tool_calls):
            assert_tool_calls([{"name": "read_file", "arguments": {"path": "a.md"}}],
                              {"name": "read_file", "arguments": {"path": "./a.md"}})
        """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_plugin_trajectory_fixture_passes_and_fails_without_import(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        RUN = [
            {"role": "user", "content": "Fix the typo in a.md"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "read_file", "arguments": '{"path": "a.md"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "teh"},
            {"role": "assistant", "content": "Done."},
        ]

        def test_reads_first(assert_trajectory):
            assert_trajectory(RUN, [{"name": "read_file", "arguments": {"path": "a.md"}}])

        def test_must_not_read(assert_trajectory):
            assert_trajectory(RUN, [], forbidden=[{"name": "read_file"}])
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    assert "forbidden call read_file" in result.stdout.str()


def test_plugin_failure_output_shows_readable_diff(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_agent(assert_tool_calls):
            assert_tool_calls(
                [{"name": "search", "arguments": {"pattern": "todo", "path": "src"}}],
                [{"name": "search", "arguments": {"pattern": "TODO", "path": "src"}},
                 {"name": "git_status", "arguments": {}}])
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    expected_lines = [
        "AssertionError: tool calls do not match: missed_call (score 0.000 under the binary rubric)",
        "  expected (any order):",
        '    1. search({"path": "src", "pattern": "TODO"})  -> NOT MADE (call 1 has other arguments)',
        "    2. git_status({})  -> NOT MADE",
        "  called:",
        '    1. search({"path": "src", "pattern": "todo"})  -> DIFFERS from expected 1',
        "  argument differences, expected 1 vs call 1:",
        '    $.pattern: expected "TODO", got "todo"',
    ]
    for line in expected_lines:
        assert line in out, line
    # The library's own frames are hidden: the traceback points at the test.
    assert "def assert_tool_calls(" not in out


def test_plugin_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--markers")
    result.stdout.fnmatch_lines(["*@pytest.mark.toolgrade(suite, model, min_accuracy=None*"])


def _suite_and_responses(tmp: Path, *, right: int, wrong: int) -> tuple[Path, Path]:
    tool = {
        "name": "read_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    }
    cases = [
        {
            "id": f"c{i}",
            "category": "simple",
            "tags": ["t"],
            "difficulty": "easy",
            "prompt": f"Read f{i}.md",
            "expected": {"tool": "read_file", "arguments": {"path": f"f{i}.md"}},
        }
        for i in range(right + wrong)
    ]
    suite = {"schema_version": 1, "name": "mini", "version": "1.0", "tools": [tool], "cases": cases}
    suite_path = tmp / "suite.json"
    suite_path.write_text(json.dumps(suite), "utf-8")
    lines = []
    for i in range(right + wrong):
        path = f"f{i}.md" if i < right else "wrong.md"
        call = {"name": "read_file", "arguments": {"path": path}}
        lines.append(
            json.dumps({"case_id": f"c{i}", "output": f"<tool_call>{json.dumps(call)}</tool_call>"})
        )
    responses = tmp / "responses.jsonl"
    responses.write_text("\n".join(lines) + "\n", "utf-8")
    return suite_path, responses


def test_plugin_marker_suite_passes_above_bound(pytester: pytest.Pytester) -> None:
    suite, responses = _suite_and_responses(pytester.path, right=4, wrong=0)
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.toolgrade(suite={str(suite)!r}, model="replay/{responses.as_posix()}",
                               min_accuracy=0.9)
        def test_suite(toolgrade_suite):
            assert toolgrade_suite.metrics.accuracy.passed == 4
        """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_plugin_marker_suite_below_bound_is_a_failure_not_an_error(
    pytester: pytest.Pytester,
) -> None:
    suite, responses = _suite_and_responses(pytester.path, right=3, wrong=1)
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.toolgrade(suite={str(suite)!r}, model="replay/{responses.as_posix()}",
                               min_accuracy=0.9)
        def test_suite(toolgrade_suite):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    # The model fell short: the test FAILED (in its call phase), the fixture did not break.
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "ERROR at setup" not in out
    result.stdout.fnmatch_lines(["FAILED *::test_suite*"])
    for line in [
        "toolgrade: accuracy 75.0% (3/4) is below min_accuracy 90.0%",
        "Failures:",
        "  c3: Wrong value for 'path'",
        '    prompt:   "Read f3.md"',
        "    expected: [{'name': 'read_file', 'arguments': {'path': 'f3.md'}}]",
        "    actual:   [{'name': 'read_file', 'arguments': {'path': 'wrong.md'}}]",
    ]:
        assert line in out, line


def test_plugin_fixture_without_marker_fails_clearly(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_x(toolgrade_suite):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*toolgrade_suite needs @pytest.mark.toolgrade(suite=..., model=...)*"]
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("concurrency=0", "*toolgrade marker option concurrency must be at least 1, got 0*"),
        ("rubric='strict'", "*rubric must be one of binary, partial, f1, got 'strict'*"),
        ("colour='red'", "*unknown toolgrade marker options: ?'colour'?"),
    ],
)
def test_plugin_marker_bad_option_fails_clearly(
    pytester: pytest.Pytester, options: str, message: str
) -> None:
    suite, responses = _suite_and_responses(pytester.path, right=1, wrong=0)
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.toolgrade(suite={str(suite)!r}, model="replay/{responses.as_posix()}",
                               {options})
        def test_suite(toolgrade_suite):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])


def test_plugin_marker_run_options_reach_the_run(pytester: pytest.Pytester) -> None:
    suite, responses = _suite_and_responses(pytester.path, right=2, wrong=0)
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.toolgrade(suite={str(suite)!r}, model="replay/{responses.as_posix()}",
                               repeat=2, ids=["c1"], rubric="partial")
        def test_suite(toolgrade_suite):
            assert [r.case_id for r in toolgrade_suite.run.results] == ["c1", "c1"]
            assert toolgrade_suite.run.rubric == "partial"
        """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)


def _baseline(tmp: Path, *, right: int, wrong: int) -> Path:
    """A stored run of the mini suite (an exported run file), `right` of its cases right."""
    import toolgrade

    folder = tmp / "baseline"
    folder.mkdir()
    suite, responses = _suite_and_responses(folder, right=right, wrong=wrong)
    run = toolgrade.run_suite(toolgrade.load_suite(suite), f"replay/{responses}")
    path = tmp / "baseline.json"
    path.write_text(run.model_dump_json(), "utf-8")
    return path


def test_plugin_marker_baseline_fails_a_regression_and_gates_inconclusive(
    pytester: pytest.Pytester,
) -> None:
    baseline = _baseline(pytester.path, right=40, wrong=0)
    suite, half = _suite_and_responses(pytester.path, right=20, wrong=20)
    same = pytester.path / "same"
    same.mkdir()
    _, level = _suite_and_responses(same, right=40, wrong=0)
    model = f"replay/{half.as_posix()}"
    pytester.makepyfile(
        f"""
        import pytest

        SUITE, BASE = {str(suite)!r}, {str(baseline)!r}

        @pytest.mark.toolgrade(suite=SUITE, model="{model}", baseline=BASE)
        def test_regression(toolgrade_suite):
            pass

        @pytest.mark.toolgrade(suite=SUITE, model="replay/{level.as_posix()}", baseline=BASE)
        def test_level_but_small(toolgrade_suite):
            assert toolgrade_suite.comparison.verdict == "inconclusive"

        @pytest.mark.toolgrade(suite=SUITE, model="replay/{level.as_posix()}", baseline=BASE,
                               fail_on_inconclusive=True)
        def test_must_be_sure(toolgrade_suite):
            pass

        @pytest.mark.toolgrade(suite=SUITE, model="{model}", baseline=BASE, threshold=-1)
        def test_bad_threshold(toolgrade_suite):
            pass

        @pytest.mark.toolgrade(suite=SUITE, model="{model}", baseline="no-such-run")
        def test_unknown_baseline(toolgrade_suite):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    # Behind the baseline, or not shown level with it where that must be sure: a test
    # FAILURE; a bad option or an unknown baseline: a broken fixture (ERROR at setup).
    result.assert_outcomes(passed=1, failed=2, errors=2)
    out = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*toolgrade: against baseline *: Regression: a drop of more than 2 points*",
            "*accuracy 100.0% -> 50.0% (-50.0 points*",
            "*broken: c20, c21, c22*",
        ]
    )
    result.stdout.fnmatch_lines(
        ["*toolgrade: against baseline *: Inconclusive: the suite cannot tell at this size*"]
    )
    result.stdout.fnmatch_lines(
        ["*toolgrade marker option threshold=-1 must be a number of points >= 0*"]
    )
    result.stdout.fnmatch_lines(["*toolgrade marker option baseline='no-such-run': no stored run*"])
    assert "During handling" not in out
    for name in ("test_regression", "test_must_be_sure"):
        result.stdout.fnmatch_lines([f"FAILED *::{name}*"])
