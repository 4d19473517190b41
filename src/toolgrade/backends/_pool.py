"""Several servers of one model behind one `Backend`: `EndpointPool`.

A fleet of replicas (vLLM or SGLang data-parallel servers, llama-servers on several
GPUs or machines) serves one model; the pool spreads a run over them. Each endpoint is
the provider's own backend, built by its factory with `base_url` set to that endpoint,
so retries, streaming and timeouts work exactly as with one server. On top:

- each request goes to the endpoint with the fewest requests in flight, never more than
  its limit (`BackendSettings.endpoint_concurrency`, by default the run's concurrency
  split evenly, and no more than an endpoint's slots when it says);
- an endpoint that refuses connections, or keeps failing after its own retries, rests
  for a while (`_pool_health.py` says when and how long), and the request is sent to
  another endpoint at once: the case is answered once, by one endpoint;
- when every endpoint is out, `BackendUnreachable("every endpoint is gone: ...")`: the
  runner stops the run as for one lost server (exit 3, results kept, resumable);
- before the run every endpoint must serve the same model (`_pool_identity.py`); an
  endpoint down at the start is checked when it first comes back.

`ChatReply.endpoint` says which endpoint answered, and the runner records it with each
result (and each step of a conversation).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import time
from collections.abc import Callable, Sequence

from toolgrade._core.json_data import JsonObject
from toolgrade.backends._http import RetryEvent, RetryLog, retry_log
from toolgrade.backends._pool_health import (
    Endpoint,
    Fault,
    Lease,
    PoolPolicy,
    Rotation,
    fault_of,
)
from toolgrade.backends._pool_identity import check_fingerprints, combine_infos
from toolgrade.backends._types import Backend, BackendSettings, ChatReply, ChatRequest, ServerInfo
from toolgrade.errors import BackendError, BackendTimeout, BackendUnreachable, ConfigError

__all__ = ["EndpointPool"]

logger = logging.getLogger(__name__)

_AFFINITY_SIZE = 4096
"""Conversations whose last endpoint is remembered (the oldest are forgotten first)."""


class EndpointPool:
    """One model served by several endpoints; a `Backend` like any other.

    Build it with `create_backend(spec, BackendSettings(endpoints=(...)))`, which uses
    the provider's factory for each endpoint.

    Examples:
        >>> settings = BackendSettings(endpoints=("http://a:8000/v1", "http://b:8000/v1"))
        >>> pool = EndpointPool.build("m", settings, factory=make_backend)  # doctest: +SKIP
    """

    def __init__(
        self,
        members: Sequence[tuple[str, Backend]],
        *,
        limit: int,
        policy: PoolPolicy | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if len(members) < 2:
            raise ConfigError("an endpoint pool needs at least two endpoints")
        first = members[0][1]
        self.provider = first.provider
        self.model = first.model
        self.safe_names = first.safe_names
        self.limit = max(1, limit)
        endpoints = [Endpoint(url, backend, self.limit) for url, backend in members]
        self._rotation = Rotation(endpoints, policy or PoolPolicy(), clock)
        self._changed: asyncio.Event | None = None
        self._waiting = 0
        self._reference: tuple[str, ServerInfo] | None = None
        self._unchecked: set[int] = set()
        self._fingerprints: dict[str, set[str]] = {}
        self._mixed = False
        self._affinity: dict[tuple[str, int], int] = {}

    @classmethod
    def build(
        cls,
        model: str,
        settings: BackendSettings,
        *,
        factory: Callable[[str, BackendSettings], Backend],
    ) -> EndpointPool:
        """One backend per endpoint of `settings.endpoints`, each built by `factory`.

        Raises:
            ConfigError: fewer than two endpoints, or one the factory refuses.
        """
        urls = settings.endpoints
        if len(urls) < 2:
            raise ConfigError("an endpoint pool needs at least two endpoints")
        limit = settings.endpoint_concurrency or math.ceil(settings.connections / len(urls))
        members: list[tuple[str, Backend]] = []
        for url in urls:
            one = dataclasses.replace(
                settings,
                base_url=url,
                endpoints=(),
                endpoint_concurrency=None,
                connections=max(1, limit),
            )
            backend = factory(model, one)
            resolved = getattr(backend, "base_url", None)
            members.append((resolved if isinstance(resolved, str) else url, backend))
        return cls(members, limit=limit)

    @property
    def endpoints(self) -> tuple[str, ...]:
        """Every endpoint's URL, in the order given."""
        return tuple(e.url for e in self._rotation.endpoints)

    def resting(self) -> dict[str, str]:
        """The endpoints out of rotation now, and why."""
        return {
            e.url: e.retired or e.why or "out"
            for e in self._rotation.endpoints
            if e.retired is not None or e.resting_until is not None
        }

    def answered(self) -> dict[str, int]:
        """How many requests each endpoint answered so far."""
        return {e.url: e.answered for e in self._rotation.endpoints}

    def fingerprints(self) -> dict[str, list[str]]:
        """The `system_fingerprint`s each endpoint answered with (those that told)."""
        return {url: sorted(seen) for url, seen in self._fingerprints.items()}

    def check_fingerprints(self) -> None:
        """Refuse endpoints that answered with different `system_fingerprint`s (warm-up).

        Raises:
            ConfigError: two endpoints answered with different fingerprints.
        """
        seen = [(url, fp) for url, fps in self._fingerprints.items() for fp in fps]
        check_fingerprints(self.model, seen)

    def settings(self) -> JsonObject:
        """The first endpoint's settings, with every endpoint and the per-endpoint limit."""
        recorded = dict(self._rotation.endpoints[0].backend.settings())
        recorded["endpoints"] = list(self.endpoints)
        recorded["endpoint_concurrency"] = self.limit
        return recorded

    async def server_info(self) -> ServerInfo:
        """Ask every endpoint; all that answer must serve the same model.

        An endpoint that does not answer rests (it is probed, and checked, later); the
        run goes on with the others. Each endpoint's limit is lowered to its slots when
        it says how many it has; `parallel` is the sum of the limits.

        Raises:
            BackendUnreachable: no endpoint answers.
            ConfigError: the endpoints serve different models or builds.
        """
        endpoints = self._rotation.endpoints
        answers = await asyncio.gather(
            *(e.backend.server_info() for e in endpoints), return_exceptions=True
        )
        infos: list[tuple[str, ServerInfo]] = []
        down: list[tuple[str, str]] = []
        for i, (endpoint, answer) in enumerate(zip(endpoints, answers, strict=True)):
            if isinstance(answer, BackendUnreachable | BackendTimeout):
                down.append((endpoint.url, str(answer)))
                self._rotation.take_out(i, f"down at the start: {answer}")
                self._unchecked.add(i)
            elif isinstance(answer, BaseException):
                raise answer
            else:
                infos.append((endpoint.url, answer))
                if answer.parallel is not None and answer.parallel > 0:
                    endpoint.limit = min(endpoint.limit, answer.parallel)
        if not infos:
            raise BackendUnreachable(f"every endpoint is gone: {self._rotation.gone()}")
        for url, why in down:
            logger.warning("endpoint %s is down; the run starts without it (%s)", url, why)
        combined = combine_infos(self.model, infos, down=down)
        self._reference = infos[0]
        # What the pool takes at once: the run's concurrency is capped to it, so that no
        # case waits for a slot with its clock running (endpoints down now included: they
        # take their share when they come back).
        return dataclasses.replace(combined, parallel=sum(e.limit for e in endpoints))

    def pinned(self, url: str) -> Backend:
        """A backend that sends every request to the endpoint at `url` (the warm-up's).

        Raises:
            KeyError: no such endpoint.
        """
        for endpoint in self._rotation.endpoints:
            if endpoint.url == url:
                return _Pinned(self, endpoint)
        raise KeyError(url)

    def rest(self, url: str, why: str) -> None:
        """Take the endpoint at `url` out of rotation (e.g. its warm-up found it gone)."""
        for i, endpoint in enumerate(self._rotation.endpoints):
            if endpoint.url == url:
                self._rotation.take_out(i, why)
                self._wake()

    async def complete(self, request: ChatRequest) -> ChatReply:
        """Send the request to the best endpoint; on its failure, to another one at once.

        Each endpoint is tried at most once per request. A timeout or a failure any
        endpoint would give (a 4xx) is the case's own and is raised as it is.

        Raises:
            BackendUnreachable: every endpoint is out of rotation.
            BackendError: the last endpoint tried failed too.
        """
        log = retry_log.get()
        if log is not None:
            log.endpoint = None
        tried: set[int] = set()
        last: BackendError | None = None
        key = (request.case_id, request.repeat)
        # A conversation's later steps go back to the server that has its prefix cached.
        prefer = self._affinity.get(key) if request.turn or request.step else None
        while True:
            lease = await self._lease(tried, last, prefer=prefer)
            tried.add(lease.index)
            endpoint = self._rotation.endpoints[lease.index]
            if log is not None:
                log.endpoint = endpoint.url
            if lease.index in self._unchecked and not await self._admit(lease):
                continue
            try:
                reply = await endpoint.backend.complete(request)
            except BaseException as exc:
                fault = fault_of(exc)
                self._release(lease, fault, exc)
                if fault in (Fault.REFUSED, Fault.FAILED) and isinstance(exc, BackendError):
                    last = exc
                    _note_failover(log, endpoint.url, exc)
                    continue
                raise
            self._release(lease, Fault.ANSWERED, None)
            self._note_identity(endpoint.url, reply)
            self._remember(key, lease.index)
            return dataclasses.replace(reply, endpoint=endpoint.url)

    def _remember(self, key: tuple[str, int], index: int) -> None:
        affinity = self._affinity
        affinity.pop(key, None)  # re-inserted last: the oldest entry goes first
        affinity[key] = index
        if len(affinity) > _AFFINITY_SIZE:
            del affinity[next(iter(affinity))]

    async def _lease(
        self, tried: set[int], last: BackendError | None, *, prefer: int | None = None
    ) -> Lease:
        """A slot on the best endpoint not tried yet; waits while they are all busy."""
        rotation = self._rotation
        while True:
            lease = rotation.choose(tried, prefer=prefer)
            if lease is not None:
                return lease
            if not rotation.worth_waiting(tried):
                if rotation.every_one_out() or last is None:
                    raise BackendUnreachable(f"every endpoint is gone: {rotation.gone()}")
                raise last
            if self._changed is None:
                self._changed = asyncio.Event()
            changed = self._changed
            self._waiting += 1
            try:
                async with asyncio.timeout(rotation.next_probe(tried)):
                    await changed.wait()
            except TimeoutError:
                pass  # a resting endpoint is due for its probe
            finally:
                self._waiting -= 1

    def _release(self, lease: Lease, fault: Fault, exc: BaseException | None) -> None:
        endpoint = self._rotation.endpoints[lease.index]
        why = f"{fault.value}: {exc}" if exc is not None else None
        if self._rotation.release(lease, fault, why=why):
            rest = (endpoint.resting_until or 0.0) - self._rotation.clock()
            logger.warning(
                "endpoint %s is out of rotation for %.0f s (%s)", endpoint.url, rest, why
            )
        elif lease.probe and fault is Fault.ANSWERED:
            logger.info("endpoint %s is back in rotation", endpoint.url)
        self._wake()

    def _wake(self) -> None:
        """Tell the requests waiting for a slot that one may be free."""
        if self._waiting and self._changed is not None:
            self._changed.set()
            self._changed = asyncio.Event()

    async def _admit(self, lease: Lease) -> bool:
        """Check an endpoint that was down at the start before it serves a case.

        Returns:
            True when it serves the same model as the others; otherwise it is retired
            (or rests again when it does not answer) and False.
        """
        endpoint = self._rotation.endpoints[lease.index]
        try:
            info = await endpoint.backend.server_info()
            if self._reference is not None:
                combine_infos(self.model, [self._reference, (endpoint.url, info)])
        except ConfigError as exc:
            self._rotation.release(lease, Fault.SHARED)
            self._rotation.retire(lease.index, f"retired: {exc}")
            self._unchecked.discard(lease.index)
            logger.warning("endpoint %s is retired: %s", endpoint.url, exc)
            self._wake()
            return False
        except BaseException as exc:
            self._release(lease, fault_of(exc), exc)
            if isinstance(exc, BackendError):
                return False
            raise
        self._unchecked.discard(lease.index)
        if info.parallel is not None and info.parallel > 0:
            endpoint.limit = min(endpoint.limit, info.parallel)
        return True

    def _note_identity(self, url: str, reply: ChatReply) -> None:
        """Keep each endpoint's fingerprints; warn once when two endpoints differ."""
        fingerprint = reply.identity.get("system_fingerprint")
        if not isinstance(fingerprint, str):
            return
        seen = self._fingerprints.setdefault(url, set())
        if fingerprint in seen:
            return
        seen.add(fingerprint)
        everyone = {f for fs in self._fingerprints.values() for f in fs}
        if len(everyone) > 1 and not self._mixed:
            self._mixed = True
            logger.warning(
                "the endpoints answer with different system_fingerprints: %s",
                "; ".join(f"{u}: {', '.join(sorted(fs))}" for u, fs in self._fingerprints.items()),
            )

    async def aclose(self) -> None:
        """Close every endpoint's connections."""
        for endpoint in self._rotation.endpoints:
            await endpoint.backend.aclose()


def _note_failover(log: RetryLog | None, url: str, exc: BackendError) -> None:
    """A `retry` event for the case (and `log.jsonl`): sent to another endpoint."""
    if log is None:
        return
    reason = f"endpoint {url} failed ({exc}); sent to another endpoint"
    log.add(RetryEvent(attempt=max(1, log.attempts), reason=reason, delay=0.0, url=url))


class _Pinned:
    """One endpoint of a pool as a backend of its own (the warm-up's, one per endpoint)."""

    def __init__(self, pool: EndpointPool, endpoint: Endpoint) -> None:
        self._pool = pool
        self._endpoint = endpoint
        self.provider = pool.provider
        self.model = pool.model
        self.safe_names = pool.safe_names
        self.url = endpoint.url

    async def server_info(self) -> ServerInfo:
        """The endpoint's own description."""
        return await self._endpoint.backend.server_info()

    async def complete(self, request: ChatRequest) -> ChatReply:
        """Send to this endpoint only; its fingerprint is noted by the pool."""
        reply = await self._endpoint.backend.complete(request)
        self._pool._note_identity(self.url, reply)
        return dataclasses.replace(reply, endpoint=self.url)

    def settings(self) -> JsonObject:
        """The endpoint's settings."""
        return self._endpoint.backend.settings()

    async def aclose(self) -> None:
        """Nothing: the pool closes its endpoints."""
