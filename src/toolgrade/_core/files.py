"""Reading input files: a size bound, UTF-8 (a BOM allowed), errors naming the file.

Suites, call lists, responses files and BFCL result files are all read here, so that
each refuses an oversized or undecodable file the same way.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from pathlib import Path
from typing import BinaryIO

from toolgrade._core.json_data import JsonIssue, JsonValue, loads_checked
from toolgrade.errors import InputError, ToolgradeError

__all__ = [
    "MAX_FILE_BYTES",
    "atomic_write_bytes",
    "atomic_write_text",
    "decode_text",
    "parse_json",
    "parse_json_issues",
    "read_bytes",
    "read_stream",
    "read_text",
]

MAX_FILE_BYTES = 512 * 1024 * 1024
"""Files larger than this are refused (reading stops one byte past it)."""

_CHUNK = 1024 * 1024
"""Bytes asked for at a time from a stream whose size is unknown."""
_O_BINARY = getattr(os, "O_BINARY", 0)
"""Windows: no newline translation (0 elsewhere)."""
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
"""POSIX: open a FIFO without waiting for a writer (Windows has no FIFO files)."""


def read_bytes(
    path: Path, *, error: type[ToolgradeError] = InputError, limit: int = MAX_FILE_BYTES
) -> bytes:
    """Read a whole file, refusing one over `limit` bytes.

    A regular file larger than `limit` is refused before it is read. Otherwise the size
    is counted while reading, not taken from `stat`: a pipe, a FIFO, a process
    substitution (`<(cmd)`) or a device such as `/dev/zero` reports size 0 and may never
    end, so reading stops at `limit + 1` bytes. A FIFO is opened without waiting for a
    writer (POSIX): one that has none reads as empty instead of blocking forever.

    Raises:
        ToolgradeError: of class `error`, naming the file.
    """
    try:
        fd = os.open(path, os.O_RDONLY | _O_BINARY | _O_NONBLOCK)
    except OSError as exc:
        raise error(f"cannot read file: {exc.strerror or exc}", path=str(path)) from None
    try:
        if _O_NONBLOCK:
            os.set_blocking(fd, True)  # opened without waiting; now read as usual
        with os.fdopen(fd, "rb", buffering=0) as handle:
            fd = -1  # the handle owns it now
            info = os.fstat(handle.fileno())
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                data = None  # a regular file says its size: refused unread
            else:
                data = read_stream(handle, limit=limit, size=info.st_size)
    except OSError as exc:
        raise error(f"cannot read file: {exc.strerror or exc}", path=str(path)) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if data is None:
        raise error(f"larger than {limit} bytes", path=str(path))
    return data


def read_stream(handle: BinaryIO, *, limit: int, size: int = 0) -> bytes | None:
    """Read a binary stream to its end, or None as soon as it holds more than `limit` bytes.

    At most `limit + 1` bytes are ever held, whatever the stream: an endless one (`yes`,
    `/dev/zero`) costs that much and no more.

    Args:
        handle: an unbuffered or buffered binary stream.
        limit: the most bytes accepted.
        size: the size expected (a regular file's `st_size`): read in one call when it
            is right, so that a file is not copied.

    Raises:
        OSError: the stream cannot be read.

    Examples:
        >>> import io
        >>> read_stream(io.BytesIO(b"abc"), limit=3), read_stream(io.BytesIO(b"abcd"), limit=3)
        (b'abc', None)
    """
    parts: list[bytes] = []
    held = 0
    want = min(max(size, 0), limit) + 1  # one more than expected, to see the end
    while held <= limit:
        chunk = handle.read(min(max(want, _CHUNK), limit + 1 - held))
        if not chunk:
            break
        parts.append(chunk)
        held += len(chunk)
        want = 0
    if held > limit:
        return None
    return parts[0] if len(parts) == 1 else b"".join(parts)


def decode_text(data: bytes, *, name: str, error: type[ToolgradeError] = InputError) -> str:
    """Decode UTF-8 text, dropping a byte-order mark.

    Raises:
        ToolgradeError: of class `error`, giving the offending byte.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (byte {exc.start})", path=name) from None


def read_text(
    path: Path, *, error: type[ToolgradeError] = InputError, limit: int = MAX_FILE_BYTES
) -> str:
    """`read_bytes` then `decode_text`."""
    return decode_text(read_bytes(path, error=error, limit=limit), name=str(path), error=error)


def parse_json(text: str, *, name: str, error: type[ToolgradeError] = InputError) -> JsonValue:
    """Parse JSON text strictly (see `toolgrade._core.json_data.loads_checked`).

    Refused: NaN and Infinity, a number out of range, an integer too long to read, a key
    given twice in one object.

    Raises:
        ToolgradeError: of class `error`, with the line and column of invalid JSON, or
            the line and JSON path of the first value refused.
    """
    value, issues = parse_json_issues(text, name=name, error=error)
    if issues:
        first = issues[0]
        more = f" (and {len(issues) - 1} more)" if len(issues) > 1 else ""
        location = f"line {first.line}"
        raise error(f"{first.path}: {first.message}{more}", path=name, location=location)
    return value


def parse_json_issues(
    text: str, *, name: str, error: type[ToolgradeError] = InputError
) -> tuple[JsonValue, tuple[JsonIssue, ...]]:
    """Parse JSON text; list the values refused rather than raising (`loads_checked`).

    Raises:
        ToolgradeError: of class `error`, with the line and column of invalid JSON.
    """
    try:
        return loads_checked(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"invalid JSON: {exc.msg}", path=name, location=f"line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise error("JSON nested too deeply", path=name) from None


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace `path` with `data` all at once: the old content or the new, never half.

    The bytes go to a temporary file in the same folder (same file system, so the
    rename is atomic), are flushed to disk with `fsync`, then renamed over `path`. On
    any failure the temporary file is removed and `path` is left as it was. The file
    gets the usual permissions (0666 less the umask), as `open(path, "w")` would.

    Raises:
        OSError: the file cannot be written (e.g. `ENOSPC`, `EACCES`, `EROFS`); its
            `filename` is `path`.
    """
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY
    try:
        fd = os.open(tmp, flags, 0o666)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            tmp.replace(path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        # Name the file the caller asked for, not the temporary one (same subclass:
        # OSError(errno, ...) builds PermissionError, FileNotFoundError, ...).
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
    _fsync_folder(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    """`atomic_write_bytes` of UTF-8 text (newlines written as given).

    Raises:
        OSError: the file cannot be written.
    """
    atomic_write_bytes(path, text.encode("utf-8"))


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); Windows cannot open a folder, and needs not."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a folder; the data itself is synced
    finally:
        os.close(fd)
