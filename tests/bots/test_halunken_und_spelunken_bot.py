"""The Halunken und Spelunken bot: legal choices from its seat's view only, finished matches,
and a clear edge over the random bot in the two-player game."""

from __future__ import annotations

import random
import time

import pytest

from service.bots import RandomBot
from service.bots.halunken_und_spelunken import HalunkenBot, gain, loss
from service.bots.registry import make_bot
from service.engine import Rng
from service.games.halunken_und_spelunken import GAME
from tests.support.playout import play_out


def duel(players: int, seed: int, variant: str | None = None) -> tuple[int, dict, int]:
    """One seeded match, the bot on seat ``seed % players`` and random bots elsewhere:
    ``(bot seat, outcome, bot decisions)``; every choice is checked against the legal list."""
    hero = seed % players
    bots = [HalunkenBot() if s == hero else RandomBot() for s in range(players)]
    options = {} if variant is None else {"variant": variant}
    played = play_out(GAME, bots, seed, options, random_seat=True)
    return hero, played.outcome, played.decisions[hero]


@pytest.mark.parametrize(
    "players,variant", [(2, None), (3, "standard"), (4, "standard"), (3, "introductory"), (4, "introductory")]
)
def test_only_legal_choices_and_every_match_finishes(players: int, variant: str | None) -> None:
    for seed in range(3):
        _, outcome, decisions = duel(players, seed, variant)
        assert outcome is not None and outcome["detail"]["end_reason"] == "eight_rounds_played"
        assert decisions >= 8


def test_it_beats_the_random_bot_in_two_player_matches() -> None:
    started = time.perf_counter()
    results = [duel(2, seed) for seed in range(40)]
    wins = sum(1 for hero, outcome, _ in results if hero in outcome["winners"])
    assert wins >= 34, f"{wins}/40"
    decisions = sum(d for _, _, d in results)
    assert (time.perf_counter() - started) / decisions < 0.02, "well under 10 ms a decision on a quiet machine"


def test_it_is_registered_as_the_games_heuristic_bot() -> None:
    assert isinstance(make_bot("halunken-und-spelunken", "heuristic"), HalunkenBot)


def test_card_worth_follows_the_scoring() -> None:
    mine = ["green-2", "green-3", "red-15"]
    assert gain(mine, "green-4") == 8, "green is the majority colour: doubled"
    assert gain(mine, "yellow-4") == 4
    assert loss(mine, "red-15") == 15
    assert loss(mine, "green-3") == -7, "without it the colours tie and the red 15 is doubled"


def first_decision(kind: str, seeds: range) -> tuple[dict, int, list[dict]]:
    """Seeded random play until some seat owes a decision of ``kind``: (view, seat, legal)."""
    for seed in seeds:
        rng = Rng(seed.to_bytes(32, "big"))
        chooser = random.Random(seed)
        players = 2 + seed % 3
        state = GAME.setup(players, GAME.resolve_options(players, {}), rng)
        while to_act := GAME.to_act(state):
            seat = chooser.choice(to_act)
            legal = GAME.legal_actions(state, seat)
            if any(a["type"] == kind for a in legal):
                return GAME.view(state, seat), seat, legal
            state, _ = GAME.apply(state, seat, chooser.choice(legal), rng)
    raise AssertionError(f"no {kind} decision")


def test_it_steals_the_card_worth_most_to_it_and_the_victim_together() -> None:
    view, seat, legal = first_decision("steal", range(100))
    choice = HalunkenBot().choose(view, legal, random.Random(0))
    victim = view["pending"]["victim"]
    mine, theirs = view["collections"][seat], view["collections"][victim]
    best = max(gain(mine, c) + loss(theirs, c) for c in theirs)
    assert choice["type"] == "steal" and gain(mine, choice["card"]) + loss(theirs, choice["card"]) == best


def test_it_gives_away_the_card_it_misses_least() -> None:
    view, seat, legal = first_decision("give", range(200))
    choice = HalunkenBot().choose(view, legal, random.Random(0))
    mine = view["collections"][seat]
    assert loss(mine, choice["card"]) == min(loss(mine, c) for c in mine)


def test_it_moves_black_jack_aside_to_the_space_that_keeps_it_farther_from_passing_its_captain() -> None:
    view, seat, legal = first_decision("move_black_jack", range(200))
    choice = HalunkenBot().choose(view, legal, random.Random(0))
    mine = view["captains"][seat]
    ahead = {a["space"]: (a["space"] - mine) % 14 for a in legal}
    assert ahead[choice["space"]] == min(ahead.values())


CARD_VALUES = 15
"""Pirate cards carry the values 1-15: an auction whose every bid tops the last has at most 15."""

SELF_PLAY_SEEDS = {2: 60, 3: 4, 4: 4}
"""Heuristic self-play matches per player count: few at three and four players, where a match
takes about a second (the auction looks ahead) and the engine already makes every bid top the
last; many at two, where the bot alone keeps the auction finite."""


def decision_bound(players: int) -> int:
    """The most decisions a match can take when no auction holds more than ``CARD_VALUES`` bids:
    placing the pieces (``players + 1``), then per round the auction (the bids and one pass per
    seat), a movement card per seat and Black Jack's (two-player), a Rum's value, and for each
    captain's landing a theft, a harbour card and Black Jack's step aside, and for Black Jack's
    own move one theft or gift per captain."""
    per_round = CARD_VALUES + players + (players + 1) + 1 + 3 * players + players
    return players + 1 + 8 * per_round


@pytest.mark.parametrize("players", sorted(SELF_PLAY_SEEDS))
def test_heuristic_self_play_auctions_end(players: int) -> None:
    """Two heuristic bots could match each other's two-player bid for ever (the rulebook allows
    equal bids until one passes); the bot raises or passes, so every bid tops the last."""
    bids: dict[int, int] = {}

    def count_bids(before: dict, seat: int, legal: list[dict], action: dict, events: list[dict]) -> None:
        if action["type"] == "bid":
            bids[before["round"]] = bids.get(before["round"], 0) + 1

    for seed in range(SELF_PLAY_SEEDS[players]):
        bids.clear()
        bots = [HalunkenBot() for _ in range(players)]
        played = play_out(GAME, bots, seed, max_decisions=decision_bound(players) + 1, on_move=count_bids)
        assert played.outcome["detail"]["end_reason"] == "eight_rounds_played"
        assert max(bids.values(), default=0) <= CARD_VALUES, (seed, bids)
