"""The case-selection options shared by every command that takes a suite.

Take them as one group and build the `Selection` from it, so that every command spells
and documents them the same::

    @with_options(selection=SelectionOptions)
    def show(*, source: SourceArg, selection: SelectionOptions) -> None:
        suite = toolgrade.select_cases(toolgrade.load_suite(source), selection.selection())

`--seed` is the one seed of a command: a command that also needs a seed for something
else (the run's own seed) reuses this option's value rather than declaring a second one.
The marker keywords (`@pytest.mark.toolgrade(tags=...)`) are `Selection`'s own names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolgrade._core.limits import MAX_SEED
from toolgrade.cli._options import option
from toolgrade.suite import Selection, parse_shard

__all__ = ["SelectionOptions", "selection_from_options"]

_PANEL = "Case selection"


@dataclass(frozen=True, slots=True)
class SelectionOptions:
    """Which cases of a suite: `--tag` ... `--limit`."""

    tag: list[str] | None = field(
        default=None,
        metadata=option(
            "--tag",
            help="Keep cases with this tag (repeatable; any of them, or all with --all-tags).",
            panel=_PANEL,
            marker="tags",
        ),
    )
    all_tags: bool = field(
        default=False,
        metadata=option(
            "--all-tags",
            help="Require every --tag instead of any one.",
            panel=_PANEL,
            marker="all_tags",
        ),
    )
    category: list[str] | None = field(
        default=None,
        metadata=option(
            "--category",
            help="Keep cases in this category, e.g. simple, complex, edge (repeatable).",
            panel=_PANEL,
            marker="categories",
        ),
    )
    difficulty: list[str] | None = field(
        default=None,
        metadata=option(
            "--difficulty",
            help="Keep cases of this difficulty: easy, medium, hard (repeatable).",
            panel=_PANEL,
            marker="difficulties",
        ),
    )
    case_id: list[str] | None = field(
        default=None,
        metadata=option(
            "--id",
            help="Keep cases whose id matches this glob, e.g. 'TC-0*' (repeatable).",
            panel=_PANEL,
            marker="ids",
        ),
    )
    sample: int | None = field(
        default=None,
        metadata=option(
            "--sample",
            min=1,
            help="Keep a deterministic sample of N cases (same --seed, same cases).",
            panel=_PANEL,
            marker="sample",
        ),
    )
    seed: int = field(
        default=0,
        metadata=option(
            "--seed",
            min=0,
            max=MAX_SEED,
            help="Seed for --sample (and the run).",
            panel=_PANEL,
            marker="seed",
        ),
    )
    limit: int | None = field(
        default=None,
        metadata=option(
            "--limit",
            "-n",
            min=1,
            help="Keep at most N cases (applied last).",
            panel=_PANEL,
            marker="limit",
        ),
    )
    shard: str | None = field(
        default=None,
        metadata=option(
            "--shard",
            metavar="I/N",
            help="Keep the I-th of N shards of the selected cases (by a hash of the case id,"
            " applied last); merge the shards' runs with `toolgrade runs merge`.",
            panel=_PANEL,
        ),
    )

    def selection(self) -> Selection:
        """The `Selection` the options describe.

        Raises:
            ConfigError: an unknown difficulty, or a sample or limit below 1.
        """
        return Selection(
            tags=tuple(self.tag or ()),
            all_tags=self.all_tags,
            categories=tuple(self.category or ()),
            difficulties=tuple(d.strip().lower() for d in self.difficulty or ()),
            ids=tuple(self.case_id or ()),
            sample=self.sample,
            seed=self.seed,
            limit=self.limit,
            shard=parse_shard(self.shard) if self.shard is not None else None,
        )


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
    """Build the `Selection` the shared options describe (`SelectionOptions.selection`).

    Raises:
        ConfigError: an unknown difficulty, or a sample or limit below 1.
    """
    return SelectionOptions(
        tag=tag,
        all_tags=all_tags,
        category=category,
        difficulty=difficulty,
        case_id=case_id,
        sample=sample,
        seed=seed,
        limit=limit,
    ).selection()
