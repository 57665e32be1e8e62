"""The beginners' variant: every card may be played upside down, wild cards included. Each
situation is played up to through the public contract, then checked."""

from __future__ import annotations

import random

from service.engine import Rng
from service.games.esploratore import GAME
from service.games.esploratore import rules as R

from .reach import reach


def test_beginners_play_wild_cards_upside_down_too() -> None:
    def wild_in_play(state: dict, seat: int, legal: list[dict]) -> bool:
        return any(a["type"] == "play" and R.CARDS[a["card"]].wild for a in legal)

    r = reach(wild_in_play, players=3, options={"beginners": True}, randomness=0.5)
    wild_plays = [a for a in r.legal if a["type"] == "play" and R.CARDS[a["card"]].wild]
    flips = {(a["card"], a["position"]): set() for a in wild_plays}
    for a in wild_plays:
        flips[(a["card"], a["position"])].add(a["flip"])
    assert all(f == {False, True} for f in flips.values())
    play = next(a for a in wild_plays if a["flip"])
    card = R.CARDS[play["card"]]
    r.act(play)
    top = GAME.view(r.state, None)["positions"][R.POS_INDEX[play["position"]]]["top"]
    assert top["flip"] is True
    assert top["meeting"] == sorted(R.NLINES - 1 - ln for ln in R.bits(card.meet))


def test_every_card_played_in_the_beginners_variant_may_go_upside_down() -> None:
    chooser = random.Random(5)
    rng = Rng(b"beginners-flip")
    state = GAME.setup(4, GAME.resolve_options(4, {"beginners": True}), rng)
    checked = 0
    while to_act := GAME.to_act(state):
        legal = GAME.legal_actions(state, to_act[0])
        empty = {R.POSITIONS[p] for p in range(R.NPOS)} - {R.POSITIONS[v["pos"]] for v in state["vehicles"]}
        # where no vehicle's orbit must be kept, each card goes either way up
        plays = {(a["card"], a["position"], a["flip"]) for a in legal if a["type"] == "play" and a["position"] in empty}
        assert plays == {(c, p, f) for c, p, _ in plays for f in (False, True)}
        checked += len(plays)
        state, _ = GAME.apply(state, to_act[0], chooser.choice(legal), rng)
    assert checked > 100
