"""Geometry of the HTML report's bar charts (inline SVG, drawn by the template)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolgrade.metrics import Breakdown
from toolgrade.report._plain import clip, label, pct
from toolgrade.report._summary import TOO_FEW

__all__ = ["Bar", "Chart", "bar_chart"]

WIDTH = 720
_MARK_WIDTH = 160
"""Room after the value for the mark of a row with too few cases to tell."""
_LABEL_RIGHT = 190
_BAR_LEFT = 200
_BAR_SPAN = 400
_ROW = 24
_TOP = 24
_LABEL_CHARS = 28


@dataclass(frozen=True, slots=True)
class Bar:
    """One row of a bar chart, in SVG user units."""

    label: str
    """The row's name, cut to fit (full name in `title`)."""
    title: str
    """Tooltip: full name, rate, counts and interval (and the mark, when the row has it)."""
    y: int
    """Top of the row."""
    width: float
    """Bar length (the rate)."""
    ci_low: float
    """x of the interval's lower bound."""
    ci_high: float
    """x of the interval's upper bound."""
    value: str
    """The rate and counts, printed after the bar, then the mark of a row whose interval
    is too wide to say anything (`Breakdown.too_few_to_tell`)."""
    tone: str
    """`good` (>= 90%), `fair` (>= 70%) or `poor`: the bar's colour class."""


@dataclass(frozen=True, slots=True)
class Chart:
    """A horizontal bar chart of accuracy per key, with 95% interval whiskers."""

    title: str
    bars: tuple[Bar, ...]
    height: int
    width: int = WIDTH
    label_right: int = _LABEL_RIGHT
    bar_left: int = _BAR_LEFT
    bar_span: int = _BAR_SPAN
    ticks: tuple[tuple[float, str], ...] = ()
    """Gridlines: (x, label)."""


def _tone(rate: float) -> str:
    if rate >= 0.9:
        return "good"
    return "fair" if rate >= 0.7 else "poor"


def bar_chart(title: str, rows: Sequence[Breakdown], *, headings: bool) -> Chart:
    """Lay out one chart: a bar per breakdown row; a row too wide to tell is marked."""
    bars = []
    for i, b in enumerate(rows):
        name = label(b.key) if headings else b.key
        ci = b.rate.interval
        mark = f" · {TOO_FEW}" if b.too_few_to_tell else ""
        bars.append(
            Bar(
                label=clip(name, _LABEL_CHARS),
                title=(
                    f"{name}: {pct(b.rate.rate)} ({b.rate.passed}/{b.rate.n}), "
                    f"95% CI {pct(ci.low)} - {pct(ci.high)}{mark}"
                ),
                y=_TOP + i * _ROW,
                width=round(b.rate.rate * _BAR_SPAN, 1),
                ci_low=round(_BAR_LEFT + ci.low * _BAR_SPAN, 1),
                ci_high=round(_BAR_LEFT + ci.high * _BAR_SPAN, 1),
                value=f"{pct(b.rate.rate)} ({b.rate.passed}/{b.rate.n}){mark}",
                tone=_tone(b.rate.rate),
            )
        )
    ticks = tuple((_BAR_LEFT + f * _BAR_SPAN, f"{int(f * 100)}%") for f in (0, 0.25, 0.5, 0.75, 1))
    width = WIDTH + (_MARK_WIDTH if any(b.too_few_to_tell for b in rows) else 0)
    height = _TOP + len(bars) * _ROW + 8
    return Chart(title=title, bars=tuple(bars), height=height, width=width, ticks=ticks)
