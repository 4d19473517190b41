r"""Lone UTF-16 surrogates wherever untrusted text enters: kept as U+FFFD, never a crash.

A model writing half an emoji (`"notes \ud83d.md"`), a suite holding one, an
environment or a Python agent returning one: each used to crash the run in the result
writer (`surrogates not allowed`), and `--resume` crashed again on the same case. Each
entry point replaces a lone surrogate by U+FFFD, so the run finishes, its folder and
history are written, and every report renders.
"""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toolgrade
from backends.streamserver import DONE, Reply, StreamServer, chunk, completion, models
from runner.convscript import suite as conversation_suite
from runner.fakeserver import FakeServer, Step
from toolgrade import call_tool
from toolgrade._core.json_data import has_surrogate
from toolgrade.cli import app

SUR = "\ud83d"
"""A lone high surrogate (half of 😀), as Python reads the JSON escape `\ud83d`."""
ESC = "\\ud83d"
"""The text of that escape, as a model writes it inside a call's JSON."""
FFFD = "\ufffd"

cli = CliRunner()


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    # json.dumps writes a lone surrogate as its escape: the file is valid UTF-8.
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _has_surrogate(value: object) -> bool:
    if isinstance(value, str):
        return has_surrogate(value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(item) for item in value)
    return False


def _assert_written_clean(home: Path, run_id: str) -> str:
    """The run folder's results are valid UTF-8 and hold no surrogate, even escaped."""
    text = (home / "runs" / run_id / "results.jsonl").read_bytes().decode("utf-8")
    assert not any(_has_surrogate(json.loads(line)) for line in text.splitlines())
    return text


def _assert_reports_render(run_id: str) -> None:
    for fmt in ("text", "json", "html", "markdown", "junit"):
        shown = cli.invoke(app, ["report", run_id, "--format", fmt])
        assert shown.exit_code == 0, (fmt, shown.output)
        shown.output.encode("utf-8")


def _run_id(output: str) -> str:
    return output.split("run ", 1)[1].split(" saved", 1)[0].rsplit("\n", 1)[-1].strip()


# --- evaluate (responses file) ----------------------------------------------------------


def test_surrogate_evaluate_issue_reproduction(tmp_path: Path, toolgrade_home: Path) -> None:
    output = '{"name": "read_file", "arguments": {"file_path": "notes ' + ESC + '.md"}}'
    responses = _jsonl(tmp_path / "r.jsonl", [{"case_id": "TC-001", "output": output}])
    args = ["evaluate", "--suite", "coding-agent", "--responses", str(responses), "--limit", "1"]
    result = cli.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert f'got "notes {FFFD}.md"' in result.output
    runs = toolgrade.list_runs()
    text = _assert_written_clean(toolgrade_home, runs[0].run_id)
    assert json.loads(text.splitlines()[0])["actual"] == [
        {"name": "read_file", "arguments": {"file_path": f"notes {FFFD}.md"}}
    ]
    _assert_reports_render(runs[0].run_id)


def test_surrogate_evaluate_raw_surrogate_in_text_and_message(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    # A raw surrogate (the JSON line's own escape) in text and in a structured message.
    rows = [
        {"case_id": "TC-001", "output": f"I will read it {SUR} now."},
        {
            "case_id": "TC-002",
            "message": {
                "role": "assistant",
                "content": f"ok {SUR}",
                "tool_calls": [
                    {
                        "function": {
                            "name": f"read_file{SUR}",
                            "arguments": {"file_path": f"x{SUR}", f"k{SUR}": [SUR]},
                        }
                    }
                ],
            },
        },
    ]
    responses = _jsonl(tmp_path / "r.jsonl", rows)
    result = cli.invoke(
        app, ["evaluate", "--suite", "coding-agent", "--responses", str(responses), "--limit", "2"]
    )
    assert result.exit_code == 0, result.output
    run_id = toolgrade.list_runs()[0].run_id
    _assert_written_clean(toolgrade_home, run_id)
    _assert_reports_render(run_id)


def test_surrogate_evaluate_conversation(tmp_path: Path, toolgrade_home: Path) -> None:
    suite_path = tmp_path / "conv.json"
    suite_path.write_text(json.dumps(conversation_suite().to_dict()), encoding="utf-8")
    read = {"name": "read_file", "arguments": '{"path": "a.txt", "why": "' + ESC + '"}'}
    write = {"name": "write_file", "arguments": {"path": f"b{SUR}.txt", "text": "A"}}
    rows = [
        {
            "case_id": "c1",
            "turn": 0,
            "step": 0,
            "message": {"role": "assistant", "content": SUR, "tool_calls": [{"function": read}]},
        },
        {"case_id": "c1", "turn": 0, "step": 1, "output": f"It says A {SUR}"},
        {
            "case_id": "c1",
            "turn": 1,
            "step": 0,
            "message": {"role": "assistant", "content": None, "tool_calls": [{"function": write}]},
        },
        {"case_id": "c1", "turn": 1, "step": 1, "output": f"Copied {ESC} {SUR}"},
    ]
    responses = _jsonl(tmp_path / "r.jsonl", rows)
    result = cli.invoke(
        app, ["evaluate", "--suite", str(suite_path), "--responses", str(responses)]
    )
    assert result.exit_code == 0, result.output
    run_id = toolgrade.list_runs()[0].run_id
    text = _assert_written_clean(toolgrade_home, run_id)
    assert f"It says A {FFFD}" in text
    _assert_reports_render(run_id)


# --- run against a server, streamed and not ---------------------------------------------

_ARGS = '{"file_path": "notes ' + ESC + '.md"}'


def _served(body: dict[str, Any]) -> Reply:
    call = {"id": "c0", "type": "function", "function": {"name": "read_file"}}
    if not body.get("stream"):
        whole = {**call, "function": {"name": "read_file", "arguments": _ARGS}}
        message = {"role": "assistant", "content": f"Sure {SUR}", "tool_calls": [whole]}
        return completion(message, finish="tool_calls")
    cut = _ARGS.index(ESC) + 3  # the escape split across two deltas
    first = {**call, "index": 0, "function": {"name": "read_file", "arguments": _ARGS[:cut]}}
    pieces = [
        chunk({"role": "assistant", "content": "Sure "}),
        chunk({"content": SUR}),
        chunk({"tool_calls": [first]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": _ARGS[cut:]}}]}),
        chunk(finish="tool_calls"),
        DONE,
    ]
    return Reply(chunks=pieces)


@pytest.mark.parametrize("stream", [True, False])
def test_surrogate_run_against_server(stream: bool, toolgrade_home: Path) -> None:
    suite = toolgrade.load_suite("coding-agent")
    suite = toolgrade.select_cases(suite, toolgrade.Selection(ids=("TC-001",)))
    routes = {"GET /v1/models": [models("m")], "POST /v1/chat/completions": _served}
    with StreamServer(routes) as server:  # type: ignore[arg-type]
        options = toolgrade.RunOptions(base_url=server.openai_url, stream=stream, warmup=False)
        run = toolgrade.run_suite(suite, "openai/m", options=options)
        sent = server.bodies("/v1/chat/completions")
    assert bool(sent[0].get("stream")) is stream
    (result,) = run.results
    assert result.actual[0].arguments == {"file_path": f"notes {FFFD}.md"}
    raw = json.dumps(result.raw_response, ensure_ascii=False)
    assert f"Sure {FFFD}" in raw
    _assert_written_clean(toolgrade_home, run.run_id)
    _assert_reports_render(run.run_id)
    assert toolgrade.load_run_folder(run.run_id).results[0].actual == result.actual


class _StopAfter:
    def __init__(self, stop: asyncio.Event, n: int) -> None:
        self.stop, self.n, self.seen = stop, n, 0

    def start(self, *, total: int, done: tuple[toolgrade.CaseResult, ...]) -> None:
        pass

    def update(self, result: toolgrade.CaseResult) -> None:
        self.seen += 1
        if self.seen >= self.n:
            self.stop.set()

    def close(self) -> None:
        pass


def test_surrogate_interrupted_run_resumes_to_the_end(toolgrade_home: Path) -> None:
    cases = [
        {
            "id": f"S-{i}",
            "prompt": f"read {i}",
            "expected": {"name": "read_file", "arguments": {"path": f"{i}.txt"}},
        }
        for i in range(8)
    ]
    suite = toolgrade.Suite.model_validate(
        {"name": "s", "tools": [{"name": "read_file", "parameters": {}}], "cases": cases}
    )
    # Every case answers with a surrogate: in the text, and escaped in the arguments.
    script = {
        f"read {i}": [Step(content=f"{i} {SUR}", calls=[{"name": "read_file", "arguments": {}}])]
        for i in range(8)
    }
    script["read 3"] = [Step(content='<tool_call>{"name": "read_file", "arguments": {"path": "'
                                     + ESC + '"}}</tool_call>')]  # fmt: skip
    with FakeServer(script) as server:
        options = toolgrade.RunOptions(base_url=server.openai_url, concurrency=1, warmup=False)

        async def stopped() -> toolgrade.RunResult:
            stop = asyncio.Event()
            return await toolgrade.arun_suite(
                suite, "openai/m", options=options, stop=stop, progress=_StopAfter(stop, 4)
            )

        partial = asyncio.run(stopped())
        assert partial.status == "interrupted"
        assert 4 <= len(partial.results) < 8
        resumed = toolgrade.resume_run(partial.run_id, suite=suite, handle_signals=False)
    assert resumed.status == "complete"
    assert sorted(r.case_id for r in resumed.results) == [f"S-{i}" for i in range(8)]
    by_id = {r.case_id: r for r in resumed.results}
    assert by_id["S-3"].actual[0].arguments == {"path": FFFD}
    _assert_written_clean(toolgrade_home, resumed.run_id)
    _assert_reports_render(resumed.run_id)


# --- extract CLI, MCP tools ---------------------------------------------------------------


def test_surrogate_extract_cli(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text('<tool_call>{"name": "f", "arguments": {"p": "' + ESC + '"}}</tool_call>')
    result = cli.invoke(app, ["extract", str(path)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["calls"] == [{"name": "f", "arguments": {"p": FFFD}}]
    message = {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": _ARGS}}]}
    path.write_text(json.dumps(message), encoding="utf-8")
    result = cli.invoke(app, ["extract", "--message", str(path)])
    assert result.exit_code == 0, result.output
    assert FFFD in result.output


def test_surrogate_call_tool_in_process() -> None:
    # The arguments of toolgrade's own tools come from a client: cleaned on entry.
    found = call_tool("extract_calls", {"output": f"[f(a='{SUR}', b='{ESC}')]"})
    assert found["calls"] == [{"name": "f", "arguments": {"a": FFFD, "b": FFFD}}]
    case = {"expected": {"name": "f", "arguments": {"a": {"$regex": f"^{SUR}$"}}}}
    judged = call_tool("judge", {"case": case, "actual": [{"name": "f", "arguments": {"a": SUR}}]})
    assert judged["status"] == "correct"
    scored = call_tool(
        "score_calls", {"expected": [{"name": f"f{SUR}"}], "actual": [{"name": f"f{SUR}"}]}
    )
    assert scored["score"] == 1.0
    for result in (found, judged, scored):
        json.dumps(result, ensure_ascii=False).encode("utf-8")


def test_surrogate_mcp_server_over_stdio() -> None:
    """The server answers a call whose output escapes half an emoji, and keeps serving."""
    process = subprocess.Popen(
        [sys.executable, "-m", "toolgrade", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in process.stdout], daemon=True).start()  # type: ignore[union-attr]

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()

    def answer(number: int) -> dict[str, Any]:
        # A server that died (or hangs) fails the test instead of blocking it.
        received: dict[str, Any] = json.loads(lines.get(timeout=60))
        assert received["id"] == number, received
        return received

    def call(number: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        send({"jsonrpc": "2.0", "id": number, "method": "tools/call",
              "params": {"name": name, "arguments": arguments}})  # fmt: skip
        return answer(number)

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}})  # fmt: skip
        answer(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        output = '{"name": "read_file", "arguments": {"file_path": "notes ' + ESC + '.md"}}'
        found = call(2, "extract_calls", {"output": output})["result"]
        assert not found["isError"]
        assert found["structuredContent"]["calls"][0]["arguments"] == {
            "file_path": f"notes {FFFD}.md"
        }
        case = {"expected": {"name": "f", "arguments": {"a": "x"}}}
        judged = call(3, "judge", {"case": case, "actual": "[f(a='" + ESC + "')]"})["result"]
        assert judged["structuredContent"]["status"] == "wrong_args"
        assert call(4, "extract_calls", {"output": "none"})["result"]["structuredContent"]
    finally:
        process.kill()
        process.wait()
        process.stdin.close()
        process.stdout.close()


# --- suites ---------------------------------------------------------------------------------


def _surrogate_suite(tmp_path: Path) -> Path:
    suite = {
        "schema_version": 1,
        "name": f"half-{SUR}-emoji",
        "description": f"a suite whose text holds {SUR}",
        "tools": [
            {
                "name": "read_file",
                "description": f"Read {SUR}",
                "parameters": {
                    "type": "object",
                    "properties": {"file_path": {"type": "string", "description": SUR}},
                },
            }
        ],
        "cases": [
            {
                "id": "S-1",
                "prompt": f"Read notes {SUR}.md",
                "tags": [f"t{SUR}"],
                "expected": {
                    "name": "read_file",
                    "arguments": {"file_path": {"$regex": f"^notes {SUR}\\.md$"}},
                },
            },
            {
                "id": "S-2",
                "prompt": "Read it",
                "expected": {"name": "read_file", "arguments": {"file_path": f"a{SUR}"}},
            },
        ],
    }
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite), encoding="utf-8")  # the surrogates as `\ud83d`
    return path


def test_surrogate_suite_validate_show_and_hash(tmp_path: Path) -> None:
    path = _surrogate_suite(tmp_path)
    validated = cli.invoke(app, ["suite", "validate", str(path)])
    assert validated.exit_code == 0, validated.output
    for extra in ([], ["--cases"], ["--json", "--cases"]):
        shown = cli.invoke(app, ["suite", "show", str(path), *extra])
        assert shown.exit_code == 0, shown.output
        assert FFFD in shown.output or "\\ufffd" in shown.output
    suite = toolgrade.load_suite(path)
    assert suite.content_hash.startswith("sha256:")
    assert suite.cases[0].prompt == f"Read notes {FFFD}.md"
    literal = path.read_text(encoding="utf-8").replace("\\ud83d", SUR)
    assert toolgrade.parse_suite(literal).content_hash == suite.content_hash


def test_surrogate_suite_run_and_evaluate(tmp_path: Path, toolgrade_home: Path) -> None:
    path = _surrogate_suite(tmp_path)
    output = '{"name": "read_file", "arguments": {"file_path": "notes ' + ESC + '.md"}}'
    responses = _jsonl(
        tmp_path / "r.jsonl",
        [{"case_id": "S-1", "output": output}, {"case_id": "S-2", "output": f"a{SUR}"}],
    )
    result = cli.invoke(app, ["evaluate", "--suite", str(path), "--responses", str(responses)])
    assert result.exit_code == 0, result.output
    run = toolgrade.load_run_folder(toolgrade.list_runs()[0].run_id)
    assert run.results[0].status == "correct"
    _assert_written_clean(toolgrade_home, run.run_id)
    _assert_reports_render(run.run_id)


# --- Python environments and Python agents --------------------------------------------------

_ENV = """
class Notes:
    def __init__(self, text=""):
        self.text = text

    def read(self, path):
        return {"path": path, "text": "half \\ud83d emoji", "\\udc00key": ["\\udfff"]}

    def fail(self, path):
        raise ValueError("cannot read \\ud83d")

    def state(self):
        return {"text": self.text + "\\ud83d"}
"""


def test_surrogate_python_environment_results(tmp_path: Path, toolgrade_home: Path) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "notes_env.py").write_text(_ENV, encoding="utf-8")
    tool = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    suite = {
        "schema_version": 2,
        "name": "notes",
        "tools": [{"name": "read", "parameters": tool}, {"name": "fail", "parameters": tool}],
        "environments": {"notes": {"kind": "python", "class": "notes_env:Notes"}},
        "cases": [
            {
                "id": "N-1",
                "environment": "notes",
                "turns": [
                    {
                        "user": "Read a, then fail on b.",
                        "expect_error": True,  # `fail` raises: the failing call is the point
                        "expected": [
                            {"name": "read", "arguments": {"path": "a"}},
                            {"name": "fail", "arguments": {"path": "b"}},
                        ],
                    }
                ],
                "checks": {"final_state": {"state": {"text": FFFD}}},
            }
        ],
    }
    (folder / "suite.json").write_text(json.dumps(suite), encoding="utf-8")
    calls = '[read(path="a"), fail(path="b")]'
    responses = _jsonl(
        tmp_path / "r.jsonl",
        [
            {"case_id": "N-1", "turn": 0, "step": 0, "output": calls},
            {"case_id": "N-1", "turn": 0, "step": 1, "output": "Done."},
        ],
    )
    run = toolgrade.run_suite(
        toolgrade.load_suite(folder), f"replay/{responses}", options=toolgrade.RunOptions()
    )
    (result,) = run.results
    assert result.status == "correct", (result.error, result.details)
    assert result.conversation is not None
    assert result.conversation.final_state == {"text": FFFD}
    exchanges = [e for t in result.conversation.turns for s in t.steps for e in s.exchanges]
    assert exchanges[0].result == {"path": "a", "text": f"half {FFFD} emoji", f"{FFFD}key": [FFFD]}
    assert FFFD in json.dumps(exchanges[1].result, ensure_ascii=False)
    _assert_written_clean(toolgrade_home, run.run_id)
    _assert_reports_render(run.run_id)


_AGENT = """
def text(messages, tools):
    return "no call \\ud83d"


def calls(messages, tools):
    return [{"name": "read_file", "arguments": {"file_path": "notes \\ud83d.md"}}]


def message(messages, tools):
    return {"role": "assistant", "content": "\\udc00", "tool_calls": [
        {"function": {"name": "read_file", "arguments": {"file_path": "\\ud83d"}}}]}


def fails(messages, tools):
    raise RuntimeError("broken \\ud83d")
"""


def test_surrogate_python_backend(
    tmp_path: Path, toolgrade_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "surrogate_agent.py").write_text(_AGENT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    suite = toolgrade.load_suite("coding-agent")
    suite = toolgrade.select_cases(suite, toolgrade.Selection(ids=("TC-001",)))
    for name in ("text", "calls", "message", "fails"):
        run = toolgrade.run_suite(
            suite, f"python/surrogate_agent:{name}", options=toolgrade.RunOptions(warmup=False)
        )
        (result,) = run.results
        _assert_written_clean(toolgrade_home, run.run_id)
        dumped = result.model_dump_json()
        assert FFFD in dumped, (name, dumped)
    _assert_reports_render(run.run_id)


def test_surrogate_chat_reply_is_cleaned_and_cheap() -> None:
    from toolgrade.backends import ChatReply

    raw = {"role": "assistant", "content": "plain"}
    assert ChatReply(raw=raw).raw is raw
    reply = ChatReply(
        raw={"content": SUR, "k": [SUR]},
        identity={"model": SUR},
        error=f"e{SUR}",
        finish_reason=SUR,
    )
    assert reply.raw == {"content": FFFD, "k": [FFFD]}
    assert reply.identity == {"model": FFFD}
    assert (reply.error, reply.finish_reason) == (f"e{FFFD}", FFFD)


def test_surrogate_server_info_is_cleaned() -> None:
    from toolgrade.backends import ServerInfo

    info = ServerInfo(models=(f"m{SUR}", "plain"), identity={"version": SUR})
    assert info.models == (f"m{FFFD}", "plain")
    assert info.identity == {"version": FFFD}
    identity = {"version": "1"}
    assert ServerInfo(identity=identity).identity is identity
