"""Halunken und Spelunken: the rulebook's examples and rules as scenarios, options, contract, leaks."""

from __future__ import annotations

import copy
import random
from typing import Any

import orjson
import pytest

from service.engine import IllegalAction, InvalidOptions, NotYourTurn, Rng
from service.games.halunken_und_spelunken import GAME
from service.games.halunken_und_spelunken.engine import score_collection
from tests.support.contract import assert_replays, random_playout

VARIANTS = [(2, "two-player"), (3, "introductory"), (3, "standard"), (4, "introductory"), (4, "standard")]


def act(state: dict[str, Any], seat: int, action: dict[str, Any]) -> list[dict[str, Any]]:
    new, events = GAME.apply(state, seat, action, Rng(b"test"))
    assert new is state
    return events


def crafted(
    variant: str,
    pos: list[int],
    collections: list[list[str]],
    *,
    bj: int | None = None,
    controller: int | None = None,
    harbour: list[str] | None = None,
    bj_deck: list[Any] | None = None,
    round_: int = 1,
) -> dict[str, Any]:
    """A state in the movement-choice phase of a round, with chosen pieces and cards.

    Every tavern holds one distinct card ``<colour>-<space+100>`` so taken cards are easy to
    recognise (values do not matter for these rules).
    """
    players = len(pos)
    state = GAME.setup(players, GAME.resolve_options(players, {"variant": variant}), Rng(b"crafted"))
    state.update(
        phase="choose",
        round=round_,
        placer=None,
        taverns_open=True,
        taverns=[[f"yellow-{100 + s}", f"red-{200 + s}"] for s in range(14)],
        captains=list(pos),
        black_jack=bj,
        collections=[list(c) for c in collections],
        start_cards=[c[0] if c else "red-4" for c in collections],
        controller=controller,
        last_controller=controller,
        harbour=list(harbour or []),
        auction=None,
    )
    if bj_deck is not None:
        state["black_jack_deck"] = list(bj_deck)
    return state


def play_all(state: dict[str, Any], cards: dict[int, Any], bj_card: Any = None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    if bj_card is not None:
        events += act(state, state["controller"], {"type": "play_black_jack", "card": bj_card})
    for seat, card in cards.items():
        events += act(state, seat, {"type": "play", "card": card})
    return events


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


# -- scoring (the rulebook's example and its tie rule) -------------------------------------


def test_scoring_example_majority_colour_is_doubled() -> None:
    """3 purple, 2 yellow, 5 green: the green cards are doubled."""
    cards = [
        "purple-3",
        "purple-4",
        "purple-5",
        "yellow-1",
        "yellow-2",
        "green-2",
        "green-3",
        "green-4",
        "green-5",
        "green-6",
    ]
    result = score_collection(cards)
    assert result["doubled_colour"] == "green"
    assert result["face_value"] == 12 + 3 + 20
    assert result["score"] == 12 + 3 + 20 * 2


def test_scoring_tie_the_player_doubles_the_better_colour() -> None:
    result = score_collection(["red-15", "yellow-1", "yellow-2", "red-4"])
    assert result["doubled_colour"] == "red" and result["score"] == 22 + 19


def test_scoring_a_single_card_is_doubled_too() -> None:
    assert score_collection(["purple-14"])["score"] == 28
    assert score_collection([])["score"] == 0


# -- set-up ------------------------------------------------------------------------------


def test_setup_deck_taverns_and_hidden_tops() -> None:
    state = GAME.setup(3, GAME.resolve_options(3, {}), Rng(b"s"))
    cards = [c for t in state["taverns"] for c in t]
    assert len(cards) == 42 and len(set(cards)) == 42 and all(len(t) == 3 for t in state["taverns"])
    colours = {c: sum(1 for x in cards if x.startswith(c + "-")) for c in ("red", "purple", "green", "yellow")}
    assert colours == {"red": 9, "purple": 10, "green": 11, "yellow": 12}
    view = GAME.view(state, 0)
    assert all(t["top"] is None for t in view["taverns"]), "taverns are face down while captains are placed"
    assert len(state["black_jack_deck"]) == 12


def test_setup_placement_start_cards_black_jack_and_auction_starter() -> None:
    state = GAME.setup(3, GAME.resolve_options(3, {"variant": "standard"}), Rng(b"s"))
    state["taverns"][0][0] = "yellow-7"
    state["taverns"][1][0] = "green-7"
    state["taverns"][2][0] = "red-7"
    assert GAME.to_act(state) == [0]
    act(state, 0, {"type": "place_captain", "space": 0})
    with pytest.raises(IllegalAction):
        act(state, 1, {"type": "place_captain", "space": 0})
    act(state, 1, {"type": "place_captain", "space": 1})
    act(state, 2, {"type": "place_captain", "space": 2})
    assert state["collections"] == [["yellow-7"], ["green-7"], ["red-7"]]
    # all sevens: colour breaks ties (yellow > green > purple > red) for the lowest and the highest
    assert state["phase"] == "place_black_jack" and GAME.to_act(state) == [2]
    assert all(t["top"] is not None for t in GAME.view(state, 0)["taverns"])
    assert {"type": "place_black_jack", "space": 1} not in GAME.legal_actions(state, 2)
    act(state, 2, {"type": "place_black_jack", "space": 5})
    assert state["black_jack"] == 5 and state["phase"] == "auction" and GAME.to_act(state) == [0]


def test_introductory_game_has_no_black_jack_and_no_auction() -> None:
    state = GAME.setup(3, GAME.resolve_options(3, {"variant": "introductory"}), Rng(b"s"))
    for seat in range(3):
        act(state, seat, {"type": "place_captain", "space": seat * 3})
    assert state["phase"] == "choose" and state["black_jack"] is None and state["black_jack_deck"] == []
    assert GAME.to_act(state) == [0, 1, 2]
    assert "black_jack_deck" not in GAME.view(state, 0)


# -- movement: secret choice, reveal, Rum, cancelling, order --------------------------------


def test_secret_choice_only_shows_who_committed() -> None:
    state = crafted("introductory", [0, 4, 8], [["red-4"], ["red-5"], ["red-6"]])
    act(state, 1, {"type": "play", "card": 5})
    assert GAME.to_act(state) == [0, 2]
    for viewer in (None, 0, 2):
        view = GAME.view(state, viewer)
        assert view["committed"] == [False, True, False]
        assert 5 not in view["played"][1] and view["hand_sizes"][1] == 8
        assert "5" not in orjson.dumps(view.get("my_commit")).decode()
    assert GAME.view(state, 1)["my_commit"] == 5
    with pytest.raises(NotYourTurn):
        act(state, 1, {"type": "play", "card": 6})
    assert GAME.redact_action({"type": "play", "card": 5}, 1, 0) == {"type": "play", "card": None}
    assert GAME.redact_action({"type": "play", "card": 5}, 1, None) == {"type": "play", "card": None}
    assert GAME.redact_action({"type": "play", "card": 5}, 1, 1) == {"type": "play", "card": 5}


def test_lowest_card_moves_first_and_takes_the_tavern_card() -> None:
    state = crafted("introductory", [0, 4, 8], [["red-4"], ["red-5"], ["red-6"]])
    events = play_all(state, {0: 3, 1: 1, 2: 2})
    moved = of_type(events, "captain_moved")
    assert [e["seat"] for e in moved] == [1, 2, 0]
    assert state["captains"] == [3, 5, 10]
    assert state["collections"][1] == ["red-5", "yellow-105"]
    assert state["taverns"][5] == ["red-205"], "the next card of the tavern is turned face up"
    assert state["played"] == [[3], [1], [2]] and 3 not in state["hands"][0]
    assert state["round"] == 2 and state["phase"] == "choose"


def test_equal_cards_cancel_and_those_captains_stay_and_take_first() -> None:
    state = crafted("introductory", [0, 4, 8, 11], [["red-4"], ["red-5"], ["red-6"], ["red-7"]])
    events = play_all(state, {0: 2, 1: 2, 2: "rum", 3: "rum"})
    assert set(of_type(events, "revealed")[0]["cancelled"]) == {"0", "1", "2", "3"}
    stays = of_type(events, "stayed")
    assert [e["seat"] for e in stays] == [0, 1, 2, 3]
    assert state["captains"] == [0, 4, 8, 11]
    assert state["collections"][0] == ["red-4", "yellow-100"]
    first_take = next(i for i, e in enumerate(events) if e["type"] == "took_tavern_card")
    assert first_take > next(i for i, e in enumerate(events) if e["type"] == "revealed")


def test_stayers_take_before_the_movers() -> None:
    state = crafted("introductory", [0, 4, 8], [["red-4"], ["red-5"], ["red-6"]])
    events = play_all(state, {0: 4, 1: 6, 2: 6})
    takes = of_type(events, "took_tavern_card")
    assert [e["seat"] for e in takes] == [1, 2, 0]
    # the mover lands on seat 1's space after seat 1 took its card: it gets the second card
    assert state["collections"][0][1] == "red-204"


def test_rum_takes_a_value_no_opponent_revealed() -> None:
    state = crafted("introductory", [0, 4, 8], [["red-4"], ["red-5"], ["red-6"]])
    play_all(state, {0: "rum", 1: 2, 2: 5})
    assert GAME.to_act(state) == [0]
    values = [a["value"] for a in GAME.legal_actions(state, 0)]
    assert values == [1, 3, 4, 6, 7]
    with pytest.raises(IllegalAction) as info:
        act(state, 0, {"type": "rum", "value": 2})
    assert info.value.code == "rum_value_taken"
    events = act(state, 0, {"type": "rum", "value": 3})
    assert [e["seat"] for e in of_type(events, "captain_moved")] == [1, 0, 2]
    assert state["captains"][0] == 3


# -- landing on an occupied space ------------------------------------------------------------


def test_landing_on_a_captain_with_more_cards_takes_no_card_but_still_pushes() -> None:
    state = crafted("introductory", [0, 3, 4], [["red-4"], ["red-5", "green-9", "purple-3"], ["red-6"]])
    play_all(state, {0: 3, 1: 1, 2: 5})
    # seat 1 moves first (1): 3 -> 4, lands on seat 2; it holds 4 cards after taking the tavern
    # card, seat 2 holds 1: no theft; seat 2 is pushed to 5.
    # seat 0 then (3): 0 -> 3, free. seat 2 (5): 5 -> 10.
    assert state["collections"][2] == ["red-6", "yellow-110"]
    assert state["captains"] == [3, 4, 10]


def test_newcomer_steals_a_card_of_its_choice_and_occupant_goes_to_next_free_space() -> None:
    state = crafted("introductory", [0, 3, 4], [["red-4"], ["red-5", "green-9", "purple-3"], ["red-6"]])
    events = play_all(state, {0: 3, 1: 6, 2: 7})
    # seat 0 (3) lands on seat 1: takes the tavern card (2 cards), 2 <= 3: steals
    assert of_type(events, "took_tavern_card")[0] == {
        "type": "took_tavern_card",
        "seat": 0,
        "space": 3,
        "card": "yellow-103",
        "next_top": "red-203",
    }
    assert GAME.to_act(state) == [0] and state["pending"]["kind"] == "steal"
    assert sorted(a["card"] for a in GAME.legal_actions(state, 0)) == ["green-9", "purple-3", "red-5"]
    events = act(state, 0, {"type": "steal", "card": "green-9"})
    assert state["collections"][0] == ["red-4", "yellow-103", "green-9"]
    pushed = of_type(events, "captain_pushed")[0]
    assert pushed == {"type": "captain_pushed", "seat": 1, "from_space": 3, "to_space": 5}, "4 is occupied: next free"
    assert not [e for e in of_type(events, "took_tavern_card") if e["space"] == 5], "pushed: no card"


def test_equal_card_counts_still_allow_the_theft() -> None:
    state = crafted("introductory", [0, 3, 9], [["red-4"], ["red-5", "green-9"], ["red-6"]])
    play_all(state, {0: 3, 1: 6, 2: 7})
    assert state["pending"] == {"kind": "steal", "seat": 0, "victim": 1}


def test_no_theft_when_the_newcomer_has_more_cards() -> None:
    state = crafted("introductory", [0, 3, 9], [["red-4", "red-5"], ["green-9"], ["red-6"]])
    events = play_all(state, {0: 3, 1: 6, 2: 7})
    assert of_type(events, "no_robbery")[0]["victim"] == 1
    assert state["collections"][1][0] == "green-9"


def test_landing_on_an_empty_tavern_takes_nothing() -> None:
    state = crafted("introductory", [0, 4, 8], [["red-4"], ["red-5"], ["red-6"]])
    state["taverns"][1] = []
    events = play_all(state, {0: 1, 1: 2, 2: 3})
    assert of_type(events, "tavern_empty") == [{"type": "tavern_empty", "seat": 0, "space": 1}]
    assert state["collections"][0] == ["red-4"]


# -- Black Jack: auction -------------------------------------------------------------------


def auction_state(players: int = 3) -> dict[str, Any]:
    variant = "two-player" if players == 2 else "standard"
    cols = [["red-4", "red-9"], ["green-7", "yellow-12"], ["purple-8"], ["yellow-1"]][:players]
    state = crafted(variant, [0, 4, 8, 11][:players], cols, bj=2)
    state["last_controller"] = None
    state["round"] = 0
    GAME._start_round(state, [])
    return state


def test_auction_raise_pass_and_winner_pays_into_the_harbour() -> None:
    state = auction_state()
    state["start_cards"] = ["red-4", "green-7", "purple-8"]
    state["round"] = 0
    GAME._start_round(state, [])
    assert GAME.to_act(state) == [2], "the highest start card begins the auction"
    act(state, 2, {"type": "bid", "card": "purple-8"})
    assert {a.get("card") for a in GAME.legal_actions(state, 0)} == {None, "red-9"}, "a raise must be higher"
    with pytest.raises(IllegalAction) as info:
        act(state, 0, {"type": "bid", "card": "red-4"})
    assert info.value.code == "bid_too_low"
    act(state, 0, {"type": "bid", "card": "red-9"})
    act(state, 1, {"type": "bid", "card": "yellow-12"})
    act(state, 2, {"type": "pass"})
    assert GAME.to_act(state) == [0]
    act(state, 0, {"type": "pass"})
    assert state["controller"] == 1 and state["harbour"] == ["yellow-12"]
    assert state["collections"][1] == ["green-7"] and state["collections"][0] == ["red-4", "red-9"]
    assert state["phase"] == "choose"


def test_next_auction_starts_with_the_last_controller_and_no_bid_keeps_the_starter() -> None:
    state = auction_state()
    state["start_cards"] = ["red-4", "green-7", "purple-8"]
    state["round"] = 0
    GAME._start_round(state, [])
    for seat in (2, 0, 1):
        act(state, seat, {"type": "pass"})
    assert state["controller"] is None and state["phase"] == "choose"
    events: list[dict[str, Any]] = []
    GAME._start_round(state, events)
    assert state["auction"]["turn"] == 2, "nobody bid: the highest start card begins again"
    act(state, 2, {"type": "pass"})
    act(state, 0, {"type": "bid", "card": "red-4"})
    act(state, 1, {"type": "pass"})
    assert state["controller"] == 0
    GAME._start_round(state, events)
    assert state["auction"]["turn"] == 0 and state["controller"] is None


def test_two_player_auction_allows_equal_bids_and_ends_when_one_passes() -> None:
    state = crafted("two-player", [0, 6], [["red-9", "green-4"], ["yellow-9"]], bj=3)
    state["start_cards"] = ["red-9", "yellow-9"]
    state["round"] = 0
    GAME._start_round(state, [])
    assert GAME.to_act(state) == [1], "yellow beats red on equal value"
    act(state, 1, {"type": "bid", "card": "yellow-9"})
    assert {"type": "bid", "card": "red-9"} in GAME.legal_actions(state, 0)
    act(state, 0, {"type": "bid", "card": "red-9"})
    act(state, 1, {"type": "bid", "card": "yellow-9"})
    act(state, 0, {"type": "pass"})
    assert state["controller"] == 1 and state["harbour"] == ["yellow-9"]


# -- Black Jack: moving and robbing ------------------------------------------------------------


def test_landing_on_black_jack_takes_a_harbour_card_and_black_jack_moves_on() -> None:
    state = crafted(
        "standard",
        [0, 5, 9],
        [["red-4", "red-5"], ["red-6"], ["red-7"]],
        bj=3,
        harbour=["green-13"],
        bj_deck=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    )
    events = play_all(state, {0: 3, 1: 5, 2: 6})
    # seat 0 lands on Black Jack: tavern card, then a harbour card though Black Jack has fewer
    assert state["collections"][0] == ["red-4", "red-5", "yellow-103", "green-13"]
    # "in uno spazio libero adiacente": 2 and 4 are both free, so seat 0 chooses (issue 13; this
    # test used to push Black Jack clockwise without a choice)
    assert state["pending"] == {"kind": "black_jack_step", "seat": 0, "spaces": [2, 4]}
    events += act(state, 0, {"type": "move_black_jack", "space": 4})
    assert of_type(events, "black_jack_pushed")[0] == {
        "type": "black_jack_pushed",
        "seat": 0,
        "from_space": 3,
        "to_space": 4,
    }
    # then Black Jack's own move (card 1, nobody controls it): 4 -> 5 (seat 1 moved away to 10)
    assert of_type(events, "black_jack_card")[0]["card"] == 1


def test_controlled_black_jack_robs_overtaken_captains_in_order_under_the_card_condition() -> None:
    state = crafted(
        "standard",
        [5, 6, 7],
        [["red-4", "red-5"], ["red-6", "red-7", "red-8"], ["yellow-9"]],
        bj=4,
        controller=0,
        bj_deck=[3, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    )
    events = play_all(state, {0: 4, 1: 4, 2: 4})  # all cancel: everybody stays and takes
    # now counts: seat 0: 3, seat 1: 4, seat 2: 2. Black Jack draws 3: 4 -> 7 is occupied -> 8.
    moved = of_type(events, "black_jack_moved")[0]
    assert moved["to_space"] == 8 and moved["overtaken"] == [0, 1, 2]
    assert state["pending"] == {"kind": "steal", "seat": 0, "victim": 1}
    events = act(state, 0, {"type": "steal", "card": "red-8"})
    # seat 0 now holds 4, seat 2 holds 2: it cannot rob seat 2 any more
    assert of_type(events, "no_robbery")[0]["victim"] == 2
    assert state["collections"][0][-1] == "red-8" and len(state["collections"][2]) == 2


def test_unowned_black_jack_robs_everyone_it_passes_and_each_victim_chooses() -> None:
    state = crafted(
        "standard",
        [5, 6, 10],
        [["red-4"], ["red-6", "red-7", "red-8"], ["yellow-9"]],
        bj=4,
        controller=None,
        bj_deck=[4, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12],
    )
    play_all(state, {0: 2, 1: 2, 2: 2})  # all stay
    # Black Jack 4 -> 8, passing seats 0 and 1 (seat 2 at 10 is not passed)
    assert state["pending"]["kind"] == "give" and GAME.to_act(state) == [0]
    act(state, 0, {"type": "give", "card": "yellow-105"})
    assert GAME.to_act(state) == [1]
    act(state, 1, {"type": "give", "card": "red-6"})
    assert state["harbour"] == ["yellow-105", "red-6"]
    assert state["black_jack"] == 8 and state["round"] == 2


def test_standard_game_ends_after_eight_rounds_with_four_black_jack_cards_unused() -> None:
    playout = random_playout(GAME, 3, {"variant": "standard"}, seed=11, probe_illegal=False)
    state = playout.state
    assert state["round"] == 8 and state["phase"] == "over"
    assert len(state["black_jack_deck"]) == 4 and len(state["black_jack_used"]) == 8
    assert all(h == [] for h in state["hands"]) and all(len(p) == 8 for p in state["played"])
    outcome = GAME.outcome(state)
    assert outcome["scores"] == [score_collection(c)["score"] for c in state["collections"]]
    best = max(outcome["scores"])
    assert outcome["winners"] == [i for i, s in enumerate(outcome["scores"]) if s == best]


# -- two-player variant -------------------------------------------------------------------------


def test_two_player_controller_chooses_both_cards_and_equal_cards_keep_both_still() -> None:
    state = crafted(
        "two-player", [0, 6], [["red-4"], ["red-5"]], bj=3, controller=0, bj_deck=[1, 2, 3, 4, 5, 6, 7, "rum"]
    )
    assert GAME.to_act(state) == [0, 1]
    kinds = {a["type"] for a in GAME.legal_actions(state, 0)}
    assert kinds == {"play", "play_black_jack"}
    act(state, 0, {"type": "play_black_jack", "card": 5})
    assert GAME.view(state, 1)["black_jack_deck"]["remaining"] == [1, 2, 3, 4, 5, 6, 7, "rum"]
    assert GAME.redact_action({"type": "play_black_jack", "card": 5}, 0, 1)["card"] is None
    events = play_all(state, {0: 5, 1: 2})
    assert set(of_type(events, "revealed")[0]["cancelled"]) == {"0", "bj"}
    assert state["captains"][0] == 0 and state["black_jack"] == 3
    assert state["collections"][0] == ["red-4", "yellow-100"]
    assert 5 not in state["black_jack_deck"] and state["black_jack_used"] == [5]


def test_two_player_black_jack_moves_in_card_order_and_robs_the_opponent() -> None:
    state = crafted(
        "two-player", [0, 5], [["red-4"], ["red-5", "red-6"]], bj=3, controller=0, bj_deck=[1, 2, 3, 4, 5, 6, 7, "rum"]
    )
    act(state, 0, {"type": "play_black_jack", "card": 2})
    events = play_all(state, {0: 1, 1: 7})
    # seat 0 (1): 0 -> 1 (2 cards); Black Jack (2): 3 -> 5 is seat 1's space -> on to 6; it
    # ended its move on the opponent (2 cards): 2 <= 2, the controller may rob it (optional)
    order = [e["type"] for e in events if e["type"] in ("captain_moved", "black_jack_moved")]
    assert order == ["captain_moved", "black_jack_moved"]
    assert state["black_jack"] == 6
    assert state["pending"] == {"kind": "steal", "seat": 0, "victim": 1, "optional": True}
    events = act(state, 0, {"type": "steal", "card": "red-6"})
    assert of_type(events, "captain_moved")[0]["seat"] == 1, "then the highest card moves"
    assert state["collections"][0] == ["red-4", "yellow-101", "red-6"]


def test_two_player_landing_on_black_jack_may_rob_its_controller_instead() -> None:
    state = crafted(
        "two-player",
        [0, 5],
        [["red-4", "red-6", "red-7"], ["red-5"]],
        bj=8,
        controller=0,
        harbour=["green-13"],
        bj_deck=[1, 2, 3, 4, 5, 6, 7, "rum"],
    )
    act(state, 0, {"type": "play_black_jack", "card": 6})
    play_all(state, {0: 1, 1: 3})
    # seat 1 (3): 5 -> 8, Black Jack's space: harbour card or a card of the controller
    assert GAME.to_act(state) == [1]
    legal = GAME.legal_actions(state, 1)
    assert {"type": "take_harbour", "card": "green-13"} in legal
    assert {"type": "steal", "card": "red-6"} in legal
    act(state, 1, {"type": "steal", "card": "red-7"})
    assert "red-7" in state["collections"][1]


def test_two_player_unowned_black_jack_draws_after_both_committed() -> None:
    state = crafted(
        "two-player", [0, 7], [["red-4"], ["red-5"]], bj=3, controller=None, bj_deck=[4, 1, 2, 3, 5, 6, 7, "rum"]
    )
    assert GAME.to_act(state) == [0, 1]
    assert all(a["type"] == "play" for a in GAME.legal_actions(state, 0))
    events = play_all(state, {0: 1, 1: 2})
    assert of_type(events, "revealed")[0]["cards"]["bj"] == 4
    assert state["black_jack_used"] == [4] and len(state["black_jack_deck"]) == 7


# -- options ---------------------------------------------------------------------------------


def test_option_variant_defaults_per_player_count() -> None:
    assert GAME.resolve_options(2, {}) == {"variant": "two-player"}
    assert GAME.resolve_options(3, {}) == {"variant": "standard"}
    assert GAME.resolve_options(4, {}) == {"variant": "standard"}


def test_option_introductory() -> None:
    assert GAME.resolve_options(4, {"variant": "introductory"}) == {"variant": "introductory"}
    with pytest.raises(InvalidOptions):
        GAME.resolve_options(2, {"variant": "introductory"})


def test_option_standard() -> None:
    assert GAME.resolve_options(3, {"variant": "standard"}) == {"variant": "standard"}
    with pytest.raises(InvalidOptions):
        GAME.resolve_options(2, {"variant": "standard"})


def test_option_two_player() -> None:
    with pytest.raises(InvalidOptions):
        GAME.resolve_options(3, {"variant": "two-player"})
    with pytest.raises(InvalidOptions):
        GAME.resolve_options(4, {"variant": "two-player"})
    with pytest.raises(InvalidOptions):
        GAME.resolve_options(2, {"variant": "solo"})
    state = GAME.setup(2, GAME.resolve_options(2, {}), Rng(b"s"))
    assert sorted(state["black_jack_deck"], key=str) == sorted([1, 2, 3, 4, 5, 6, 7, "rum"], key=str)


def test_players_out_of_range() -> None:
    for players in (1, 5):
        with pytest.raises(InvalidOptions):
            GAME.resolve_options(players, {})


# -- contract ----------------------------------------------------------------------------------


@pytest.mark.parametrize("players,variant", VARIANTS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_playouts_replay(players: int, variant: str, seed: int) -> None:
    playout = random_playout(GAME, players, {"variant": variant}, seed=seed)
    assert_replays(GAME, playout)


# -- leaks ---------------------------------------------------------------------------------------


def _hide_differently(state: dict[str, Any], viewer: int | None, chooser: random.Random) -> dict[str, Any]:
    """A copy that differs from ``state`` only in what ``viewer`` must not know."""
    other = copy.deepcopy(state)
    for seat, card in enumerate(other["commits"]):
        if card is not None and seat != viewer:
            choices = [c for c in other["hands"][seat] if c != card]
            if choices:
                other["commits"][seat] = chooser.choice(choices)
    if other["black_jack_commit"] is not None and viewer != other["controller"]:
        choices = [c for c in other["black_jack_deck"] if c != other["black_jack_commit"]]
        if choices:
            other["black_jack_commit"] = chooser.choice(choices)
    chooser.shuffle(other["black_jack_deck"])
    start = 1 if other["taverns_open"] else 0
    hidden = [c for t in other["taverns"] for c in t[start:]]
    chooser.shuffle(hidden)
    for t in other["taverns"]:
        for i in range(start, len(t)):
            t[i] = hidden.pop()
    return other


@pytest.mark.parametrize("players,variant", VARIANTS)
def test_views_never_show_hidden_information(players: int, variant: str) -> None:
    chooser = random.Random(players)
    for seed in range(3):
        rng = Rng(seed.to_bytes(32, "big"))
        state = GAME.setup(players, GAME.resolve_options(players, {"variant": variant}), rng)
        while GAME.to_act(state):
            for viewer in [None, *range(players)]:
                other = _hide_differently(state, viewer, chooser)
                assert GAME.view(other, viewer) == GAME.view(state, viewer), (viewer, state["phase"])
            seat = chooser.choice(GAME.to_act(state))
            action = chooser.choice(GAME.legal_actions(state, seat))
            state, events = GAME.apply(state, seat, action, Rng(rng.seed, rng.position()))
            assert all("to" not in e for e in events), "every event is public"
            if action["type"] in ("play", "play_black_jack"):
                for event in events:
                    if event["type"] in ("committed", "committed_black_jack"):
                        assert "card" not in event


def test_explain_names_the_rule() -> None:
    state = crafted("introductory", [0, 4, 8], [["red-4"], ["red-5"], ["red-6"]])
    act(state, 0, {"type": "play", "card": 3})
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 1, {"type": "bid", "card": "red-5"}, Rng(b"x"))
    assert info.value.code == "wrong_phase"
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 1, {"type": "play", "card": 9}, Rng(b"x"))
    assert info.value.code == "bad_action", "no movement card 9 exists: the action schema refuses it"


def test_booleans_and_floats_are_not_card_values() -> None:
    state = crafted("introductory", [0, 4, 8], [["red-4"], ["red-5"], ["red-6"]])
    for bogus in (True, 1.0):
        with pytest.raises(IllegalAction) as info:
            GAME.apply(state, 0, {"type": "play", "card": bogus}, Rng(b"x"))
        assert info.value.code == "bad_action"
    assert state["commits"] == [None, None, None]
