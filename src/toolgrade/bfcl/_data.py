"""Where BFCL's data lives, and reading it: categories, entries and possible answers.

BFCL ships its test data inside the `bfcl-eval` distribution:
`bfcl_eval/data/BFCL_v4_<category>.json` and
`bfcl_eval/data/possible_answer/BFCL_v4_<category>.json`, both JSON Lines despite the
name; the multi-turn categories take their function docs from
`bfcl_eval/data/multi_turn_func_doc/<class file>.json`, one file per API class.
toolgrade reads them from an installed `bfcl_eval` package (located without importing
it: importing bfcl_eval creates folders), from a downloaded wheel
(`pip download --no-deps bfcl-eval`), or from a folder holding the files.
"""

from __future__ import annotations

import importlib.util
import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from importlib import metadata
from pathlib import Path

from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.errors import ConfigError, InputError

__all__ = [
    "MULTI_TURN_DOC_FILES",
    "OUT_OF_SCOPE",
    "AnyCategory",
    "BfclCategory",
    "BfclData",
    "BfclEntry",
    "MultiTurnCategory",
    "open_bfcl_data",
    "parse_category",
]

_PREFIX = "BFCL_v4_"
_MAX_FILE_BYTES = 256 * 1024 * 1024


class BfclCategory(StrEnum):
    """The BFCL v4 single-turn categories toolgrade imports."""

    SIMPLE_PYTHON = "simple_python"
    SIMPLE_JAVA = "simple_java"
    SIMPLE_JAVASCRIPT = "simple_javascript"
    MULTIPLE = "multiple"
    PARALLEL = "parallel"
    PARALLEL_MULTIPLE = "parallel_multiple"
    IRRELEVANCE = "irrelevance"
    LIVE_SIMPLE = "live_simple"
    LIVE_MULTIPLE = "live_multiple"
    LIVE_PARALLEL = "live_parallel"
    LIVE_PARALLEL_MULTIPLE = "live_parallel_multiple"
    LIVE_IRRELEVANCE = "live_irrelevance"
    LIVE_RELEVANCE = "live_relevance"

    @property
    def language(self) -> str:
        """The language of the function docs: python, java or javascript."""
        return _LANGUAGES.get(self, "python")

    @property
    def has_answers(self) -> bool:
        """Whether BFCL ships possible answers (not for (ir)relevance)."""
        return self not in _NO_ANSWERS


_LANGUAGES = {BfclCategory.SIMPLE_JAVA: "java", BfclCategory.SIMPLE_JAVASCRIPT: "javascript"}
_NO_ANSWERS = frozenset(
    {BfclCategory.IRRELEVANCE, BfclCategory.LIVE_IRRELEVANCE, BfclCategory.LIVE_RELEVANCE}
)


class MultiTurnCategory(StrEnum):
    """The BFCL v4 multi-turn categories toolgrade imports (as conversations)."""

    BASE = "multi_turn_base"
    MISS_FUNC = "multi_turn_miss_func"
    MISS_PARAM = "multi_turn_miss_param"
    LONG_CONTEXT = "multi_turn_long_context"


AnyCategory = BfclCategory | MultiTurnCategory
"""A single-turn or a multi-turn category."""

MULTI_TURN_DOC_FILES: dict[str, str] = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
}
"""Each multi-turn API class's doc file under `multi_turn_func_doc/` (BFCL's
`MULTI_TURN_FUNC_DOC_FILE_MAPPING`, multi-turn classes only)."""

OUT_OF_SCOPE: tuple[str, ...] = (
    "memory",
    "memory_kv",
    "memory_vector",
    "memory_rec_sum",
    "web_search",
    "web_search_base",
    "web_search_no_snippet",
    "format_sensitivity",
)
"""BFCL's agentic categories (and its format-sensitivity set)."""


def parse_category(name: str) -> AnyCategory:
    """The category of this name.

    Raises:
        ConfigError: an agentic category (out of scope), or an unknown name.
    """
    for kind in (BfclCategory, MultiTurnCategory):
        try:
            return kind(name)
        except ValueError:
            pass
    if name in OUT_OF_SCOPE:
        raise ConfigError(
            f"BFCL category {name!r} is out of scope: toolgrade imports the single-turn "
            f"and multi-turn categories only (agentic categories need BFCL's own executor)"
        )
    known = ", ".join([*(c.value for c in BfclCategory), *(c.value for c in MultiTurnCategory)])
    raise ConfigError(f"unknown BFCL category {name!r} (categories: {known})")


@dataclass(frozen=True, slots=True)
class BfclEntry:
    """One BFCL test entry with its possible answer (None for (ir)relevance)."""

    id: str
    question: JsonValue
    functions: tuple[JsonObject, ...]
    answer: tuple[JsonObject, ...] | None


@dataclass(frozen=True, slots=True)
class BfclData:
    """A readable source of BFCL files: a folder or a wheel."""

    location: str
    """Where the files come from (for messages and the suite description)."""
    version: str
    """The bfcl-eval version, when known (`unknown` otherwise)."""
    folder: Path | None = None
    wheel: Path | None = None
    prefix: str = ""
    """For a wheel: the member path of the data folder."""

    def read(self, relative: str) -> str | None:
        """The text of one data file, or None when it does not exist."""
        if self.folder is not None:
            path = self.folder / relative
            if not path.is_file():
                return None
            if path.stat().st_size > _MAX_FILE_BYTES:
                raise InputError("BFCL data file too large", path=str(path))
            return path.read_text(encoding="utf-8")
        if self.wheel is None:
            return None
        with zipfile.ZipFile(self.wheel) as archive:
            try:
                info = archive.getinfo(self.prefix + relative)
            except KeyError:
                return None
            if info.file_size > _MAX_FILE_BYTES:
                raise InputError("BFCL data file too large", path=str(self.wheel))
            return archive.read(info).decode("utf-8")

    def size(self, category: AnyCategory) -> int | None:
        """How many entries the category has, or None when its file is missing."""
        text = self.read(f"{_PREFIX}{category.value}.json")
        return None if text is None else sum(1 for line in text.splitlines() if line.strip())

    def entries(self, category: BfclCategory) -> list[BfclEntry]:
        """Every entry of a category, joined with its possible answer.

        Raises:
            InputError: a file is missing or malformed, or an answer is missing.
        """
        name = f"{_PREFIX}{category.value}.json"
        text = self.read(name)
        if text is None:
            raise InputError(f"no {name} in the BFCL data", path=self.location)
        answers: dict[str, tuple[JsonObject, ...]] = {}
        if category.has_answers:
            answer_text = self.read(f"possible_answer/{name}")
            if answer_text is None:
                raise InputError(f"no possible_answer/{name} in the BFCL data", path=self.location)
            for row in _json_lines(answer_text, f"possible_answer/{name}"):
                answers[str(row.get("id"))] = _objects(row.get("ground_truth"), row.get("id"))
        out: list[BfclEntry] = []
        for row in _json_lines(text, name):
            entry_id = str(row.get("id"))
            answer = answers.get(entry_id) if category.has_answers else None
            if category.has_answers and answer is None:
                raise InputError(f"no possible answer for {entry_id}", path=self.location)
            functions = _objects(row.get("function"), entry_id)
            out.append(BfclEntry(entry_id, row.get("question"), functions, answer))
        return out

    def class_docs(self, class_name: str) -> tuple[JsonObject, ...]:
        """The function docs of one multi-turn API class, in BFCL's file order.

        Raises:
            InputError: an unknown class, or its doc file is missing or malformed.
        """
        file_name = MULTI_TURN_DOC_FILES.get(class_name)
        if file_name is None:
            raise InputError(f"unknown BFCL multi-turn API class {class_name!r}")
        relative = f"multi_turn_func_doc/{file_name}"
        return tuple(self.json_lines(relative))

    def json_lines(self, relative: str) -> list[JsonObject]:
        """The objects of one JSON Lines data file (`possible_answer/BFCL_v4_x.json`).

        Raises:
            InputError: the file is missing or malformed.
        """
        text = self.read(relative)
        if text is None:
            raise InputError(f"no {relative} in the BFCL data", path=self.location)
        return _json_lines(text, relative)


def _json_lines(text: str, name: str) -> list[JsonObject]:
    rows: list[JsonObject] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            where = f"line {number}"
            raise InputError(f"invalid JSON: {exc.msg}", path=name, location=where) from None
        if not isinstance(value, dict):
            raise InputError("a line is not a JSON object", path=name, location=f"line {number}")
        rows.append(value)
    return rows


def _objects(value: JsonValue, entry_id: JsonValue) -> tuple[JsonObject, ...]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise InputError(f"entry {entry_id}: expected a list of objects")
    return tuple(v for v in value if isinstance(v, dict))


def open_bfcl_data(source: str | Path | None = None) -> BfclData:
    """Locate BFCL's data: a folder, a wheel file, or the installed `bfcl_eval` package.

    Args:
        source: a folder holding `BFCL_v4_*.json` (directly, or under `data/` or
            `bfcl_eval/data/`), a `bfcl_eval-*.whl` file, or None for the installed package.

    Returns:
        The data source.

    Raises:
        ConfigError: nothing usable was found (the message says how to get the data).
    """
    if source is None:
        return _installed()
    path = Path(source)
    if path.is_file() and path.suffix == ".whl":
        return _wheel(path)
    if path.is_dir():
        for folder in (path, path / "data", path / "bfcl_eval" / "data"):
            if any(folder.glob(f"{_PREFIX}*.json")):
                return BfclData(location=str(folder), version=_version_near(path), folder=folder)
        wheels = sorted(path.glob("bfcl_eval-*.whl"))
        if wheels:
            return _wheel(wheels[-1])
    raise ConfigError(f"{source}: no BFCL data here (expected {_PREFIX}*.json files or a wheel)")


_HOW_TO = (
    "install bfcl-eval, or run `pip download --no-deps bfcl-eval -d DIR` and pass --data-dir DIR"
)


def _installed() -> BfclData:
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"BFCL data not found: {_HOW_TO}")
    folder = Path(next(iter(spec.submodule_search_locations))) / "data"
    if not folder.is_dir():
        raise ConfigError(f"the installed bfcl_eval has no data folder ({folder}): {_HOW_TO}")
    try:
        found = metadata.version("bfcl-eval")
    except metadata.PackageNotFoundError:
        found = "unknown"
    return BfclData(location=str(folder), version=found, folder=folder)


def _wheel(path: Path) -> BfclData:
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (OSError, zipfile.BadZipFile) as exc:
        raise ConfigError(f"{path}: not a readable wheel ({exc})") from None
    marker = f"data/{_PREFIX}"
    prefix = next((n[: n.index(marker) + 5] for n in names if marker in n), None)
    if prefix is None:
        raise ConfigError(f"{path}: this wheel holds no BFCL data")
    parts = path.name.split("-")
    return BfclData(
        location=str(path),
        version=parts[1] if len(parts) > 1 else "unknown",
        wheel=path,
        prefix=prefix,
    )


def _version_near(path: Path) -> str:
    for candidate in (path, path.parent):
        infos: Sequence[Path] = sorted(candidate.glob("bfcl_eval-*.dist-info"))
        if infos:
            return infos[-1].name.split("-")[1].removesuffix(".dist-info")
    return "unknown"
