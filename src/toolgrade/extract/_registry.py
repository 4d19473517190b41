"""Every known format, in the documented auto-detection order.

Text formats are tried stage by stage: marker formats (a special token or tag names the
format), then fenced JSON, then bare JSON, then pythonic. Within a stage the order is
fixed: XML-bodied formats before Hermes (they share the `<tool_call>` tag), then the
special-token formats, then the JSON marker formats.

The formats live in one `Registry` (`FORMATS`) and the detection order in one explicit
list: the built-ins register in today's order, and a registered format declares its
place (`register_format(fmt, before="hermes")`), by default the end of its stage.
Plug-ins come from the `toolgrade.formats` entry-point group (a format, or a
`PlacedFormat` naming its place), read on first use.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolgrade._core.registry import Registry
from toolgrade.errors import ConfigError
from toolgrade.extract import (
    _json_fenced,
    _json_formats,
    _json_generic,
    _pythonic,
    _token_formats,
    _xml_formats,
)
from toolgrade.extract._structured import STRUCTURED, StructuredFormat
from toolgrade.extract._types import TextFormat

__all__ = [
    "FORMATS",
    "STAGES",
    "PlacedFormat",
    "find_format",
    "format_names",
    "formats_version",
    "list_formats",
    "register_format",
    "text_formats",
]

STAGES: tuple[str, ...] = ("marker", "fenced", "bare", "pythonic")
"""Auto-detection stages after the structured one, in order."""

Format = TextFormat | StructuredFormat


@dataclass(frozen=True, slots=True)
class PlacedFormat:
    """A format with its place in the detection order (for an entry point to name)."""

    format: Format
    """The format."""
    before: str | None = None
    """Try it just before this format (same stage)."""
    after: str | None = None
    """Try it just after this format (same stage)."""


def _unwrap(name: str, value: object) -> Format:
    placed = value if isinstance(value, PlacedFormat) else PlacedFormat(value)  # type: ignore[arg-type]
    fmt = placed.format
    if not isinstance(fmt, TextFormat | StructuredFormat):
        raise ConfigError(f"extraction format {name!r} is not a TextFormat or StructuredFormat")
    if name not in _order:
        _place(name, fmt, before=placed.before, after=placed.after)
    return fmt


FORMATS: Registry[Format] = Registry("extraction format", "toolgrade.formats", check=_unwrap)
"""Format name -> format; plug-ins from the `toolgrade.formats` entry points."""
_order: list[str] = []
_changes = [0]  # bumped whenever `_order` changes
_cached: dict[int, tuple[TextFormat, ...]] = {}  # formats_version() -> text formats


def _stage(fmt: Format) -> int:
    return STAGES.index(fmt.stage) if isinstance(fmt, TextFormat) else -1


def _place(name: str, fmt: Format, *, before: str | None, after: str | None) -> None:
    if name in _order:
        _order.remove(name)
    anchor = before or after
    if anchor is not None:
        if anchor not in _order:
            raise ConfigError(f"cannot place format {name!r}: no format {anchor!r} to follow")
        _order.insert(_order.index(anchor) + (0 if before else 1), name)
    else:
        # The end of its stage: after the last format whose stage is not later.
        stage = _stage(fmt)
        last = max(
            (k for k, other in enumerate(_order) if _stage(_format(other)) <= stage),
            default=-1,
        )
        _order.insert(last + 1, name)
    _changes[0] += 1


def _format(name: str) -> Format:
    found = FORMATS.find(name)
    assert found is not None, name
    return found


def register_format(
    fmt: Format, *, before: str | None = None, after: str | None = None, replace: bool = False
) -> None:
    """Add a format: `--format NAME` finds it, and auto-detection tries it in its place.

    Args:
        fmt: the format (a `TextFormat` is tried in its `stage`).
        before: try it just before this format (stages still come in order).
        after: try it just after this format; with neither, at the end of its stage.
        replace: replace a format of the same name (else that is an error).

    Raises:
        ConfigError: the name is taken, or the format to place it by is unknown.
    """
    if fmt.name in _order and not replace:
        raise ConfigError(f"an extraction format named {fmt.name!r} already exists")
    anchor = before or after
    if anchor is not None and anchor not in _order:
        raise ConfigError(f"cannot place format {fmt.name!r}: no format {anchor!r} to follow")
    FORMATS.register(fmt.name, fmt)
    _place(fmt.name, fmt, before=before, after=after)


_builtin: list[Format] = [
    *STRUCTURED,
    *_xml_formats.FORMATS,
    *_token_formats.FORMATS,
    *_json_formats.FORMATS,
    *_json_generic.FORMATS,
    *_json_fenced.FORMATS,
    *_pythonic.FORMATS,
]
for _fmt in _builtin:
    if _fmt.name not in _order:
        FORMATS.register(_fmt.name, _fmt)
        _order.append(_fmt.name)
# Within a family the stages may be mixed: the order is by stage, then by family.
_order.sort(key=lambda name: _stage(_format(name)))


def formats_version() -> int:
    """A number that changes whenever the detection order changes (for caches)."""
    FORMATS.load_plugins()
    return _changes[0] * 1_000_003 + FORMATS.version


def _ordered() -> list[Format]:
    names = FORMATS.names()
    if len(names) != len(_order) or set(names) != set(_order):
        _order[:] = [name for name in _order if name in FORMATS]  # plug-ins forgotten
    for name in names:  # places plug-ins read since
        if name not in _order:
            fmt = _format(name)  # a plug-in places itself as it loads
            if name not in _order:
                _place(name, fmt, before=None, after=None)
    return [_format(name) for name in _order]


def text_formats() -> tuple[TextFormat, ...]:
    """The text formats in detection order (stage, then the order of the families)."""
    found = _cached.get(formats_version())
    if found is None:
        found = tuple(fmt for fmt in _ordered() if isinstance(fmt, TextFormat))
        _cached.clear()
        _cached[formats_version()] = found  # placing plug-ins changed the version
    return found


def list_formats() -> list[TextFormat | StructuredFormat]:
    """Every format, structured ones first, in auto-detection order.

    Examples:
        >>> [f.name for f in list_formats()][:2]
        ['openai', 'openai_function_call']
    """
    text = text_formats()
    return [*(fmt for fmt in _ordered() if isinstance(fmt, StructuredFormat)), *text]


def find_format(name: str) -> TextFormat | StructuredFormat | None:
    """The format called `name` (plug-ins included), or None."""
    return FORMATS.find(name)


def format_names() -> list[str]:
    """Names of every format, in detection order."""
    return [fmt.name for fmt in list_formats()]
