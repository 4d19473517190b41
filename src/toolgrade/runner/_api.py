"""The public entry points: run a suite, resume a run (async core and sync wrappers)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from toolgrade.backends import Backend, create_backend
from toolgrade.errors import BackendUnreachable, ConfigError
from toolgrade.judge import profiles
from toolgrade.results import CaseResult, RunResult
from toolgrade.runner._case import CaseRunner
from toolgrade.runner._core import Session, drive, manifest_for, new_header
from toolgrade.runner._options import RunOptions
from toolgrade.runner._progress import Progress, ProgressKind, make_progress
from toolgrade.runner._signals import stop_on_signals
from toolgrade.store._folder import RunFolder
from toolgrade.suite import Suite

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
        BackendUnreachable: the server does not answer at the start, or stops answering
            during the run (the finished results are kept; resume the run later).
        ConfigError: a bad model specification or option.
        StoreError: the run folder cannot be written.
    """
    options = options or RunOptions()
    _check_profile(options.profile)
    backend = create_backend(model, options.backend_settings()) if isinstance(model, str) else model
    try:
        info = await backend.server_info()
        header = new_header(suite, backend, options, info=info, run_id=run_id)
        folder = None
        if options.persist:
            folder = RunFolder.create(manifest_for(header, suite.cases, options))
        session = _session(suite, backend, options, header=header, folder=folder, progress=progress)
        return await _execute(session, stop=stop, done=())
    finally:
        await backend.aclose()


async def aresume_run(
    run: str | Path,
    *,
    suite: Suite | None = None,
    progress: ProgressKind | Progress = "none",
    stop: asyncio.Event | None = None,
    backend: Backend | None = None,
) -> RunResult:
    """Run only what a run is missing, with its recorded settings (async core of `resume_run`).

    A torn last line of `results.jsonl` is cut off and its case runs again.

    Args:
        run: the run id or folder.
        suite: the suite; None reloads it from where the run recorded it came from.
        progress: as for `arun_suite`.
        stop: as for `arun_suite`.
        backend: use this backend instead of building one from the recorded model.

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
    suite = suite or _reload_suite(manifest.suite_source, manifest.run.run_id)
    if suite.content_hash != manifest.run.suite_hash:
        raise ConfigError(
            f"the suite changed since run {manifest.run.run_id} started"
            f" ({manifest.run.suite_hash[:19]} -> {suite.content_hash[:19]}); start a new run"
        )
    by_id = {c.id: c for c in suite.cases}
    cases = [by_id[i] for i in manifest.case_ids if i in by_id]
    done = tuple(folder.read_results(repair=True))
    backend = backend or create_backend(_resume_spec(manifest.run), options.backend_settings())
    try:
        await backend.server_info()
        header = manifest.run.model_copy(update={"status": "running", "finished_at": None})
        session = _session(suite, backend, options, header=header, folder=folder, progress=progress)
        session.cases = cases
        return await _execute(session, stop=stop, done=done)
    finally:
        await backend.aclose()


def _resume_spec(run: RunResult) -> str:
    """The model to resume with; a replay file by its absolute path (the cwd may differ)."""
    file = run.backend.get("file")
    if run.model.startswith("replay/") and isinstance(file, str):
        return f"replay/{file}"
    return run.model


def _check_profile(name: str) -> None:
    """Fail before the run, not on its first case."""
    if name not in profiles():
        raise ConfigError(f"unknown judge profile {name!r} (choose from {', '.join(profiles())})")


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
    progress: ProgressKind | Progress,
) -> Session:
    runner = CaseRunner(
        suite=suite,
        backend=backend,
        timeout=options.timeout,
        rubric=options.rubric,
        profile=options.profile,
    )
    return Session(
        header=header,
        cases=suite.cases,
        runner=runner,
        options=options,
        folder=folder,
        progress=make_progress(progress),
    )


async def _execute(
    session: Session, *, stop: asyncio.Event | None, done: tuple[CaseResult, ...]
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
    session.progress.start(total=len(wanted), done=kept)
    if stop is not None:
        session.stop = stop
    try:
        interrupted = await drive(
            todo, session.run_one, concurrency=session.options.concurrency, stop=session.stop
        )
    finally:
        session.progress.close()
    run = session.finish(interrupted=interrupted)
    if session.lost:
        url = session.header.backend.get("base_url")
        raise BackendUnreachable(
            f"the model server stopped answering; {len(run.results)} results are kept in run"
            f" {run.run_id}: resume it with `toolgrade run --resume {run.run_id}`",
            url=url if isinstance(url, str) else None,
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

    return asyncio.run(main())


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
        >>> run = run_suite(suite, "ollama/qwen3:8b", options=RunOptions(concurrency=8))
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
) -> RunResult:
    """Run only what an interrupted or killed run is missing (see `aresume_run`).

    Raises:
        ConfigError: the suite changed since the run started, or cannot be found.
        StoreError: no such run folder, or a corrupt one.
        BackendUnreachable: the server does not answer.
    """

    def make(stop: asyncio.Event) -> Coroutine[Any, Any, RunResult]:
        return aresume_run(run, suite=suite, progress=progress, stop=stop)

    return _run_sync(make, handle_signals=handle_signals)
