"""`EndpointPool` with fake endpoints: choice, limits, rest and probes, identity checks."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from toolgrade._core.json_data import JsonObject
from toolgrade.backends import (
    BackendSettings,
    ChatReply,
    ChatRequest,
    EndpointPool,
    ServerInfo,
    create_backend,
    parse_endpoints,
    read_endpoints,
)
from toolgrade.backends._http import RetryLog, retry_log
from toolgrade.backends._pool_health import PoolPolicy
from toolgrade.errors import (
    BackendError,
    BackendHTTPError,
    BackendTimeout,
    BackendUnreachable,
    ConfigError,
)

Behaviour = Callable[[ChatRequest], Any]


class FakeEndpoint:
    """A backend that answers at once, or after its gate opens, or fails as told."""

    provider = "fake"
    model = "m"
    safe_names = True

    def __init__(
        self,
        url: str,
        *,
        models: Sequence[str] | None = ("m",),
        identity: JsonObject | None = None,
        parallel: int | None = None,
        fingerprint: str = "fp_1",
    ) -> None:
        self.url = url
        self.models = models
        self.identity = identity or {}
        self.parallel = parallel
        self.fingerprint = fingerprint
        self.fail: BaseException | None = None
        self.down = False
        self.gate: asyncio.Event | None = None
        self.delay = 0.0
        self.calls: list[ChatRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.closed = False

    async def server_info(self) -> ServerInfo:
        if self.down:
            raise BackendUnreachable("cannot connect", url=self.url)
        identity: JsonObject = {"base_url": self.url, **self.identity}
        return ServerInfo(
            url=self.url, models=self.models, identity=identity, parallel=self.parallel
        )

    async def complete(self, request: ChatRequest) -> ChatReply:
        self.calls.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.gate is not None:
                await self.gate.wait()
            if self.delay:
                await asyncio.sleep(self.delay)
            if self.down:
                raise BackendUnreachable("cannot connect", url=self.url)
            if self.fail is not None:
                raise self.fail
            return ChatReply(raw=self.url, identity={"system_fingerprint": self.fingerprint})
        finally:
            self.in_flight -= 1

    def settings(self) -> JsonObject:
        return {"base_url": self.url, "provider": "fake"}

    async def aclose(self) -> None:
        self.closed = True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _pool(
    n: int = 3,
    *,
    limit: int = 4,
    policy: PoolPolicy | None = None,
    clock: Clock | None = None,
    **kwargs: Any,
) -> tuple[EndpointPool, list[FakeEndpoint]]:
    fakes = [FakeEndpoint(f"http://e{i}", **kwargs) for i in range(n)]
    pool = EndpointPool(
        [(f.url, f) for f in fakes],
        limit=limit,
        policy=policy or PoolPolicy(failures=2, cooldown=1.0, max_cooldown=4.0),
        clock=clock or Clock(),
    )
    return pool, fakes


def _request(i: int = 0, *, turn: int = 0, step: int = 0) -> ChatRequest:
    return ChatRequest(
        case_id=f"c{i}", messages=({"role": "user", "content": "hi"},), turn=turn, step=step
    )


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


# --- choice ---------------------------------------------------------------------------


def test_pool_one_at_a_time_visits_endpoints_round_robin() -> None:
    pool, _ = _pool()

    async def main() -> list[str | None]:
        return [(await pool.complete(_request(i))).endpoint for i in range(7)]

    assert _run(main()) == ["http://e0", "http://e1", "http://e2"] * 2 + ["http://e0"]


def test_pool_sends_to_fewest_in_flight() -> None:
    pool, fakes = _pool()
    fakes[0].gate = asyncio.Event()
    fakes[1].gate = asyncio.Event()

    async def main() -> list[str | None]:
        held = [asyncio.ensure_future(pool.complete(_request(i))) for i in range(2)]
        await asyncio.sleep(0)
        assert [f.in_flight for f in fakes] == [1, 1, 0]
        third = await pool.complete(_request(2))  # e2 has none in flight
        fourth = await pool.complete(_request(3))  # still e2: 0 in flight vs 1 and 1
        fakes[0].gate.set()
        fakes[1].gate.set()
        return [third.endpoint, fourth.endpoint, *[(await h).endpoint for h in held]]

    assert _run(main()) == ["http://e2", "http://e2", "http://e0", "http://e1"]


def test_pool_never_exceeds_the_limit_and_answers_everything() -> None:
    pool, fakes = _pool(limit=2)
    rng = random.Random(7)

    async def main() -> list[ChatReply]:
        for fake in fakes:
            fake.delay = rng.uniform(0.001, 0.004)
        return await asyncio.gather(*(pool.complete(_request(i)) for i in range(40)))

    replies = _run(main())
    assert len(replies) == 40
    assert all(f.max_in_flight <= 2 for f in fakes)
    assert sum(len(f.calls) for f in fakes) == 40
    assert sorted(pool.answered().values()) == sorted(len(f.calls) for f in fakes)


def test_pool_waiting_request_takes_the_first_freed_slot() -> None:
    pool, fakes = _pool(2, limit=1)
    for fake in fakes:
        fake.gate = asyncio.Event()

    async def main() -> str | None:
        held = [asyncio.ensure_future(pool.complete(_request(i))) for i in range(2)]
        waiting = asyncio.ensure_future(pool.complete(_request(2)))
        await asyncio.sleep(0.01)
        assert not waiting.done()
        fakes[1].gate.set()
        reply = await waiting
        fakes[0].gate.set()
        await asyncio.gather(*held)
        return reply.endpoint

    assert _run(main()) == "http://e1"


def test_pool_cancelled_request_releases_its_slot() -> None:
    pool, fakes = _pool(2, limit=1)
    fakes[0].gate = asyncio.Event()

    async def main() -> str | None:
        held = asyncio.ensure_future(pool.complete(_request(0)))
        await asyncio.sleep(0)
        held.cancel()
        with pytest.raises(asyncio.CancelledError):
            await held
        assert fakes[0].in_flight == 0
        fakes[0].gate.set()
        # Round robin moved on to e1; then e0 has its slot back.
        await pool.complete(_request(1))
        return (await pool.complete(_request(2))).endpoint

    assert _run(main()) == "http://e0"


def test_pool_conversation_steps_go_back_to_their_endpoint() -> None:
    pool, _ = _pool()

    async def main() -> list[str | None]:
        first = await pool.complete(_request(5))
        await pool.complete(_request(6))  # another case moves the round robin on
        later = [await pool.complete(_request(5, turn=t, step=s)) for t, s in [(0, 1), (1, 0)]]
        return [first.endpoint, *[r.endpoint for r in later]]

    assert _run(main()) == ["http://e0"] * 3


# --- faults, rest and probes ------------------------------------------------------------


def test_pool_refused_endpoint_rests_and_request_goes_elsewhere() -> None:
    clock = Clock()
    pool, fakes = _pool(clock=clock)
    fakes[0].down = True
    log = RetryLog()

    async def main() -> list[str | None]:
        token = retry_log.set(log)
        try:
            out = [(await pool.complete(_request(i))).endpoint for i in range(4)]
        finally:
            retry_log.reset(token)
        return out

    assert _run(main()) == ["http://e1", "http://e2", "http://e1", "http://e2"]
    assert len(fakes[0].calls) == 1  # tried once, then left alone
    assert "http://e0" in pool.resting()
    assert [e.url for e in log.events] == ["http://e0"]
    assert "sent to another endpoint" in log.events[0].reason
    assert log.endpoint == "http://e2"

    fakes[0].down = False
    clock.now += 1.0  # its rest is over: the next request probes it

    async def probe() -> str | None:
        return (await pool.complete(_request(9))).endpoint

    assert _run(probe()) == "http://e0"
    assert pool.resting() == {}


def test_pool_rest_doubles_while_probes_fail_and_is_capped() -> None:
    clock = Clock()
    pool, fakes = _pool(2, clock=clock)
    fakes[0].down = True
    rests = []
    for _ in range(4):
        _run(pool.complete(_request()))
        endpoint = pool._rotation.endpoints[0]
        assert endpoint.resting_until is not None
        rests.append(endpoint.resting_until - clock.now)
        clock.now = endpoint.resting_until  # due: the next request probes it
    assert rests == [1.0, 2.0, 4.0, 4.0]


def test_pool_answer_to_a_probe_resets_the_rest() -> None:
    clock = Clock()
    pool, fakes = _pool(2, clock=clock)
    fakes[0].down = True
    _run(pool.complete(_request()))
    clock.now += 1.0
    _run(pool.complete(_request()))  # probe fails: rests 2 s
    clock.now += 2.0
    fakes[0].down = False
    assert _run(pool.complete(_request())).endpoint == "http://e0"
    fakes[0].down = True
    _run(pool.complete(_request()))
    _run(pool.complete(_request()))
    endpoint = pool._rotation.endpoints[0]
    assert endpoint.resting_until is not None
    assert endpoint.resting_until - clock.now == 1.0  # back to the first rest


def test_pool_server_errors_in_a_row_take_endpoint_out() -> None:
    pool, fakes = _pool(2)
    fakes[0].fail = BackendHTTPError("HTTP 503: busy", url="http://e0", status_code=503)

    async def main() -> list[str | None]:
        return [(await pool.complete(_request(i))).endpoint for i in range(5)]

    # Every request is answered by e1; e0 failed twice (the policy's limit) and rests.
    assert _run(main()) == ["http://e1"] * 5
    assert len(fakes[0].calls) == 2
    assert "503" in pool.resting()["http://e0"]


def test_pool_answer_between_failures_keeps_endpoint_in() -> None:
    pool, fakes = _pool(2)
    drop = BackendError("connection dropped", url="http://e0")

    async def main() -> None:
        for _ in range(3):
            fakes[0].fail = drop
            await pool.complete(_request())  # e0 fails, e1 answers
            fakes[0].fail = None
            await pool.complete(_request())  # round robin: e0 answers
            await pool.complete(_request())

    _run(main())
    assert pool.resting() == {}


@pytest.mark.parametrize("status", [400, 404, 422])
def test_pool_client_error_is_the_requests_own_and_not_retried(status: int) -> None:
    pool, fakes = _pool(2)
    fakes[0].fail = BackendHTTPError(f"HTTP {status}", url="http://e0", status_code=status)
    with pytest.raises(BackendHTTPError):
        _run(pool.complete(_request()))
    assert fakes[1].calls == []
    assert pool.resting() == {}


def test_pool_timeouts_are_raised_and_count_only_in_a_row() -> None:
    pool, fakes = _pool(2, limit=1, policy=PoolPolicy(failures=3))
    fakes[0].fail = BackendTimeout("no answer", url="http://e0")
    fakes[1].fail = BackendTimeout("no answer", url="http://e1")
    for _ in range(4):  # e0, e1, e0, e1: two each, one short of the three in a row
        with pytest.raises(BackendTimeout):
            _run(pool.complete(_request()))
    assert pool.resting() == {}
    with pytest.raises(BackendTimeout):
        _run(pool.complete(_request()))
    assert list(pool.resting()) == ["http://e0"]


def test_pool_every_endpoint_gone_raises_unreachable() -> None:
    pool, fakes = _pool()
    for fake in fakes:
        fake.down = True
    with pytest.raises(BackendUnreachable, match="every endpoint is gone") as caught:
        _run(pool.complete(_request()))
    for fake in fakes:
        assert fake.url in str(caught.value)
    # Once all rest, the next request fails at once, without asking anyone.
    with pytest.raises(BackendUnreachable, match="every endpoint is gone"):
        _run(pool.complete(_request()))
    assert [len(f.calls) for f in fakes] == [1, 1, 1]


def test_pool_last_failure_is_raised_when_every_endpoint_failed_once() -> None:
    pool, fakes = _pool(2, policy=PoolPolicy(failures=5))
    for fake in fakes:
        fake.fail = BackendHTTPError("HTTP 500: boom", url=fake.url, status_code=500)
    with pytest.raises(BackendHTTPError, match="boom"):
        _run(pool.complete(_request()))
    assert [len(f.calls) for f in fakes] == [1, 1]


# --- identity -------------------------------------------------------------------------


def test_pool_server_info_combines_identity_and_slots() -> None:
    pool, _ = _pool(limit=8, identity={"server": "llama-server"}, parallel=2)
    info = _run(pool.server_info())
    assert info.identity["endpoints"] == ["http://e0", "http://e1", "http://e2"]
    assert info.identity["server"] == "llama-server"
    assert info.parallel == 6
    assert all(e.limit == 2 for e in pool._rotation.endpoints)


def test_pool_server_info_parallel_is_what_the_pool_takes_at_once() -> None:
    pool, fakes = _pool(limit=3)
    fakes[2].down = True  # counted all the same: it takes its share when it is back
    assert _run(pool.server_info()).parallel == 9


def test_pool_server_info_refuses_an_endpoint_serving_another_model() -> None:
    fakes = [FakeEndpoint("http://e0"), FakeEndpoint("http://e1", models=("other",))]
    pool = EndpointPool([(f.url, f) for f in fakes], limit=1)
    with pytest.raises(ConfigError, match="do not all serve m") as caught:
        _run(pool.server_info())
    assert "http://e0 serves m" in str(caught.value)
    assert "http://e1 serves other" in str(caught.value)


def test_pool_server_info_refuses_a_different_digest() -> None:
    fakes = [
        FakeEndpoint("http://e0", identity={"model_digest": "sha256:aaa"}),
        FakeEndpoint("http://e1", identity={"model_digest": "sha256:bbb"}),
    ]
    pool = EndpointPool([(f.url, f) for f in fakes], limit=1)
    with pytest.raises(ConfigError, match="differ in model_digest") as caught:
        _run(pool.server_info())
    assert "http://e1 has sha256:bbb" in str(caught.value)


def test_pool_server_info_starts_without_endpoints_that_are_down() -> None:
    pool, fakes = _pool()
    fakes[2].down = True
    info = _run(pool.server_info())
    assert info.identity["endpoints"] == ["http://e0", "http://e1"]
    assert list(info.identity["endpoints_down"]) == ["http://e2"]
    assert list(pool.resting()) == ["http://e2"]


def test_pool_server_info_with_every_endpoint_down_is_unreachable() -> None:
    pool, fakes = _pool(2)
    for fake in fakes:
        fake.down = True
    with pytest.raises(BackendUnreachable, match="every endpoint is gone"):
        _run(pool.server_info())


def test_pool_endpoint_down_at_start_is_checked_when_it_comes_back() -> None:
    clock = Clock()
    pool, fakes = _pool(clock=clock, policy=PoolPolicy(cooldown=1.0))
    fakes[2].down = True
    _run(pool.server_info())
    fakes[2].down = False
    fakes[2].models = ("another-model",)  # it came back serving something else
    clock.now += 5.0

    async def main() -> list[str | None]:
        return [(await pool.complete(_request(i))).endpoint for i in range(6)]

    assert "http://e2" not in _run(main())
    assert fakes[2].calls == []
    assert "retired" in pool.resting()["http://e2"]


def test_pool_check_fingerprints_refuses_a_mix() -> None:
    pool, fakes = _pool(2)
    fakes[1].fingerprint = "fp_2"

    async def main() -> None:
        for url in pool.endpoints:
            await pool.pinned(url).complete(_request())

    _run(main())
    with pytest.raises(ConfigError, match="different system_fingerprints"):
        pool.check_fingerprints()


def test_pool_settings_record_every_endpoint() -> None:
    pool, _ = _pool(limit=3)
    settings = pool.settings()
    assert settings["base_url"] == "http://e0"
    assert settings["endpoints"] == ["http://e0", "http://e1", "http://e2"]
    assert settings["endpoint_concurrency"] == 3


def test_pool_aclose_closes_every_endpoint() -> None:
    pool, fakes = _pool()
    _run(pool.aclose())
    assert all(f.closed for f in fakes)


# --- building -------------------------------------------------------------------------


def test_create_backend_with_several_endpoints_builds_a_pool() -> None:
    settings = BackendSettings(endpoints=("http://a:8000/v1/", "http://b:8000/v1"), connections=10)
    backend = create_backend("vllm/Qwen/Qwen3-8B", settings)
    assert isinstance(backend, EndpointPool)
    assert backend.endpoints == ("http://a:8000/v1", "http://b:8000/v1")
    assert backend.limit == 5  # the run's connections split evenly
    assert backend.model == "Qwen/Qwen3-8B"


def test_create_backend_endpoint_concurrency_wins() -> None:
    settings = BackendSettings(
        endpoints=("http://a/v1", "http://b/v1", "http://c/v1"), endpoint_concurrency=2
    )
    backend = create_backend("ollama/qwen3", settings)
    assert isinstance(backend, EndpointPool)
    assert backend.limit == 2


def test_create_backend_one_endpoint_is_a_plain_backend() -> None:
    backend = create_backend("vllm/m", BackendSettings(endpoints=("http://a:1/v1",)))
    assert not isinstance(backend, EndpointPool)
    assert backend.settings()["base_url"] == "http://a:1/v1"
    assert "endpoints" not in backend.settings()


def test_create_backend_refuses_endpoints_for_replay() -> None:
    with pytest.raises(ConfigError, match="no server"):
        create_backend("replay/x.jsonl", BackendSettings(endpoints=("http://a", "http://b")))


def test_backend_settings_refuse_a_duplicate_endpoint() -> None:
    with pytest.raises(ConfigError, match="listed twice"):
        BackendSettings(endpoints=("http://a/v1", "http://a/v1/"))


def test_backend_settings_without_endpoints_record_as_before() -> None:
    assert "endpoints" not in BackendSettings(base_url="http://a").to_dict()
    recorded = BackendSettings(endpoints=["http://a", "http://b"]).to_dict()  # type: ignore[arg-type]
    assert recorded["base_url"] == "http://a"
    assert recorded["endpoints"] == ["http://a", "http://b"]


# --- endpoints files --------------------------------------------------------------------


def test_read_endpoints_skips_comments_and_blank_lines(tmp_path: Path) -> None:
    file = tmp_path / "endpoints.txt"
    file.write_text("# replicas\n\nhttp://a:8000/v1\n  http://b:8000/v1/   # two\n")
    assert read_endpoints(file) == ("http://a:8000/v1", "http://b:8000/v1")


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("http://a\nnot-a-url\n", 2, "must be an http"),
        ("http://a\n\nhttp://a/\n", 3, "listed twice"),
        ("http://a http://b\n", 1, "one URL per line"),
    ],
)
def test_read_endpoints_errors_name_file_and_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    file = tmp_path / "endpoints.txt"
    file.write_text(text)
    with pytest.raises(ConfigError, match=message) as caught:
        read_endpoints(file)
    assert f"{file}:{line}" in str(caught.value)


def test_read_endpoints_without_urls_is_an_error() -> None:
    with pytest.raises(ConfigError, match="no endpoint URL"):
        parse_endpoints("# nothing\n\n", source="e.txt")
