r"""The fuzz campaign's pipeline: extract, judge, write a run folder, read it, report.

Model output from the generator goes the way a run takes it: through a backend's
`ChatReply` (the raw output kept), extraction (forced or auto-detected, with or without
the tools), the judge against cases whose tools have `pattern`, `patternProperties`,
`enum` and nested schemas and whose expectations use matchers, then into a run folder
(`RunFolder`), back out of it (`load_run_folder`), and into the text, JSON and HTML
reports. Any exception, anywhere, is a failure.

The pipeline runs in a worker process with a wall deadline (like `_deadline.Worker`),
so that a looping reader or matcher fails the test instead of freezing it; the worker
turns warnings into errors, as pytest does, since no verdict may depend on them.
"""

from __future__ import annotations

import json
import multiprocessing
import traceback
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

WALL_LIMIT = 20.0
"""Wall seconds one batch may take before the worker is killed as hung."""
_START_LIMIT = 120.0
"""Wall seconds a new worker may take to import toolgrade (slow on a loaded machine)."""

Job = tuple[object, str, str]
"""The output, the format (`auto` or a name), and the tools given (`none`, `names`,
`specs`)."""

_STRING = {"type": "string"}
_F0 = {
    "type": "object",
    "properties": {
        "a": {"type": "string", "pattern": "^[a-z0-9 ._/-]*$", "maxLength": 64},
        "n": {"type": "integer", "enum": [1, 2, 3]},
        "o": {
            "type": "object",
            "properties": {
                "p": {"type": "array", "items": {"type": "string", "pattern": "^(a|b)*!?$"}},
                "q": {"type": "object", "properties": {"r": {"type": "number"}}},
            },
            "patternProperties": {"^x-[a-z]+$": {"type": "number"}, "^(a+)+$": _STRING},
        },
    },
}
_F1 = {
    "type": "object",
    "properties": {
        "a": {"type": ["string", "number", "array", "object", "boolean", "null"]},
        "mode": {"type": "string", "enum": ["fast", "slow", "\u00e9t\u00e9"]},
    },
    "patternProperties": {"^(\\w+\\s?)*$": {"type": "string", "pattern": "^(\\w+\\s?)*$"}},
}
SUITE: dict[str, Any] = {
    "schema_version": 1,
    "name": "fuzz-campaign",
    "tools": [
        {"name": "f0", "parameters": _F0},
        {"name": "f1", "parameters": _F1},
        {"name": "get_weather", "parameters": {"type": "object", "properties": {"a": {}}}},
    ],
    "cases": [
        {
            "id": "regex",
            "prompt": "p",
            "expected": {"name": "f0", "arguments": {"a": {"$regex": "(a+)+b|notes .*\\.md"}}},
        },
        {
            "id": "unordered",
            "prompt": "p",
            "expected": [
                {"name": "f0", "arguments": {"a": {"$unordered": [1, "x", {"$regex": "a*!"}]}}},
                {"name": "f1", "arguments": {"a": {"$any_of": [1, "\u00e9t\u00e9", None]}}},
            ],
            "order": "any",
        },
        {
            "id": "not",
            "prompt": "p",
            "expected": {
                "name": "f1",
                "arguments": {
                    "a": {"$not": {"$regex": "a{1,50}!"}},
                    "mode": {"$any_of": ["fast", {"$absent": True}]},
                },
            },
        },
        {
            "id": "nested",
            "prompt": "p",
            "expected": {
                "name": "f0",
                "arguments": {
                    "o": {"p": {"$unordered": ["a", "b!", {"$contains": "ab"}]}, "q": {"r": 1}},
                    "n": {"$any_of": [1, 2]},
                },
            },
            "alternatives": [[{"name": "f1", "arguments": {"a": {"$type": "array"}}}]],
        },
        {"id": "none", "prompt": "p", "expected": None},
        {
            "id": "strict",
            "prompt": "p",
            "expected": [
                {"name": "f0", "arguments": {"a": {"$icase": "X"}}},
                {"name": "f1", "arguments": {"a": {"$approx": 1.5, "tol": 0.5}}},
            ],
            "order": "strict",
            "rubric": "f1",
        },
    ],
}
"""Cases and tools every generated output is judged against."""

REPORTS = ("text", "json", "html")


def _has_surrogate(value: object) -> bool:
    from toolgrade._core.json_data import has_surrogate

    if isinstance(value, str):
        return has_surrogate(value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_surrogate(item) for item in value)
    return False


def pipeline(root: Path, jobs: list[Job], batch: int) -> None:
    """Extract, judge, write, read back and report every job; raise on any problem."""
    import toolgrade
    from toolgrade.backends import ChatReply
    from toolgrade.results import RunResult
    from toolgrade.store import RunFolder, RunManifest

    suite = _suite()
    tool_sets: dict[str, Any] = {"none": None, "names": ["f0", "f1"], "specs": list(suite.tools)}
    results = []
    for repeat, (output, fmt, tools) in enumerate(jobs):
        raw = ChatReply(raw=output).raw  # type: ignore[arg-type]  # as every backend keeps it
        assert not _has_surrogate(raw), "a raw output kept with a lone surrogate"
        found = toolgrade.extract_calls(output, format=fmt, tools=tool_sets[tools])  # type: ignore[arg-type]
        dumped = found.model_dump(mode="json")
        assert not _has_surrogate(dumped), f"an extraction with a lone surrogate: {dumped!r:.300}"
        for case in suite.cases:
            result = toolgrade.judge(
                case,
                found,
                tools=suite.tools_for(case),
                defaults=suite.defaults,  # type: ignore[arg-type]
            )
            update = {"raw_response": raw, "repeat": repeat, "latency_ms": 1.0}
            results.append(result.model_copy(update=update))
    header = RunResult(
        run_id=f"fuzz-{batch}",
        suite_name=suite.name,
        suite_version="",
        suite_hash=suite.content_hash,
        model="fuzz/model",
        toolgrade_version="0",
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        status="running",
    )
    case_ids = tuple(case.id for case in suite.cases)
    folder = RunFolder.create(RunManifest(run=header, case_ids=case_ids), root=root)
    for result in results:
        folder.append_result(result)
    folder.close()
    loaded = toolgrade.load_run_folder(folder.path)
    read_back = {(r.case_id, r.repeat): r.model_dump(mode="json") for r in loaded.results}
    assert len(read_back) == len(results)
    for written in results:
        key = (written.case_id, written.repeat)
        assert read_back[key] == written.model_dump(mode="json"), key
    for fmt in REPORTS:
        text = toolgrade.render_report(loaded, fmt)
        text.encode("utf-8")
        if fmt == "json":
            json.loads(text)


_SUITE_CACHE: list[Any] = []


def _suite() -> Any:
    if not _SUITE_CACHE:
        import toolgrade

        _SUITE_CACHE.append(toolgrade.Suite.model_validate(SUITE))
    return _SUITE_CACHE[0]


def _serve(conn: Connection) -> None:
    import warnings

    # As under pytest's `filterwarnings = error`: no verdict may depend on the filters.
    warnings.simplefilter("error")
    _suite()
    conn.send("ready")
    while True:
        try:
            root, jobs, batch = conn.recv()
        except EOFError:
            return
        try:
            pipeline(Path(root), jobs, batch)
            problem = ""
        except BaseException:
            problem = traceback.format_exc()
        conn.send(problem)


class CampaignWorker:
    """A child process running the pipeline; restarted after it is killed."""

    def __init__(self) -> None:
        self._ctx = multiprocessing.get_context("spawn")
        self._proc: Any = None
        self._conn: Connection | None = None
        self._batches = 0

    def _start(self) -> Connection:
        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(target=_serve, args=(child,), daemon=True)
        self._proc.start()
        child.close()
        if not parent.poll(_START_LIMIT) or parent.recv() != "ready":
            raise RuntimeError("the campaign worker did not start")
        self._conn = parent
        return parent

    def run(self, root: Path, jobs: list[Job]) -> str:
        """Run one batch; return "" when it went through cleanly, else the problem."""
        conn = self._conn or self._start()
        self._batches += 1
        conn.send((str(root), jobs, self._batches))
        if not conn.poll(WALL_LIMIT):
            self.close()
            return f"no answer within {WALL_LIMIT} s (hang): jobs={jobs!r:.600}"
        problem: str = conn.recv()
        return f"{problem}\njobs={jobs!r:.600}" if problem else ""

    def close(self) -> None:
        """Stop the worker (killed: it may be stuck)."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.join()
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None
