"""Seat rotation: every bot plays every seat equally often."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from service.arena.schedule import cycle, lineups


def seat_counts(plan: list[tuple[int, ...]]) -> Counter[tuple[int, int]]:
    """(bot, seat) → matches."""
    return Counter((bot, seat) for lineup in plan for seat, bot in enumerate(lineup))


@pytest.mark.parametrize(("bots", "players"), [(1, 1), (1, 3), (2, 2), (3, 2), (2, 4), (3, 3), (4, 2), (5, 4), (3, 7)])
def test_a_cycle_seats_every_bot_in_every_seat_equally(bots: int, players: int) -> None:
    one_cycle = cycle(bots, players)
    counts = seat_counts(one_cycle)
    assert len(set(counts.values())) == 1
    assert set(counts) == {(bot, seat) for bot in range(bots) for seat in range(players)}
    for k in (2, 3):
        assert seat_counts(lineups(bots, players, k * len(one_cycle))) == Counter(
            {key: k * value for key, value in counts.items()}
        )


def test_with_enough_bots_every_group_meets_and_nobody_plays_itself() -> None:
    plan = cycle(4, 2)
    assert len(plan) == 12
    assert {frozenset(lineup) for lineup in plan} == {frozenset(pair) for pair in combinations(range(4), 2)}
    assert all(len(set(lineup)) == 2 for lineup in plan)


@pytest.mark.parametrize(("bots", "players"), [(3, 2), (5, 4), (2, 4), (4, 3), (3, 5)])
def test_a_cut_cycle_keeps_each_bots_seats_within_one(bots: int, players: int) -> None:
    for matches in range(1, 2 * len(cycle(bots, players)) + 1):
        counts = seat_counts(lineups(bots, players, matches))
        for bot in range(bots):
            per_seat = [counts[(bot, seat)] for seat in range(players)]
            assert max(per_seat) - min(per_seat) <= 1, (matches, bot, per_seat)
