"""Which endpoint of a pool takes the next request, and which are resting.

The bookkeeping of `EndpointPool`, kept apart from any I/O so that it can be tested
with a fake clock:

- **Choice.** A conversation's next request goes where its previous one went, when
  that endpoint is in rotation with a free slot (its prefix is in that server's cache).
  Otherwise an endpoint due for a probe first; else the one with the fewest requests in
  flight; ties go round robin from the one after the last chosen, so that one request
  at a time still visits every endpoint in turn. No endpoint ever has more than its
  limit in flight, and a probed endpoint only one.
- **Faults** (counted after the endpoint's own retries): a refused connection takes the
  endpoint out at once; 5xx, 429 and dropped connections take it out after `failures`
  of them in a row. A timeout is not the endpoint's fault on its own (the model may be
  slow on that case), but `max(failures, limit)` timeouts in a row, with no answer in
  between, are: a hung server that still accepts connections.
- **Rest.** An endpoint taken out rests `cooldown` seconds, doubling each time it is
  taken out again without an answer in between, up to `max_cooldown`. Then the next
  request probes it: an answer puts it back in rotation, a fault sends it back to rest.
  Only an answer to a request sent after it was taken out counts: a slow request that
  was already on its way proves nothing about the server now.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from toolgrade.backends._types import Backend
from toolgrade.errors import BackendError, BackendHTTPError, BackendTimeout, BackendUnreachable

__all__ = ["Endpoint", "Fault", "Lease", "PoolPolicy", "Rotation", "fault_of"]

_SERVER_STATE = frozenset({408, 409, 425, 429})
"""4xx statuses that say how the server is, not what is wrong with the request."""


@dataclass(frozen=True, slots=True)
class PoolPolicy:
    """When an endpoint is taken out of rotation, and for how long.

    Examples:
        >>> [PoolPolicy(cooldown=1.0, max_cooldown=5.0).rest(n) for n in (1, 2, 3, 4)]
        [1.0, 2.0, 4.0, 5.0]
    """

    failures: int = 5
    """Endpoint faults in a row (5xx, 429, drops) that take it out; a refused
    connection takes it out at once."""
    cooldown: float = 2.0
    """Seconds of the first rest."""
    max_cooldown: float = 60.0
    """Cap on one rest."""

    def rest(self, strikes: int) -> float:
        """Seconds an endpoint rests after being taken out `strikes` times in a row."""
        return min(self.max_cooldown, self.cooldown * 2.0 ** max(0, strikes - 1))

    def timeouts(self, limit: int) -> int:
        """Timeouts in a row that take an endpoint out: one whole batch of its requests."""
        return max(self.failures, limit)


class Fault(Enum):
    """How a request ended, as far as the endpoint's health goes."""

    ANSWERED = "answered"
    """An answer: the endpoint is well."""
    SHARED = "shared"
    """A failure any endpoint would give (a 4xx: the request itself): says nothing."""
    REFUSED = "refused"
    """Nothing answered at its address: out at once."""
    FAILED = "failed"
    """5xx, 429, a dropped connection, a broken answer: counted."""
    TIMEOUT = "timeout"
    """No answer in time (or the request was cancelled): counted apart."""


def fault_of(exc: BaseException) -> Fault:
    """What a failure says about the endpoint that gave it.

    Examples:
        >>> fault_of(BackendHTTPError("HTTP 400", status_code=400)).value
        'shared'
        >>> fault_of(BackendHTTPError("HTTP 503", status_code=503)).value
        'failed'
    """
    if isinstance(exc, BackendUnreachable):
        return Fault.REFUSED
    if isinstance(exc, BackendTimeout | asyncio.CancelledError | TimeoutError):
        return Fault.TIMEOUT
    if isinstance(exc, BackendHTTPError):
        status = exc.status_code
        shared = 400 <= status < 500 and status not in _SERVER_STATE
        return Fault.SHARED if shared else Fault.FAILED
    if isinstance(exc, BackendError):
        return Fault.FAILED
    return Fault.SHARED  # a plug-in backend's own bug: no reason to blame its server


@dataclass(slots=True)
class Endpoint:
    """One server of the pool and its health."""

    url: str
    """The server's URL, as recorded with each result."""
    backend: Backend
    """The backend that talks to it."""
    limit: int
    """Requests in flight at most."""
    in_flight: int = 0
    """Requests on their way now."""
    failures: int = 0
    """Faults in a row."""
    timeouts: int = 0
    """Timeouts in a row."""
    strikes: int = 0
    """Times taken out since its last answer."""
    resting_until: float | None = None
    """Clock time its rest ends; None while in rotation."""
    epoch: int = 0
    """Times taken out so far: a lease from before the last one proves nothing."""
    why: str | None = None
    """Why it was last taken out."""
    retired: str | None = None
    """Why it is out for good (it serves something else); None otherwise."""
    answered: int = 0
    """Requests it answered."""

    def describe(self, now: float) -> str:
        """Where it stands, for an error message."""
        if self.retired is not None:
            return f"{self.url}: {self.retired}"
        left = max(0.0, (self.resting_until or now) - now)
        return f"{self.url}: {self.why or 'failing'} (resting {left:.0f} s more)"


@dataclass(frozen=True, slots=True)
class Lease:
    """One request's hold on an endpoint, from its choice to its end."""

    index: int
    """The endpoint's position in the pool."""
    epoch: int
    """The endpoint's epoch when the request was sent."""
    probe: bool
    """True when the request probes an endpoint back from rest."""


@dataclass(slots=True)
class Rotation:
    """The pool's endpoints and the choice between them (no I/O, one event loop)."""

    endpoints: Sequence[Endpoint]
    """Every endpoint, in the order given."""
    policy: PoolPolicy = field(default_factory=PoolPolicy)
    """When to take one out, and for how long."""
    clock: Callable[[], float] = time.monotonic
    """The time, in seconds."""
    cursor: int = 0
    """Where the round robin between equally loaded endpoints starts next."""

    def _usable(self, endpoint: Endpoint, now: float) -> bool:
        """In rotation with a free slot, or due for a probe and not being probed."""
        if endpoint.retired is not None:
            return False
        if endpoint.resting_until is None:
            return endpoint.in_flight < endpoint.limit
        return endpoint.resting_until <= now and endpoint.in_flight == 0

    def _due(self, endpoint: Endpoint, now: float) -> bool:
        return endpoint.resting_until is not None and endpoint.resting_until <= now

    def choose(
        self, tried: frozenset[int] | set[int] = frozenset(), *, prefer: int | None = None
    ) -> Lease | None:
        """Take a slot on the best endpoint not in `tried`; None when none is free now.

        `prefer` (a conversation's previous endpoint) wins when it is in rotation with a
        free slot: the server still holds the conversation's prefix in its cache.
        """
        if prefer is not None and prefer not in tried:
            endpoint = self.endpoints[prefer]
            usable = endpoint.retired is None and endpoint.resting_until is None
            if usable and endpoint.in_flight < endpoint.limit:
                endpoint.in_flight += 1
                return Lease(prefer, endpoint.epoch, probe=False)
        now = self.clock()
        n = len(self.endpoints)
        best: int | None = None
        for step in range(n):
            i = (self.cursor + step) % n
            endpoint = self.endpoints[i]
            if i in tried or not self._usable(endpoint, now):
                continue
            if self._due(endpoint, now):
                best = i  # probe a rested endpoint first: it is back, or it rests again
                break
            if best is None or endpoint.in_flight < self.endpoints[best].in_flight:
                best = i
        if best is None:
            return None
        chosen = self.endpoints[best]
        chosen.in_flight += 1
        self.cursor = (best + 1) % n
        return Lease(best, chosen.epoch, probe=self._due(chosen, now))

    def worth_waiting(self, tried: frozenset[int] | set[int] = frozenset()) -> bool:
        """Whether an endpoint not in `tried` may free a slot (in rotation, or being probed)."""
        now = self.clock()
        return any(
            i not in tried
            and e.retired is None
            and (e.resting_until is None or (e.resting_until <= now and e.in_flight > 0))
            for i, e in enumerate(self.endpoints)
        )

    def next_probe(self, tried: frozenset[int] | set[int] = frozenset()) -> float | None:
        """Seconds until a resting endpoint not in `tried` is due for a probe.

        None when none will be (an endpoint already due is being probed: its answer, not
        the clock, decides).
        """
        now = self.clock()
        waits = [
            e.resting_until - now
            for i, e in enumerate(self.endpoints)
            if i not in tried
            and e.retired is None
            and e.resting_until is not None
            and e.resting_until > now
        ]
        return min(waits) if waits else None

    def every_one_out(self) -> bool:
        """True when no endpoint is in rotation (each rests or is retired)."""
        return all(e.retired is not None or e.resting_until is not None for e in self.endpoints)

    def release(self, lease: Lease, fault: Fault, *, why: str | None = None) -> bool:
        """End a request; returns True when this took its endpoint out of rotation."""
        endpoint = self.endpoints[lease.index]
        endpoint.in_flight -= 1
        if fault is Fault.ANSWERED:
            endpoint.answered += 1
        if lease.epoch != endpoint.epoch or fault is Fault.SHARED:
            return False  # sent before it was last taken out: it says nothing about now
        if fault is Fault.ANSWERED:
            endpoint.failures = endpoint.timeouts = endpoint.strikes = 0
            endpoint.resting_until = None
            return False
        if fault is Fault.FAILED:
            endpoint.failures += 1
            out = lease.probe or endpoint.failures >= self.policy.failures
        elif fault is Fault.TIMEOUT:
            endpoint.timeouts += 1
            out = lease.probe or endpoint.timeouts >= self.policy.timeouts(endpoint.limit)
        else:
            out = True
        if out:
            self.take_out(lease.index, why or fault.value)
        return out

    def take_out(self, index: int, why: str) -> None:
        """Rest an endpoint (longer each time it is taken out without an answer between)."""
        endpoint = self.endpoints[index]
        endpoint.strikes += 1
        endpoint.epoch += 1
        endpoint.failures = endpoint.timeouts = 0
        endpoint.why = why
        endpoint.resting_until = self.clock() + self.policy.rest(endpoint.strikes)

    def retire(self, index: int, why: str) -> None:
        """Take an endpoint out for good (it serves another model or build)."""
        endpoint = self.endpoints[index]
        endpoint.retired = why
        endpoint.epoch += 1

    def gone(self) -> str:
        """Every endpoint and why it is out, for the error that ends the run."""
        now = self.clock()
        return "; ".join(e.describe(now) for e in self.endpoints)
