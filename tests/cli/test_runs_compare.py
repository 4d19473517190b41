"""`toolgrade runs ...`, `toolgrade compare ...` and the post-run hook."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.cli import app
from toolgrade.cli._post import PostRunOptions, after_run
from toolgrade.errors import BaselineError, ConfigError
from toolgrade.store import RunFolder, RunManifest, get_run, list_runs, save_run

runner = CliRunner()


def _rows(outcomes: str, **fields: object) -> list[dict[str, object]]:
    status = {"c": "correct", "w": "wrong_args", "x": "wrong_tool"}
    return [
        {"case_id": f"TC-{i:03d}", "status": status[o], "category": "simple", **fields}
        for i, o in enumerate(outcomes)
    ]


@pytest.fixture
def two_runs(make_run):
    base = make_run(_rows("c" * 50), run_id="20260101-base", tags=("v1.2",))
    cand = make_run(_rows("x" * 12 + "c" * 38), run_id="20260102-cand")
    save_run(base)
    save_run(cand)
    return base, cand


def test_runs_list_text_and_json(two_runs) -> None:
    result = runner.invoke(app, ["runs", "list"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == [
        "RUN", "STARTED", "MODEL", "MODE", "SUITE", "CASES", "ACCURACY", "STATUS", "TAGS"
    ]  # fmt: skip
    assert lines[1].startswith("20260102-cand")
    assert lines[2].split()[-2:] == ["complete", "v1.2"]
    # Columns line up: every row puts its status where the header says STATUS.
    column = lines[0].index("STATUS")
    assert all(line[column:].startswith("complete") for line in lines[1:])
    data = json.loads(runner.invoke(app, ["runs", "list", "--json", "-n", "1"]).output)
    assert [r["run_id"] for r in data] == ["20260102-cand"]
    assert set(data[0]) >= {"mode", "status", "saved", "folder", "planned", "resume"}


def _interrupted_folder(make_run, run_id: str, **fields: object) -> None:
    """What `toolgrade run` leaves after Ctrl-C: a run folder, nothing in toolgrade.db."""
    run = make_run(_rows("cw"), run_id=run_id, status="interrupted", **fields)
    folder = RunFolder.create(
        RunManifest(
            run=run.model_copy(update={"results": ()}), case_ids=("TC-000", "TC-001", "TC-002")
        )
    )
    for result in run.results:
        folder.append_result(result)
    folder.close()


def test_runs_list_shows_interrupted_folder_with_mode_and_resume_hint(two_runs, make_run) -> None:
    _interrupted_folder(
        make_run,
        "20260103-cut",
        started_at=datetime(2026, 1, 3, tzinfo=UTC),
        backend={"provider": "openai", "mode": "prompt"},
    )
    result = runner.invoke(app, ["runs", "list"])
    assert result.exit_code == 0, result.output
    row = result.output.splitlines()[1].split()
    assert row[0] == "20260103-cut"
    assert row[3] == "prompt"
    assert row[5] == "2/3"  # results so far / planned
    assert row[-3:] == ["interrupted", "(not", "saved)"]
    assert result.output.endswith(
        "\nresume an interrupted run with: toolgrade run --resume 20260103-cut\n"
    )
    data = json.loads(runner.invoke(app, ["runs", "list", "--json"]).output)
    assert [(r["run_id"], r["status"], r["saved"]) for r in data] == [
        ("20260103-cut", "interrupted", False),
        ("20260102-cand", "complete", True),
        ("20260101-base", "complete", True),
    ]
    assert data[0]["resume"] == "toolgrade run --resume 20260103-cut"
    assert (data[0]["mode"], data[0]["total"], data[0]["planned"]) == ("prompt", 2, 3)


def test_runs_show_gives_mode_and_resume_of_interrupted_run(make_run) -> None:
    _interrupted_folder(make_run, "20260103-cut", backend={"mode": "native"})
    result = runner.invoke(app, ["runs", "show", "20260103-cut"])
    assert result.exit_code == 0, result.output
    assert "Mode:      native\n" in result.output
    assert "(interrupted)" in result.output
    assert "Resume:    toolgrade run --resume 20260103-cut" in result.output
    data = json.loads(runner.invoke(app, ["runs", "show", "20260103-cut", "--json"]).output)
    assert (data["mode"], data["resume"], data["cut_off"]) == (
        "native",
        "toolgrade run --resume 20260103-cut",
        0,
    )
    assert data["run"]["backend"] == {"mode": "native"}


def test_runs_show_complete_run_counts_cut_off_answers(make_run) -> None:
    rows = _rows("cw")
    rows[1]["finish_reason"] = "length"
    save_run(make_run(rows, run_id="r-cut"))
    result = runner.invoke(app, ["runs", "show", "r-cut"])
    assert result.exit_code == 0, result.output
    assert "Mode:      -\n" in result.output
    assert "Cut off:   1 answers stopped at the token limit" in result.output
    assert "Resume:" not in result.output


def test_runs_list_empty_history() -> None:
    result = runner.invoke(app, ["runs", "list"])
    assert result.exit_code == 0
    assert result.output.strip() == "no stored runs"


def test_runs_show_by_tag_text_and_json(two_runs) -> None:
    result = runner.invoke(app, ["runs", "show", "v1.2"])
    assert result.exit_code == 0, result.output
    assert "Accuracy:  100.0% (50/50" in result.output
    data = json.loads(runner.invoke(app, ["runs", "show", "20260102", "--json"]).output)
    assert data["run"]["run_id"] == "20260102-cand"
    assert data["metrics"]["passed"] == 38


def test_runs_tag_and_remove(two_runs) -> None:
    result = runner.invoke(app, ["runs", "tag", "20260102", "candidate", "nightly", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {
        "run_id": "20260102-cand",
        "tags": ["candidate", "nightly"],
    }
    assert get_run("20260102-cand").tags == ("candidate", "nightly")
    result = runner.invoke(app, ["runs", "tag", "20260102-cand", "nightly", "--remove"])
    assert result.exit_code == 0
    assert get_run("20260102-cand").tags == ("candidate",)


def test_runs_delete_and_unknown_ref_exit_2(two_runs) -> None:
    result = runner.invoke(app, ["runs", "delete", "v1.2", "--json"])
    assert json.loads(result.output) == {"deleted": "20260101-base"}
    assert [r.run_id for r in list_runs()] == ["20260102-cand"]
    result = runner.invoke(app, ["runs", "show", "v1.2"])
    assert result.exit_code == 2
    assert "v1.2" in result.output


def test_runs_export_then_compare_from_files(two_runs, tmp_path: Path) -> None:
    out = tmp_path / "base.json"
    assert runner.invoke(app, ["runs", "export", "v1.2", "-o", str(out)]).exit_code == 0
    assert json.loads(out.read_text(encoding="utf-8"))["run_id"] == "20260101-base"
    printed = runner.invoke(app, ["runs", "export", "20260102"])
    cand_file = tmp_path / "cand.json"
    cand_file.write_text(printed.output, encoding="utf-8")
    result = runner.invoke(app, ["compare", str(out), str(cand_file), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["verdict"] == "regression"


def test_compare_regression_text_exit_codes(two_runs) -> None:
    result = runner.invoke(app, ["compare", "v1.2", "20260102-cand"])
    assert result.exit_code == 0, result.output
    assert "Baseline:  v1.2 (20260101-base)" in result.output
    assert "Status: Regression" in result.output
    assert "Broken (12):" in result.output
    assert "TC-000: correct -> wrong_tool" in result.output
    failing = runner.invoke(app, ["compare", "v1.2", "20260102-cand", "--fail-on-regression"])
    assert failing.exit_code == 1


def test_compare_inconclusive_fails_only_when_asked(two_runs) -> None:
    result = runner.invoke(
        app, ["compare", "v1.2", "20260102", "--threshold", "30", "--fail-on-regression"]
    )
    assert result.exit_code == 0, result.output
    assert "Status: Inconclusive: the suite cannot tell at this size" in result.output
    assert "This suite can detect changes of about" in result.output
    failing = runner.invoke(
        app, ["compare", "v1.2", "20260102", "--threshold", "30", "--fail-on-inconclusive"]
    )
    assert failing.exit_code == 3, failing.output


def test_compare_regression_wins_over_inconclusive(two_runs) -> None:
    result = runner.invoke(
        app,
        ["compare", "v1.2", "20260102", "--fail-on-regression", "--fail-on-inconclusive"],
    )
    assert result.exit_code == 1, result.output


def test_compare_many_side_by_side(two_runs, make_run) -> None:
    save_run(make_run(_rows("w" + "c" * 49), run_id="20260103-third", model="other/m"))
    result = runner.invoke(app, ["compare", "v1.2", "20260102", "20260103"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("3 runs over 50 shared cases")
    assert lines[2].startswith("* v1.2")
    assert "worse" in lines[3]
    assert "By Category:" in result.output
    data = json.loads(
        runner.invoke(app, ["compare", "v1.2", "20260102", "20260103", "--json"]).output
    )
    assert data["side_by_side"]["best_index"] == 0
    assert [c["verdict"] for c in data["vs_baseline"]] == [
        "regression",
        "inconclusive",
    ]
    failing = runner.invoke(
        app, ["compare", "v1.2", "20260102", "20260103", "--fail-on-regression"]
    )
    assert failing.exit_code == 1


def test_compare_needs_two_runs(two_runs) -> None:
    result = runner.invoke(app, ["compare", "v1.2"])
    assert result.exit_code == 2


def test_after_run_saves_prints_report_and_writes_files(make_run, tmp_path: Path) -> None:
    run = make_run(_rows("cw"), run_id="r-post")
    junit = tmp_path / "out" / "junit.xml"
    code = after_run(run, PostRunOptions(reports={"junit": junit}, quiet=True))
    assert code == 0
    assert get_run("r-post") == run
    assert junit.read_text(encoding="utf-8").startswith("<?xml")


def test_after_run_regression_exit_code_only_when_asked(make_run, capsys) -> None:
    save_run(make_run(_rows("c" * 40), run_id="base", tags=("baseline",)))
    worse = make_run(_rows("x" * 15 + "c" * 25), run_id="new")
    assert after_run(worse, PostRunOptions(baseline="baseline")) == 0
    assert "Tool-Call Correctness Report" in capsys.readouterr().out
    worse2 = make_run(_rows("x" * 15 + "c" * 25), run_id="new2")
    options = PostRunOptions(baseline="baseline", fail_on_regression=True, quiet=True)
    assert after_run(worse2, options) == 1
    assert capsys.readouterr().out == ""


def test_after_run_resolves_baseline_before_saving_the_new_run(make_run) -> None:
    save_run(make_run(_rows("c" * 40), run_id="base", tags=("baseline",)))
    # The new run carries the same tag: it must still be compared with the old one.
    new = make_run(_rows("x" * 15 + "c" * 25), run_id="new", tags=("baseline",))
    options = PostRunOptions(baseline="baseline", fail_on_regression=True, quiet=True)
    assert after_run(new, options) == 1
    assert get_run("baseline").run_id == "new"


def test_after_run_unknown_baseline_raises_after_saving(make_run) -> None:
    run = make_run(_rows("c"), run_id="r1")
    with pytest.raises(BaselineError):
        after_run(run, PostRunOptions(baseline="missing", quiet=True))
    assert get_run("r1") == run


def test_after_run_unknown_report_format_raises(make_run, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="pdf"):
        after_run(make_run(_rows("c")), PostRunOptions(reports={"pdf": tmp_path / "x.pdf"}))


def test_compare_text_truncates_long_flip_lists_and_warns_on_suite_change(make_run) -> None:
    base = make_run(_rows("c" * 80), suite_hash="h1")
    cand = make_run(_rows("x" * 60 + "c" * 20), run_id="cand", suite_hash="h2")
    save_run(base)
    save_run(cand)
    result = runner.invoke(app, ["compare", "run-a", "cand"])
    assert result.exit_code == 0, result.output
    assert "Warning: the suites differ (h1 vs h2)" in result.output
    assert "Broken (60):" in result.output
    assert "... and 10 more (use --json for all)" in result.output
    assert "TC-049: correct -> wrong_tool" in result.output
    assert "TC-050:" not in result.output


@pytest.mark.parametrize(
    ("candidate", "threshold", "on_regression", "on_inconclusive", "code"),
    [
        # 15 of 40 broken: a regression; it wins over the inconclusive gate.
        ("x" * 15 + "c" * 25, 2.0, True, True, 1),
        ("x" * 15 + "c" * 25, 2.0, False, True, 0),
        # 2 of 40 broken: p = 0.5, the suite cannot tell.
        ("x" * 2 + "c" * 38, 2.0, False, True, 3),
        ("x" * 2 + "c" * 38, 2.0, True, True, 3),
        ("x" * 2 + "c" * 38, 2.0, True, False, 0),
        ("x" * 2 + "c" * 38, 2.0, False, False, 0),
        # Nothing flipped and a margin of 20 points: equivalent, the gate passes.
        ("c" * 40, 20.0, True, True, 0),
    ],
)
def test_after_run_inconclusive_gate_exits_3_and_regression_wins(
    make_run,
    candidate: str,
    threshold: float,
    on_regression: bool,
    on_inconclusive: bool,
    code: int,
) -> None:
    save_run(make_run(_rows("c" * 40), run_id="base", tags=("baseline",)))
    new = make_run(_rows(candidate), run_id="new")
    options = PostRunOptions(
        baseline="baseline",
        threshold=threshold,
        fail_on_regression=on_regression,
        fail_on_inconclusive=on_inconclusive,
        quiet=True,
    )
    assert after_run(new, options) == code


def test_after_run_inconclusive_gate_without_baseline_passes(make_run) -> None:
    options = PostRunOptions(fail_on_inconclusive=True, quiet=True)
    assert after_run(make_run(_rows("cx"), run_id="alone"), options) == 0


def test_run_option_fail_on_inconclusive_reaches_the_post_run_options() -> None:
    from toolgrade.cli._run_options import PostOptions

    assert PostOptions(fail_on_inconclusive=True).post_run().fail_on_inconclusive
    assert not PostOptions().post_run().fail_on_inconclusive
