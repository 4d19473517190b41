"""Do all the endpoints of a pool serve the same model? Checked before the first case.

What a server says about itself differs by provider: the models it lists, Ollama's
model digest and version, llama-server's build, the kind of server. Every one of those
must agree between the endpoints (their URLs aside): results from a mix of models or
builds would be averaged into one number that describes neither. A mismatch is a
`ConfigError` that names every endpoint and what it serves.

OpenAI-compatible servers tell their `system_fingerprint` only in answers, never in
their model list: the pool checks it on the warm-up answers and on every answer after.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.backends._types import ServerInfo
from toolgrade.errors import ConfigError

__all__ = ["check_fingerprints", "combine_infos", "serves"]

_WHERE = frozenset({"base_url", "model_listed"})
"""Identity keys that say where a server is, or repeat its model list: never compared."""


def serves(model: str, models: Sequence[str]) -> bool:
    """Whether a model list holds `model` (Ollama lists `name:latest` for `name`).

    Examples:
        >>> serves("qwen3", ["qwen3:latest"]), serves("a", ["b"])
        (True, False)
    """
    return model in models or f"{model}:latest" in models


def _shown(models: Sequence[str] | None) -> str:
    if models is None:
        return "does not list its models"
    if not models:
        return "lists no model"
    head = ", ".join(models[:5])
    return f"serves {head}" + (f" (+{len(models) - 5} more)" if len(models) > 5 else "")


def _check_models(model: str, infos: Sequence[tuple[str, ServerInfo]]) -> None:
    """Every endpoint that lists its models lists the same thing about `model`.

    When some list it and some do not, the latter serve something else. When none
    lists it (an alias the servers map), their whole lists must be equal.
    """
    listed = [(url, info.models) for url, info in infos if info.models is not None]
    has = {url: serves(model, models) for url, models in listed}
    if any(has.values()):
        if all(has.values()):
            return
    elif len({tuple(sorted(models)) for _, models in listed}) <= 1:
        return
    lines = "; ".join(f"{url} {_shown(info.models)}" for url, info in infos)
    raise ConfigError(
        f"the endpoints do not all serve {model}: {lines}."
        " Every endpoint of a run must serve the same model: drop the others"
    )


def _check_identity(model: str, infos: Sequence[tuple[str, ServerInfo]]) -> None:
    """Every identity key (digest, server build, ...) has one value across endpoints."""
    keys = sorted({k for _, info in infos for k in info.identity} - _WHERE)
    for key in keys:
        values = [info.identity.get(key) for _, info in infos]
        if all(v == values[0] for v in values):
            continue
        lines = "; ".join(
            f"{url} has {value if value is not None else 'none'}"
            for (url, _), value in zip(infos, values, strict=True)
        )
        raise ConfigError(
            f"the endpoints serving {model} differ in {key}: {lines}."
            " Every endpoint of a run must serve the same model build on the same server"
        )


def combine_infos(
    model: str,
    infos: Sequence[tuple[str, ServerInfo]],
    *,
    down: Sequence[tuple[str, str]] = (),
) -> ServerInfo:
    """One `ServerInfo` for the pool, once every reachable endpoint agrees.

    Args:
        model: the model asked for.
        infos: (URL, what it said) of each reachable endpoint, in pool order.
        down: (URL, why) of each endpoint that did not answer.

    Returns:
        The first endpoint's info, with the URLs in `identity["endpoints"]` (and those
        down in `identity["endpoints_down"]`); `parallel` is left to the pool.

    Raises:
        ConfigError: the endpoints serve different models or builds.
    """
    _check_models(model, infos)
    _check_identity(model, infos)
    first = infos[0][1]
    identity: JsonObject = dict(first.identity)
    identity["endpoints"] = [url for url, _ in infos]
    if down:
        identity["endpoints_down"] = {url: why for url, why in down}
    return ServerInfo(url=first.url, models=first.models, identity=identity)


def check_fingerprints(model: str, seen: Sequence[tuple[str, JsonValue]]) -> None:
    """The `system_fingerprint`s the endpoints answered with agree (warm-up answers).

    Raises:
        ConfigError: two endpoints answered with different fingerprints.
    """
    told = [(url, fp) for url, fp in seen if isinstance(fp, str) and fp]
    if len({fp for _, fp in told}) <= 1:
        return
    lines = "; ".join(f"{url} answered with {fp}" for url, fp in told)
    raise ConfigError(
        f"the endpoints serving {model} answer with different system_fingerprints: {lines}."
        " Every endpoint of a run must serve the same model build"
    )
