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
    └── BaselineError               a baseline or run reference cannot be resolved

Model misbehaviour (garbage output, wrong calls) is never an exception: it is data
(`Extraction.errors`, `CaseResult.status`). Each class carries the context a person
needs to act: the file, the location inside it, the case id, the URL.
"""

from __future__ import annotations

__all__ = [
    "BackendError",
    "BackendHTTPError",
    "BackendTimeout",
    "BackendUnreachable",
    "BaselineError",
    "ConfigError",
    "InputError",
    "StoreError",
    "SuiteError",
    "ToolgradeError",
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
