"""Comparisons that explain their flips by how the runs were served.

Two replays of one suite differ only in how the answers were served: the baseline's
calls came as structured `tool_calls`, the candidate's were left in the message's text
(a server upgrade that lost its tool-call parser), one answer came back empty, and for
three cases the model itself said something else.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import toolgrade
from toolgrade.cli import app
from toolgrade.cli._compare_text import format_comparison
from toolgrade.compare import compare_runs, gate_verdict, serving_changes
from toolgrade.compare._verdict import decide
from toolgrade.results import RunResult
from toolgrade.store import save_run

N = 40
OLD = {"server": "llama-cpp-python", "server_version": "0.3.36"}
NEW = {"server": "llama-cpp-python", "server_version": "0.3.40"}


def _suite(folder: Path) -> Path:
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
            "id": f"c{i:02d}",
            "category": "simple",
            "prompt": f"Read f{i}.md",
            "expected": {"tool": "read_file", "arguments": {"path": f"f{i}.md"}},
        }
        for i in range(N)
    ]
    path = folder / "suite.json"
    suite = {"schema_version": 1, "name": "mini", "version": "1.0", "tools": [tool], "cases": cases}
    path.write_text(json.dumps(suite), "utf-8")
    return path


def _structured(i: int, path: str) -> dict[str, object]:
    arguments = json.dumps({"path": path})
    call = {"id": f"call_{i}", "type": "function"}
    call["function"] = {"name": "read_file", "arguments": arguments}  # type: ignore[assignment]
    return {"role": "assistant", "content": "", "tool_calls": [call]}


def _in_text(path: str) -> dict[str, object]:
    call = json.dumps({"name": "read_file", "arguments": {"path": path}})
    return {"role": "assistant", "content": f"<tool_call>\n{call}\n</tool_call>"}


def _responses(folder: Path, name: str, messages: list[dict[str, object]]) -> Path:
    path = folder / f"{name}.jsonl"
    lines = [json.dumps({"case_id": f"c{i:02d}", "message": m}) for i, m in enumerate(messages)]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _run(
    suite: Path, responses: Path, *, server: dict[str, str], options: dict[str, str], run_id: str
) -> RunResult:
    run = toolgrade.run_suite(
        toolgrade.load_suite(suite),
        f"replay/{responses}",
        options=toolgrade.RunOptions(warmup=False),
        progress="none",
    )
    backend = {**run.backend, "options": options}
    return run.model_copy(update={"server": server, "backend": backend, "run_id": run_id})


def _upgrade(folder: Path) -> tuple[RunResult, RunResult, Path, Path]:
    """The baseline on the old server (structured calls), the candidate on the new one;
    the suite and the candidate's responses."""
    suite = _suite(folder)
    good = [_structured(i, f"f{i}.md") for i in range(N)]
    # The new server leaves every call in the text; for c36-c38 the model said another
    # path; c39 came back empty.
    moved = [_in_text(f"f{i}.md" if i < 36 else "other.md") for i in range(N - 1)]
    moved.append({"role": "assistant", "content": ""})
    new = _responses(folder, "new", moved)
    base = _run(
        suite,
        _responses(folder, "old", good),
        server=OLD,
        options={"tool_choice": "auto"},
        run_id="20260101-old",
    )
    cand = _run(suite, new, server=NEW, options={}, run_id="20260102-new")
    return base, cand, suite, new


@pytest.fixture
def upgrade(tmp_path: Path) -> tuple[RunResult, RunResult]:
    """The baseline and the candidate of `_upgrade`."""
    base, cand, _, _ = _upgrade(tmp_path)
    return base, cand


def test_the_serving_change_is_said_in_words(upgrade: tuple[RunResult, RunResult]) -> None:
    comp = compare_runs(*upgrade)
    assert comp.serving is not None
    assert comp.serving.changes == (
        "server llama-cpp-python 0.3.36 → 0.3.40",
        "option tool_choice auto → (none)",
    )
    assert comp.serving.changed and comp.serving.shown


def test_the_broken_cases_are_grouped_by_the_candidates_serving_class(
    upgrade: tuple[RunResult, RunResult],
) -> None:
    serving = compare_runs(*upgrade).serving
    assert serving is not None
    # As served: every case broke, 39 with their calls in the text, 1 empty.
    groups = {g.kind: g for g in serving.broken_as_served}
    assert [g.kind for g in serving.broken_as_served] == ["calls_in_text", "empty"]
    text, empty = groups["calls_in_text"], groups["empty"]
    assert (len(text.flips), text.server, text.model) == (39, 36, 3)
    assert (len(empty.flips), empty.server) == (1, 1)
    assert {f.case_id for f in text.flips if f.reading == "model"} == {"c36", "c37", "c38"}
    assert text.hint is not None and "chatml-function-calling" in text.hint
    # The model's own flips: the three changed calls (the model's) and the empty answer
    # (the server's); the 36 calls read from the text were right.
    model = {g.kind: (len(g.flips), g.reading) for g in serving.broken}
    assert model == {"calls_in_text": (3, "the model's"), "empty": (1, "the server's")}
    assert serving.fixed == () and serving.fixed_as_served == ()
    assert serving.lost == (0, 36)


def test_the_verdict_as_served_beside_the_models(upgrade: tuple[RunResult, RunResult]) -> None:
    comp = compare_runs(*upgrade)
    serving = comp.serving
    assert serving is not None
    assert (len(comp.broken), comp.verdict) == (4, "inconclusive")
    assert (serving.baseline_accuracy.passed, serving.candidate_accuracy.passed) == (N, 0)
    assert serving.verdict == "regression"
    # The machinery of the comparison's own verdict, on the outcomes as served.
    expected = decide(0, N, 0, 0, threshold=comp.threshold, alpha=comp.alpha)
    assert (serving.delta, serving.p_value) == (expected.delta, expected.p_value)
    assert serving.delta_interval == expected.delta_interval
    assert gate_verdict(comp) == "inconclusive"
    assert gate_verdict(comp, as_served=True) == "regression"


def test_the_text_says_the_upgrade_broke_them_as_calls_in_text(
    upgrade: tuple[RunResult, RunResult],
) -> None:
    text = format_comparison(compare_runs(*upgrade))
    assert "Serving: server llama-cpp-python 0.3.36 → 0.3.40; option tool_choice auto → (none)" in (
        text
    )
    assert "  As served: 100.0% (40/40) -> 0.0% (0/40)  -100.0 points" in text
    assert "  Status as served: Regression: a drop of more than 2 points" in text
    assert (
        "  As served, broke 40 cases: 39 calls_in_text (c00, c01, c02, …): 36 the server's,"
        " 3 the model's; 1 empty (c39): the server's"
    ) in text
    assert "  Broke 4 cases: 3 calls_in_text (c36, c37, c38): the model's; 1 empty (c39)" in text
    assert "  Try: llama-cpp-python parses calls only with a tool chat handler" in text


def test_the_reports_carry_the_serving_section(upgrade: tuple[RunResult, RunResult]) -> None:
    base, cand = upgrade
    comp = compare_runs(base, cand)
    markdown = toolgrade.render_report(cand, "markdown", comparison=comp)
    assert "**Serving:** server llama-cpp-python 0.3.36 → 0.3.40" in markdown
    assert r"- As served, broke 40 cases: 39 calls\_in\_text" in markdown
    html = toolgrade.render_report(cand, "html", comparison=comp)
    assert '<div class="serving verdict-regression">' in html
    assert "<li>As served, broke 40 cases: 39 calls_in_text" in html
    text = toolgrade.render_report(cand, "text", comparison=comp)
    assert "    Status as served: Regression" in text
    data = json.loads(toolgrade.render_report(cand, "json", comparison=comp))
    serving = data["comparison"]["serving"]
    assert serving["verdict"] == "regression"
    assert serving["broken_as_served"][0]["class"] == "calls_in_text"
    assert serving["broken_as_served"][0]["server"] == 36


def test_fixed_cases_are_grouped_by_the_baselines_class(
    upgrade: tuple[RunResult, RunResult],
) -> None:
    base, cand = upgrade
    serving = compare_runs(cand, base).serving  # the server fixed: the other way round
    assert serving is not None
    assert serving.broken_as_served == ()
    assert [(g.kind, g.server, g.model) for g in serving.fixed_as_served] == [
        ("calls_in_text", 36, 3),
        ("empty", 1, 0),
    ]
    assert all(g.hint is None for g in serving.fixed_as_served)
    assert serving.verdict == "improvement"


def test_no_serving_change_leaves_no_serving_noise(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    first = [_structured(i, f"f{i}.md") for i in range(N)]
    second = [_structured(i, f"f{i}.md" if i else "other.md") for i in range(N)]
    base = _run(
        suite, _responses(tmp_path, "a", first), server=OLD, options={}, run_id="20260101-a"
    )
    cand = _run(
        suite, _responses(tmp_path, "b", second), server=OLD, options={}, run_id="20260102-b"
    )
    comp = compare_runs(base, cand)
    assert comp.serving is not None
    assert (comp.serving.changes, comp.serving.shown) == ((), False)
    assert comp.serving.verdict == comp.verdict
    assert [(g.kind, g.reading) for g in comp.serving.broken] == [("structured", "the model's")]
    text = format_comparison(comp)
    assert "Serving" not in text and "As served" not in text
    for fmt in ("text", "markdown", "html"):
        # The run's own serving line stays; the comparison adds nothing about serving.
        alone = toolgrade.render_report(cand, fmt)
        both = toolgrade.render_report(cand, fmt, comparison=comp)
        assert both.count("Serving") == alone.count("Serving"), fmt
        assert "As served" not in both, fmt
    assert comp.to_dict()["serving"]["changed"] is False  # type: ignore[index]


def test_the_gate_decides_as_served_with_the_option(upgrade: tuple[RunResult, RunResult]) -> None:
    for run in upgrade:
        save_run(run)
    runner = CliRunner()
    args = ["compare", "20260101-old", "20260102-new", "--fail-on-regression"]
    assert runner.invoke(app, args).exit_code == 0  # the model: inconclusive
    result = runner.invoke(app, [*args, "--as-served"])
    assert result.exit_code == 1, result.output
    assert "As served, broke 40 cases" in result.output
    inconclusive = ["compare", "20260101-old", "20260102-new", "--fail-on-inconclusive"]
    assert runner.invoke(app, inconclusive).exit_code == 3
    assert runner.invoke(app, [*inconclusive, "--as-served"]).exit_code == 0
    data = json.loads(runner.invoke(app, [*args[:3], "--json"]).output)
    assert data["serving"]["changes"] == [
        "server llama-cpp-python 0.3.36 → 0.3.40",
        "option tool_choice auto → (none)",
    ]
    many = runner.invoke(app, [*args[:3], "20260102-new", "--as-served", "--fail-on-regression"])
    assert many.exit_code == 1
    assert "(baseline): inconclusive; as served: regression" in many.output


def test_serving_changes_name_the_server_the_fingerprint_and_the_settings(
    upgrade: tuple[RunResult, RunResult],
) -> None:
    base, cand = upgrade
    base = base.model_copy(
        update={
            "server": {"server": "vllm", "system_fingerprints": ["fp_a"]},
            "backend": {**base.backend, "stream": True, "base_url": "http://a/v1"},
        }
    )
    cand = cand.model_copy(
        update={
            "server": {"server": "sglang", "server_version": "0.4", "system_fingerprints": []},
            "backend": {
                **cand.backend,
                "stream": False,
                "base_url": "http://a/v1",
                "mode": "prompt",
            },
        }
    )
    assert serving_changes(base, cand) == (
        "server vllm → sglang 0.4",
        "system_fingerprint fp_a → (none)",
        "mode native → prompt",
        "stream true → false",
        "option tool_choice auto → (none)",
    )
    assert serving_changes(base, base) == ()


pytest_plugins = ["pytester"]


def test_the_pytest_marker_gates_as_served(pytester: pytest.Pytester) -> None:
    base, _, suite_path, responses = _upgrade(pytester.path)
    baseline = pytester.path / "baseline.json"
    baseline.write_text(base.model_dump_json(), "utf-8")
    suite, model = suite_path.as_posix(), f"replay/{responses.as_posix()}"
    pytester.makepyfile(
        f"""
        import pytest

        SUITE, MODEL, BASE = {suite!r}, {model!r}, {baseline.as_posix()!r}

        @pytest.mark.toolgrade(suite=SUITE, model=MODEL, baseline=BASE)
        def test_the_model(toolgrade_suite):
            assert toolgrade_suite.comparison.serving.verdict == "regression"

        @pytest.mark.toolgrade(suite=SUITE, model=MODEL, baseline=BASE, as_served=True)
        def test_as_served(toolgrade_suite):
            pass

        @pytest.mark.toolgrade(suite=SUITE, model=MODEL, baseline=BASE, as_served="yes")
        def test_bad_flag(toolgrade_suite):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*as served: Regression: a drop of more than 2 points*serving: server*",
            "*As served, broke 40 cases: 39 calls_in_text*",
        ]
    )
    result.stdout.fnmatch_lines(["*toolgrade marker option as_served='yes' must be True or False*"])
