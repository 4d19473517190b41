"""The accuracy as served on the leaderboard: beside the accuracy when it differs.

The real recording of Qwen2.5-Coder in native mode (tests/data/real/native.jsonl) leaves
every call in the message's text: 23/85 as the model, 6/85 as served. A second
responses file holds the same answers with the calls moved into structured
`tool_calls`: 23/85 both ways. A sweep of the two through the replay backend shows
both accuracies and says that the order as served is not the table's; a sweep whose
models all answer with structured calls shows nothing new.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import toolgrade
from runner.real_recordings import REAL
from sweep.helpers import SweepServer, write_suite, write_sweep
from toolgrade.extract import extract_calls
from toolgrade.metrics import compute_metrics
from toolgrade.sweep import (
    BoardInput,
    Leaderboard,
    build_leaderboard,
    load_sweep,
    render_leaderboard_html,
    render_leaderboard_text,
    run_sweep,
    sweep_leaderboard,
)

RunFactory = Callable[..., toolgrade.RunResult]


def structured_copy(source: Path, target: Path) -> Path:
    """The recorded answers with every call read from the text sent as `tool_calls`.

    An answer whose text holds no call, or a call that cannot be read, stays as it was.
    """
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        found = extract_calls(record["message"])
        if found.calls and not found.errors:
            record["message"] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{k}",
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                    }
                    for k, c in enumerate(found.calls)
                ],
            }
        lines.append(json.dumps(record))
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def served_board(tmp_path_factory: pytest.TempPathFactory) -> tuple[Leaderboard, dict[str, int]]:
    """The two models' sweep (native listed first) and the run metrics' as-served counts."""
    folder = tmp_path_factory.mktemp("served")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOOLGRADE_HOME", str(folder / "home"))
        structured = structured_copy(REAL / "native.jsonl", folder / "structured.jsonl")
        path = write_sweep(
            folder / "sweep.toml",
            name="served",
            models=[
                {"label": "native", "model": f"replay/{REAL / 'native.jsonl'}"},
                {"label": "structured", "model": f"replay/{structured}"},
            ],
            suites=[{"suite": str(REAL / "suite.json"), "label": "builtin"}],
            warmup=False,
        )
        result = run_sweep(load_sweep(path), handle_signals=False)
    assert result.exit_code == 0
    served = {}
    for (label, _), run in result.runs.items():
        serving = compute_metrics(run).serving
        assert serving is not None
        served[label] = serving.as_served.passed
    return sweep_leaderboard(result), served


def test_calls_left_in_text_lower_the_accuracy_as_served(
    served_board: tuple[Leaderboard, dict[str, int]],
) -> None:
    board, metrics_served = served_board
    (suite,) = board.suites
    native, structured = suite.entries
    assert (native.label, structured.label) == ("native", "structured")
    assert (native.accuracy.passed, native.accuracy.n) == (23, 85)
    assert (structured.accuracy.passed, structured.accuracy.n) == (23, 85)
    assert native.serving is not None and structured.serving is not None
    assert (native.serving.as_served.passed, native.serving.as_served.n) == (6, 85)
    assert (structured.serving.as_served.passed, structured.serving.as_served.n) == (23, 85)
    # One try per case, every case compared: the run metrics' number.
    assert metrics_served == {"native": 6, "structured": 23}
    assert (native.serving.faults, native.serving.commonest_fault) == (74, "calls_in_text")
    assert native.serving.commonest_count == 74
    # The unreadable call (TC-014) stays in the text of the structured copy too.
    assert (structured.serving.faults, structured.serving.commonest_count) == (1, 1)
    assert suite.serving_differs
    assert suite.served_swaps == (("structured", "native"),)


def test_ranks_and_pairs_stay_on_the_models_accuracy(
    served_board: tuple[Leaderboard, dict[str, int]],
) -> None:
    (suite,) = served_board[0].suites
    native, structured = suite.entries
    assert (native.rank, structured.rank) == (1, 1)
    assert (native.standing, structured.standing) == ("best", "equivalent")
    (pair,) = suite.pairs
    assert (pair.delta, pair.first_only, pair.second_only, pair.separated) == (0, 0, 0, False)


def test_served_text_shows_both_accuracies_and_the_swap(
    served_board: tuple[Leaderboard, dict[str, int]],
) -> None:
    text = render_leaderboard_text(served_board[0])
    assert "As served: the accuracy a client reading only tool_calls gets" in text
    assert (
        "  By accuracy as served the order changes: structured passes native (27.1% vs 7.1%)\n"
    ) in text
    assert re.search(r"Accuracy\s+95% CI\s+As served\s+Served CI\s+Serving faults\s+Cases", text)
    assert re.search(
        r"native\s+27\.1% \(23/85\)\s+18\.8% - 37\.3%\s+7\.1% \(6/85\)\s+3\.3% - 14\.6%"
        r"\s+74 \(calls_in_text 74\)\s+85\s",
        text,
    )
    assert re.search(r"structured\s+27\.1% \(23/85\)\s+\S+ - \S+\s+27\.1% \(23/85\)", text)


def test_served_json_and_html(served_board: tuple[Leaderboard, dict[str, int]]) -> None:
    board = served_board[0]
    data = json.loads(json.dumps(board.to_dict()))
    assert data["schema_version"] == 3
    (suite,) = data["suites"]
    assert suite["serving_differs"] is True
    assert suite["served_swaps"] == [{"ahead": "structured", "behind": "native"}]
    native = suite["entries"][0]["serving"]
    assert native["as_served"]["passed"] == 6 and native["as_served"]["n"] == 85
    assert native["as_served"]["interval"]["level"] == 0.95
    assert (native["faults"], native["commonest_fault"], native["commonest_count"]) == (
        74,
        "calls_in_text",
        74,
    )
    page = render_leaderboard_html(board)
    assert '<th data-key="served"' in page and '<th data-key="faults"' in page
    assert 'data-served="0.07058823529411765" data-faults="74"' in page
    assert '<td class="served-differs">7.1% <small>(6/85)</small></td>' in page
    assert "<strong>structured</strong> passes <strong>native</strong> (27.1% vs 7.1%)" in page


def test_a_clean_sweep_shows_nothing_new(tmp_path: Path) -> None:
    write_suite(tmp_path / "alpha.json", "alpha", 4)
    with SweepServer(models=("m-a", "m-b"), wrong=frozenset({("m-b", "read alpha2.txt")})) as s:
        path = write_sweep(
            tmp_path / "sweep.toml",
            models=[
                {"label": "a", "model": "openai/m-a", "base_url": s.openai_url},
                {"label": "b", "model": "openai/m-b", "base_url": s.openai_url},
            ],
            suites=[{"suite": "alpha.json"}],
            warmup=False,
            max_retries=0,
        )
        board = sweep_leaderboard(run_sweep(load_sweep(path), handle_signals=False))
    (suite,) = board.suites
    assert not suite.serving_differs and suite.served_swaps == ()
    for e in suite.entries:
        assert e.serving is not None and e.accuracy is not None
        assert e.serving.as_served == e.accuracy and e.serving.faults == 0
    text = render_leaderboard_text(board)
    assert "served" not in text.lower() and "Serving faults" not in text
    page = render_leaderboard_html(board)
    assert "As served" not in page and "data-served" not in page and "served-order" not in page
    data = board.to_dict()["suites"][0]
    assert data["serving_differs"] is False and data["served_swaps"] == []


def _answer(case: str, status: str, *, structured: bool, repeat: int = 0) -> dict[str, object]:
    """A result that read read_file(path=x) from tool_calls or from the text."""
    call = {"name": "read_file", "arguments": {"path": "x"}}
    if structured:
        function = {"name": "read_file", "arguments": '{"path": "x"}'}
        raw: dict[str, object] = {
            "role": "assistant",
            "tool_calls": [{"id": "c0", "type": "function", "function": function}],
        }
    else:
        raw = {"role": "assistant", "content": json.dumps(call)}
    return {
        "case_id": case,
        "status": status,
        "repeat": repeat,
        "actual": [call],
        "raw_response": raw,
        "extraction_format": "openai" if structured else "json",
    }


def test_the_order_as_served_reverses_a_better_model(make_run: RunFactory) -> None:
    # "text": 3 of 4 right, all in the text; "tools": 2 of 4 right, as tool_calls.
    text = make_run(
        [
            _answer(f"c{i}", "correct" if i < 4 else "wrong_args", structured=False)
            for i in (1, 2, 3, 4)
        ],
        run_id="T",
    )
    tools = make_run(
        [
            _answer(f"c{i}", "correct" if i < 3 else "wrong_args", structured=True)
            for i in (1, 2, 3, 4)
        ],
        run_id="S",
    )
    board = build_leaderboard(
        "b",
        [
            BoardInput(
                "s",
                [
                    ("tools", "x", tools, None),
                    ("text", "y", text, None),
                    ("gone", "z", None, "down"),
                ],
            )
        ],
    )
    (suite,) = board.suites
    first, second, gone = suite.entries
    assert (first.label, first.accuracy.passed, first.serving.as_served.passed) == ("text", 3, 0)
    assert (second.label, second.accuracy.passed, second.serving.as_served.passed) == (
        "tools",
        2,
        2,
    )
    assert gone.serving is None and gone.to_dict()["serving"] is None
    assert suite.served_swaps == (("tools", "text"),)
    assert "tools passes text (50.0% vs 0.0%)" in render_leaderboard_text(board)


def test_as_served_takes_the_majority_of_a_cases_tries(make_run: RunFactory) -> None:
    # Case c1 passed twice, once as tool_calls: no strict majority as served (a tie fails,
    # as the accuracy's reduction does); c2 passed twice as tool_calls.
    run = make_run(
        [
            _answer("c1", "correct", structured=True, repeat=0),
            _answer("c1", "correct", structured=False, repeat=1),
            _answer("c2", "correct", structured=True, repeat=0),
            _answer("c2", "correct", structured=True, repeat=1),
        ],
        repeat=2,
    )
    (suite,) = build_leaderboard("b", [BoardInput("s", [("m", "x", run, None)])]).suites
    (entry,) = suite.entries
    assert (entry.accuracy.passed, entry.accuracy.n) == (2, 2)
    assert entry.serving is not None
    assert (entry.serving.as_served.passed, entry.serving.as_served.n) == (1, 2)
    assert (entry.serving.faults, entry.serving.commonest_fault) == (1, "calls_in_text")
    assert suite.serving_differs and suite.served_swaps == ()
