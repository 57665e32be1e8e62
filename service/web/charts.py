"""Small inline SVG charts for the pages: numbers only, laid out here and drawn by the
template, so nothing a bot wrote ever reaches the drawing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH = 240
HEIGHT = 60
PAD = 4


@dataclass(frozen=True)
class Sparkline:
    """A polyline of a series' points in a ``WIDTH`` × ``HEIGHT`` box, with its range."""

    points: str
    low: float
    high: float
    last: float
    count: int


def sparkline(history: Sequence[Sequence[float]]) -> Sparkline | None:
    """The chart of ``[time, value]`` points in time order (``None`` with no point); points
    are spaced evenly by match, values scaled to the box."""
    values = [float(point[1]) for point in history]
    if not values:
        return None
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (WIDTH - 2 * PAD) / max(1, len(values) - 1)
    coordinates = [
        f"{PAD + i * step:.1f},{HEIGHT - PAD - (v - low) / span * (HEIGHT - 2 * PAD):.1f}" for i, v in enumerate(values)
    ]
    return Sparkline(" ".join(coordinates), round(low, 2), round(high, 2), round(values[-1], 2), len(values))
