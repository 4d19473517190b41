"""Before anything is sent: what the run needs from the suite and the options.

A conversation whose Python environment cannot be built (its module fails to import,
its class is missing, its constructor raises) is a broken suite, not a model's failure:
were it left to the run, every such conversation would become an `error` result, and a
run that scored other cases would end with exit code 0, the suite's fault buried in the
report. So each Python environment the selected conversations use is loaded and built
once (from the first such conversation's `initial_state`) before the server is asked
anything; a failure stops the run with a `SuiteError` (exit 2) naming the suite, the
case and the environment. It runs in a bounded worker thread: the suite's code may loop.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from toolgrade._core.threads import BoundedPool, default_pool
from toolgrade.backends import Backend, create_backend
from toolgrade.environments import environment_factory
from toolgrade.errors import ConfigError, SuiteError
from toolgrade.judging import profiles
from toolgrade.runner._options import RunOptions
from toolgrade.runner._prepare import WarmupBackend
from toolgrade.suite import Case, PythonEnvironment, Suite

__all__ = ["check_environments", "check_profile", "warmup_backend"]


async def check_environments(
    suite: Suite,
    cases: Sequence[Case],
    options: RunOptions,
    *,
    workers: BoundedPool | None = None,
) -> None:
    """Build each Python environment the conversations among `cases` use, once.

    Raises:
        SuiteError: an environment cannot be loaded or built, or took longer than the
            run's `--timeout` to (the suite file, the case and the reason named).
    """
    pool = workers or default_pool()
    base_dir = options.base_dir() or suite.source_dir
    seen: set[str] = set()
    for case in cases:
        if case.single or case.environment is None:
            continue
        name = case.environment
        spec = suite.environments.get(name)
        if name in seen or (spec is not None and not isinstance(spec, PythonEnvironment)):
            continue  # scripted environments are toolgrade's own rules: nothing to build
        seen.add(name)
        await _build(suite, case, base_dir, pool=pool, timeout=options.timeout, where=options)


async def _build(
    suite: Suite,
    conversation: Case,
    base_dir: Path | None,
    *,
    pool: BoundedPool,
    timeout: float,
    where: RunOptions,
) -> None:
    def build() -> None:
        factory = environment_factory(suite, conversation, base_dir=base_dir)
        factory(dict(conversation.initial_state))

    name = conversation.environment
    path = where.suite_source
    try:
        await pool.call(build, timeout=timeout)
    except SuiteError as exc:
        message = f"environment {name!r} cannot be built: {exc.message}"
        raise SuiteError(message, path=path, case_id=conversation.id) from None
    except TimeoutError:
        message = f"environment {name!r} took longer than {timeout:g} s to build"
        raise SuiteError(message, path=path, case_id=conversation.id) from None
    except Exception as exc:  # the suite's own code failed while being loaded
        message = f"environment {name!r} cannot be built: {type(exc).__name__}: {exc}"
        raise SuiteError(message, path=path, case_id=conversation.id) from None


def check_profile(name: str) -> None:
    """Fail before the run, not on its first case.

    Raises:
        ConfigError: no judge profile of that name.
    """
    if name not in profiles():
        raise ConfigError(f"unknown judge profile {name!r} (choose from {', '.join(profiles())})")


def warmup_backend(model: str | Backend, options: RunOptions) -> WarmupBackend | None:
    """A builder of the warm-up's own backend, whose timeout is the warm-up's limit.

    The run's backend enforces `--timeout` on every request (the streamed answer
    included); the warm-up may take longer (`RunOptions.warmup_limit`). A `Backend`
    given as an object is used as is.
    """
    if not isinstance(model, str):
        return None
    limit = options.warmup_limit
    settings = dataclasses.replace(options.backend_settings(), timeout=limit, connections=1)
    return lambda: create_backend(model, settings)
