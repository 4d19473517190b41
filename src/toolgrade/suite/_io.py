"""Loading suites: one file, a directory of files (merged), or a built-in suite by name.

Every file is first checked against the shipped JSON Schema, then semantically (see
`_file_rules`); only a suite without a single problem becomes a `Suite`. All problems of
all files are reported together in one `SuiteError`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from toolgrade._core.bulk import building_many
from toolgrade._core.files import parse_json_issues, read_text
from toolgrade._core.json_data import JsonObject, JsonValue, clean_value, json_may_hold_surrogate
from toolgrade.errors import SuiteError
from toolgrade.suite._builtin import builtin_suite_names, builtin_suite_text
from toolgrade.suite._file_rules import Problem, SourceFile
from toolgrade.suite._locate import line_of, value_lines
from toolgrade.suite._schema import schema_problems
from toolgrade.suite._suite_model import Suite
from toolgrade.suite._validate import semantic_problems

__all__ = ["load_suite", "parse_suite"]

logger = logging.getLogger(__name__)

_SUITE_SUFFIX = ".json"


def load_suite(source: str | Path) -> Suite:
    """Load and validate a suite from a file, a directory of files, or a built-in name.

    A path that exists wins over a built-in name. A directory's `*.json` files (not
    recursive, in name order) are merged: tools, environments and named states are
    unioned (one defined twice must be defined identically), case ids must be unique
    across files, a case may call a tool defined in another file of the directory (or
    start from a state defined there), and the merged suite's `schema_version` is the
    highest of the files'.

    Args:
        source: a suite file, a directory of suite files, or a built-in suite name such
            as `coding-agent`.

    Returns:
        The validated suite.

    Raises:
        SuiteError: the source does not exist or is unreadable, or the suite is invalid;
            `problems` lists every problem, each naming the file, the JSON path (or line)
            and the case id.

    Examples:
        >>> suite = load_suite("coding-agent")
        >>> suite.name, len(suite.cases) >= 60
        ('coding-agent', True)
    """
    path = Path(source)
    if path.is_dir():
        with building_many():
            return _load_directory(path).with_source_dir(path)
    if path.is_file():
        return parse_suite(_read(path), name=str(path)).with_source_dir(path.parent)
    text = str(source)
    if text in builtin_suite_names():
        return parse_suite(builtin_suite_text(text), name=f"builtin:{text}")
    names = ", ".join(builtin_suite_names())
    raise SuiteError(
        f"no such suite file, directory or built-in suite (built-in: {names})", path=text
    )


def parse_suite(text: str, *, name: str = "<suite>") -> Suite:
    """Validate and build a suite from the text of one suite file.

    Args:
        text: the JSON text.
        name: how to name the file in error messages.

    Returns:
        The validated suite.

    Raises:
        SuiteError: the text is not JSON or the suite is invalid (every problem listed).
    """
    with building_many():  # a large suite is many long-lived objects and no garbage cycle
        source = _parse(text, name)
        _raise_if([*_file_problems(source), *semantic_problems([source])], name, [source])
        return _build(source, name)


def _read(path: Path) -> str:
    return read_text(path, error=SuiteError)


def _parse(text: str, name: str) -> SourceFile:
    data, issues = parse_json_issues(text, name=name, error=SuiteError)
    if not isinstance(data, dict):
        raise SuiteError("a suite file must hold a JSON object", path=name, location="$")
    if issues:
        # NaN, 1e999, a huge integer or a repeated key: the file does not say what its
        # author meant, so nothing else of it is checked.
        problems = tuple(
            Problem(name, i.path, i.message, _case_id(data, i.path)).render(i.line) for i in issues
        )
        raise SuiteError(_count(problems), path=name, problems=problems)
    # Half of a surrogate pair (`"\\ud83d"`, or the code point itself) cannot be written,
    # hashed or matched: it is read as U+FFFD, like a model's output.
    cleaned = clean_value(data) if json_may_hold_surrogate(text) else data
    return SourceFile(name, cleaned if isinstance(cleaned, dict) else data, text)


def _count(problems: Sequence[object]) -> str:
    return f"invalid suite: {len(problems)} problem{'s' if len(problems) != 1 else ''}"


def _file_problems(source: SourceFile) -> list[Problem | str]:
    return [
        Problem(source.name, at, msg, _case_id(source.data, at))
        for at, msg in schema_problems(source.data)
    ]


def _case_id(data: JsonObject, json_path: str) -> str | None:
    """The id of the case a JSON path points into, when it has a usable one."""
    if not json_path.startswith("$.cases["):
        return None
    index = json_path[len("$.cases[") :].split("]", 1)[0]
    cases = data.get("cases")
    if not index.isdigit() or not isinstance(cases, list) or int(index) >= len(cases):
        return None
    case = cases[int(index)]
    raw = case.get("id") if isinstance(case, dict) else None
    return raw if isinstance(raw, str) and raw else None


def _raise_if(problems: Sequence[Problem | str], name: str, sources: Sequence[SourceFile]) -> None:
    """Raise one SuiteError listing every problem, each with its line when it can be found."""
    if not problems:
        return
    texts = {src.name: src.text for src in sources}
    lines: dict[str, dict[str, int]] = {}
    rendered = []
    for problem in problems:
        if isinstance(problem, str):  # already rendered (a file that is not JSON)
            rendered.append(problem)
            continue
        if problem.file not in lines:
            lines[problem.file] = value_lines(texts.get(problem.file, ""))
        rendered.append(problem.render(line_of(lines[problem.file], problem.path)))
    raise SuiteError(_count(rendered), path=name, problems=tuple(rendered))


def _build(source: SourceFile, name: str) -> Suite:
    fields = {k: v for k, v in source.data.items() if k != "$schema"}
    try:
        return Suite.model_validate(fields)
    except ValidationError as exc:
        # The schema should have caught these; keep the message actionable regardless.
        problems: list[Problem | str] = []
        for err in exc.errors():
            at = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"])
            problems.append(Problem(name, at, err["msg"], _case_id(source.data, at)))
        _raise_if(problems, name, [source])
        raise  # pragma: no cover - _raise_if always raises on a non-empty list


def _load_directory(directory: Path) -> Suite:
    paths = sorted(
        p
        for p in directory.iterdir()
        if p.suffix == _SUITE_SUFFIX and p.is_file() and not p.name.startswith(".")
    )
    if not paths:
        raise SuiteError("the directory holds no *.json suite files", path=str(directory))
    sources: list[SourceFile] = []
    problems: list[Problem | str] = []
    for path in paths:
        try:
            source = _parse(_read(path), str(path))
        except SuiteError as exc:
            problems.extend(exc.problems or [str(exc)])
            continue
        sources.append(source)
        problems.extend(_file_problems(source))
    problems.extend(semantic_problems(sources))
    merged, merge_problems = _merge(sources, directory.name)
    _raise_if([*problems, *merge_problems], str(directory), sources)
    logger.debug("merged %d suite files from %s", len(sources), directory)
    return _build(SourceFile(str(directory), merged), str(directory))


def _shared(sources: Sequence[SourceFile], key: str) -> list[JsonValue]:
    values: list[JsonValue] = []
    for src in sources:
        if key in src.data and src.data[key] not in values:
            values.append(src.data[key])
    return values


def _merge(sources: Sequence[SourceFile], fallback_name: str) -> tuple[JsonObject, list[Problem]]:
    """Merge parsed files into one suite document (validity is checked separately)."""
    problems: list[Problem] = []
    names = _shared(sources, "name")
    versions = [v for v in _shared(sources, "version") if isinstance(v, str) and v]
    descriptions = [d for d in _shared(sources, "description") if isinstance(d, str) and d]
    schema_versions = [v for v in _shared(sources, "schema_version") if isinstance(v, int)]
    merged: JsonObject = {
        "schema_version": max(schema_versions, default=1),
        "name": names[0] if len(names) == 1 else fallback_name,
        "description": "\n\n".join(descriptions),
    }
    if versions:  # no file versioned: the merged suite is not either
        merged["version"] = "+".join(versions)
    defaults = _shared(sources, "defaults")
    if len(defaults) > 1:
        first = next(s.name for s in sources if "defaults" in s.data)
        for src in sources:
            if "defaults" in src.data and src.data["defaults"] != defaults[0]:
                message = f"conflicts with the defaults of {first}"
                problems.append(Problem(src.name, "$.defaults", message))
    elif defaults:
        merged["defaults"] = defaults[0]
    categories = [c for s in sources for c in _list(s.data, "categories")]
    if any("categories" in s.data for s in sources):
        merged["categories"] = list(dict.fromkeys(c for c in categories if isinstance(c, str)))
    tools: dict[str, JsonValue] = {}
    for src in sources:
        for tool in _list(src.data, "tools"):
            flat = tool.get("function", tool) if isinstance(tool, dict) else None
            key = flat.get("name") if isinstance(flat, dict) else None
            tools.setdefault(str(key), tool)
    merged["tools"] = list(tools.values())
    for key in ("environments", "states"):
        named = _named(sources, key)
        if named:
            merged[key] = named
    merged["cases"] = [c for s in sources for c in _list(s.data, "cases")]
    return merged, problems


def _list(data: JsonObject, key: str) -> list[JsonValue]:
    value = data.get(key)
    return value if isinstance(value, list) else []


def _named(sources: Sequence[SourceFile], key: str) -> JsonObject:
    """The named entries (`environments`, `states`) of every file, the first of each name.

    A name defined differently in two files is reported by the checks.
    """
    named: JsonObject = {}
    for src in sources:
        found = src.data.get(key)
        for name, entry in (found if isinstance(found, dict) else {}).items():
            named.setdefault(name, entry)
    return named
