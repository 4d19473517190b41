"""The case-selection options shared by every command that takes a suite.

Use the aliases as parameter annotations and build the `Selection` with
`selection_from_options`, so that every command spells and documents them the same::

    def run(
        ...,
        tag: TagOption = None,
        all_tags: AllTagsOption = False,
        category: CategoryOption = None,
        difficulty: DifficultyOption = None,
        case_id: IdOption = None,
        sample: SampleOption = None,
        seed: SeedOption = 0,
        limit: LimitOption = None,
    ) -> None:
        selection = selection_from_options(
            tag=tag, all_tags=all_tags, category=category, difficulty=difficulty,
            case_id=case_id, sample=sample, seed=seed, limit=limit,
        )
        suite = toolgrade.select_cases(toolgrade.load_suite(suite_path), selection)

`--seed` is the one seed of a command: a command that also needs a seed for something
else (the run's own seed) reuses this option's value rather than declaring a second one.
"""

from __future__ import annotations

from typing import Annotated

import typer

from toolgrade.suite._select import Selection

__all__ = [
    "AllTagsOption",
    "CategoryOption",
    "DifficultyOption",
    "IdOption",
    "LimitOption",
    "SampleOption",
    "SeedOption",
    "TagOption",
    "selection_from_options",
]

_PANEL = "Case selection"

TagOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tag",
        help="Keep cases with this tag (repeatable; any of them, or all with --all-tags).",
        rich_help_panel=_PANEL,
    ),
]
AllTagsOption = Annotated[
    bool,
    typer.Option(
        "--all-tags", help="Require every --tag instead of any one.", rich_help_panel=_PANEL
    ),
]
CategoryOption = Annotated[
    list[str] | None,
    typer.Option(
        "--category",
        help="Keep cases in this category, e.g. simple, complex, edge (repeatable).",
        rich_help_panel=_PANEL,
    ),
]
DifficultyOption = Annotated[
    list[str] | None,
    typer.Option(
        "--difficulty",
        help="Keep cases of this difficulty: easy, medium, hard (repeatable).",
        rich_help_panel=_PANEL,
    ),
]
IdOption = Annotated[
    list[str] | None,
    typer.Option(
        "--id",
        help="Keep cases whose id matches this glob, e.g. 'TC-0*' (repeatable).",
        rich_help_panel=_PANEL,
    ),
]
SampleOption = Annotated[
    int | None,
    typer.Option(
        "--sample",
        min=1,
        help="Keep a deterministic sample of N cases (same --seed, same cases).",
        rich_help_panel=_PANEL,
    ),
]
SeedOption = Annotated[
    int,
    typer.Option("--seed", help="Seed for --sample (and the run).", rich_help_panel=_PANEL),
]
LimitOption = Annotated[
    int | None,
    typer.Option(
        "--limit", "-n", min=1, help="Keep at most N cases (applied last).", rich_help_panel=_PANEL
    ),
]


def selection_from_options(
    *,
    tag: list[str] | None = None,
    all_tags: bool = False,
    category: list[str] | None = None,
    difficulty: list[str] | None = None,
    case_id: list[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
    limit: int | None = None,
) -> Selection:
    """Build the `Selection` the shared options describe.

    Args:
        tag: `--tag` values.
        all_tags: `--all-tags`.
        category: `--category` values.
        difficulty: `--difficulty` values.
        case_id: `--id` globs.
        sample: `--sample`.
        seed: `--seed`.
        limit: `--limit`.

    Returns:
        The selection.

    Raises:
        ConfigError: an unknown difficulty, or a sample or limit below 1.
    """
    return Selection(
        tags=tuple(tag or ()),
        all_tags=all_tags,
        categories=tuple(category or ()),
        difficulties=tuple(d.strip().lower() for d in difficulty or ()),
        ids=tuple(case_id or ()),
        sample=sample,
        seed=seed,
        limit=limit,
    )
