"""An endpoints file: one server URL per line (`--endpoints FILE`).

```
# the four vLLM replicas of the eval box
http://gpu0:8000/v1
http://gpu1:8000/v1   # a comment after a URL is fine too
```

Blank lines and `#` comments are ignored; every URL is checked as `--base-url` is, and
an error names the file and the line.
"""

from __future__ import annotations

from pathlib import Path

from toolgrade._core.files import decode_text, read_bytes
from toolgrade.backends._url import check_base_url
from toolgrade.errors import ConfigError, FileSystemError

__all__ = ["MAX_ENDPOINTS_BYTES", "parse_endpoints", "read_endpoints"]

MAX_ENDPOINTS_BYTES = 1024 * 1024
"""An endpoints file lists servers, one a line: a larger one is refused."""


def parse_endpoints(text: str, *, source: str = "endpoints") -> tuple[str, ...]:
    r"""The URLs of an endpoints file's text.

    Args:
        text: the file's content.
        source: the file's name, for messages.

    Returns:
        The URLs in order, without trailing slashes.

    Raises:
        ConfigError: a line that is not an http(s) URL, a URL listed twice, or no URL.

    Examples:
        >>> parse_endpoints("# replicas\nhttp://a:8000/v1\n\nhttp://b:8000/v1/  # second\n")
        ('http://a:8000/v1', 'http://b:8000/v1')
    """
    urls: list[str] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        where = f"{source}:{number}"
        if any(c.isspace() for c in entry):
            raise ConfigError(f"one URL per line, got {entry!r}", path=where)
        url = check_base_url(entry, source=where)
        if url in first_line:
            raise ConfigError(
                f"{url} is listed twice (first on line {first_line[url]})", path=where
            )
        first_line[url] = number
        urls.append(url)
    if not urls:
        raise ConfigError(
            "no endpoint URL in the file (one per line; # starts a comment)", path=source
        )
    return tuple(urls)


def read_endpoints(path: str | Path) -> tuple[str, ...]:
    """Read an endpoints file (see `parse_endpoints`).

    Raises:
        ConfigError: a malformed line, a duplicate, or no URL (the file and line named).
        FileSystemError: the file cannot be read, or is larger than `MAX_ENDPOINTS_BYTES`
            (counted while reading: a pipe or `/dev/zero` is refused too).

    Examples:
        >>> read_endpoints("endpoints.txt")  # doctest: +SKIP
        ('http://gpu0:8000/v1', 'http://gpu1:8000/v1')
    """
    file = Path(path)
    data = read_bytes(file, error=FileSystemError, limit=MAX_ENDPOINTS_BYTES)
    text = decode_text(data, name=str(file), error=ConfigError)
    return parse_endpoints(text, source=str(file))
