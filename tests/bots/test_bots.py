"""The reference bots: they only ever choose legal actions, finish matches, and the heuristic
bot for The Game plays far better than chance and finds a winning endgame order."""

from __future__ import annotations

import random

import pytest

from service.bots import RandomBot
from service.bots.the_game import TheGameBot
from service.engine import Rng
from service.games import games
from service.games.the_game import GAME as THE_GAME
from tests.support.playout import play_out as shared_play_out


def play_out(game_id: str, players: int, bot, seed: int, options: dict | None = None) -> dict:
    """The final state of a seeded match in which ``bot`` plays every seat."""
    return shared_play_out(games()[game_id], [bot] * players, seed, options, seed_bytes=8, random_seat=True).state


@pytest.mark.parametrize("game_id", sorted(games()))
def test_the_random_bot_finishes_every_game(game_id: str) -> None:
    game = games()[game_id]
    state = play_out(game_id, game.min_players if game.min_players > 1 else 2, RandomBot(), seed=1)
    assert game.outcome(state) is not None


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("options", [{}, {"professional": True}, {"on_fire": True}])
def test_the_game_bot_chooses_only_legal_actions_and_finishes(players: int, options: dict) -> None:
    state = play_out("the-game", players, TheGameBot(), seed=players, options=options)
    assert THE_GAME.outcome(state) is not None


def test_the_game_bot_plays_far_better_than_random() -> None:
    def mean_left(bot) -> float:
        left = [THE_GAME.outcome(play_out("the-game", 2, bot, seed))["detail"]["cards_left"] for seed in range(12)]
        return sum(left) / len(left)

    assert mean_left(RandomBot()) > 70
    assert mean_left(TheGameBot()) < 15


def test_the_endgame_search_finds_the_one_order_that_lays_every_card() -> None:
    """Last hand, empty draw pile: 40 must go first (backwards on 50), then 45, 49, 60; any
    other start strands a card. The search takes that order, one play at a time."""
    state = THE_GAME.setup(1, THE_GAME.resolve_options(1, {}), Rng(b"endgame"))
    state["deck"] = []
    state["hands"] = [[40, 45, 49, 60]]
    for pile, top in zip(state["piles"], (50, 99, 2, 2), strict=True):
        pile["top"] = top
    bot = TheGameBot()
    while THE_GAME.to_act(state):
        action = bot.choose(THE_GAME.view(state, 0), THE_GAME.legal_actions(state, 0), random.Random(0))
        state, _ = THE_GAME.apply(state, 0, action, Rng(b"x"))
    assert THE_GAME.outcome(state)["detail"]["won"]


def test_the_game_bot_takes_part_in_agreeing_who_starts_from_its_own_hand() -> None:
    """It proposes itself when its own opening is cheap, else the next seat; it accepts a
    proposal unless its opening is cheap enough to claim the start with its one proposal."""
    bot = TheGameBot()
    claimed = 0
    for seed in range(30):
        state = THE_GAME.setup(3, THE_GAME.resolve_options(3, {}), Rng(seed.to_bytes(8, "big")))
        costs = [bot.opening_cost(THE_GAME.view(state, seat)) for seat in range(3)]
        first = bot.choose(THE_GAME.view(state, 0), THE_GAME.legal_actions(state, 0), random.Random(0))
        assert first == {"type": "propose_starter", "seat": 0 if costs[0] <= bot.good_opening else 1}
        said = 1
        state, _ = THE_GAME.apply(state, 0, first, Rng(b"x"))
        while state["agreement"] is not None:
            seat = THE_GAME.to_act(state)[0]
            action = bot.choose(THE_GAME.view(state, seat), THE_GAME.legal_actions(state, seat), random.Random(0))
            if action["type"] == "propose_starter":
                assert action["seat"] == seat and costs[seat] <= bot.claim_opening
                claimed += 1
            state, _ = THE_GAME.apply(state, seat, action, Rng(b"x"))
            said += 1
        assert said <= 9
        cheap = [s for s in range(3) if costs[s] <= bot.claim_opening]
        if cheap:
            assert costs[state["turn"]] <= bot.claim_opening, "a seat with a cheap opening starts"
    assert claimed, "some seat claimed the start over another proposal"


@pytest.mark.parametrize("game_id", sorted(games()))
def test_every_game_has_a_random_bot_and_its_heuristic_one_by_name(game_id: str) -> None:
    from service.bots.registry import HEURISTIC_BOTS, make_bot

    game = games()[game_id]
    players = max(2, game.min_players)
    names = ["random", "heuristic"] if game_id in HEURISTIC_BOTS else ["random"]
    for name in names:
        state = play_out(game_id, players, make_bot(game_id, name), seed=3)
        assert game.outcome(state) is not None
    with pytest.raises(KeyError):
        make_bot(game_id, "no-such-bot")
