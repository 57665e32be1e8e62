"""'Dopo aver guardato le carte, i giocatori si accordano su chi inizia': the seats agree on the
starter after the deal, in public, in a negotiation that always ends."""

from __future__ import annotations

import random

import pytest

from service.engine import IllegalAction, InvalidOptions, Rng
from service.games.the_game import GAME

RNG = Rng(b"who starts")


def dealt(players: int, **options: object) -> dict:
    return GAME.setup(players, GAME.resolve_options(players, options), Rng(b"deal"))


def say(state: dict, seat: int, action: dict) -> list[dict]:
    _, events = GAME.apply(state, seat, action, RNG)
    return events


def refused(state: dict, seat: int, action: dict) -> str:
    before = repr(state)
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, action, RNG)
    assert repr(state) == before
    return info.value.code


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_after_the_deal_the_seats_look_at_their_cards_and_seat_0_opens_the_talk(players: int) -> None:
    state = dealt(players)
    assert GAME.to_act(state) == [0]
    assert GAME.legal_actions(state, 0) == [{"type": "propose_starter", "seat": s} for s in range(players)]
    view = GAME.view(state, 1)
    assert len(view["hand"]) == GAME.view(state, 1)["hand_counts"][1] > 0, "the cards are dealt and looked at"
    assert view["turn"] is None and view["played_this_turn"] == 0
    assert view["starter_agreement"] == {
        "speaker": 0,
        "proposal": None,
        "proposer": None,
        "accepted": [],
        "proposed": [],
    }
    assert refused(state, 0, {"type": "play", "card": state["hands"][0][0], "pile": 0}) == "starter_not_agreed"
    assert refused(state, 0, {"type": "end_turn"}) == "starter_not_agreed"
    assert refused(state, 0, {"type": "accept_starter"}) == "nothing_to_accept"


def test_a_counter_proposal_replaces_the_one_on_the_table_and_wins_when_all_accept() -> None:
    state = dealt(3)
    assert say(state, 0, {"type": "propose_starter", "seat": 2}) == [
        {"type": "starter_proposed", "seat": 0, "starter": 2}
    ]
    assert GAME.to_act(state) == [1]
    assert {"type": "accept_starter"} in GAME.legal_actions(state, 1)
    assert refused(state, 1, {"type": "propose_starter", "seat": 2}) == "already_proposed"
    say(state, 1, {"type": "propose_starter", "seat": 1})
    assert state["agreement"]["accepted"] == [1], "a new proposal clears the acceptances"
    say(state, 2, {"type": "accept_starter"})
    assert GAME.to_act(state) == [0], "seat 0 has not agreed to the new proposal"
    assert GAME.legal_actions(state, 0) == [{"type": "accept_starter"}], "seat 0 used its one proposal"
    assert refused(state, 0, {"type": "propose_starter", "seat": 0}) == "proposal_used"
    events = say(state, 0, {"type": "accept_starter"})
    assert {"type": "starter_agreed", "starter": 1} in events
    assert events[-1] == {"type": "turn_started", "seat": 1, "minimum": 2}
    assert GAME.to_act(state) == [1] and GAME.view(state, None)["turn"] == 1
    assert GAME.view(state, None)["starter_agreement"] is None
    assert {a["type"] for a in GAME.legal_actions(state, 1)} == {"play"}
    assert refused(state, 1, {"type": "accept_starter"}) == "starter_already_agreed"
    play = GAME.legal_actions(state, 1)[0]
    say(state, 1, play)
    say(state, 1, next(a for a in GAME.legal_actions(state, 1) if a["type"] == "play"))
    say(state, 1, {"type": "end_turn"})
    assert GAME.to_act(state) == [2], "then play goes on in seat order from the starter"


def test_a_proposal_of_the_speaker_itself_and_of_a_seat_not_at_the_table() -> None:
    state = dealt(2)
    assert refused(state, 0, {"type": "propose_starter", "seat": 2}) == "no_such_seat"
    assert refused(state, 0, {"type": "propose_starter", "seat": True}) == "bad_action"
    say(state, 0, {"type": "propose_starter", "seat": 0})
    events = say(state, 1, {"type": "accept_starter"})
    assert GAME.to_act(state) == [0] and {"type": "starter_agreed", "starter": 0} in events


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_uniformly_random_talk_always_ends_within_players_squared_actions(players: int) -> None:
    starters = set()
    for seed in range(150):
        chooser = random.Random(seed)
        state = dealt(players)
        said = 0
        while state["agreement"] is not None:
            seat = GAME.to_act(state)[0]
            say(state, seat, chooser.choice(GAME.legal_actions(state, seat)))
            said += 1
            assert said <= players * players
        starters.add(state["turn"])
        assert GAME.to_act(state) == [state["turn"]] or state["over"]
    assert starters == set(range(players)), "any seat can end up starting"


def test_the_talk_is_public() -> None:
    state = dealt(4)
    chooser = random.Random(4)
    while state["agreement"] is not None:
        views = [GAME.view(state, viewer) for viewer in (None, 0, 1, 2, 3)]
        assert all(v["starter_agreement"] == views[0]["starter_agreement"] for v in views)
        seat = GAME.to_act(state)[0]
        events = say(state, seat, chooser.choice(GAME.legal_actions(state, seat)))
        assert all("to" not in e for e in events)
        assert GAME.redact_action({"type": "accept_starter"}, seat, None) == {"type": "accept_starter"}


def test_solo_there_is_nothing_to_agree() -> None:
    state = dealt(1)
    assert GAME.view(state, 0)["starter_agreement"] is None
    assert GAME.to_act(state) == [0] and {a["type"] for a in GAME.legal_actions(state, 0)} == {"play"}


def test_first_seat_skips_the_talk_as_an_explicit_opt_in() -> None:
    assert GAME.resolve_options(3, {})["first_seat"] == "agree"
    state = dealt(3, first_seat=2)
    assert state["agreement"] is None and GAME.to_act(state) == [2]
    assert {a["type"] for a in GAME.legal_actions(state, 2)} == {"play"}
    for bad in (3, 5, -1, "0", True, None):
        with pytest.raises(InvalidOptions):
            GAME.resolve_options(3, {"first_seat": bad})
