"""A server that takes requests and never answers stops the run in about the warm-up's bound.

The warm-up is announced on the terminal, bounded by `--warmup-timeout` (by default
twice `--timeout`, at least 120 s), and a server that sends nothing within it fails the
run as an unreachable one does: exit 3, no run folder, and the `toolgrade doctor`
command. Connection errors are told in the project's words, not aiohttp's.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import toolgrade
import toolgrade.runner._options as options_module
from runner import loopy
from runner.stallserver import StallServer
from toolgrade.runner import make_progress


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(suite: toolgrade.Suite, options: toolgrade.RunOptions, **kwargs: object) -> None:
    async def go() -> None:
        # The cap only keeps a broken bound from hanging the test suite.
        await asyncio.wait_for(
            toolgrade.arun_suite(suite, "openai/m", options=options, **kwargs),  # type: ignore[arg-type]
            timeout=20,
        )

    asyncio.run(go())


def _cli(*args: str, home: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "TOOLGRADE_HOME": str(home)}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "toolgrade", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    return done, time.monotonic() - started


def test_option_bound_is_twice_the_timeout_at_least_the_floor() -> None:
    assert toolgrade.RunOptions(timeout=10.0).warmup_limit == 120.0
    assert toolgrade.RunOptions(timeout=90.0).warmup_limit == 180.0
    assert toolgrade.RunOptions(timeout=10.0, warmup_timeout=3.0).warmup_limit == 3.0
    recorded = toolgrade.RunOptions(warmup_timeout=3.0).to_dict()
    assert recorded["warmup_timeout"] == 3.0
    assert toolgrade.RunOptions.from_dict(recorded).warmup_limit == 3.0
    assert "warmup_timeout" not in toolgrade.RunOptions().to_dict()
    with pytest.raises(toolgrade.ConfigError, match="--warmup-timeout must be positive"):
        toolgrade.RunOptions(warmup_timeout=0.0)


def test_stalled_server_fails_the_run_in_about_the_default_bound(
    tmp_path: Path, toolgrade_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The default bound follows --timeout: with the floor lowered for the test, twice 0.5 s.
    monkeypatch.setattr(options_module, "WARMUP_FLOOR", 0.5)
    suite = toolgrade.load_suite(str(loopy.write_suite(tmp_path)))
    shown = make_progress("plain", stream=(notes := _Notes()))
    with StallServer() as server:
        options = toolgrade.RunOptions(base_url=server.openai_url, timeout=0.5)
        started = time.monotonic()
        with pytest.raises(toolgrade.BackendUnreachable) as info:
            _run(suite, options, progress=shown)
        took = time.monotonic() - started
        assert server.posts == 1  # the warm-up; no case was sent
    assert 0.9 <= took < 5.0
    message = str(info.value)
    assert "warm-up request but sent no answer within 1 s" in message
    assert "--warmup-timeout" in message
    assert f"toolgrade doctor --model openai/m --base-url {server.openai_url}" in message
    assert "\n" not in message
    assert info.value.exit_code == 3
    assert f"warming up openai/m at {server.openai_url}" in notes.text
    assert "up to 1 s, --warmup-timeout" in notes.text
    assert not (toolgrade_home / "runs").exists()


class _Notes:
    """A text stream that keeps what was written."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


@pytest.mark.slow
def test_cli_stalled_server_exits_3_after_the_warmup_timeout(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    suite = loopy.write_suite(tmp_path)
    with StallServer() as server:
        done, took = _cli(
            "run", "--suite", str(suite), "--model", "openai/m", "--base-url",
            server.openai_url, "--timeout", "0.5", "--warmup-timeout", "1.5",
            home=toolgrade_home,
        )  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert took < 15.0
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("note: warming up openai/m at ")
    assert "up to 1.5 s, --warmup-timeout" in lines[0]
    assert lines[-1].startswith("error: the server took the warm-up request"), done.stderr
    assert "toolgrade doctor --model openai/m" in lines[-1]
    assert "Traceback" not in done.stderr
    assert not (toolgrade_home / "runs").exists()


@pytest.mark.slow
def test_cli_server_that_answers_nothing_at_all_exits_3_with_the_doctor_command(
    tmp_path: Path, toolgrade_home: Path
) -> None:
    suite = loopy.write_suite(tmp_path)
    with StallServer(stall_get=True) as server:
        done, took = _cli(
            "run", "--suite", str(suite), "--model", "openai/m", "--base-url",
            server.openai_url, "--timeout", "1", home=toolgrade_home,
        )  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert took < 15.0
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: the server took the connection but sent no answer")
    assert "toolgrade doctor --model openai/m" in line


def test_cli_refused_port_is_one_line_in_plain_words(tmp_path: Path, toolgrade_home: Path) -> None:
    suite = loopy.write_suite(tmp_path)
    url = f"http://127.0.0.1:{_free_port()}/v1"
    done, _ = _cli(
        "run", "--suite", str(suite), "--model", "openai/m", "--base-url", url,
        home=toolgrade_home,
    )  # fmt: skip
    assert done.returncode == 3
    (line,) = done.stderr.strip().splitlines()
    assert line == (
        f"error: cannot connect to the model server at {url}: connection refused;"
        f" is it running?; check the server with: toolgrade doctor --model openai/m"
        f" --base-url {url}"
    )
    for internal in ("ssl:default", "Connect call failed", "Errno", "Cannot connect to host"):
        assert internal not in done.stderr
