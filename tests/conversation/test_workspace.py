"""The built-in suite's workspace environment: every tool, its errors, its state."""

from __future__ import annotations

import pytest

from toolgrade.environments._workspace import MAX_SEARCH_RESULTS, Workspace

FILES = {
    "README.md": "# Demo\nHello world\n",
    "src/app/main.py": "import os\n\ndef main():\n    return 1\n",
    "src/app/util.py": "def helper():\n    return 'hello'\n",
}


def _ws(**extra: object) -> Workspace:
    return Workspace(files=dict(FILES), **extra)  # type: ignore[arg-type]


def test_workspace_read_file_returns_content() -> None:
    assert _ws().read_file("./README.md") == FILES["README.md"]


@pytest.mark.parametrize(
    ("path", "error", "message"),
    [
        ("nope.txt", FileNotFoundError, "does not exist"),
        ("src/app", FileNotFoundError, "is a folder"),
        ("/etc/passwd", ValueError, "outside the workspace"),
        ("../secret", ValueError, "outside the workspace"),
        ("  ", ValueError, "empty"),
    ],
)
def test_workspace_read_file_bad_path_raises(path: str, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        _ws().read_file(path)


def test_workspace_write_file_creates_and_overwrites() -> None:
    ws = _ws()
    assert ws.write_file("docs/a.md", "x")["created"] is True
    assert ws.write_file("docs/a.md", "yz") == {"path": "docs/a.md", "bytes": 2, "created": False}
    assert ws.list_files("docs") == ["a.md"]
    with pytest.raises(ValueError, match="is a folder"):
        ws.write_file("src/app", "x")


def test_workspace_edit_file_replaces_one_occurrence() -> None:
    ws = _ws()
    assert ws.edit_file("src/app/main.py", "return 1", "return 2") == {
        "path": "src/app/main.py",
        "replaced": 1,
    }
    assert "return 2" in ws.read_file("src/app/main.py")


@pytest.mark.parametrize(
    ("old", "message"),
    [("absent text", "not found"), ("return", "occurs 2 times"), ("", "empty")],
)
def test_workspace_edit_file_absent_or_ambiguous_raises(old: str, message: str) -> None:
    ws = Workspace(files={"a.py": "return 1\nreturn 2\n"})
    with pytest.raises(ValueError, match=message):
        ws.edit_file("a.py", old, "x")
    assert ws.read_file("a.py") == "return 1\nreturn 2\n"


def test_workspace_delete_and_move_files() -> None:
    ws = _ws()
    assert ws.delete_file("README.md") == {"path": "README.md", "deleted": True}
    with pytest.raises(FileNotFoundError):
        ws.delete_file("README.md")
    assert ws.move_file("src/app/util.py", "src/app/helpers.py")["to"] == "src/app/helpers.py"
    with pytest.raises(ValueError, match="already exists"):
        ws.move_file("src/app/helpers.py", "src/app/main.py")
    assert ws.list_files("src/app") == ["helpers.py", "main.py"]


def test_workspace_list_files_shows_folders_with_a_slash() -> None:
    ws = _ws()
    assert ws.list_files() == ["README.md", "src/"]
    assert ws.list_files("src") == ["app/"]
    with pytest.raises(FileNotFoundError, match="no such folder"):
        ws.list_files("lib")


def test_workspace_search_substring_and_regex() -> None:
    ws = _ws()
    assert ws.search("hello") == [
        {"path": "src/app/util.py", "line": 2, "text": "    return 'hello'"}
    ]
    assert [h["path"] for h in ws.search("def \\w+\\(", regex=True)] == [
        "src/app/main.py",
        "src/app/util.py",
    ]
    assert ws.search("Hello", path="README.md") == [
        {"path": "README.md", "line": 2, "text": "Hello world"}
    ]
    assert ws.search("hello", path="src/app/main.py") == []


@pytest.mark.parametrize(
    ("pattern", "regex", "message"),
    [
        ("", False, "empty"),
        ("x" * 501, False, "longer"),
        ("(a", True, "missing"),
        ("(?=a)", True, "RE2 syntax"),
    ],
)
def test_workspace_search_bad_pattern_raises(pattern: str, regex: bool, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _ws().search(pattern, regex=regex)


def test_workspace_search_is_bounded_and_linear() -> None:
    ws = Workspace(files={"big.txt": "a\n" * 500, "slow.txt": "a" * 20_000})
    assert len(ws.search("a")) == MAX_SEARCH_RESULTS
    assert ws.search("(a+)+b", path="slow.txt", regex=True) == []
    with pytest.raises(FileNotFoundError):
        ws.search("a", path="missing")


def test_workspace_run_command_canned_conditional_and_unknown() -> None:
    fixed = {"if_contains": {"path": "src/app/main.py", "text": "return 2"}, "stdout": "ok"}
    ws = _ws(commands={"pytest -q": [fixed, {"exit_code": 1, "stdout": "1 failed"}]})
    assert ws.run_command("pytest  -q") == {
        "command": "pytest -q",
        "exit_code": 1,
        "stdout": "1 failed",
        "stderr": "",
    }
    ws.edit_file("src/app/main.py", "return 1", "return 2")
    assert ws.run_command("pytest -q")["stdout"] == "ok"
    unknown = ws.run_command("rm -rf /")
    assert unknown["exit_code"] == 127 and unknown["stderr"] == "rm: command not found"


def test_workspace_git_status_diff_commit_log() -> None:
    ws = _ws(history=[{"id": "abc1234", "message": "init", "files": ["README.md"]}])
    assert ws.git_status() == {"clean": True, "changes": []}
    with pytest.raises(ValueError, match="nothing to commit"):
        ws.git_commit("empty")
    ws.edit_file("README.md", "Hello", "Bye")
    ws.write_file("new.txt", "n\n")
    ws.delete_file("src/app/util.py")
    assert ws.git_status()["changes"] == [
        {"path": "README.md", "status": "modified"},
        {"path": "new.txt", "status": "added"},
        {"path": "src/app/util.py", "status": "deleted"},
    ]
    diff = ws.git_diff("README.md")
    assert (
        diff.startswith("--- a/README.md\n+++ b/README.md\n")
        and "-Hello world\n+Bye world\n" in diff
    )
    assert "+n" in ws.git_diff() and "-def helper" in ws.git_diff()
    with pytest.raises(ValueError, match="message is empty"):
        ws.git_commit("  ")
    commit = ws.git_commit("Change things")
    assert commit["files"] == ["README.md", "new.txt", "src/app/util.py"]
    assert len(str(commit["id"])) == 7
    assert ws.git_log(limit=1) == [{"id": commit["id"], "message": "Change things"}]
    assert [c["id"] for c in ws.git_log()] == [commit["id"], "abc1234"]
    assert ws.git_status()["clean"] is True and ws.git_diff() == ""


def test_workspace_commit_ids_are_deterministic() -> None:
    ids = []
    for _ in range(2):
        ws = _ws()
        ws.write_file("x", "1")
        ids.append(ws.git_commit("m")["id"])
    assert ids[0] == ids[1]
    other = _ws()
    other.write_file("x", "2")
    assert other.git_commit("m")["id"] != ids[0]


def test_workspace_state_is_plain_json_and_a_copy() -> None:
    ws = _ws(committed={"README.md": "old\n"})
    state = ws.state()
    assert isinstance(state, dict)
    assert state["dirty"] == ["README.md", "src/app/main.py", "src/app/util.py"]
    assert list(state) == ["files", "history", "dirty"]
    state["files"]["README.md"] = "changed"  # type: ignore[index]
    assert ws.read_file("README.md") == FILES["README.md"]


def test_workspace_cwd_resolves_relative_paths() -> None:
    ws = _ws(cwd="src/app")
    assert ws.read_file("main.py").startswith("import os")
    assert ws.list_files() == ["main.py", "util.py"]


def test_workspace_public_methods_are_only_tools_and_state() -> None:
    public = {n for n in dir(Workspace) if not n.startswith("_")}
    assert public == {
        "read_file",
        "write_file",
        "edit_file",
        "delete_file",
        "move_file",
        "list_files",
        "search",
        "run_command",
        "git_status",
        "git_diff",
        "git_commit",
        "git_log",
        "state",
    }
