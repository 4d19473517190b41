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
