"""Seat rotation: which bot plays which seat in each match of a tournament.

The line-ups come in *cycles* in which every bot plays every seat equally often:

- At least as many bots as seats (B ≥ P): for every set of P bots (in the order given), its P
  rotations, one after the other. A cycle has C(B, P)·P matches; every set of bots meets, and
  each bot sits once in each seat per set it belongs to.
- Fewer bots than seats (B < P): match k seats bot ``(k + seat) mod B``, so bots repeat inside
  a match. A cycle has B matches and each bot takes each seat once in it.

``matches`` that is not a multiple of the cycle plays whole cycles and then the start of the
next one. Because the rotations of one set (or the B shifts) are consecutive, a cut cycle still
gives each bot each seat equally often give or take one; what may differ is how many matches
each bot plays (a bot in the first sets of the cycle plays more).
"""

from __future__ import annotations

from itertools import combinations

LineUp = tuple[int, ...]
"""Bot indices by seat: ``lineup[seat]`` is the index of the bot playing that seat."""


def cycle(bots: int, players: int) -> list[LineUp]:
    """One cycle of line-ups of ``bots`` bots over ``players`` seats."""
    if bots < 1 or players < 1:
        raise ValueError("a tournament needs at least one bot and one seat")
    if bots < players:
        return [tuple((k + seat) % bots for seat in range(players)) for k in range(bots)]
    return [group[shift:] + group[:shift] for group in combinations(range(bots), players) for shift in range(players)]


def lineups(bots: int, players: int, matches: int) -> list[LineUp]:
    """The line-up of each of ``matches`` matches, cycle after cycle."""
    one_cycle = cycle(bots, players)
    return [one_cycle[k % len(one_cycle)] for k in range(matches)]
