"""A connection that failed, told in words: why, and at which server.

aiohttp's `ClientConnectorError` reads like `Cannot connect to host 127.0.0.1:9
ssl:default [Connect call failed ('127.0.0.1', 9)]`. What a person needs is the server's
address and the reason (`connection refused`, a name that does not resolve, ...); the
rest is aiohttp's.
"""

from __future__ import annotations

import errno
import socket

import aiohttp

from toolgrade.errors import BackendUnreachable

__all__ = ["connect_reason", "unreachable"]


def connect_reason(exc: aiohttp.ClientConnectorError) -> str:
    """Why a connection failed, in words rather than aiohttp's internals.

    Refused, a host name that does not resolve, a timeout, no route, a TLS failure; else
    the operating system's own words for the error.
    """
    cause = exc.os_error
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        return f"the server's TLS certificate is not trusted ({exc.certificate_error})"
    if isinstance(exc, aiohttp.ClientConnectorSSLError):
        return "the TLS handshake failed (is it an http:// server?)"
    if isinstance(cause, ConnectionRefusedError):
        return "connection refused"
    if isinstance(cause, socket.gaierror):
        return f"the host name {exc.host!r} does not resolve"
    if isinstance(cause, TimeoutError):
        return "the connection timed out"
    if cause.errno in _UNREACHABLE_ERRNOS:
        return "no route to the host"
    return cause.strerror or str(cause) or type(cause).__name__


_UNREACHABLE_ERRNOS = frozenset(
    getattr(errno, name)
    for name in ("EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN", "ENETDOWN")
    if hasattr(errno, name)
)


def unreachable(base_url: str, reason: str, *, url: str) -> BackendUnreachable:
    """The error of a connection that failed: the server's address and why.

    `url` (the request's) is kept as the error's `url`; the message names the base URL,
    as the user gave it.

    Examples:
        >>> error = unreachable("http://127.0.0.1:9/v1", "connection refused", url="x")
        >>> print(error)  # doctest: +NORMALIZE_WHITESPACE
        cannot connect to the model server at http://127.0.0.1:9/v1: connection refused;
        is it running?
    """
    error = BackendUnreachable(
        f"cannot connect to the model server at {base_url}: {reason}; is it running?"
    )
    error.url = url
    return error
