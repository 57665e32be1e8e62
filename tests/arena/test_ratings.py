"""Glicko-2 against the worked example of Glickman's paper, and how matches become games."""

from __future__ import annotations

import pytest

from service.arena.ratings import Game, Rating, pairwise_games, rate_period, update


def test_glickman_worked_example() -> None:
    """ "Example of the Glicko-2 system", section 3: a 1500/200/0.06 player beats 1400/30 and
    loses to 1550/100 and 1700/300 in one rating period."""
    player = Rating(1500, 200, 0.06)
    after = update(player, [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)])
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = update(Rating(1500, 200, 0.06), [])
    assert after.rating == 1500
    assert after.rd == pytest.approx((200**2 + (0.06 * 173.7178) ** 2) ** 0.5)


def test_the_interval_is_rating_plus_minus_1_96_rd() -> None:
    assert Rating(1600, 50).interval() == pytest.approx((1502, 1698))


def test_ranks_become_pairwise_games_with_ties_as_draws_and_no_self_play() -> None:
    games = pairwise_games(["a", "b", "c", "a"], [2, 1, 2, 4])
    assert games == [
        Game("a", "b", 0.0),
        Game("a", "c", 0.5),
        Game("b", "c", 1.0),
        Game("b", "a", 1.0),
        Game("c", "a", 1.0),
    ]


def test_a_period_rates_everyone_against_the_ratings_it_started_with() -> None:
    """Order inside a period does not matter, and the winner gains what the loser loses when
    both started alike."""
    games = [Game("a", "b", 1.0), Game("b", "c", 1.0), Game("a", "c", 0.5)]
    one = rate_period({}, games)
    other = rate_period({}, list(reversed(games)))
    assert one == other
    assert one["a"].rating > one["b"].rating > one["c"].rating
    duel = rate_period({}, [Game("x", "y", 1.0)])
    assert duel["x"].rating - 1500 == pytest.approx(1500 - duel["y"].rating)
