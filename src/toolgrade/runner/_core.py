"""The run loop: a pool of workers, results written as they finish, a clean stop."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade._health import timeout_advice, too_many_timeouts
from toolgrade._version import __version__
from toolgrade.backends import Backend, ChatReply, EndpointPool, RetryEvent, ServerInfo
from toolgrade.results import CaseResult, RunResult, Status, StreamCheck
from toolgrade.runner._loop import Runner
from toolgrade.runner._options import RunOptions
from toolgrade.runner._progress import Progress, notify
from toolgrade.store import RunFolder, RunManifest, new_run_id, sort_results
from toolgrade.suite import Case, Suite

__all__ = ["Session", "drive", "manifest_for", "new_header", "used_endpoints"]


def new_header(
    suite: Suite,
    backend: Backend,
    options: RunOptions,
    *,
    info: ServerInfo,
    run_id: str | None = None,
) -> RunResult:
    """The run's settings, before any result."""
    return RunResult(
        run_id=run_id or new_run_id(),
        suite_name=suite.name,
        suite_version=suite.version,
        suite_hash=suite.content_hash,
        model=f"{backend.provider}/{backend.model}",
        backend=backend.settings(),
        server=dict(info.identity),
        toolgrade_version=__version__,
        started_at=datetime.now(UTC),
        status="running",
        seed=options.seed,
        rubric=options.rubric or suite.defaults.rubric,
        profile=options.profile,
        repeat=options.repeat,
        selection=dict(options.selection),
        tags=options.tags,
    )


@dataclass(slots=True)
class Session:
    """A run in progress: its header, its folder, and the results so far."""

    header: RunResult
    """Settings and identity (results are kept separately until the end)."""
    cases: Sequence[Case]
    """The selected cases and conversations, in order."""
    runner: Runner
    """Runs one case (single or conversation)."""
    options: RunOptions
    """The run's options."""
    folder: RunFolder | None
    """Where results go (None: in memory only)."""
    progress: Progress
    """The progress display."""
    results: dict[tuple[str, int], CaseResult] = field(default_factory=dict)
    """Finished results by (case id, repetition)."""
    fingerprints: set[str] = field(default_factory=set)
    """Distinct `system_fingerprint`s seen."""
    response_models: set[str] = field(default_factory=set)
    """Distinct model names the server reported."""
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    """Set to stop the run (by the caller, a signal, or a lost server)."""
    held: list[CaseResult] = field(default_factory=list)
    """Results of cases that could not connect, held back until the server answers again."""
    lost: bool = False
    """True once the server stopped answering for good (the run stops, resumable)."""
    finished: int = 0
    """Results recorded in this session (kept ones from before a resume aside)."""
    timeouts: int = 0
    """Of those, how many timed out."""
    warned: bool = False
    """True once the too-many-timeouts warning was given."""
    stream_checks: tuple[StreamCheck, ...] = ()
    """`--stream-check`: the sampled cases asked streamed and whole, once the cases ran."""

    def todo(self) -> list[tuple[Case, int]]:
        """Case repetitions that have no result yet."""
        return [
            (case, k)
            for case in self.cases
            for k in range(self.options.repeat)
            if (case.id, k) not in self.results
        ]

    def record(self, result: CaseResult, reply: ChatReply | None) -> None:
        """Keep one finished result: file first, then memory, log and progress."""
        if self.folder is not None:
            self.folder.append_result(result)
            _log_result(self.folder, result)
        self.results[result.case_id, result.repeat] = result
        if reply is not None:
            for key, into in (
                ("system_fingerprint", self.fingerprints),
                ("model", self.response_models),
            ):
                value = reply.identity.get(key)
                if isinstance(value, str):
                    into.add(value)
        self.progress.update(result)
        self._watch(result)

    def _watch(self, result: CaseResult) -> None:
        """Warn once, as soon as too many cases time out (the run goes on)."""
        self.finished += 1
        self.timeouts += result.status is Status.TIMEOUT
        if self.warned or not too_many_timeouts(self.timeouts, self.finished):
            return
        self.warned = True
        message = timeout_advice(
            self.timeouts,
            self.finished,
            timeout=self.options.timeout,
            concurrency=self.options.concurrency,
        )
        notify(self.progress, f"warning: {message}")
        if self.folder is not None:
            self.folder.log(
                "warning",
                "many_timeouts",
                message,
                timeouts=self.timeouts,
                finished=self.finished,
            )

    async def run_one(self, case: Case, repeat: int) -> None:
        """Run and record one case (or conversation) repetition.

        A conversation is recorded only once it finished: a stop half-way records
        nothing of it, and a resume runs it again from its first turn.
        """
        if self.folder is not None:
            self.folder.log(
                "debug", "case_start", f"{case.id} started", case_id=case.id, repeat=repeat
            )
        on_retry = partial(self._log_retry, case.id, repeat)
        outcome = await self.runner.run(case, repeat, on_retry=on_retry)
        if outcome.unreachable:
            self._hold(outcome.result)
            return
        self._release_held()
        self.record(outcome.result, outcome.reply)

    def _log_retry(self, case_id: str, repeat: int, event: RetryEvent) -> None:
        """One `retry` line in `log.jsonl` per retried request."""
        if self.folder is None:
            return
        self.folder.log(
            "warning",
            "retry",
            f"{case_id}: {event.reason}; retry {event.attempt} in {event.delay:.2f} s",
            case_id=case_id,
            repeat=repeat,
            attempt=event.attempt,
            reason=event.reason,
            delay_s=round(event.delay, 3),
            url=event.url,
        )

    def _hold(self, result: CaseResult) -> None:
        """Keep back a could-not-connect result; enough in a row means the server is gone.

        Held results are written only if the server answers again: when it is gone for
        good, their cases stay missing and a resume runs them, instead of one error
        after another (each after every retry) for the rest of the suite.
        """
        self.held.append(result)
        if len(self.held) >= max(3, self.options.concurrency) and not self.lost:
            self.lost = True
            self.stop.set()

    def _release_held(self) -> None:
        held, self.held = self.held, []
        for result in held:
            self.record(result, None)

    def finish(self, *, interrupted: bool) -> RunResult:
        """Write the final `run.json` and return the whole run."""
        if not self.lost:
            self._release_held()
        server: JsonObject = dict(self.header.server)
        if self.fingerprints:
            server["system_fingerprints"] = [f for f in sorted(self.fingerprints)]
        if self.response_models:
            server["response_models"] = [m for m in sorted(self.response_models)]
        if isinstance(self.runner.backend, EndpointPool):
            _note_endpoint_fingerprints(server, self.runner.backend)
        complete = not interrupted and not self.todo()
        update: dict[str, object] = {
            "server": server,
            "status": "complete" if complete else "interrupted",
            "finished_at": datetime.now(UTC) if complete else None,
        }
        if self.stream_checks:
            update["stream_checks"] = self.stream_checks
        header = self.header.model_copy(update=update)
        ordered = sort_results(self.results.values(), [c.id for c in self.cases])
        if self.folder is not None:
            manifest = self.folder.read_manifest()
            self.folder.write_manifest(manifest.model_copy(update={"run": header}))
            self.folder.log(
                "info",
                "run_summary",
                f"run {header.status}: {len(ordered)} results",
                status=header.status,
                results=len(ordered),
                correct=sum(r.status == "correct" for r in ordered),
                scored=sum(r.status.scored for r in ordered),
            )
            self.folder.close()
        return header.model_copy(update={"results": ordered})


def _note_endpoint_fingerprints(server: JsonObject, pool: EndpointPool) -> None:
    """Which endpoint answered with which `system_fingerprint` (added to a resume's)."""
    recorded = server.get("endpoint_fingerprints")
    merged: dict[str, set[str]] = {}
    for url, seen in (recorded if isinstance(recorded, dict) else {}).items():
        merged[url] = {str(f) for f in seen} if isinstance(seen, list) else set()
    for url, told in pool.fingerprints().items():
        merged.setdefault(url, set()).update(told)
    if merged:
        listed: JsonObject = {url: [f for f in sorted(fs)] for url, fs in merged.items()}
        server["endpoint_fingerprints"] = listed


def _log_result(folder: RunFolder, result: CaseResult) -> None:
    """One `case_result` (info) or `case_failed` (warning) line in `log.jsonl`."""
    fields: dict[str, JsonValue] = {
        "case_id": result.case_id,
        "repeat": result.repeat,
        "status": str(result.status),
        "score": result.score,
        "latency_ms": result.latency_ms,
    }
    if result.status.scored:
        folder.log("info", "case_result", f"{result.case_id}: {result.status}", **fields)
    else:
        fields["error"] = result.error
        folder.log(
            "warning",
            "case_failed",
            f"{result.case_id}: {result.status}: {result.error}",
            **fields,
        )


def used_endpoints(recorded: JsonObject, now: JsonObject) -> JsonObject:
    """A resumed run's backend settings: the recorded ones, its `endpoints` every server used.

    `base_url` stays the first server of the run, for readers that know no other.

    Examples:
        >>> used_endpoints({"base_url": "http://a"}, {"endpoints": ["http://b", "http://c"]})
        {'base_url': 'http://a', 'endpoints': ['http://a', 'http://b', 'http://c']}
    """

    def urls(settings: JsonObject) -> list[str]:
        listed = settings.get("endpoints")
        if isinstance(listed, list):
            return [str(u) for u in listed]
        url = settings.get("base_url")
        return [url] if isinstance(url, str) else []

    merged = urls(recorded)
    merged += [u for u in urls(now) if u not in merged]
    return {**recorded, "endpoints": list(merged)} if len(merged) > 1 else dict(recorded)


def manifest_for(
    session_header: RunResult, cases: Sequence[Case], options: RunOptions
) -> RunManifest:
    """The `run.json` content of a new run."""
    return RunManifest(
        run=session_header,
        suite_source=options.suite_source,
        case_ids=tuple(c.id for c in cases),
        options=options.to_dict(),
    )


async def drive(
    items: Sequence[tuple[Case, int]],
    work: Callable[[Case, int], Awaitable[None]],
    *,
    concurrency: int,
    stop: asyncio.Event | None,
) -> bool:
    """Run `work` over the items with at most `concurrency` at once.

    Returns:
        True when `stop` was set before every item finished (in-flight ones are cancelled).
    """
    pending: Iterator[tuple[Case, int]] = iter(items)
    stop = stop or asyncio.Event()

    async def worker() -> None:
        # One shared iterator: next() is atomic between awaits in a single event loop.
        for case, repeat in pending:
            if stop.is_set():
                return
            await work(case, repeat)

    async def everyone() -> None:
        await asyncio.gather(*(worker() for _ in range(min(concurrency, max(1, len(items))))))

    async def stopped() -> None:
        await stop.wait()

    workers = asyncio.ensure_future(everyone())
    stopper = asyncio.ensure_future(stopped())
    await asyncio.wait({workers, stopper}, return_when=asyncio.FIRST_COMPLETED)
    if workers.done():
        stopper.cancel()
        workers.result()  # a bug in the runner itself surfaces here
        return stop.is_set()
    workers.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await workers
    return True
