"""A server's base URL, checked before anything starts."""

from __future__ import annotations

from urllib.parse import urlsplit

from toolgrade.errors import ConfigError

__all__ = ["check_base_url"]


def check_base_url(url: str, *, source: str = "--base-url") -> str:
    """Refuse a server URL that cannot work, before anything starts.

    Args:
        url: the URL.
        source: where it came from, for the message (`--base-url`, `OPENAI_BASE_URL`).

    Returns:
        The URL, without a trailing slash.

    Raises:
        ConfigError: not http:// or https://, or no host (exit code 2).

    Examples:
        >>> check_base_url("http://localhost:8000/v1/")
        'http://localhost:8000/v1'
    """
    try:
        parts = urlsplit(url.strip())
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        _ = parts.port  # a port that is not a number raises ValueError
    except ValueError:
        ok = False
    if not ok:
        raise ConfigError(
            f"{source} must be an http:// or https:// URL with a host, such as"
            f" http://localhost:8000/v1; got {url!r}"
        )
    return url.strip().rstrip("/")
