"""`--stream-check N`: sampled cases asked streamed, whole and whole again, compared.

The comparison itself (`serving.compare_answers`, `stream_check`, `stream_summary`) on
answers written here; the check through a real `run_suite` against the fake server
(a divergent stream, sampling noise, a failed request, a clean case), kept with the run
in its folder and in the history; the option on the command line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toolgrade
from runner.fakeserver import FakeServer, Step
from toolgrade.cli import app
from toolgrade.results import StreamCheck
from toolgrade.runner._stream_check import first_request, sample_cases
from toolgrade.runner._turns import Wire
from toolgrade.serving import Asked, compare_answers, stream_check, stream_summary
from toolgrade.store import get_run, load_run_folder, save_run


def _calls(*calls: tuple[str, dict[str, Any]], content: str | None = None) -> Asked:
    tool_calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, (n, a) in enumerate(calls)
    ]
    return Asked({"role": "assistant", "content": content, "tool_calls": tool_calls})


def _text(text: str) -> Asked:
    return Asked({"role": "assistant", "content": text})


READ = ("read_file", {"path": "a.py"})
HERMES = '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'


@pytest.mark.parametrize(
    ("first", "second", "detail"),
    [
        (_calls(READ), _calls(READ), None),
        (_calls(("read_file", {})), _calls(READ), "streamed lost the argument `path`"),
        (_calls(("read_file", {"path": "a.py", "n": 1})), _calls(READ), "streamed added the argument `n`"),
        (_calls(("read_file", {"path": "b.py"})), _calls(READ), 'the argument `path` differs: streamed "b.py", whole "a.py"'),
        (_calls(), _calls(READ), "streamed came as empty, whole as structured"),
        (_calls(READ), _calls(READ, ("search", {"q": "x"})), 'streamed lost the call search({"q":"x"})'),
        (_calls(("search", {})), _calls(("grep", {})), "streamed called search where whole called grep"),
        (_text(HERMES), _calls(READ), "streamed came as calls_in_text, whole as structured"),
        (_text("Hello  there"), _text("Hello there"), None),
        (_text("Hi"), _text("Hello"), "the text differs: streamed 'Hi', whole 'Hello'"),
        (Asked(failure="HTTP 500"), _text("Hi"), "the streamed request failed: HTTP 500"),
    ],
)  # fmt: skip
def test_compare_answers_says_what_a_client_would_see_differ(
    first: Asked, second: Asked, detail: str | None
) -> None:
    assert compare_answers(first, second) == detail


def test_same_calls_in_text_agree_in_prompt_mode() -> None:
    assert compare_answers(_text(HERMES), _text(HERMES), native=False) is None


def test_stream_check_verdicts() -> None:
    ok, lost, other = _calls(READ), _calls(("read_file", {})), _calls(("search", {}))
    assert stream_check("c", ok, ok, ok).verdict == "agree"
    diverge = stream_check("c", lost, ok, ok)
    assert (diverge.verdict, diverge.detail) == ("diverge", "streamed lost the argument `path`")
    assert diverge.streamed == lost.raw and diverge.whole == ok.raw
    noise = stream_check("c", lost, ok, other)
    assert noise.verdict == "noise"
    assert noise.detail.endswith(
        "the whole answers differ too: whole called read_file where whole again called search"
    )
    varies = stream_check("c", ok, ok, other)
    assert varies.verdict == "agree" and varies.detail.startswith("sampling varies: ")
    failed = stream_check("c", ok, ok, Asked(failure="timed out"))
    assert (failed.verdict, failed.detail) == (
        "failed",
        "the second whole request failed: timed out",
    )


def test_stream_summary_line() -> None:
    checks = [StreamCheck(case_id=f"TC-{i:03}", verdict="agree") for i in range(19)]
    checks.append(
        StreamCheck(case_id="TC-007", verdict="diverge", detail="streamed lost the argument `path`")
    )
    assert stream_summary(checks) == (
        "stream check: 20 cases, 19 agree, 1 diverges: TC-007 (streamed lost the argument `path`)"
    )
    many = [StreamCheck(case_id=f"F{i}", verdict="failed", detail="x") for i in range(5)]
    assert stream_summary(many) == (
        "stream check: 5 cases, 0 agree, 5 failed: F0 (x), F1 (x), F2 (x), 2 more"
    )


SUITE = toolgrade.Suite.model_validate(
    {
        "schema_version": 2,
        "name": "streams",
        "version": "1",
        "tools": [
            {
                "name": "read_file",
                "description": "Read a file",
                "parameters": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"],
                },
            }
        ],
        "cases": [
            {"id": f"S-{name}", "prompt": name, "expected": {"name": "read_file", "arguments": {"path": "a.py"}}}
            for name in ("clean", "diverge", "noise", "fails")
        ]
        + [{"id": "S-talk", "turns": [{"user": "talk first"}, {"user": "then more"}]}],
    }
)  # fmt: skip

_READ = {"name": "read_file", "arguments": {"path": "a.py"}}
_LOST = {"name": "read_file", "arguments": {}}
# Each prompt is asked by the run (streamed), then by the check: whole, streamed, whole again.
SCRIPT = {
    "clean": [Step(calls=[_READ])],
    "diverge": [Step(calls=[_READ], streamed=Step(calls=[_LOST]))],
    "noise": [
        Step(calls=[_READ]),
        Step(calls=[_READ]),
        Step(content="I would rather not."),
        Step(calls=[{"name": "read_file", "arguments": {"path": "b.py"}}]),
    ],
    "fails": [Step(calls=[_READ]), Step(calls=[_READ]), Step(status=500)],
    "talk first": [Step(content="Hello.")],
}


def _options(url: str, **changes: Any) -> toolgrade.RunOptions:
    base: dict[str, Any] = {
        "timeout": 5.0,
        "concurrency": 2,
        "max_retries": 0,
        "warmup": False,
        "persist": False,
        "seed": 3,
        "base_url": url,
        "stream_check": 10,
    }
    return toolgrade.RunOptions(**{**base, **changes})


def test_stream_check_through_a_run_against_the_fake_server() -> None:
    with FakeServer(SCRIPT, streams=True) as server:
        run = toolgrade.run_suite(
            SUITE, "openai/m", options=_options(server.openai_url), handle_signals=False
        )
        asked = [(b.get("stream", False), b["messages"][-1]["content"]) for b in server.requests]
    checks = {c.case_id: c for c in run.stream_checks}
    assert [c.case_id for c in run.stream_checks] == [c.id for c in SUITE.cases]
    assert {k: c.verdict for k, c in checks.items()} == {
        "S-clean": "agree",
        "S-diverge": "diverge",
        "S-noise": "noise",
        "S-fails": "failed",
        "S-talk": "agree",
    }
    assert checks["S-diverge"].detail == "streamed lost the argument `path`"
    assert checks["S-diverge"].streamed["tool_calls"][0]["function"]["arguments"] == "{}"  # type: ignore[index]
    assert checks["S-fails"].detail.startswith("the streamed request failed: ")
    # A conversation is checked on its first request only: three more "talk first".
    assert asked.count((True, "talk first")) == 2 and asked.count((False, "talk first")) == 2
    line = stream_summary(run.stream_checks)
    assert line.startswith("stream check: 5 cases, 2 agree, 1 diverges: S-diverge (")


def test_stream_check_is_bounded_by_the_selected_cases_and_seeded() -> None:
    cases = list(SUITE.cases)
    assert sample_cases(cases, 99, 1) == cases
    two = [c.id for c in sample_cases(cases, 2, 5)]
    assert two == [c.id for c in sample_cases(cases, 2, 5)] and len(two) == 2
    assert [c.id for c in cases if c.id in two] == two  # suite order


def test_first_request_of_a_conversation_is_its_first_turn() -> None:
    talk = next(c for c in SUITE.cases if c.id == "S-talk")
    request = first_request(SUITE, talk, Wire.of(SUITE, safe_names=True))
    assert [m["content"] for m in request.messages] == ["talk first"]
    assert [t.name for t in request.tools] == ["read_file"]


def test_stream_checks_survive_the_run_folder_and_the_history(tmp_path: Path) -> None:
    script = {"clean": SCRIPT["clean"], "diverge": SCRIPT["diverge"]}
    suite = toolgrade.select_cases(SUITE, toolgrade.Selection(ids=("S-clean", "S-diverge")))
    with FakeServer(script, streams=True) as server:
        options = _options(server.openai_url, persist=True, stream_check=2)
        run = toolgrade.run_suite(suite, "openai/m", options=options, handle_signals=False)
    assert [c.verdict for c in run.stream_checks] == ["agree", "diverge"]
    assert load_run_folder(run.run_id).stream_checks == run.stream_checks
    db = tmp_path / "history.db"
    save_run(run, db=db)
    assert get_run(run.run_id, db=db).stream_checks == run.stream_checks
    # A run without a check writes no field, and one written before the field loads.
    data = json.loads(run.model_dump_json())
    assert "stream_checks" in data
    del data["stream_checks"]
    assert toolgrade.RunResult.model_validate(data).stream_checks == ()
    assert "stream_checks" not in run.model_copy(update={"stream_checks": ()}).model_dump()


@pytest.mark.parametrize("model", ["replay/answers.jsonl", "python/mod:fn"])
def test_stream_check_needs_a_server(model: str) -> None:
    with pytest.raises(toolgrade.ConfigError, match="needs a model server"):
        toolgrade.run_suite(
            SUITE,
            model,
            options=toolgrade.RunOptions(stream_check=1, persist=False),
            handle_signals=False,
        )


def test_stream_check_option_is_recorded_and_bounded() -> None:
    options = toolgrade.RunOptions(stream_check=4)
    assert options.to_dict()["stream_check"] == 4
    assert "stream_check" not in toolgrade.RunOptions().to_dict()
    assert toolgrade.RunOptions.from_dict(options.to_dict()).stream_check == 4
    with pytest.raises(toolgrade.ConfigError, match="--stream-check must be 0 or more"):
        toolgrade.RunOptions(stream_check=-1)


def test_cli_run_prints_the_stream_check_line(tmp_path: Path) -> None:
    path = tmp_path / "suite.json"
    suite = toolgrade.select_cases(SUITE, toolgrade.Selection(ids=("S-clean", "S-diverge")))
    path.write_text(suite.model_dump_json(exclude_none=True), encoding="utf-8")
    with FakeServer(SCRIPT, streams=True) as server:
        command = [
            "run", "--suite", str(path), "--model", "openai/m", "--base-url",
            server.openai_url, "--stream-check", "5", "--no-warmup", "--seed", "1",
        ]  # fmt: skip
        result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    assert (
        "stream check: 2 cases, 1 agree, 1 diverges: S-diverge (streamed lost the argument `path`)"
    ) in result.output
