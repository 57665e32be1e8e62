"""How matches end: the 250 race with purposeful play mostly ends before round 12, and the
outcome says how each match ended."""

from __future__ import annotations

import random

import pytest

from service.bots.esploratore import EsploratoreBot
from service.engine import Rng
from service.games.esploratore import GAME
from service.games.esploratore import rules as R


def _race(players: int, seed: int) -> dict:
    rng = Rng(seed.to_bytes(32, "big"))
    chooser = random.Random(seed)
    bots = [EsploratoreBot() for _ in range(players)]
    state = GAME.setup(players, GAME.resolve_options(players, {"race_250": True}), rng)
    while to_act := GAME.to_act(state):
        seat = to_act[0]
        action = bots[seat].choose(GAME.view(state, seat), GAME.legal_actions(state, seat), chooser)
        state, _ = GAME.apply(state, seat, action, rng)
    return GAME.outcome(state)


@pytest.mark.parametrize("players", [2, 4])
def test_the_250_race_with_purposeful_play_mostly_ends_before_round_12(players: int) -> None:
    outcomes = [_race(players, seed) for seed in range(12)]
    early = [
        o for o in outcomes if o["detail"]["end_reason"] == "reached_250" and o["detail"]["rounds_played"] < R.ROUNDS
    ]
    assert len(early) >= 9, [(o["detail"]["end_reason"], o["detail"]["rounds_played"]) for o in outcomes]
    for o in early:
        winner = o["detail"]["race_winner"]
        assert o["winners"] == [winner] and o["scores"][winner] >= R.RACE_TARGET


def test_outcome_says_how_the_match_ended() -> None:
    from tests.support.contract import random_playout

    out = GAME.outcome(random_playout(GAME, 2, {}, seed=1, probe_illegal=False).state)
    assert out["detail"]["end_reason"] == "twelve_rounds" and out["detail"]["rounds_played"] == 12
    out = GAME.outcome(random_playout(GAME, 2, {"race_250": True}, seed=1, probe_illegal=False).state)
    assert out["detail"]["end_reason"] == "twelve_rounds" and out["detail"]["race_winner"] is None
