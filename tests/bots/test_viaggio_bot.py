"""The Viaggio bot: legal choices only, from its own view, finishing matches, beating random
play, quick decisions, and a descent of at least 8 moves per explorer when it plays itself."""

from __future__ import annotations

import copy
import random
import time
from statistics import mean

import pytest

from service.bots import RandomBot
from service.bots.registry import make_bot
from service.bots.viaggio import ViaggioBot
from service.engine import Rng
from service.games.viaggio import GAME
from tests.support.playout import play_out


def duel(seed: int, players: int = 2) -> bool:
    """One seeded match of the bot against random players, the bot's seat rotating with the
    seed: whether the bot is among the winners."""
    bot_seat = seed % players
    bots = [ViaggioBot() if s == bot_seat else RandomBot() for s in range(players)]
    outcome = play_out(GAME, bots, seed, max_decisions=5_000).outcome
    assert outcome["detail"]["end_reason"] in ("lava_last_space", "lava_no_space_ahead")
    return bot_seat in outcome["winners"]


def test_registered_as_the_games_heuristic_bot() -> None:
    assert isinstance(make_bot(GAME.id, "heuristic"), ViaggioBot)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_only_legal_choices_and_every_match_ends(players: int) -> None:
    for seed in range(2):
        duel(seed, players)


def test_it_decides_from_its_view_only() -> None:
    """Two states that differ only in what the seat cannot see get the same choice."""
    state = GAME.setup(3, {}, Rng(b"view-only"))
    twin = GAME.setup(3, {}, Rng(b"view-only"))
    twin["hands"][1], twin["hands"][2] = twin["hands"][2], twin["hands"][1]
    twin["decks"]["explorer"].reverse()
    assert GAME.view(state, 0) == GAME.view(twin, 0)
    choice = ViaggioBot().choose(GAME.view(state, 0), GAME.legal_actions(state, 0), random.Random(0))
    assert choice == ViaggioBot().choose(GAME.view(twin, 0), GAME.legal_actions(twin, 0), random.Random(0))


def test_with_nothing_left_to_draw_it_moves_or_passes() -> None:
    """A turn where the bot would rather draw than move (seed 3's first), replayed with both
    decks and their discards empty and no equipment on display: the turn offers its moves and
    ``pass``, and the bot weighs its moves against passing, not against a draw it cannot make;
    asked with the pass withheld, as the search asks, it names a move."""
    drawn_instead: list[dict] = []

    def watch(state: dict, seat: int, legal: list[dict], action: dict, events: list[dict]) -> None:
        if not drawn_instead and action["type"] == "draw" and any(a["type"] == "choose" for a in legal):
            drawn_instead.append(copy.deepcopy(state))

    play_out(GAME, [ViaggioBot(), ViaggioBot()], 3, on_move=watch)
    state = drawn_instead[0]
    state["decks"]["explorer"], state["decks"]["equipment"] = [], []
    state["discards"] = {kind: dict.fromkeys(pile, 0) for kind, pile in state["discards"].items()}
    state["display"] = []
    seat = GAME.to_act(state)[0]
    view, legal = GAME.view(state, seat), GAME.legal_actions(state, seat)
    assert {"type": "pass"} in legal and not any(a["type"] == "draw" for a in legal)
    assert ViaggioBot().choose(view, legal, random.Random(0)) in legal
    moves = [a for a in legal if a["type"] == "choose"]
    assert ViaggioBot().choose(view, moves, random.Random(0)) in moves


def test_beats_the_random_bot_in_most_two_player_matches() -> None:
    wins = sum(duel(seed) for seed in range(40))
    assert wins >= 34, f"{wins}/40"


def test_decisions_are_quick() -> None:
    state = GAME.setup(4, {}, Rng(b"quick"))
    chooser = random.Random(0)
    bots = [ViaggioBot() for _ in range(4)]
    spent, count = 0.0, 0
    while (to_act := GAME.to_act(state)) and count < 1500:
        seat = to_act[0]
        view, legal = GAME.view(state, seat), GAME.legal_actions(state, seat)
        start = time.perf_counter()
        action = bots[seat].choose(view, legal, chooser)
        spent += time.perf_counter() - start
        count += 1
        state, _ = GAME.apply(state, seat, action, Rng(b"quick", count))
    assert spent / count < 0.01


def test_the_descent_takes_it_at_least_eight_moves_per_explorer() -> None:
    """Issue 13: purposeful play must need 8-12 moves of each explorer in phase 1."""
    per_explorer = []
    for seed in range(6):
        bots = [ViaggioBot(), ViaggioBot()]
        rng = Rng(seed.to_bytes(32, "big"))
        chooser = random.Random(seed)
        state = GAME.setup(2, {}, rng)
        moves = 0
        while state["phase"] == 1:
            seat = GAME.to_act(state)[0]
            action = bots[seat].choose(GAME.view(state, seat), GAME.legal_actions(state, seat), chooser)
            state, events = GAME.apply(state, seat, action, rng)
            moves += sum(e["type"] == "moved" for e in events)
        per_explorer.append(moves / 3)
    assert 8 <= mean(per_explorer) <= 12
