"""Choosing who plays whom: pure functions over the ladder's free members.

The longest-waiting bot is seated first (no bot starves behind better-placed ones), with the
opponents whose conservative ratings are nearest its own, within a window that widens the
longer it has waited (:func:`window`). Its last opponents are passed over while anyone else
fits, two bots of one owner never meet unless the ladder allows it, and house members (always
free) fill seats but never make a match among themselves. Seats are then given so that every
bot holds every seat about equally (:func:`seat_order`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

WINDOW_BASE = 3.0
"""Rating points (of μ − 3σ) either side of a bot's own that it is paired within at once."""

WINDOW_PER_SECOND = 10.0
"""How much the window widens for each second the bot has waited: after two seconds it
spans about every rating a ladder holds, so a bot with someone free to play waits no longer
than that; within one pass, nearer ratings still come first."""


@dataclass(frozen=True)
class Candidate:
    """A member that may be seated now: its key, owner, conservative rating, how long it has
    waited (ms), its last opponents, and whether it is a house bot."""

    key: str
    owner: str
    rating: float
    waited_ms: int
    last_opponents: frozenset[str] = frozenset()
    house: bool = False


def window(waited_ms: int) -> float:
    """The rating distance a bot that has waited ``waited_ms`` accepts."""
    return WINDOW_BASE + WINDOW_PER_SECOND * waited_ms / 1000


def line_ups(candidates: Sequence[Candidate], players: int, same_owner: bool) -> list[list[Candidate]]:
    """Disjoint line-ups of ``players`` members each, longest-waiting bots first; a house
    member may appear in several (it plays any number of matches)."""
    waiting = sorted((c for c in candidates if not c.house), key=lambda c: (-c.waited_ms, c.key))
    house = [c for c in candidates if c.house]
    taken: set[str] = set()
    chosen = []
    for anchor in waiting:
        if anchor.key in taken:
            continue
        pool = [c for c in waiting if c.key not in taken and c.key != anchor.key] + house
        line_up = _fill(anchor, pool, players, same_owner)
        if line_up is None:
            continue
        chosen.append(line_up)
        taken.update(c.key for c in line_up if not c.house)
    return chosen


def _fill(anchor: Candidate, pool: list[Candidate], players: int, same_owner: bool) -> list[Candidate] | None:
    """``anchor`` and the nearest ``players - 1`` of ``pool`` within its window, or ``None``.
    Recent opponents come last, and only when nobody else fits."""
    reach = window(anchor.waited_ms)
    near = [c for c in pool if abs(c.rating - anchor.rating) <= reach]
    near.sort(key=lambda c: (c.key in anchor.last_opponents, abs(c.rating - anchor.rating), c.key))
    line_up = [anchor]
    owners = {anchor.owner} if anchor.owner else set()
    for candidate in near:
        if len(line_up) == players:
            break
        if not same_owner and not candidate.house and candidate.owner and candidate.owner in owners:
            continue
        if candidate.key in anchor.last_opponents and len(near) > players - 1:
            continue  # a rematch only when nobody else is there
        line_up.append(candidate)
        if candidate.owner and not candidate.house:
            owners.add(candidate.owner)
    return line_up if len(line_up) == players else None


def seat_order(members: Sequence[str], seat_counts: dict[str, list[int]], chooser: random.Random) -> list[str]:
    """``members`` in seat order: each seat in turn goes to the member that has held it least
    (ties drawn by ``chooser``), so over its matches a bot holds every seat about equally."""
    left = list(members)
    chooser.shuffle(left)
    order = []
    for seat in range(len(members)):
        pick = min(left, key=lambda key: _held(seat_counts.get(key, []), seat))
        left.remove(pick)
        order.append(pick)
    return order


def _held(counts: list[int], seat: int) -> int:
    return counts[seat] if seat < len(counts) else 0
