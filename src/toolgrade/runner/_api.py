"""The public entry points: run a suite, resume a run (async core and sync wrappers)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any

from toolgrade._core.json_data import JsonObject
from toolgrade.backends import Backend, create_backend
from toolgrade.errors import BackendUnreachable, ConfigError
from toolgrade.results import CaseResult, RunResult
from toolgrade.runner._core import Session, drive, manifest_for, new_header, used_endpoints
from toolgrade.runner._loop import Runner
from toolgrade.runner._options import RunOptions
from toolgrade.runner._preflight import check_environments, check_profile, warmup_backend
from toolgrade.runner._prepare import (
    WARNING_EVENTS,
    doctor_hint,
    get_ready,
    server_info,
    with_doctor_hint,
)
from toolgrade.runner._progress import Progress, ProgressKind, make_progress
from toolgrade.runner._sameness import resumable_suite
from toolgrade.runner._signals import run_main, stop_on_signals
from toolgrade.runner._stream_check import check_session, stream_check_model
from toolgrade.store import LogLevel, RunFolder
from toolgrade.suite import Case, Suite

__all__ = ["arun_suite", "aresume_run", "resume_run", "run_suite"]


async def arun_suite(
    suite: Suite,
    model: str | Backend,
    *,
    options: RunOptions | None = None,
    progress: ProgressKind | Progress = "none",
    stop: asyncio.Event | None = None,
    run_id: str | None = None,
) -> RunResult:
    """Run every case of a suite against a model (async core of `run_suite`).

    Before the cases, a server (not `replay/` or `python/`) gets one warm-up request
    (bounded by `options.warmup_limit`, not `timeout`) unless `options.warmup` is False,
    and the concurrency is lowered to the requests the server answers at once when it
    says (`ServerInfo.parallel`). With `options.stream_check`, a complete run then asks
    that many sampled cases whole, streamed and whole again (`RunResult.stream_checks`).

    Args:
        suite: the suite, already narrowed to the selected cases.
        model: a model specification such as `ollama/qwen3:8b`, or a `Backend`.
        options: how to run (defaults: concurrency 4, timeout 60 s, temperature 0).
        progress: `none`, `plain`, `bar`, `auto`, or a `Progress`.
        stop: set it to stop cleanly; finished results are kept.
        run_id: the run id (default: time plus random digits).

    Returns:
        The run, with status `complete` or `interrupted`.

    Raises:
        BackendUnreachable: the server does not answer at the start (or not the warm-up
            within its limit), or stops answering during the run (the finished results
            are kept; resume the run later). The message names the `toolgrade doctor`
            command that checks the server.
        ConfigError: a bad model specification or option (a stream check of a model
            without a server, or of a `Backend` object).
        SuiteError: a Python environment of the suite cannot be built (checked before
            anything is sent).
        StoreError: the run folder cannot be written.
    """
    options = options or RunOptions()
    check_profile(options.profile)
    checked = stream_check_model(model, options)
    await check_environments(suite, suite.cases, options)
    stop = stop or asyncio.Event()
    shown = make_progress(progress)
    backend = create_backend(model, options.backend_settings()) if isinstance(model, str) else model
    try:
        try:
            info = await server_info(backend)
            header = new_header(suite, backend, options, info=info, run_id=run_id)
            ready = await get_ready(
                header,
                suite=suite,
                cases=suite.cases,
                backend=backend,
                warmup_backend=warmup_backend(model, options),
                options=options,
                info=info,
                stop=stop,
                progress=shown,
            )
        except BackendUnreachable as exc:
            raise with_doctor_hint(exc, backend) from None
        folder = None
        if options.persist:
            folder = RunFolder.create(manifest_for(ready.header, suite.cases, options))
        session = _session(
            suite, backend, ready.options, header=ready.header, folder=folder, progress=shown
        )
        return await _execute(
            session, stop=stop, done=(), notices=ready.notices, stream_check=checked
        )
    finally:
        await backend.aclose()


async def aresume_run(
    run: str | Path,
    *,
    suite: Suite | None = None,
    progress: ProgressKind | Progress = "none",
    stop: asyncio.Event | None = None,
    backend: Backend | None = None,
    endpoints: Sequence[str] | None = None,
) -> RunResult:
    """Run only what a run is missing, with its recorded settings (async core of `resume_run`).

    A torn last line of `results.jsonl` is cut off and its case runs again.

    The suite is compared with the one the run ran on the run's own cases: a run of a
    selection (`--limit`, `--id`, `--tag`, ...) resumes as long as its cases, tools and
    defaults are unchanged. The warm-up and the concurrency cap happen again.

    Args:
        run: the run id or folder.
        suite: the suite; None reloads it from where the run recorded it came from.
        progress: as for `arun_suite`.
        stop: as for `arun_suite`.
        backend: use this backend instead of building one from the recorded model.
        endpoints: send the rest to these servers instead of the recorded ones (one or
            several; a server died, or moved); recorded in `run.json` for later resumes,
            and the run's `backend.endpoints` lists every server it used.

    Returns:
        The whole run: kept results and new ones.

    Raises:
        ConfigError: the suite changed since the run started, or cannot be found.
        StoreError: no such run folder, or a corrupt one.
        BackendUnreachable: the server does not answer.
    """
    folder = RunFolder.open(run)
    manifest = folder.read_manifest()
    options = RunOptions.from_dict(manifest.options)
    if endpoints:
        request = dataclasses.replace(options.request, endpoints=tuple(endpoints))
        options = dataclasses.replace(options, request=request)
    suite = suite or _reload_suite(manifest.suite_source, manifest.run.run_id)
    suite = resumable_suite(manifest.run, suite, manifest.case_ids)
    by_id = {c.id: c for c in suite.cases}
    cases = [by_id[i] for i in manifest.case_ids if i in by_id]
    done = tuple(folder.read_results(repair=True))
    todo = _unfinished(cases, done, options.repeat)
    await check_environments(suite, todo, options)
    spec = _resume_spec(manifest.run)
    checked = None if backend is not None else stream_check_model(spec, options)
    stop = stop or asyncio.Event()
    shown = make_progress(progress)
    warm = None if backend is not None else warmup_backend(spec, options)
    backend = backend or create_backend(spec, options.backend_settings())
    try:
        try:
            info = await server_info(backend)
            update: JsonObject = {"status": "running", "finished_at": None}
            if endpoints:
                update["backend"] = used_endpoints(manifest.run.backend, backend.settings())
            header = manifest.run.model_copy(update=update)
            ready = await get_ready(
                header,
                suite=suite,
                cases=todo,
                backend=backend,
                warmup_backend=warm,
                options=options,
                info=info,
                stop=stop,
                progress=shown,
            )
        except BackendUnreachable as exc:
            raise with_doctor_hint(exc, backend) from None
        if endpoints:  # checked and warmed up: later resumes go to the new servers too
            folder.write_manifest(manifest.model_copy(update={"options": options.to_dict()}))
        session = _session(
            suite, backend, ready.options, header=ready.header, folder=folder, progress=shown
        )
        session.cases = cases
        return await _execute(
            session, stop=stop, done=done, notices=ready.notices, stream_check=checked
        )
    finally:
        await backend.aclose()


def _unfinished(cases: Sequence[Case], done: Sequence[CaseResult], repeat: int) -> list[Case]:
    """The cases with a repetition still to run (the warm-up needs one, not all)."""
    have = {(r.case_id, r.repeat) for r in done}
    return [c for c in cases if any((c.id, k) not in have for k in range(repeat))]


def _resume_spec(run: RunResult) -> str:
    """The model to resume with; a replay file by its absolute path (the cwd may differ)."""
    file = run.backend.get("file")
    if run.model.startswith("replay/") and isinstance(file, str):
        return f"replay/{file}"
    return run.model


def _reload_suite(source: str | None, run_id: str) -> Suite:
    if not source:
        raise ConfigError(f"run {run_id} did not record where its suite came from; pass the suite")
    from toolgrade.suite import load_suite

    return load_suite(source)


def _session(
    suite: Suite,
    backend: Backend,
    options: RunOptions,
    *,
    header: RunResult,
    folder: RunFolder | None,
    progress: Progress,
) -> Session:
    runner = Runner(
        suite=suite,
        backend=backend,
        timeout=options.timeout,
        rubric=options.rubric,
        profile=options.profile,
        teacher_forcing=options.teacher_forcing,
        prompt_mode=options.mode == "prompt",
        # Only conversations have environments to look up (a path on disk).
        base_dir=(options.base_dir() or suite.source_dir) if suite.conversations else None,
    )
    return Session(
        header=header,
        cases=suite.cases,
        runner=runner,
        options=options,
        folder=folder,
        progress=progress,
    )


async def _execute(
    session: Session,
    *,
    stop: asyncio.Event | None,
    done: tuple[CaseResult, ...],
    notices: Sequence[tuple[str, str, JsonObject]] = (),
    stream_check: str | None = None,
) -> RunResult:
    wanted = {(c.id, k) for c in session.cases for k in range(session.options.repeat)}
    kept = tuple(r for r in done if (r.case_id, r.repeat) in wanted)
    session.results.update({(r.case_id, r.repeat): r for r in kept})
    todo = session.todo()
    if session.folder is not None:
        session.folder.log(
            "info",
            "run_start",
            f"run {session.header.run_id}: {len(todo)} to do, {len(kept)} kept",
            model=session.header.model,
            todo=len(todo),
            kept=len(kept),
        )
        for event, message, fields in notices:
            level: LogLevel = "warning" if event in WARNING_EVENTS else "info"
            session.folder.log(level, event, message, **fields)
    session.progress.start(total=len(wanted), done=kept)
    if stop is not None:
        session.stop = stop
    try:
        interrupted = await drive(
            todo, session.run_one, concurrency=session.options.concurrency, stop=session.stop
        )
    finally:
        session.progress.close()
    if stream_check is not None and not interrupted and not session.lost:
        await check_session(session, stream_check)
    run = session.finish(interrupted=interrupted)
    if session.lost:
        url = session.header.backend.get("base_url")
        several = isinstance(session.header.backend.get("endpoints"), list)
        who = "every endpoint" if several else "the model server"
        raise BackendUnreachable(
            f"{who} stopped answering ({doctor_hint(session.runner.backend)});"
            f" {len(run.results)} results are kept in run {run.run_id}: resume it with"
            f" `toolgrade run --resume {run.run_id}`",
            url=None if several or not isinstance(url, str) else url,
        )
    return run


def _run_sync(make: Any, *, handle_signals: bool) -> RunResult:
    async def main() -> RunResult:
        stop = asyncio.Event()
        if not handle_signals:
            result: RunResult = await make(stop)
            return result
        with stop_on_signals(stop):
            result = await make(stop)
            return result

    return run_main(main())


def run_suite(
    suite: Suite,
    model: str | Backend,
    *,
    options: RunOptions | None = None,
    progress: ProgressKind | Progress = "none",
    handle_signals: bool = True,
    run_id: str | None = None,
) -> RunResult:
    """Run every case of a suite against a model.

    Ctrl-C and SIGTERM stop the run cleanly (when `handle_signals`): finished results
    stay in the run folder and the run is returned with status `interrupted`.

    Args:
        suite: the suite, already narrowed to the selected cases.
        model: a model specification such as `ollama/qwen3:8b`, or a `Backend`.
        options: how to run.
        progress: `none`, `plain`, `bar`, `auto`, or a `Progress`.
        handle_signals: turn SIGINT/SIGTERM into a clean stop.
        run_id: the run id (default: time plus random digits).

    Returns:
        The run.

    Raises:
        BackendUnreachable: the server does not answer at the start, or stops answering
            during the run (the finished results are kept; resume the run later).
        ConfigError: a bad model specification or option.

    Examples:
        >>> suite = toolgrade.load_suite("coding-agent")  # doctest: +SKIP
        >>> options = RunOptions(concurrency=8)  # doctest: +SKIP
        >>> run = run_suite(suite, "ollama/qwen3:8b", options=options)  # doctest: +SKIP
    """

    def make(stop: asyncio.Event) -> Coroutine[Any, Any, RunResult]:
        return arun_suite(
            suite, model, options=options, progress=progress, stop=stop, run_id=run_id
        )

    return _run_sync(make, handle_signals=handle_signals)


def resume_run(
    run: str | Path,
    *,
    suite: Suite | None = None,
    progress: ProgressKind | Progress = "none",
    handle_signals: bool = True,
    endpoints: Sequence[str] | None = None,
) -> RunResult:
    """Run only what an interrupted or killed run is missing (see `aresume_run`).

    `endpoints` sends the rest to other servers than the recorded ones (e.g. when one
    of them died).

    Raises:
        ConfigError: the suite changed since the run started, or cannot be found.
        StoreError: no such run folder, or a corrupt one.
        BackendUnreachable: the server does not answer.
    """

    def make(stop: asyncio.Event) -> Coroutine[Any, Any, RunResult]:
        return aresume_run(run, suite=suite, progress=progress, stop=stop, endpoints=endpoints)

    return _run_sync(make, handle_signals=handle_signals)
