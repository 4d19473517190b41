"""The backend registry: `provider/model` -> a `Backend`."""

from __future__ import annotations

from collections.abc import Callable

from toolgrade._core.registry import Registry
from toolgrade.backends._types import Backend, BackendSettings
from toolgrade.errors import ConfigError

__all__ = [
    "BACKENDS",
    "BackendFactory",
    "create_backend",
    "parse_model_spec",
    "providers",
    "register_backend",
]

BackendFactory = Callable[[str, BackendSettings], Backend]
"""Builds a backend from the model part of the specification and the settings."""

_OPENAI_ALIASES = ("openai", "vllm", "llamacpp", "lmstudio", "sglang")


def _openai_compatible(provider: str) -> BackendFactory:
    """The factory of an OpenAI-compatible server (imports the backend when called)."""

    def build(model: str, settings: BackendSettings) -> Backend:
        from toolgrade.backends._openai import OpenAIBackend

        return OpenAIBackend(model, settings, provider=provider)

    return build


BACKENDS: Registry[BackendFactory] = Registry("model provider", "toolgrade.backends")
"""Provider -> backend factory; plug-ins come from the `toolgrade.backends` entry points."""
for _alias in _OPENAI_ALIASES:
    BACKENDS.register(_alias, _openai_compatible(_alias))
BACKENDS.register("ollama", "toolgrade.backends._ollama:OllamaBackend")
BACKENDS.register("replay", "toolgrade.backends._replay:ReplayBackend")
BACKENDS.register("python", "toolgrade.backends._python:PythonBackend")


def register_backend(provider: str, factory: BackendFactory) -> None:
    """Make `provider/<model>` build a backend with `factory` (replaces a previous one).

    Args:
        provider: the prefix, letters, digits, `-` and `_` only.
        factory: called with the model part and the settings.

    Raises:
        ConfigError: the provider name is malformed.

    Examples:
        >>> register_backend("echo", lambda model, settings: make_echo(model))  # doctest: +SKIP
    """
    if not provider or not provider.replace("-", "").replace("_", "").isalnum():
        raise ConfigError(f"invalid provider name {provider!r}")
    BACKENDS.register(provider, factory)


def providers() -> list[str]:
    """Every known provider prefix (installed plug-ins included), sorted."""
    return sorted(BACKENDS.names())


def parse_model_spec(spec: str) -> tuple[str, str]:
    """Split `provider/model` at the first slash.

    Raises:
        ConfigError: no provider, or an unknown one.

    Examples:
        >>> parse_model_spec("ollama/qwen3:8b")
        ('ollama', 'qwen3:8b')
        >>> parse_model_spec("vllm/Qwen/Qwen3-8B")
        ('vllm', 'Qwen/Qwen3-8B')
    """
    provider, sep, model = spec.partition("/")
    if not sep or not provider or not model:
        raise ConfigError(
            f"model must be PROVIDER/MODEL (e.g. ollama/qwen3:8b), got {spec!r};"
            f" providers: {', '.join(providers())}"
        )
    if provider not in BACKENDS:
        raise ConfigError(
            f"unknown model provider {provider!r}; choose from {', '.join(providers())}"
            " (a plug-in package adds one through the 'toolgrade.backends' entry-point"
            " group, or call register_backend; see docs/extending.md)"
        )
    return provider, model


def create_backend(spec: str, settings: BackendSettings | None = None) -> Backend:
    """Build the backend a model specification names.

    With two or more `settings.endpoints`, the backend is an `EndpointPool`: one
    backend per endpoint, each built by the provider's factory with its `base_url`.

    Args:
        spec: `openai/…`, `vllm/…`, `llamacpp/…`, `lmstudio/…`, `sglang/…`, `ollama/…`,
            `replay/FILE.jsonl`, `python/module:function`, or a registered provider.
        settings: request settings (defaults: temperature 0, native tools, 60 s).

    Returns:
        The backend (no connection is made yet).

    Raises:
        ConfigError: malformed specification, unknown provider, or several endpoints
            for a provider without a server (`replay/`, `python/`).
        InputError: a replay file that cannot be read.

    Examples:
        >>> settings = BackendSettings(endpoints=("http://a:8000/v1", "http://b:8000/v1"))
        >>> create_backend("vllm/Qwen/Qwen3-8B", settings).endpoints
        ('http://a:8000/v1', 'http://b:8000/v1')
    """
    provider, model = parse_model_spec(spec)
    settings = settings or BackendSettings()
    # Only the backend in use is imported (the registry's entries are lazy).
    factory = BACKENDS.get(provider)
    if len(settings.endpoints) < 2:
        return factory(model, settings)
    if provider in _SERVERLESS:
        raise ConfigError(f"{provider}/ has no server: several endpoints make no sense for it")
    from toolgrade.backends._pool import EndpointPool

    return EndpointPool.build(model, settings, factory=factory)


_SERVERLESS = frozenset({"replay", "python"})
