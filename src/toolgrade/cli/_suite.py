"""`toolgrade suite list|show|validate|check|schema`: inspect and check suites."""

from __future__ import annotations

import json
from collections import Counter
from typing import Annotated

import typer

import toolgrade
from toolgrade._core.json_data import JsonObject, JsonValue
from toolgrade.cli._options import JsonFlag, with_options
from toolgrade.cli._selection import SelectionOptions
from toolgrade.judging import CHECK_TIMEOUT, ConversationProblem, check_conversations
from toolgrade.suite import Case

__all__ = ["app"]

app = typer.Typer(
    name="suite",
    help="List, inspect and validate test suites.",
    no_args_is_help=True,
)

_NO_CALL = "(no call)"


def _echo_json(value: JsonValue) -> None:
    typer.echo(json.dumps(value, indent=2, ensure_ascii=False))


def _tool_count(suite: toolgrade.Suite) -> int:
    """Distinct tool names, counting those that cases define for themselves."""
    names = {t.name for t in suite.tools}
    names.update(t.name for case in suite.cases for t in case.tool_definitions)
    return len(names)


def _summary(suite: toolgrade.Suite, *, whole: toolgrade.Suite) -> JsonObject:
    """Counts by category, difficulty, expected tool and tag of `suite`, a selection of `whole`.

    `content_hash` is the whole suite's, whatever the selection. A run of a selection
    records the selection's hash as its `suite_hash`: when the selection differs from
    the suite, that hash is given too, as `selection_hash`, with `suite_cases`.
    """
    by_tool: Counter[str] = Counter()
    for case in suite.cases:
        names = {call.name for call in case.expected} or {_NO_CALL}
        by_tool.update(names)
    selected: JsonObject = {}
    if suite.content_hash != whole.content_hash:
        selected = {"selection_hash": suite.content_hash, "suite_cases": len(whole.cases)}
    return {
        "name": suite.name,
        "version": suite.version,
        "description": suite.description,
        "content_hash": whole.content_hash,
        **selected,
        "tools": _tool_count(suite),
        "cases": len(suite.cases),
        "by_category": dict(Counter(c.category for c in suite.cases).most_common()),
        "by_difficulty": dict(Counter(c.difficulty for c in suite.cases).most_common()),
        "by_tool": dict(by_tool.most_common()),
        "by_tag": dict(Counter(t for c in suite.cases for t in c.tags).most_common()),
    }


@app.command("list")
def list_suites(as_json: JsonFlag = False) -> None:
    """List the built-in suites."""
    rows: list[JsonObject] = []
    for name in toolgrade.builtin_suite_names():
        suite = toolgrade.load_suite(name)
        first_line = suite.description.split(". ")[0].rstrip(".")
        rows.append(
            {
                "name": name,
                "version": suite.version,
                "cases": len(suite.cases),
                "tools": _tool_count(suite),
                "description": first_line,
            }
        )
    if as_json:
        _echo_json(list[JsonValue](rows))
        return
    for row in rows:
        typer.echo(
            f"{row['name']}  {_version(row['version'])}  {row['cases']} cases, {row['tools']} tools"
            f"  {row['description']}"
        )


def _table(title: str, counts: JsonValue) -> list[str]:
    if not isinstance(counts, dict) or not counts:
        return []
    width = max(len(k) for k in counts)
    return [f"{title}:"] + [f"  {k:<{width}}  {v}" for k, v in counts.items()]


@app.command("show")
@with_options(selection=SelectionOptions)
def show(
    *,
    source: Annotated[str, typer.Argument(help="A built-in suite name, a suite file or folder.")],
    cases: Annotated[bool, typer.Option("--cases", help="Also list every case.")] = False,
    as_json: JsonFlag = False,
    selection: SelectionOptions,
) -> None:
    """Show a suite: counts by category, difficulty, tool and tag (after selection)."""
    chosen = selection.selection()
    whole = toolgrade.load_suite(source)
    suite = toolgrade.select_cases(whole, chosen)
    summary = _summary(suite, whole=whole)
    if as_json:
        if cases:
            summary["case_list"] = [_case_row(c) for c in suite.cases]
        _echo_json(summary)
        return
    for line in _show_lines(suite, summary, cases=cases):
        typer.echo(line)


def _show_lines(suite: toolgrade.Suite, summary: JsonObject, *, cases: bool) -> list[str]:
    of = f" (selected from {summary['suite_cases']})" if "selection_hash" in summary else ""
    lines = [
        f"{suite.name} {_version(suite.version)}: {len(suite.cases)} cases{of},"
        f" {_tool_count(suite)} tools",
        f"content hash: {summary['content_hash']}",
    ]
    if "selection_hash" in summary:
        lines.append(
            f"selection hash: {summary['selection_hash']} (a run of this selection records it)"
        )
    for title, key in (
        ("category", "by_category"),
        ("difficulty", "by_difficulty"),
        ("tool", "by_tool"),
        ("tag", "by_tag"),
    ):
        lines += _table(f"by {title}", summary[key])
    if cases:
        lines.append("cases:")
        for case in suite.cases:
            calls = ", ".join(c.name for c in case.expected) or _NO_CALL
            lines.append(
                f"  {case.id}  {case.category}/{case.difficulty}  {calls}  {_prompt(case)}"
            )
    return lines


def _prompt(case: Case, width: int = 60) -> str:
    """The case's prompt (a conversation's first user turn and its turn count), cut to `width`."""
    if not case.single:
        count = len(case.turns)
        text = f"[{count} turn{'s' if count != 1 else ''}] {case.turns[0].user}"
    elif isinstance(case.prompt, str):
        text = case.prompt
    else:
        text = case.prompt[-1].content or ""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _case_row(case: Case) -> JsonValue:
    return {
        "id": case.id,
        "category": case.category,
        "difficulty": case.difficulty,
        "tags": list(case.tags),
        "expected": [call.name for call in case.expected],
        "prompt": _prompt(case, 200),
    }


@app.command("validate")
def validate(
    sources: Annotated[
        list[str], typer.Argument(help="Suite files, folders or built-in names to check.")
    ],
    as_json: JsonFlag = False,
) -> None:
    """Validate suites; print every problem, exit 2 when any suite is invalid."""
    report: list[JsonValue] = []
    failed = False
    for source in sources:
        try:
            suite = toolgrade.load_suite(source)
        except toolgrade.SuiteError as exc:
            failed = True
            problems = list(exc.problems) or [str(exc)]
            report.append({"source": source, "valid": False, "problems": list(problems)})
            if not as_json:
                count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
                typer.echo(f"invalid: {source} ({count})", err=True)
                for problem in problems:
                    typer.echo(f"  - {problem}", err=True)
            continue
        report.append({"source": source, "valid": True, "problems": []})
        if not as_json:
            typer.echo(
                f"ok: {source} ({suite.name} {_version(suite.version)}, {len(suite.cases)} cases,"
                f" {_tool_count(suite)} tools)"
            )
    if as_json:
        _echo_json(report)
    if failed:
        raise typer.Exit(2)


def _problem_row(problem: ConversationProblem) -> JsonValue:
    return {
        "case_id": problem.case_id,
        "kind": problem.kind,
        "message": problem.message,
        "warning": problem.warning,
    }


@app.command("check")
def check(
    sources: Annotated[
        list[str], typer.Argument(help="Suite files, folders or built-in names to check.")
    ],
    as_json: JsonFlag = False,
    timeout: Annotated[
        float,
        typer.Option(
            min=0.001,
            help="Seconds each replay of a conversation may take (a Python environment's"
            " code that loops or hangs is a problem after that).",
        ),
    ] = CHECK_TIMEOUT,
) -> None:
    """Validate suites and replay every conversation's reference; exit 2 when any is refused.

    A suite is refused when it is invalid, when a reference fails its own checks, when a
    model that never calls a tool would pass, when two replays of an environment differ,
    or when its environment raises or takes longer than --timeout. Loading a suite's
    Python environment runs its code: check only suites you trust. Ctrl-C stops the
    check (exit 130).
    """
    try:
        _check(sources, as_json=as_json, timeout=timeout)
    except KeyboardInterrupt:
        typer.echo("interrupted: suite check stopped", err=True)
        raise typer.Exit(130) from None


def _check(sources: list[str], *, as_json: bool, timeout: float) -> None:
    report: list[JsonValue] = []
    refused = False
    for source in sources:
        try:
            suite = toolgrade.load_suite(source)
            problems = check_conversations(suite, base_dir=suite.source_dir, timeout=timeout)
        except toolgrade.SuiteError as exc:
            refused = True
            lines = list(exc.problems) or [str(exc)]
            report.append({"source": source, "ok": False, "problems": list[JsonValue](lines)})
            _echo_refusal(source, lines, as_json=as_json)
            continue
        errors = [p for p in problems if not p.warning]
        refused = refused or bool(errors)
        report.append(
            {
                "source": source,
                "ok": not errors,
                "conversations": len(suite.conversations),
                "problems": [_problem_row(p) for p in problems],
            }
        )
        if as_json:
            continue
        if errors:
            _echo_refusal(source, [p.render() for p in errors], as_json=False)
        else:
            replayed = sum(c.reference is not None for c in suite.conversations)
            unchecked = len(suite.conversations) - replayed
            note = f", {unchecked} without a reference" if unchecked else ""
            typer.echo(f"ok: {source} ({replayed} conversations replayed{note})")
        for problem in problems:
            if problem.warning:
                typer.echo(f"  {problem.render()}", err=True)
    if as_json:
        _echo_json(report)
    if refused:
        raise typer.Exit(2)


def _echo_refusal(source: str, lines: list[str], *, as_json: bool) -> None:
    if as_json:
        return
    count = f"{len(lines)} problem{'s' if len(lines) != 1 else ''}"
    typer.echo(f"refused: {source} ({count})", err=True)
    for line in lines:
        typer.echo(f"  - {line}", err=True)


@app.command("schema")
def schema() -> None:
    """Print the JSON Schema of suite files."""
    _echo_json(toolgrade.suite_schema())


def _version(version: object) -> str:
    """`v1.1`, or `(no version)` for a suite file that gives none."""
    return f"v{version}" if version else "(no version)"
