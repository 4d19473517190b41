"""Reading untrusted files is bounded by what is read, not by what `stat` says.

A FIFO, a pipe, a process substitution (`<(yes)`) or `/dev/zero` reports size 0: the
limit must still hold (reading stops one byte past it), and a FIFO that nobody writes
must not block forever.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade._core.files import read_bytes, read_stream, read_text
from toolgrade.cli import _io
from toolgrade.errors import ConfigError, InputError

ROOT = Path(__file__).resolve().parents[1]
POSIX_ONLY = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")


class Endless(io.RawIOBase):
    """A stream that never ends (`yes`), counting what was taken from it."""

    def __init__(self) -> None:
        self.taken = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        n = len(buffer)
        buffer[:n] = b"y\n" * (n // 2) + b"y" * (n % 2)
        self.taken += n
        return n


def test_read_stream_stops_one_byte_past_the_limit() -> None:
    endless = Endless()
    assert read_stream(io.BufferedReader(endless), limit=3_000_000) is None
    assert endless.taken <= 3_000_000 + 2 * 1024 * 1024  # the limit and a chunk or so


def test_read_stream_exact_limit_is_accepted() -> None:
    assert read_stream(io.BytesIO(b"x" * 10), limit=10) == b"x" * 10
    assert read_stream(io.BytesIO(b""), limit=0) == b""


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_read_bytes_dev_zero_is_refused_at_the_limit() -> None:
    with pytest.raises(InputError, match=r"^/dev/zero: larger than 1000 bytes$"):
        read_bytes(Path("/dev/zero"), limit=1000)


def test_read_bytes_regular_file_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"[1]")
    assert read_bytes(path, limit=3) == b"[1]"
    with pytest.raises(ConfigError, match="larger than 2 bytes"):
        read_bytes(path, limit=2, error=ConfigError)
    with pytest.raises(InputError, match="cannot read file"):
        read_bytes(tmp_path / "missing.json")


@POSIX_ONLY
def test_read_bytes_endless_pipe_is_refused(tmp_path: Path) -> None:
    """`--responses <(yes)`: a pipe whose writer never stops."""
    read_end, write_end = os.pipe()
    stop = threading.Event()

    def write_forever() -> None:
        with os.fdopen(write_end, "wb") as out:
            try:
                while not stop.is_set():
                    out.write(b"y\n" * 65536)
            except BrokenPipeError:
                pass

    writer = threading.Thread(target=write_forever, daemon=True)
    writer.start()
    try:
        with pytest.raises(InputError, match="larger than 2000000 bytes"):
            read_bytes(Path(f"/dev/fd/{read_end}"), limit=2_000_000)
    finally:
        stop.set()
        os.close(read_end)
        writer.join(timeout=5)


@POSIX_ONLY
def test_read_bytes_fifo_without_writer_does_not_block(tmp_path: Path) -> None:
    """In a child process, so that a regression fails here instead of hanging the suite."""
    fifo = tmp_path / "responses.jsonl"
    os.mkfifo(fifo)
    code = (
        "import sys; from pathlib import Path; from toolgrade._core.files import read_text;"
        " print(repr(read_text(Path(sys.argv[1]))))"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        pytest.fail("reading a FIFO without a writer blocked")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "''"


@POSIX_ONLY
def test_read_text_fifo_with_a_writer_reads_it(tmp_path: Path) -> None:
    fifo = tmp_path / "suite.json"
    os.mkfifo(fifo)
    writer = subprocess.Popen(
        [sys.executable, "-c", f"open({str(fifo)!r}, 'w').write('{{\"a\": 1}}')"]
    )
    try:
        # The writer may not have opened its end yet: until it has, the FIFO reads empty.
        for _ in range(200):
            text = read_text(fifo)
            if text:
                break
            threading.Event().wait(0.05)
        assert text == '{"a": 1}'
    finally:
        writer.wait(timeout=30)


def test_stdin_endless_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """`yes | toolgrade score -`: refused at the limit, not read until memory runs out."""
    endless = Endless()
    stdin = io.TextIOWrapper(io.BufferedReader(endless), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(_io, "MAX_INPUT_BYTES", 1_000_000)
    with pytest.raises(InputError, match=r"^<stdin>: larger than 1000000 bytes$"):
        _io.read_text("-")
    assert endless.taken <= 1_000_000 + 2 * 1024 * 1024


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_cli_evaluate_responses_dev_zero_exits_2() -> None:
    """The trial: `--responses /dev/zero` ran out of memory (a MemoryError traceback)."""
    from toolgrade.backends import _replay
    from toolgrade.cli import app

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_replay, "MAX_RESPONSES_FILE_BYTES", 4_000_000)
        result = CliRunner().invoke(
            app, ["evaluate", "--suite", "coding-agent", "--responses", "/dev/zero", "-q"]
        )
    assert result.exit_code == 2, result.output
    assert result.stderr == "error: /dev/zero: larger than 4000000 bytes\n"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_endpoints_file_dev_zero_is_refused() -> None:
    """`--endpoints /dev/zero` read the whole device (`Path.read_text`) until memory ran out."""
    from toolgrade.backends import read_endpoints
    from toolgrade.errors import FileSystemError

    with pytest.raises(FileSystemError, match=r"^/dev/zero: larger than \d+ bytes$"):
        read_endpoints("/dev/zero")
