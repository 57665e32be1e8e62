"""Properties of The Game under random legal play: the contract, determinism, no leaks."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine import EngineError, NotYourTurn, Rng
from service.engine.actions import is_listed
from service.games.the_game import GAME
from tests.support.contract import assert_replays, random_playout

OPTION_SETS = [
    {},
    {"professional": True},
    {"professional": True, "smaller_hands": True},
    {"on_fire": True},
    {"on_fire": True, "professional": True, "first_seat": 0},
]


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "+".join(o) or "base")
def test_random_play_ends_with_a_valid_outcome_and_replays(players: int, options: dict) -> None:
    for seed in range(3):
        playout = random_playout(GAME, players, options, seed=seed)
        assert_replays(GAME, playout)
        outcome = GAME.outcome(playout.state)
        assert outcome is not None
        assert outcome["scores"] == [outcome["detail"]["cards_left"]] * players
        assert outcome["winners"] in ([], list(range(players)))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(1, 5), fire=st.booleans())
def test_every_card_is_somewhere_exactly_once(seed: int, players: int, fire: bool) -> None:
    """Hands, draw pile and the cards laid always make up 2..99, one of each."""
    chooser = random.Random(seed)
    rng = Rng(seed.to_bytes(8, "big"))
    state = GAME.setup(players, GAME.resolve_options(players, {"on_fire": fire}), rng)
    while to_act := GAME.to_act(state):
        view = GAME.view(state, None)
        cards = state["deck"] + sum(state["hands"], []) + view["laid"]
        assert sorted(cards) == list(range(2, 100))
        assert sum(p["count"] for p in view["piles"]) == len(view["laid"])
        state, _ = GAME.apply(state, to_act[0], chooser.choice(GAME.legal_actions(state, to_act[0])), rng)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_views_and_events_never_show_another_hand_or_the_draw_order(players: int) -> None:
    chooser = random.Random(players)
    rng = Rng(b"leak")
    state = GAME.setup(players, GAME.resolve_options(players, {"on_fire": True}), rng)
    while to_act := GAME.to_act(state):
        for viewer in [None, *range(players)]:
            view = GAME.view(state, viewer)
            assert "deck" not in view and "hands" not in view
            assert view.get("hand") == (None if viewer is None else state["hands"][viewer])
            hidden = set(state["deck"]).union(*(h for s, h in enumerate(state["hands"]) if s != viewer))
            assert hidden.isdisjoint(view["laid"])
            assert view["draw_pile"] == len(state["deck"])
            assert view["hand_counts"] == [len(h) for h in state["hands"]]
        seat = to_act[0]
        state, events = GAME.apply(state, seat, chooser.choice(GAME.legal_actions(state, seat)), rng)
        for viewer in [None, *range(players)]:
            for event in GAME.visible_events(events, viewer):
                if event["type"] == "drew":
                    assert viewer == event["seat"], "drawn cards reach only the drawer"


def test_the_same_seed_deals_the_same_cards_and_another_seed_does_not() -> None:
    options = GAME.resolve_options(3, {})
    first = GAME.setup(3, options, Rng(b"a"))
    assert GAME.setup(3, options, Rng(b"a")) == first
    assert GAME.setup(3, options, Rng(b"b")) != first


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(1, 5), professional=st.booleans())
def test_the_quick_check_accepts_exactly_the_listed_moves(seed: int, players: int, professional: bool) -> None:
    """``check`` decides a card laid or a turn ended on that move alone: along random
    matches, it accepts every listed action and refuses every other candidate, as the
    listing does (lookalikes with ``true`` or ``17.0`` included)."""
    rng = random.Random(seed)
    state = GAME.setup(players, GAME.resolve_options(players, {"professional": professional}), Rng(f"{seed:064x}"))
    game_rng = Rng(f"{seed:064x}")
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_actions(state, seat)
        candidates = [*legal, {"type": "end_turn"}, {"type": "end_turn", "extra": 1}]
        for card in range(0, 102, 7):
            for pile in (-1, 0, 1, 2, 3, 4, True, 1.0):
                candidates.append({"type": "play", "card": card, "pile": pile})
        candidates += [
            {"type": "play", "card": float(a["card"]), "pile": a["pile"]} for a in legal if a["type"] == "play"
        ]
        for other in (s for s in range(players) if s != seat):
            candidates += [{"type": "end_turn", "seat": other}]
        for action in candidates:
            listed = is_listed(action, legal)
            try:
                GAME.check(state, seat, action)
                accepted = True
            except EngineError:
                accepted = False
            assert accepted == listed, action
        for other in (s for s in range(players) if s != seat):
            for action in legal[:3]:
                with pytest.raises(NotYourTurn):
                    GAME.check(state, other, action)
        state, _ = GAME.apply(state, seat, rng.choice(legal), game_rng)
