"""The leaderboard as one self-contained HTML page, in the look of the HTML report.

The same rules as the report (`toolgrade.report._html`): Jinja2 autoescaping for every
value (model labels, suite names and notes come from the sweep file, the suites and
the servers), and a Content-Security-Policy that allows exactly the page's own script
and style, pinned by hash. The style is the report's, plus the table's few rules.

A suite where some model's accuracy as served differs from its accuracy gets the
columns `As served`, its interval and `Serving faults`, and a line naming the models
whose order as served is reversed; other suites show neither.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import jinja2
import markupsafe

from toolgrade._core.files import atomic_write_text
from toolgrade.errors import ConfigError, describe_os_error
from toolgrade.metrics import Breakdown
from toolgrade.report import Chart, bar_chart, pct
from toolgrade.sweep._leaderboard import Leaderboard, LeaderboardEntry, SuiteBoard

__all__ = ["render_leaderboard_html", "write_leaderboard_html"]

_TEMPLATES = "templates"


def _read(package: str, name: str) -> str:
    return (resources.files(package) / _TEMPLATES / name).read_text(encoding="utf-8")


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: _read("toolgrade.sweep", name)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _digest(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


@cache
def _assets() -> tuple[str, str, str]:
    """The page's script and style, and the CSP that allows exactly these two."""
    script = _read("toolgrade.sweep", "leaderboard.js")
    style = _read("toolgrade.report", "report.css") + _read("toolgrade.sweep", "leaderboard.css")
    csp = (
        "default-src 'none'; img-src data:; "
        f"script-src 'sha256-{_digest(script)}'; style-src 'sha256-{_digest(style)}'"
    )
    return script, style, csp


@dataclass(frozen=True, slots=True)
class _Table:
    """One suite as the page shows it: its chart and its rows."""

    board: SuiteBoard
    chart: Chart | None
    rows: tuple[LeaderboardEntry, ...]
    """Models with a run, in rank order."""
    missing: tuple[LeaderboardEntry, ...]
    """Models without one."""
    swaps: tuple[tuple[LeaderboardEntry, LeaderboardEntry], ...] = ()
    """(ahead, behind) as served: the models whose order as served is reversed."""


def _table(board: SuiteBoard) -> _Table:
    rows = tuple(e for e in board.entries if e.run_id is not None)
    bars = [Breakdown(e.label, e.accuracy, 0.0) for e in rows if e.accuracy is not None]
    chart = bar_chart(f"Accuracy on {board.suite}", bars, headings=False) if bars else None
    missing = tuple(e for e in board.entries if e.run_id is None)
    by_label = {e.label: e for e in rows}
    swaps = tuple((by_label[a], by_label[b]) for a, b in board.served_swaps)
    return _Table(board, chart, rows, missing, swaps)


def render_leaderboard_html(board: Leaderboard) -> str:
    """Render the leaderboard as a self-contained HTML page.

    Examples:
        >>> page = render_leaderboard_html(Leaderboard("demo", 0.05, ()))
        >>> "Content-Security-Policy" in page
        True
    """
    script, style, csp = _assets()
    return (
        _environment()
        .get_template("leaderboard.html.j2")
        .render(
            board=board,
            tables=[_table(s) for s in board.suites],
            served=any(s.serving_differs for s in board.suites),
            pct=pct,
            csp=csp,
            script=markupsafe.Markup(script),
            style=markupsafe.Markup(style),
        )
    )


def write_leaderboard_html(board: Leaderboard, path: str | Path) -> Path:
    """Write the HTML page, replacing the file atomically; missing folders are created.

    Returns:
        The path written.

    Raises:
        ConfigError: the file cannot be written.
    """
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, render_leaderboard_html(board))
    except OSError as exc:
        raise ConfigError(
            f"cannot write the HTML leaderboard: {describe_os_error(exc)}", path=str(target)
        ) from exc
    return target
