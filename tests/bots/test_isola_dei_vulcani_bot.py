"""The heuristic bot of L'Isola dei Vulcani: legal choices from its view only, finished
matches on both set-ups, and far stronger than the random bot."""

from __future__ import annotations

import pytest

from service.bots import RandomBot
from service.bots.isola_dei_vulcani import IsolaDeiVulcaniBot
from service.bots.registry import make_bot
from service.games.isola_dei_vulcani import GAME
from tests.support.playout import play_out


def play(bots, seed: int, setup: str = "standard") -> dict:
    """The final state of a seeded match; every choice is made from a JSON copy of the seat's
    view and must be one of the legal actions."""
    return play_out(
        GAME, bots, seed, {"setup": setup}, seed_bytes=8, random_seat=True, json_view=True, max_decisions=5_000
    ).state


def test_registered_as_the_games_heuristic_bot():
    assert isinstance(make_bot("isola-dei-vulcani", "heuristic"), IsolaDeiVulcaniBot)


@pytest.mark.parametrize("setup", ["standard", "advanced"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_chooses_only_legal_actions_and_finishes(players, setup):
    lineup = [IsolaDeiVulcaniBot()] * (players - 1) + [RandomBot()]
    state = play(lineup, seed=players, setup=setup)
    assert GAME.outcome(state) is not None


def test_wins_most_two_player_matches_against_random():
    wins = 0
    for seed in range(40):
        bots = [IsolaDeiVulcaniBot(), RandomBot()] if seed % 2 else [RandomBot(), IsolaDeiVulcaniBot()]
        seat = 0 if seed % 2 else 1
        wins += seat in GAME.outcome(play(bots, seed))["winners"]
    assert wins >= 34, f"{wins}/40"
