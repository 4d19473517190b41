"""The error tree: messages carry their context; exit codes."""

from __future__ import annotations

from toolgrade import BackendUnreachable, InputError, SuiteError, ToolgradeError


def test_error_with_path_location_and_case_renders_all() -> None:
    err = InputError("bad value", path="s.json", location="$.cases[2]", case_id="TC-3")
    assert str(err) == "s.json:$.cases[2] (case TC-3): bad value"
    assert err.exit_code == 2


def test_suite_error_lists_every_problem() -> None:
    err = SuiteError("2 problems", path="s.json", problems=("a", "b"))
    assert str(err) == "s.json: 2 problems\n  - a\n  - b"
    assert isinstance(err, ToolgradeError)


def test_backend_unreachable_exits_three_and_names_url() -> None:
    err = BackendUnreachable("connection refused", url="http://127.0.0.1:9")
    assert err.exit_code == 3
    assert str(err) == "connection refused (http://127.0.0.1:9)"


def test_file_system_error_from_os_error_names_the_file_and_the_fix() -> None:
    import errno

    from toolgrade.errors import FileSystemError

    full = OSError(errno.ENOSPC, "No space left on device", "/h/runs/r1/results.jsonl")
    err = FileSystemError.from_os_error(full, action="cannot write")
    assert str(err) == (
        "/h/runs/r1/results.jsonl: cannot write: No space left on device"
        " (the disk is full: free some space)"
    )
    assert (err.errno, err.exit_code) == (errno.ENOSPC, 2)
    other = FileSystemError.from_os_error(OSError(errno.EIO, "I/O error"), path="x.json")
    assert str(other) == "x.json: cannot access: I/O error"


def test_store_error_subclasses_carry_their_context() -> None:
    from toolgrade.errors import RunLockedError, SaveError, StoreError

    locked = RunLockedError("busy", path="runs/r1", pid=42, host="box")
    saved = SaveError("not saved", path="h.db", run_id="r1", folder="runs/r1")
    assert isinstance(locked, StoreError) and isinstance(saved, StoreError)
    assert (locked.pid, locked.host, saved.run_id, saved.folder) == (42, "box", "r1", "runs/r1")
    assert str(saved) == "h.db: not saved"
