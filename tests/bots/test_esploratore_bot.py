"""The Esploratore bot: only legal choices, finishes every variant and player count, beats the
random bot, and is registered as the game's heuristic bot. It is handed only a seat's view."""

from __future__ import annotations

import pytest

from service.bots import RandomBot
from service.bots.esploratore import EsploratoreBot
from service.bots.registry import make_bot
from service.games.esploratore import GAME
from tests.support.playout import play_out

OPTIONS = [
    {},
    {"beginners": True},
    {"race_250": True},
    {"upkeep": True},
    {"beginners": True, "race_250": True, "upkeep": True, "hidden_totals": True},
]


def play(players: int, bots: list, seed: int, options: dict | None = None) -> dict:
    """The outcome of one seeded match; every choice is checked against the legal list."""
    assert len(bots) == players
    return play_out(GAME, bots, seed, options).outcome


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "+".join(o) or "standard")
@pytest.mark.parametrize("players", [2, 4, 7])
def test_bot_chooses_only_legal_actions_and_finishes(players: int, options: dict) -> None:
    play(players, [EsploratoreBot() for _ in range(players)], seed=players, options=options)


def test_registered_as_the_heuristic_bot() -> None:
    assert isinstance(make_bot("esploratore", "heuristic"), EsploratoreBot)


def test_bot_beats_the_random_bot() -> None:
    wins = 0
    matches = 40
    for seed in range(matches):
        seats = [EsploratoreBot(), RandomBot()] if seed % 2 == 0 else [RandomBot(), EsploratoreBot()]
        bot_seat = seed % 2
        wins += bot_seat in play(2, seats, seed)["winners"]
    assert wins >= 0.85 * matches
