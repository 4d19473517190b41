"""`Workspace`: a small in-memory coding workspace, the built-in suite's Python environment.

Files, folders implied by their paths, a git-like history and a command runner with
canned outputs, all held in memory: nothing here touches the real file system or starts
a process. Each public method is a tool of the `coding-agent-multiturn` suite; a method
that raises (`FileNotFoundError`, `ValueError`) becomes an error result the model sees.
Everything is deterministic: the same calls from the same state give the same results,
and commit ids are hashes of what they commit.

Examples:
    >>> ws = Workspace(files={"README.md": "# Demo"})
    >>> ws.edit_file("README.md", "Demo", "Demo app")
    {'path': 'README.md', 'replaced': 1}
    >>> ws.git_status()
    {'clean': False, 'changes': [{'path': 'README.md', 'status': 'modified'}]}
    >>> ws.git_commit("Rename the demo")["id"]
    'bc41ac6'
    >>> ws.state()["dirty"]
    []
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import posixpath
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.match import compiled

__all__ = ["MAX_SEARCH_RESULTS", "Workspace"]

MAX_SEARCH_RESULTS = 50
"""At most this many matching lines are returned by one `search`."""

_MAX_PATTERN = 500
_MAX_LOG = 50
_NOT_FOUND = 127

ChangeKind = Literal["added", "modified", "deleted"]


def _clean_path(path: str, cwd: str = ".") -> str:
    """A workspace path, normalised: relative, no `.` parts, never above the root.

    Raises:
        ValueError: the path is empty, absolute, or leaves the workspace.
    """
    text = path.strip()
    if not text:
        raise ValueError("the path is empty")
    if text.startswith("/") or text.startswith("~"):
        raise ValueError(f"'{path}' is outside the workspace: paths are relative to its root")
    joined = posixpath.normpath(posixpath.join(cwd, text))
    if joined == ".." or joined.startswith("../"):
        raise ValueError(f"'{path}' is outside the workspace")
    return joined


def _commit_id(parent: str, message: str, snapshot: Mapping[str, str]) -> str:
    payload = json.dumps([parent, message, sorted(snapshot.items())], ensure_ascii=False)
    return hashlib.sha1(payload.encode("utf-8"), usedforsecurity=False).hexdigest()[:7]


def _canned(entry: JsonValue, files: Mapping[str, str]) -> JsonObject | None:
    """One canned output, when its condition (`if_contains`: a file holds a text) holds."""
    if not isinstance(entry, dict):
        return None
    condition = entry.get("if_contains")
    if isinstance(condition, dict):
        path, text = condition.get("path"), condition.get("text")
        if not isinstance(path, str) or not isinstance(text, str):
            return None
        if text not in files.get(path, ""):
            return None
    return {
        "exit_code": entry.get("exit_code", 0),
        "stdout": entry.get("stdout", ""),
        "stderr": entry.get("stderr", ""),
    }


def _line_test(pattern: str, *, regex: bool) -> Callable[[str], bool]:
    """Whether a line holds `pattern`: a substring, or an RE2 match anywhere in it."""
    if not regex:
        return lambda line: pattern in line
    compiled(pattern)  # a malformed pattern says so before it is wrapped
    finder = compiled(f".*(?:{pattern}).*")
    return lambda line: finder.fullmatch(line) is not None


class Workspace:
    """An in-memory repository: files, a commit history and canned command outputs.

    The state (`state()`) is `{"files": {path: content}, "history": [commits, oldest
    first], "dirty": [paths changed since the last commit]}`. The files given at the
    start are the last commit's content unless `committed` says otherwise.

    Args:
        files: path -> content of the working tree.
        history: the commits so far, oldest first, each `{"id", "message", "files"}`
            (`files`: the paths it changed).
        commands: the command runner's canned outputs: command -> `{"exit_code",
            "stdout", "stderr"}`, or a list of such entries tried in order, each with an
            optional `"if_contains": {"path", "text"}` condition on the files.
        cwd: the folder relative paths start from (a workspace path).
        committed: path -> content at the last commit; None: the same as `files`.
    """

    def __init__(
        self,
        *,
        files: Mapping[str, str] | None = None,
        history: Sequence[JsonObject] | None = None,
        commands: Mapping[str, JsonValue] | None = None,
        cwd: str = ".",
        committed: Mapping[str, str] | None = None,
    ) -> None:
        self._cwd = "." if cwd.strip() in ("", ".") else _clean_path(cwd)
        self._files: dict[str, str] = {_clean_path(p): str(c) for p, c in (files or {}).items()}
        base = self._files if committed is None else committed
        self._committed: dict[str, str] = {_clean_path(p): str(c) for p, c in base.items()}
        self._history: list[JsonObject] = [copy.deepcopy(dict(c)) for c in history or ()]
        self._commands: dict[str, JsonValue] = {
            " ".join(k.split()): copy.deepcopy(v) for k, v in (commands or {}).items()
        }

    # -- the tools -------------------------------------------------------------

    def read_file(self, path: str) -> str:
        """The content of a file.

        Raises:
            FileNotFoundError: there is no such file.
        """
        return self._files[self._existing(path)]

    def write_file(self, path: str, content: str) -> JsonObject:
        """Create or overwrite a file (its folders are implied by the path)."""
        key = self._path(path)
        if key in self._folders():
            raise ValueError(f"'{path}' is a folder")
        created = key not in self._files
        self._files[key] = content
        return {"path": key, "bytes": len(content.encode("utf-8")), "created": created}

    def edit_file(self, path: str, old: str, new: str) -> JsonObject:
        """Replace the one occurrence of `old` in a file by `new`.

        Raises:
            FileNotFoundError: there is no such file.
            ValueError: `old` is empty, absent from the file, or found more than once.
        """
        key = self._existing(path)
        if not old:
            raise ValueError("the text to replace is empty")
        text = self._files[key]
        count = text.count(old)
        if count == 0:
            raise ValueError(f"the text to replace was not found in {key}")
        if count > 1:
            raise ValueError(
                f"the text to replace occurs {count} times in {key}: include more context"
            )
        self._files[key] = text.replace(old, new, 1)
        return {"path": key, "replaced": 1}

    def delete_file(self, path: str) -> JsonObject:
        """Delete a file.

        Raises:
            FileNotFoundError: there is no such file.
        """
        key = self._existing(path)
        del self._files[key]
        return {"path": key, "deleted": True}

    def move_file(self, source: str, destination: str) -> JsonObject:
        """Move (rename) a file; the destination must not exist.

        Raises:
            FileNotFoundError: there is no such source file.
            ValueError: the destination exists.
        """
        src = self._existing(source)
        dst = self._path(destination)
        if dst in self._files or dst in self._folders():
            raise ValueError(f"'{destination}' already exists")
        self._files[dst] = self._files.pop(src)
        return {"from": src, "to": dst}

    def list_files(self, directory: str = ".") -> list[str]:
        """The entries of a folder, sorted: files by name, folders with a trailing `/`.

        Raises:
            FileNotFoundError: there is no such folder.
        """
        key = self._folder(directory)
        prefix = "" if key == "." else key + "/"
        if prefix and key not in self._folders():
            raise FileNotFoundError(f"no such folder: {directory}")
        entries: set[str] = set()
        for path in self._files:
            if path.startswith(prefix):
                head, sep, _ = path[len(prefix) :].partition("/")
                entries.add(head + "/" if sep else head)
        return sorted(entries)

    def search(self, pattern: str, path: str = ".", regex: bool = False) -> list[JsonObject]:
        """Lines that contain `pattern` (or match it, as an RE2 regex, when `regex`).

        At most `MAX_SEARCH_RESULTS` lines, by path then line number.

        Raises:
            FileNotFoundError: `path` is neither a file nor a folder.
            ValueError: the pattern is empty, too long or not a valid RE2 regex.
        """
        if not pattern:
            raise ValueError("the pattern is empty")
        if len(pattern) > _MAX_PATTERN:
            raise ValueError(f"the pattern is longer than {_MAX_PATTERN} characters")
        hit = _line_test(pattern, regex=regex)
        found: list[JsonObject] = []
        for name in self._under(path):
            for number, line in enumerate(self._files[name].splitlines(), start=1):
                if hit(line):
                    found.append({"path": name, "line": number, "text": line})
                    if len(found) >= MAX_SEARCH_RESULTS:
                        return found
        return found

    def run_command(self, command: str) -> JsonObject:
        """Run a shell command: its canned output (`exit_code` 127 when it has none)."""
        key = " ".join(command.split())
        entry = self._commands.get(key)
        for candidate in entry if isinstance(entry, list) else [entry]:
            output = _canned(candidate, self._files)
            if output is not None:
                return {"command": key, **output}
        program = key.split(" ", 1)[0] if key else command
        return {
            "command": key,
            "exit_code": _NOT_FOUND,
            "stdout": "",
            "stderr": f"{program}: command not found",
        }

    def git_status(self) -> JsonObject:
        """The changes since the last commit, by path."""
        changes: list[JsonValue] = [
            {"path": p, "status": kind} for p, kind in self._changes().items()
        ]
        return {"clean": not changes, "changes": changes}

    def git_diff(self, path: str | None = None) -> str:
        """A unified diff of the changes since the last commit (of one file, or all)."""
        changes = self._changes()
        if path is not None:
            key = self._path(path)
            changes = {p: k for p, k in changes.items() if p == key or p.startswith(key + "/")}
        parts: list[str] = []
        for name in changes:
            before = self._committed.get(name, "").splitlines(keepends=True)
            after = self._files.get(name, "").splitlines(keepends=True)
            diff = difflib.unified_diff(before, after, f"a/{name}", f"b/{name}", lineterm="\n")
            parts.append("".join(line if line.endswith("\n") else line + "\n" for line in diff))
        return "".join(parts)

    def git_commit(self, message: str) -> JsonObject:
        """Commit every change since the last commit.

        Raises:
            ValueError: the message is empty, or there is nothing to commit.
        """
        if not message.strip():
            raise ValueError("the commit message is empty")
        changed = list(self._changes())
        if not changed:
            raise ValueError("nothing to commit, working tree clean")
        parent = self._history[-1].get("id", "") if self._history else ""
        commit: JsonObject = {
            "id": _commit_id(str(parent), message, self._files),
            "message": message,
            "files": list[JsonValue](changed),
        }
        self._history.append(commit)
        self._committed = dict(self._files)
        return copy.deepcopy(commit)

    def git_log(self, limit: int = 5) -> list[JsonObject]:
        """The last `limit` commits, newest first: `{"id", "message"}` each."""
        count = max(0, min(int(limit), _MAX_LOG))
        newest = self._history[::-1][:count]
        return [{"id": c.get("id"), "message": c.get("message")} for c in newest]

    # -- the state ---------------------------------------------------------------

    def state(self) -> JsonValue:
        """The state that checks read: files, history, paths changed since the last commit."""
        return {
            "files": dict(sorted(self._files.items())),
            "history": copy.deepcopy(list[JsonValue](self._history)),
            "dirty": list[JsonValue](self._changes()),
        }

    # -- helpers (private: never a tool) -----------------------------------------

    def _path(self, path: str) -> str:
        return _clean_path(path, self._cwd)

    def _existing(self, path: str) -> str:
        key = self._path(path)
        if key not in self._files:
            what = "is a folder, not a file" if key in self._folders() else "does not exist"
            raise FileNotFoundError(f"{path} {what}")
        return key

    def _folders(self) -> set[str]:
        folders: set[str] = set()
        for path in self._files:
            parts = path.split("/")[:-1]
            folders.update("/".join(parts[: i + 1]) for i in range(len(parts)))
        return folders

    def _folder(self, path: str) -> str:
        """A path that may name the current folder (`""`, `.`, `./`): the workspace path."""
        return self._path(path) if path.strip() not in ("", ".", "./") else self._cwd

    def _under(self, path: str) -> list[str]:
        key = self._folder(path)
        if key in self._files:
            return [key]
        if key != "." and key not in self._folders():
            raise FileNotFoundError(f"no such file or folder: {path}")
        prefix = "" if key == "." else key + "/"
        return sorted(p for p in self._files if p.startswith(prefix))

    def _changes(self) -> dict[str, ChangeKind]:
        changes: dict[str, ChangeKind] = {}
        for name in sorted(set(self._files) | set(self._committed)):
            if name not in self._committed:
                changes[name] = "added"
            elif name not in self._files:
                changes[name] = "deleted"
            elif self._files[name] != self._committed[name]:
                changes[name] = "modified"
        return changes
