"""Model sweeps: several models on several suites from one file, and their leaderboard.

`load_sweep("sweep.toml")` reads the file, `run_sweep` runs every (model, suite)
combination as an ordinary run (saved to the history, tagged, resumable), and
`sweep_leaderboard` ranks the models of each suite; `history_leaderboard` builds the
same table from the history alone, `leaderboard` from any runs. Each model's place comes
with its bootstrap rank interval (`rank_intervals`), and every pair of models is tested
(`pair_tests`, Holm-corrected by `holm_adjust`) to say which pairs the suite separates.
Beside its accuracy, each model has its accuracy as served and serving faults
(`EntryServing`), shown where they differ.
"""

from toolgrade.sweep._boards import history_leaderboard, leaderboard, sweep_leaderboard
from toolgrade.sweep._config import ModelEntry, SuiteEntry, SweepConfig, load_sweep
from toolgrade.sweep._leaderboard import (
    BoardInput,
    Leaderboard,
    LeaderboardEntry,
    SuiteBoard,
    build_leaderboard,
)
from toolgrade.sweep._leaderboard_html import render_leaderboard_html, write_leaderboard_html
from toolgrade.sweep._leaderboard_text import render_leaderboard_text
from toolgrade.sweep._pairs import PairTest, holm_adjust, pair_tests, separation_summary
from toolgrade.sweep._plan import Combination, plan_sweep
from toolgrade.sweep._ranks import RankInterval, rank_intervals
from toolgrade.sweep._run import (
    CombinationOutcome,
    SweepEvent,
    SweepResult,
    arun_sweep,
    run_sweep,
)
from toolgrade.sweep._served import EntryServing

__all__ = [
    "BoardInput",
    "Combination",
    "CombinationOutcome",
    "EntryServing",
    "Leaderboard",
    "LeaderboardEntry",
    "ModelEntry",
    "PairTest",
    "RankInterval",
    "SuiteBoard",
    "SuiteEntry",
    "SweepConfig",
    "SweepEvent",
    "SweepResult",
    "arun_sweep",
    "build_leaderboard",
    "history_leaderboard",
    "holm_adjust",
    "leaderboard",
    "load_sweep",
    "pair_tests",
    "plan_sweep",
    "rank_intervals",
    "render_leaderboard_html",
    "render_leaderboard_text",
    "run_sweep",
    "separation_summary",
    "sweep_leaderboard",
    "write_leaderboard_html",
]
