"""Synchronous work (extraction, judging, a user's agent) in worker threads, bounded in time.

Why: the runner is one asyncio event loop. Extraction and judging are plain Python; run
inline, a reader that loops on some malformed output (or a user's matcher that does)
freezes the loop, and with it every timeout, every other case and the signal handlers:
only `kill -9` stopped such a run, and nothing was written. Here each call runs in a
worker thread while the loop waits on a future, so the loop stays free: the case's
timeout fires, Ctrl-C and SIGTERM are handled, the other cases go on.

A call's time runs from when a worker starts it, not from when it was handed in: a call
that waits for a worker (all of them busy with other cases' work) is never charged for
that wait, and a call handed in beside an idle worker that is about to take another one
gets a worker of its own.

When a call overruns (or its caller is cancelled, e.g. by a stop), the thread running it
is abandoned and a replacement is started. The abandoned thread is also stopped: a
short-lived stopper thread raises `Runaway` in it with `PyThreadState_SetAsyncExc`, which
CPython delivers at its next Python bytecode, so it does not keep burning CPU and memory.

Stop orders and tracers (coverage, pytest-cov, a debugger, a profiler): while any thread
has an asynchronous exception pending, CPython (3.11, 3.12) sets one flag for the whole
interpreter, and only the thread taking its exception clears it. So a stop order is never left
pending: a thread that ends its call with one not taken yet takes it back (`_take_back`;
clearing it with `PyThreadState_SetAsyncExc(id, NULL)` would leave the flag set for good).
On CPython 3.11, moreover, a thread with a trace or profile function that enters a Python
function while the flag is set loops there until the flag clears: the event loop would
spin, holding the interpreter, for as long as a stopped thread is blocked in a C call.
There, under a tracer, an order not taken within `_WITHDRAW_AFTER` is withdrawn (and sent
again with the repeats below) by the stopper, which runs without a tracer itself.
Python 3.12 and later (`sys.monitoring` included) do not loop.

Limits, by design of CPython:

- A thread inside one long C call (a catastrophic `re` backtrack, a huge `json.loads`)
  gets the exception only when that call returns. Worse, a C call that holds the GIL
  (the `re` engine does) stops every thread, the event loop and its signal handling
  included, until it returns. No thread can help with that; this is why matchers use a
  linear-time engine rather than `re`. On 3.11 under a tracer, such a thread is stopped
  only if a repeated order finds it running Python; else it is left to finish.
- Code that catches `BaseException` (or has a bare `except:`) can swallow `Runaway`;
  it is raised again a few times, then the thread is left alone.
- Without `ctypes.pythonapi` (other Python implementations) an abandoned thread is not
  stopped, only left behind; the workers are daemon threads, so it never blocks the
  process from exiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["BoundedPool", "Runaway", "default_pool"]

T = TypeVar("T")

_QUEUED, _RUNNING, _DONE, _ABANDONED = range(4)
_AGAIN_EVERY = 0.5
"""Seconds between repeated `Runaway`s to a thread that has not stopped."""
_AGAIN_TIMES = 10
_SLICE = 0.1
"""How long a synchronous wait blocks at a time (Ctrl-C is seen in between, on Windows too)."""
_WITHDRAW_AFTER = 0.1
"""Seconds a stop order may stay pending on CPython 3.11 under a tracer (module docstring)."""
_TRACED_THREADS_LOOP = sys.version_info < (3, 12)
"""Whether a pending stop order makes traced threads loop at function entry (3.11)."""


class Runaway(BaseException):
    """Raised inside a worker thread whose call overran its time or lost its caller.

    A `BaseException`, so that the `except Exception` of the code being stopped lets it
    through.
    """


class _Taken(Runaway):
    """Raised by a thread in itself by `_take_back`, which catches it at once."""


class _Job(Generic[T]):
    """One call: its state, the thread running it, and how to hand back the outcome."""

    __slots__ = (
        "began",
        "done",
        "ended",
        "error",
        "fn",
        "lock",
        "started",
        "state",
        "thread",
        "value",
    )

    def __init__(
        self,
        fn: Callable[[], T],
        done: Callable[[_Job[T]], None],
        started: Callable[[_Job[T]], None],
    ) -> None:
        self.fn = fn
        self.done = done
        self.started = started
        self.lock = threading.Lock()
        self.state = _QUEUED
        self.thread = 0
        self.began = 0.0
        """`time.monotonic()` when a worker started the call (0: not yet)."""
        self.value: T | None = None
        self.error: BaseException | None = None
        self.ended: threading.Event | None = None
        """Set once the thread of an abandoned call has left it (made when abandoned)."""


def _raise_in(thread_id: int, exc: type[BaseException] | None) -> bool:
    """Raise `exc` in a thread at its next bytecode (None drops a pending one).

    Dropping one leaves the interpreter's pending flag set: follow it with `_take_back()`.
    """
    api = getattr(ctypes, "pythonapi", None)
    if api is None or not thread_id:
        return False
    target = ctypes.py_object(exc) if exc is not None else None
    return bool(api.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), target))


def _take_back() -> None:
    """Leave no stop order pending in this thread, and the interpreter's flag for it clear.

    `_Taken` replaces whatever is pending here and is taken at once, at the next call,
    as any delivered exception is: that clears the flag (module docstring).
    """
    try:
        if _raise_in(threading.get_ident(), _Taken):
            _checkpoint()
    except _Taken:
        pass


def _checkpoint() -> None:
    """Python code where a pending asynchronous exception is delivered: a call, a loop."""
    for _ in range(2):
        pass


def _traced() -> bool:
    """Whether a trace or profile function is set in this thread or for new threads."""
    hooks = (sys.gettrace(), sys.getprofile(), threading.gettrace(), threading.getprofile())
    return any(hook is not None for hook in hooks)


class BoundedPool:
    """Daemon worker threads that run calls with a time bound.

    Examples:
        >>> pool = BoundedPool(max_workers=2)
        >>> pool.call_sync(lambda: 6 * 7, timeout=5.0)
        42
    """

    def __init__(self, *, max_workers: int = 4, name: str = "toolgrade-worker") -> None:
        self._max = max(1, max_workers)
        self._name = name
        self._jobs: queue.SimpleQueue[_Job[object] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._live = 0
        self._idle = 0
        self._pending = 0
        self.abandoned = 0
        """Calls given up on so far (for tests and diagnostics)."""

    async def call(self, fn: Callable[[], T], *, timeout: float) -> T:
        """Run `fn()` in a worker thread; allow it `timeout` seconds once a worker starts it.

        Raises:
            TimeoutError: `fn` overran; its thread is being stopped.
            asyncio.CancelledError: the caller was cancelled; the thread is stopped too.
            Exception: whatever `fn` raised.
        """
        loop = asyncio.get_running_loop()
        started: asyncio.Future[None] = loop.create_future()
        future: asyncio.Future[None] = loop.create_future()

        def wake(which: asyncio.Future[None]) -> Callable[[_Job[T]], None]:
            def wake_it(job: _Job[T]) -> None:
                # A closed loop (RuntimeError) means nobody waits any more.
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(_wake, which)

            return wake_it

        job = self._submit(fn, wake(future), wake(started))
        try:
            await started  # waiting for a worker costs the call nothing
            left = timeout - (time.monotonic() - job.began)
            async with asyncio.timeout(max(0.0, left)):
                await future
        except TimeoutError:
            if self._abandon(job):
                raise
            # It finished as the time ran out: its outcome stands.
        except BaseException:  # CancelledError: the run is stopping
            self._abandon(job)
            raise
        if job.error is not None:
            raise job.error
        return job.value  # type: ignore[return-value]

    def call_sync(self, fn: Callable[[], T], *, timeout: float) -> T:
        """Run `fn()` in a worker thread and block at most `timeout` seconds for it.

        Ctrl-C while waiting stops the thread and raises `KeyboardInterrupt` as usual.

        Raises:
            TimeoutError: `fn` overran; its thread is being stopped.
            Exception: whatever `fn` raised.
        """
        finished = threading.Event()
        job = self._submit(fn, lambda _: finished.set(), _ignore)
        try:
            while True:
                began = job.began  # 0 while the call waits for a worker: no clock yet
                left = timeout - (time.monotonic() - began) if began else _SLICE
                if finished.wait(min(_SLICE, max(0.0, left))):
                    break
                if began and time.monotonic() >= began + timeout and self._abandon(job):
                    raise TimeoutError
        except TimeoutError:
            raise
        except BaseException:  # KeyboardInterrupt
            self._abandon(job)
            raise
        if job.error is not None:
            raise job.error
        return job.value  # type: ignore[return-value]

    def _submit(
        self,
        fn: Callable[[], T],
        done: Callable[[_Job[T]], None],
        started: Callable[[_Job[T]], None],
    ) -> _Job[T]:
        job = _Job(fn, done, started)
        with self._lock:
            self._pending += 1
            start = self._grow()
        if start:
            self._start()
        self._jobs.put(job)  # type: ignore[arg-type]
        return job

    def _grow(self) -> bool:
        """Whether to start a worker: more calls wait than idle workers can take (under lock).

        An idle worker counts for one waiting call only: two calls handed in beside one
        idle worker get a second worker (when the bound allows), so that neither waits
        behind the other.
        """
        start = self._pending > self._idle and self._live < self._max
        if start:
            self._live += 1
        return start

    def _start(self) -> None:
        threading.Thread(target=self._work, name=self._name, daemon=True).start()

    def _abandon(self, job: _Job[T]) -> bool:
        """Give up on a job; False when it had finished after all (its outcome stands)."""
        with job.lock:
            if job.state == _DONE:
                return False
            running = job.state == _RUNNING
            job.state = _ABANDONED
            if running:
                job.ended = ended = threading.Event()
        self.abandoned += 1
        if running:
            if getattr(ctypes, "pythonapi", None) is not None:
                withdraw = _TRACED_THREADS_LOOP and _traced()
                threading.Thread(
                    target=self._stop,
                    args=(job, ended, withdraw),
                    name=f"{self._name}-stopper",
                    daemon=True,
                ).start()
            # That worker retires (it may not come back for a while): replace it now when
            # calls are waiting, else on the next call.
            with self._lock:
                self._live -= 1
                start = self._grow()
            if start:
                self._start()
        return True

    def _stop(self, job: _Job[T], ended: threading.Event, withdraw: bool) -> None:
        """Stop the thread running an abandoned job: `Runaway` now, again while it goes on.

        `withdraw` (3.11 under a tracer): an order not taken within `_WITHDRAW_AFTER` is
        withdrawn until the next repeat, and this thread runs untraced, else it would loop
        at its own next call while the order is pending (module docstring).
        """
        if withdraw:
            sys.settrace(None)
            sys.setprofile(None)
        try:
            for _ in range(1 + _AGAIN_TIMES):
                with job.lock:
                    thread = job.thread if job.state == _ABANDONED else 0
                    if not thread:
                        return  # it has left the call
                    _raise_in(thread, Runaway)
                if withdraw and not ended.wait(_WITHDRAW_AFTER):
                    with job.lock:
                        pending = job.state == _ABANDONED and job.thread == thread
                        if pending:
                            _raise_in(thread, None)
                    if pending:
                        _take_back()
                if ended.wait(_AGAIN_EVERY):
                    return
        except Runaway:  # a `_Taken` that `_take_back` missed: nothing is left pending
            pass

    def _work(self) -> None:
        me = threading.get_ident()
        try:
            while True:
                with self._lock:
                    self._idle += 1
                job = self._jobs.get()
                with self._lock:
                    self._idle -= 1
                    self._pending -= job is not None
                if job is None:
                    return
                if not self._run(job, me):
                    return
        except Runaway:
            return  # a late stop order, in this loop's own code: the worker was retired

    def _run(self, job: _Job[object], me: int) -> bool:
        """Run one job; False when it was abandoned while running (the worker retires)."""
        with job.lock:
            if job.state != _QUEUED:
                return True  # given up on while queued: skip it
            job.state = _RUNNING
            job.thread = me
            job.began = time.monotonic()
        try:
            job.started(job)  # in here: a stop order can arrive from now on
            job.value = job.fn()
        except Runaway:
            pass
        except BaseException as exc:  # handed to the caller, who decides
            job.error = exc
        with job.lock:
            abandoned = job.state == _ABANDONED
            job.state = _DONE
            job.thread = 0
            ended = job.ended
        if abandoned:
            _take_back()  # a stop order not taken yet: never leave one pending
            if ended is not None:
                ended.set()
            job.done = _ignore
            return False
        job.done(job)
        return True


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _ignore(job: _Job[object]) -> None:
    """Nobody waits for an abandoned job."""


_default: BoundedPool | None = None
_default_lock = threading.Lock()


def default_pool() -> BoundedPool:
    """The process-wide pool (created on first use: nothing happens on import)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = BoundedPool()
        return _default
