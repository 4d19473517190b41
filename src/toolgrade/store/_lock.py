"""One writer per run folder: a lock file holding the writer's process id.

`run.lock` is created with `O_CREAT | O_EXCL`, which exactly one process can win, and
holds `{"pid", "host", "token"}`. It is removed when the writer is done (and, should
the writer forget, when its folder object is collected or the interpreter exits).
A lock whose process is gone (killed, power cut) is stale and is taken over; the
takeover itself is guarded by a second `O_EXCL` file, so that two processes finding
the same stale lock cannot both take it.

A lock from another machine (a shared network folder) cannot be checked, so it
counts as held; the error says which file to delete if that machine's run is dead.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import sys
import time
import weakref
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from toolgrade.errors import RunLockedError

__all__ = ["LOCK_NAME", "FolderLock", "LockOwner", "pid_alive"]

LOCK_NAME = "run.lock"
_GUARD_NAME = "run.lock.takeover"
_ROUNDS = 60
"""Attempts before giving up on a lock that keeps changing hands (about 3 s)."""
_PAUSE = 0.05
_FRESH = 2.0
"""A lock file younger than this with no content is being written: wait for it."""
_STALE_GUARD = 10.0
"""A takeover guard older than this was left by a process that died mid-takeover."""

_HELD: dict[str, str] = {}
"""Lock file -> token, for every lock this process holds (one writer per process too)."""


@dataclass(frozen=True, slots=True)
class LockOwner:
    """Who holds a run folder's lock."""

    pid: int
    """The writer's process id."""
    host: str
    """The machine it runs on."""
    token: str
    """Random; tells this lock from an earlier one of a process with the same id."""


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists on this machine.

    POSIX asks with signal 0. Windows has no such signal (`os.kill` would terminate
    the process), so there the process is opened and its exit code read.
    """
    if pid <= 0:
        return False
    if sys.platform == "win32":
        return _windows_pid_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    except OSError:
        return False
    return True


def _windows_pid_alive(pid: int) -> bool:  # pragma: no cover - Windows only
    import ctypes

    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined,unused-ignore]
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return bool(ctypes.get_last_error() == 5)  # type: ignore[attr-defined,unused-ignore]
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return ""


def _owner(text: str) -> LockOwner | None:
    try:
        data = json.loads(text)
        return LockOwner(pid=int(data["pid"]), host=str(data["host"]), token=str(data["token"]))
    except (ValueError, TypeError, KeyError):
        return None


def _age(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0


def _release(path: Path, token: str) -> None:
    """Remove the lock file if it is still ours (a finalizer: never raises)."""
    if _HELD.get(str(path)) == token:
        del _HELD[str(path)]
    text = _read(path)
    owner = _owner(text) if text else None
    if owner is not None and owner.token == token:
        with suppress(OSError):  # e.g. a read-only disk: the lock goes stale with us
            path.unlink()


class FolderLock:
    """The write lock of one run folder; a context manager.

    Examples:
        >>> with FolderLock(folder):  # doctest: +SKIP
        ...     append_results()
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_NAME
        self._token: str | None = None
        self._finalizer: weakref.finalize[[Path, str], FolderLock] | None = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock."""
        return self._token is not None

    def owner(self) -> LockOwner | None:
        """The live process holding the lock, or None (free, or stale)."""
        text = _read(self.path)
        owner = _owner(text) if text else None
        return owner if owner is not None and self._alive(owner) else None

    def acquire(self) -> None:
        """Take the lock, taking over a stale one.

        Raises:
            RunLockedError: another live process holds it (the error names its pid).
            OSError: the lock file cannot be written.
        """
        if self.held:
            return
        for _ in range(_ROUNDS):
            token = secrets.token_hex(8)
            if self._create(token):
                return
            text = _read(self.path)
            if text is None:
                continue  # released meanwhile: try again at once
            owner = _owner(text)
            if owner is not None and self._alive(owner):
                raise self._refusal(owner)
            if owner is None and _age(self.path) < _FRESH:
                time.sleep(_PAUSE)  # just created, content not written yet
                continue
            if not self._take_over(text, token):
                time.sleep(_PAUSE)
            elif self.held:
                return
        raise RunLockedError(
            f"cannot take the run folder's lock (it keeps changing hands); if no toolgrade"
            f" process is writing to this run, delete {self.path}",
            path=str(self.path.parent),
        )

    def release(self) -> None:
        """Give the lock up (nothing happens when it is not held)."""
        if self._finalizer is not None:
            self._finalizer()  # runs `_release` once, and never again
        self._token = self._finalizer = None

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def _create(self, token: str) -> bool:
        """Create the lock file holding our pid; False when it exists."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(self.path, flags, 0o644)
        except FileExistsError:
            return False
        data = {"pid": os.getpid(), "host": socket.gethostname(), "token": token}
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(json.dumps(data).encode("utf-8"))
        except BaseException:
            self.path.unlink(missing_ok=True)
            raise
        self._token = token
        _HELD[str(self.path)] = token
        self._finalizer = weakref.finalize(self, _release, self.path, token)
        return True

    def _alive(self, owner: LockOwner) -> bool:
        if owner.host != socket.gethostname():
            return True  # another machine: we cannot tell, so do not steal it
        if owner.pid == os.getpid():
            # This process: held only if one of its live lock objects says so.
            return _HELD.get(str(self.path)) == owner.token
        return pid_alive(owner.pid)

    def _take_over(self, stale: str, token: str) -> bool:
        """Replace a stale lock, one process at a time; False when another is at it."""
        guard = self.path.with_name(_GUARD_NAME)
        try:
            os.close(os.open(guard, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        except FileExistsError:
            if _age(guard) > _STALE_GUARD:
                guard.unlink(missing_ok=True)
            return False
        try:
            if _read(self.path) in (stale, None):
                self.path.unlink(missing_ok=True)
                self._create(token)  # False if a newcomer was quicker: fine, it is live
            return True
        finally:
            guard.unlink(missing_ok=True)

    def _refusal(self, owner: LockOwner) -> RunLockedError:
        where = "" if owner.host == socket.gethostname() else f" on {owner.host}"
        return RunLockedError(
            f"run {self.path.parent.name} is being written by another process"
            f" (pid {owner.pid}{where}); wait for it to finish or stop it. If that process"
            f" is not toolgrade, delete {self.path}",
            path=str(self.path.parent),
            pid=owner.pid,
            host=owner.host,
        )
