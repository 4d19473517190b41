"""A run over several endpoints: three loopback servers, balanced, one or all killed, refused.

Every server is a `FakeServer` on 127.0.0.1. The tests at the end (`test_cli_*`) go
through the command line: `--base-url` repeated, `--endpoints FILE`.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import toolgrade
from runner.convscript import ScriptedModel, conversation, good_script
from runner.convscript import suite as conversation_suite
from runner.fakeserver import FakeServer, Step
from toolgrade.backends import EndpointPool
from toolgrade.cli import app

MODEL = "openai/test-model"
N_CASES = 60


def _suite(n: int = N_CASES) -> toolgrade.Suite:
    return toolgrade.Suite.model_validate(
        {
            "name": "fleet",
            "tools": [{"name": "read_file", "parameters": {"type": "object"}}],
            "cases": [
                {
                    "id": f"F-{i:03d}",
                    "prompt": f"read file {i}",
                    "expected": {"name": "read_file", "arguments": {"path": f"{i}.txt"}},
                }
                for i in range(n)
            ],
        }
    )


def _script(n: int = N_CASES, delay: float = 0.0) -> dict[str, list[Step]]:
    return {
        f"read file {i}": [
            Step(delay=delay, calls=[{"name": "read_file", "arguments": {"path": f"{i}.txt"}}])
        ]
        for i in range(n)
    }


@contextmanager
def _servers(*fakes: FakeServer) -> Iterator[list[FakeServer]]:
    with ExitStack() as stack:
        yield [stack.enter_context(f) for f in fakes]
        _stop_all(fakes)  # together: each takes up to its 0.5 s poll to stop


def _stop_all(servers: Sequence[FakeServer]) -> None:
    stopping = [threading.Thread(target=s.stop) for s in servers]
    for thread in stopping:
        thread.start()
    for thread in stopping:
        thread.join()


def _options(urls: Sequence[str], **changes: Any) -> toolgrade.RunOptions:
    base: dict[str, Any] = {
        "endpoints": tuple(urls),
        "concurrency": 6,
        "timeout": 5.0,
        "retry_base_delay": 0.01,
        "max_retries": 1,
    }
    base.update(changes)
    return toolgrade.RunOptions(**base)


def _answered(server: FakeServer) -> int:
    """Chat requests a server answered (the warm-up aside)."""
    return sum(1 for p in server.prompts() if p.startswith("read file"))


def _kill_after(servers: Sequence[FakeServer], posts: int) -> threading.Thread:
    """Stop the servers once they received `posts` chat requests between them."""

    def watch() -> None:
        deadline = time.monotonic() + 20
        while sum(s.posts for s in servers) < posts and time.monotonic() < deadline:
            time.sleep(0.001)
        for server in servers:
            server.down = True  # at once: drops every request from now on
        _stop_all(servers)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def _free_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_endpoints_balanced_load_and_each_result_records_its_endpoint(
    toolgrade_home: Path,
) -> None:
    suite = _suite(90)
    with _servers(*(FakeServer(_script(90, delay=0.005)) for _ in range(3))) as fakes:
        urls = [f.openai_url for f in fakes]
        run = toolgrade.run_suite(suite, MODEL, options=_options(urls), handle_signals=False)
        answered = [_answered(f) for f in fakes]
        peaks = [f.max_in_flight for f in fakes]
    assert run.status == "complete"
    assert all(r.status == "correct" for r in run.results)
    # Balanced: 90 cases over three equal servers, each within a third of its share.
    assert sum(answered) == 90
    assert all(20 <= n <= 40 for n in answered), answered
    # Never more than the per-endpoint share (concurrency 6 over 3) at one server.
    assert all(p <= 2 for p in peaks), peaks
    counted = Counter(r.endpoint for r in run.results)
    assert counted == dict(zip(urls, answered, strict=True))
    assert run.backend["endpoints"] == urls
    assert run.backend["base_url"] == urls[0]
    assert run.server["endpoints"] == urls
    assert set(run.server["warmup"]["endpoints"]) == set(urls)
    lines = (toolgrade_home / "runs" / run.run_id / "results.jsonl").read_text().splitlines()
    assert {json.loads(line)["endpoint"] for line in lines} == set(urls)


def test_endpoints_one_killed_mid_run_loses_nothing() -> None:
    suite = _suite()
    with _servers(*(FakeServer(_script(delay=0.01)) for _ in range(3))) as fakes:
        urls = [f.openai_url for f in fakes]
        watcher = _kill_after(fakes[:1], posts=6)  # the warm-up and five cases
        run = toolgrade.run_suite(suite, MODEL, options=_options(urls), handle_signals=False)
        watcher.join()
        answered = [_answered(f) for f in fakes]
    assert run.status == "complete"
    assert [r.case_id for r in run.results] == [c.id for c in suite.cases]  # each once
    assert all(r.status == "correct" for r in run.results), [r.error for r in run.results]
    counted = Counter(r.endpoint for r in run.results)
    # Requests the dead server received but never answered went elsewhere; what it did
    # answer before it died is kept, once.
    assert 5 <= answered[0] < N_CASES // 3  # it did die mid-run
    assert counted[urls[0]] <= answered[0]
    assert counted[urls[1]] + counted[urls[2]] >= N_CASES - answered[0]
    assert sum(counted.values()) == N_CASES


def test_endpoints_all_killed_stop_the_run_and_resume_finishes_it(
    toolgrade_home: Path,
) -> None:
    suite = _suite()
    with _servers(*(FakeServer(_script()) for _ in range(3))) as fakes:
        urls = [f.openai_url for f in fakes]
        watcher = _kill_after(fakes, posts=15)
        # A dying server drops the requests on its open connections before it refuses
        # new ones: the retries get past the drops to the refusals (a lost server).
        with pytest.raises(toolgrade.BackendUnreachable, match="every endpoint") as caught:
            toolgrade.run_suite(
                suite,
                MODEL,
                options=_options(urls, retry_base_delay=0.05, max_retries=2),
                handle_signals=False,
            )
        watcher.join()
    assert caught.value.exit_code == 3
    run_id = str(caught.value).split("resume it with `toolgrade run --resume ")[1].rstrip("`")
    folder = toolgrade_home / "runs" / run_id
    kept = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    assert 0 < len(kept) < N_CASES
    assert all(r["status"] == "correct" for r in kept)  # nothing half-done was written

    # Two new servers take over: the resume sends them only what is missing.
    with _servers(FakeServer(_script()), FakeServer(_script())) as fresh:
        new_urls = [f.openai_url for f in fresh]
        resumed = toolgrade.resume_run(
            run_id, suite=suite, endpoints=new_urls, handle_signals=False
        )
        sent = sum(_answered(f) for f in fresh)
    assert resumed.status == "complete"
    assert [r.case_id for r in resumed.results] == [c.id for c in suite.cases]
    assert all(r.status == "correct" for r in resumed.results)
    assert sent == N_CASES - len(kept)
    assert {r.endpoint for r in resumed.results[len(kept) :]} <= set(urls) | set(new_urls)
    assert resumed.backend["endpoints"] == urls + new_urls
    recorded = json.loads((folder / "run.json").read_text())
    assert recorded["options"]["endpoints"] == new_urls


def test_endpoints_server_with_another_model_is_refused_at_start(toolgrade_home: Path) -> None:
    fakes = (FakeServer(), FakeServer(), FakeServer(models=("other-model",)))
    with _servers(*fakes) as started:
        urls = [f.openai_url for f in started]
        with pytest.raises(toolgrade.ConfigError, match="do not all serve test-model") as caught:
            toolgrade.run_suite(_suite(3), MODEL, options=_options(urls), handle_signals=False)
        posts = sum(f.posts for f in started)
    assert f"{urls[2]} serves other-model" in str(caught.value)
    assert posts == 0  # refused before any request
    assert not (toolgrade_home / "runs").exists()


def test_endpoints_fingerprint_mismatch_is_refused_at_the_warmup(toolgrade_home: Path) -> None:
    fakes = (FakeServer(), FakeServer(), FakeServer(fingerprint="fp_other_build"))
    with _servers(*fakes) as started:
        urls = [f.openai_url for f in started]
        with pytest.raises(toolgrade.ConfigError, match="different system_fingerprints") as caught:
            toolgrade.run_suite(_suite(3), MODEL, options=_options(urls), handle_signals=False)
        cases_sent = sum(_answered(f) for f in started)
    assert f"{urls[2]} answered with fp_other_build" in str(caught.value)
    assert cases_sent == 0  # only the warm-ups went out
    assert not (toolgrade_home / "runs").exists()


def test_endpoints_one_down_at_start_runs_on_the_others(toolgrade_home: Path) -> None:
    suite = _suite(12)
    with _servers(FakeServer(_script(12)), FakeServer(_script(12))) as fakes:
        urls = [fakes[0].openai_url, _free_url(), fakes[1].openai_url]
        run = toolgrade.run_suite(suite, MODEL, options=_options(urls), handle_signals=False)
    assert run.status == "complete"
    assert all(r.status == "correct" for r in run.results)
    assert {r.endpoint for r in run.results} <= {urls[0], urls[2]}
    assert list(run.server["endpoints_down"]) == [urls[1]]
    assert set(run.server["warmup"]["endpoints"]) == {urls[0], urls[2]}
    log = (toolgrade_home / "runs" / run.run_id / "log.jsonl").read_text().splitlines()
    down = [json.loads(line) for line in log if '"endpoints_down"' in line]
    assert [(d["level"], list(d["endpoints"])) for d in down] == [("warning", [urls[1]])]


def test_endpoints_single_endpoint_run_records_no_endpoint(toolgrade_home: Path) -> None:
    with FakeServer(_script(4)) as server:
        run = toolgrade.run_suite(
            _suite(4), MODEL, options=_options([server.openai_url]), handle_signals=False
        )
    assert all(r.endpoint is None for r in run.results)
    assert "endpoints" not in run.backend
    text = (toolgrade_home / "runs" / run.run_id / "results.jsonl").read_text()
    assert '"endpoint"' not in text
    assert (
        "endpoints"
        not in json.loads((toolgrade_home / "runs" / run.run_id / "run.json").read_text())[
            "options"
        ]
    )


def test_endpoints_conversation_records_each_steps_endpoint() -> None:
    models = [ScriptedModel(good_script("c1") | good_script("c2")) for _ in range(2)]
    pool = EndpointPool([(f"http://e{i}", m) for i, m in enumerate(models)], limit=2)
    suite = conversation_suite(conversation("c1"), conversation("c2"))
    run = asyncio.run(
        toolgrade.arun_suite(
            suite, pool, options=toolgrade.RunOptions(concurrency=2, persist=False, warmup=False)
        )
    )
    assert all(r.status == "correct" for r in run.results)
    for result in run.results:
        assert result.conversation is not None
        steps = [s for t in result.conversation.turns for s in t.steps]
        # Every step of a conversation stays on its endpoint (its prefix is cached there).
        assert {s.endpoint for s in steps} == {result.endpoint}
    assert {r.endpoint for r in run.results} == {"http://e0", "http://e1"}
    dumped = run.results[0].model_dump_json()
    assert dumped.count('"endpoint"') == 1 + sum(
        len(t.steps) for t in run.results[0].conversation.turns
    )


# --- CLI: `--base-url` repeated, `--endpoints FILE` -----------------------------------------


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    file = tmp_path / "suite.json"
    file.write_text(_suite(12).model_dump_json(exclude_none=True))
    return file


def test_cli_run_with_repeated_base_url_spreads_the_cases(suite_file: Path) -> None:
    with _servers(*(FakeServer(_script(12)) for _ in range(2))) as fakes:
        urls = [f.openai_url for f in fakes]
        result = CliRunner().invoke(
            app,
            ["run", "--suite", str(suite_file), "--model", MODEL, "--label", "fleet",
             "--base-url", urls[0], "--base-url", urls[1]],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    run = toolgrade.resolve_run("fleet")
    assert {r.endpoint for r in run.results} == set(urls)
    assert run.backend["endpoints"] == urls


def test_cli_run_endpoints_file_all_killed_exits_3(suite_file: Path, tmp_path: Path) -> None:
    endpoints = tmp_path / "endpoints.txt"
    endpoints.write_text(f"# gone\n{_free_url()}\n\n{_free_url()}\n")
    result = CliRunner().invoke(
        app, ["run", "--suite", str(suite_file), "--model", MODEL, "--endpoints", str(endpoints)]
    )
    assert result.exit_code == 3, result.output
    assert "every endpoint is gone" in result.output


def test_cli_endpoints_file_error_names_file_and_line(suite_file: Path, tmp_path: Path) -> None:
    endpoints = tmp_path / "endpoints.txt"
    endpoints.write_text("http://127.0.0.1:1/v1\nnot a url\n")
    result = CliRunner().invoke(
        app, ["run", "--suite", str(suite_file), "--model", MODEL, "--endpoints", str(endpoints)]
    )
    assert result.exit_code == 2, result.output
    assert f"{endpoints}:2" in result.output


@pytest.mark.slow
def test_cli_resume_with_new_base_urls_finishes_the_run(
    suite_file: Path, toolgrade_home: Path
) -> None:
    gone = [_free_url(), _free_url()]
    started = CliRunner().invoke(
        app,
        ["run", "--suite", str(suite_file), "--model", MODEL, "--no-warmup",
         "--base-url", gone[0], "--base-url", gone[1]],
    )  # fmt: skip
    assert started.exit_code == 3, started.output
    assert not (toolgrade_home / "runs").exists()  # refused before the run folder

    with _servers(*(FakeServer(_script(12)) for _ in range(2))) as fakes:
        urls = [f.openai_url for f in fakes]
        watcher = _kill_after(fakes, posts=5)
        stopped = CliRunner().invoke(
            app,
            ["run", "--suite", str(suite_file), "--model", MODEL, "--concurrency", "2",
             "--max-retries", "2", "--base-url", urls[0], "--base-url", urls[1]],
        )  # fmt: skip
        watcher.join()
    assert stopped.exit_code == 3, stopped.output
    run_id = next(p.name for p in (toolgrade_home / "runs").iterdir())
    with _servers(FakeServer(_script(12))) as fresh:
        resumed = CliRunner().invoke(
            app, ["run", "--resume", run_id, "--base-url", fresh[0].openai_url]
        )
    assert resumed.exit_code == 0, resumed.output
    run = toolgrade.resolve_run(run_id)
    assert len(run.results) == 12
    assert all(r.status == "correct" for r in run.results)
