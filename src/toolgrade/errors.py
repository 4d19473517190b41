"""The one exception tree of toolgrade.

Every error toolgrade raises on purpose derives from `ToolgradeError`::

    ToolgradeError                  exit code 2 unless stated
    ├── InputError                  bad call lists, responses or results files
    ├── SuiteError                  a malformed suite (all problems at once)
    ├── ConfigError                 bad options, unknown model provider, bad environment
    ├── BackendError                a model server misbehaved at the transport level
    │   ├── BackendUnreachable      nothing answers at the URL (exit code 3)
    │   ├── BackendTimeout          the server took longer than allowed
    │   └── BackendHTTPError        an HTTP error status that retries did not cure
    ├── StoreError                  the run store (SQLite, run folders) is unusable
    │   ├── RunLockedError          another live process is writing to the run folder
    │   └── SaveError               a finished run could not be saved to the history
    ├── FileSystemError             a file or folder cannot be read or written (disk
    │                               full, permission denied, read-only file system)
    └── BaselineError               a baseline or run reference cannot be resolved

Model misbehaviour (garbage output, wrong calls) is never an exception: it is data
(`Extraction.errors`, `CaseResult.status`). Each class carries the context a person
needs to act: the file, the location inside it, the case id, the URL.
"""

from __future__ import annotations

import errno
import os

__all__ = [
    "BackendError",
    "BackendHTTPError",
    "BackendTimeout",
    "BackendUnreachable",
    "BaselineError",
    "ConfigError",
    "FileSystemError",
    "InputError",
    "RunLockedError",
    "SaveError",
    "StoreError",
    "SuiteError",
    "ToolgradeError",
    "describe_os_error",
]


class ToolgradeError(Exception):
    """Root of every error toolgrade raises deliberately."""

    exit_code: int = 2
    """Process exit code the command line uses for this error."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        location: str | None = None,
        case_id: str | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.location = location
        self.case_id = case_id
        super().__init__(self._render())

    def _render(self) -> str:
        where = [part for part in (self.path, self.location) if part]
        prefix = ":".join(where)
        if self.case_id:
            prefix = f"{prefix} (case {self.case_id})" if prefix else f"case {self.case_id}"
        return f"{prefix}: {self.message}" if prefix else self.message


class InputError(ToolgradeError):
    """Input data (call lists, responses or results files) is malformed."""


class SuiteError(ToolgradeError):
    """A suite file or directory is malformed.

    `problems` lists every problem found, each already rendered with its location,
    so that a person can fix them all in one pass.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        location: str | None = None,
        case_id: str | None = None,
        problems: tuple[str, ...] = (),
    ) -> None:
        self.problems = problems
        super().__init__(message, path=path, location=location, case_id=case_id)

    def _render(self) -> str:
        head = super()._render()
        if not self.problems:
            return head
        return head + "\n" + "\n".join(f"  - {p}" for p in self.problems)


class ConfigError(ToolgradeError):
    """An option, a model specification or the environment is invalid."""


class BackendError(ToolgradeError):
    """A model server failed at the transport level."""

    def __init__(self, message: str, *, url: str | None = None) -> None:
        self.url = url
        super().__init__(f"{message} ({url})" if url else message)


class BackendUnreachable(BackendError):
    """Nothing answers at the server's URL."""

    exit_code = 3


class BackendTimeout(BackendError):
    """The server did not answer within the allowed time."""


class BackendHTTPError(BackendError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, *, url: str | None = None, status_code: int = 0) -> None:
        self.status_code = status_code
        super().__init__(message, url=url)


class StoreError(ToolgradeError):
    """The run store (SQLite database or run folders) cannot be used."""


class BaselineError(ToolgradeError):
    """A baseline or run reference cannot be resolved."""


class RunLockedError(StoreError):
    """Another process is writing to the run folder (it holds the folder's lock file).

    `pid` is the process holding it, `host` the machine it runs on.
    """

    def __init__(
        self, message: str, *, path: str | None = None, pid: int = 0, host: str = ""
    ) -> None:
        self.pid = pid
        self.host = host
        super().__init__(message, path=path)


class SaveError(StoreError):
    """A finished run could not be saved to the run history (`toolgrade.db`).

    Nothing is lost: the run folder keeps everything, and `toolgrade runs import
    FOLDER` saves it later. `run_id` and `folder` say which run and where it is.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        run_id: str = "",
        folder: str | None = None,
    ) -> None:
        self.run_id = run_id
        self.folder = folder
        super().__init__(message, path=path)


class FileSystemError(ToolgradeError):
    """A file or folder cannot be read or written: disk full, no permission, read-only.

    `errno` is the operating system's error number (e.g. `errno.ENOSPC`), 0 if unknown.
    """

    def __init__(self, message: str, *, path: str | None = None, errno: int = 0) -> None:
        self.errno = errno
        super().__init__(message, path=path)

    @classmethod
    def from_os_error(
        cls, exc: OSError, *, action: str = "cannot access", path: str | None = None
    ) -> FileSystemError:
        """Translate an `OSError` (raise the result `from exc`); `path` overrides its file.

        Examples:
            >>> str(FileSystemError.from_os_error(OSError(28, "No space left on device", "r.json")))
            'r.json: cannot access: No space left on device (the disk is full: free some space)'
        """
        if path is None and isinstance(exc.filename, str | bytes | os.PathLike):
            path = os.fsdecode(exc.filename)
        return cls(f"{action}: {describe_os_error(exc)}", path=path, errno=exc.errno or 0)


_HINTS: dict[int, str] = {
    errno.ENOSPC: "the disk is full: free some space",
    errno.EACCES: "permission denied: check the permissions, or choose another place",
    errno.EPERM: "not permitted: check the permissions, or choose another place",
    errno.EROFS: "read-only file system: choose a writable place (e.g. set TOOLGRADE_HOME)",
}
if hasattr(errno, "EDQUOT"):  # not on Windows
    _HINTS[errno.EDQUOT] = "the disk quota is exceeded: free some space"


def describe_os_error(exc: OSError) -> str:
    """The operating system's reason for `exc`, with what to do for the usual ones.

    Examples:
        >>> describe_os_error(OSError(28, "No space left on device"))
        'No space left on device (the disk is full: free some space)'
    """
    reason = exc.strerror or str(exc) or type(exc).__name__
    hint = _HINTS.get(exc.errno or -1)
    return f"{reason} ({hint})" if hint else reason
