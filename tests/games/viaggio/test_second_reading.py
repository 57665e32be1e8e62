"""Viaggio, issue 13 ("Rules, second reading"): every point reached by play.

Each test plays seeded matches through ``setup`` / ``legal_actions`` / ``apply`` until the
situation arises (``reach``), then checks the rule from there. The seed ranges are where the
search finds the situation quickly; any range would do, only slower.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from service.engine import IllegalAction, Rng
from service.games.viaggio import GAME
from service.games.viaggio.board import BLOCKING
from service.games.viaggio.data import BOARDS, COLOURS, EQUIP, FLEX
from tests.games.viaggio.reach import Reached, finish_move, reach


def kinds(legal: list[dict[str, Any]]) -> set[str]:
    return {a["type"] for a in legal}


def head(state: dict[str, Any]) -> dict[str, Any]:
    return state["tasks"][0]


# ---------------------------------------------------------------- Uso flessibile


def test_uso_flessibile_stands_in_for_the_revealed_equipment_in_the_lava() -> None:
    def lava_with_flexible(state: dict, seat: int, legal: list) -> bool:
        return head(state)["kind"] == "loss" and head(state)["why"] == "lava" and "play_flexible" in kinds(legal)

    r = reach(lava_with_flexible, range(0, 200))
    task = head(r.state)
    assert {"type": "play_flexible", "as": task["equip"]} in r.legal
    assert [a for a in r.legal if a["type"] == "play_flexible"] == [{"type": "play_flexible", "as": task["equip"]}]
    seat, fossils, kept = r.seat, dict(r.state["fossils"][r.seat]), list(r.state["kept"][r.seat])
    events = r.act({"type": "play_flexible", "as": task["equip"]})
    assert r.state["fossils"][seat] == fossils, "protected: no fossil lost"
    assert r.state["kept"][seat].count(FLEX) == kept.count(FLEX) - 1
    assert {"type": "equipment_sacrificed", "seat": seat, "card": task["equip"], "flexible": True} in events


def _choosable_only_with_flexible(state: dict, seat: int, legal: list) -> bool:
    if head(state)["kind"] != "turn" or FLEX not in state["kept"][seat]:
        return False
    without = copy.deepcopy(state)
    without["kept"][seat] = [k for k in without["kept"][seat] if k != FLEX]
    alone = {a["colour"] for a in GAME.legal_actions(without, seat) if a["type"] == "choose"}
    return any(a["type"] == "choose" and a["colour"] not in alone for a in legal)


def test_choose_is_legal_when_only_uso_flessibile_makes_the_move_possible() -> None:
    r = reach(_choosable_only_with_flexible, range(0, 200))
    without = copy.deepcopy(r.state)
    without["kept"][r.seat] = [k for k in without["kept"][r.seat] if k != FLEX]
    alone = {a["colour"] for a in GAME.legal_actions(without, r.seat) if a["type"] == "choose"}
    colour = next(a["colour"] for a in r.legal if a["type"] == "choose" and a["colour"] not in alone)
    r.act({"type": "choose", "colour": colour})
    events = finish_move(r, random.Random(0))
    moved = [e for e in events if e["type"] == "moved"]
    assert moved and moved[0]["colour"] == colour, "the move could be completed"
    assert any(e["type"] == "equipment_played" and e.get("flexible") for e in events), "and it needed the stand-in"


def test_two_copies_pay_two_symbols_of_one_discovery() -> None:
    def two_copies(state: dict, seat: int, legal: list) -> bool:
        return any(a["type"] == "discover" and a["flexible"] == 2 and not a["lamp"] for a in legal)

    r = reach(two_copies, range(18, 200), players=2, bots_only=True)
    action = next(a for a in r.legal if a["type"] == "discover" and a["flexible"] == 2 and not a["lamp"])
    seat = r.seat
    symbols = head(r.state)["symbols"]
    assert len(action["cards"]) == len(symbols) - 2
    before_fossils = sum(r.state["fossils"][seat].values())
    before_cards = sum(r.state["hands"][seat]["equipment"].values())
    assert r.state["kept"][seat].count(FLEX) == 2
    r.act(action)
    assert r.state["kept"][seat].count(FLEX) == 0, "each copy stood for one card"
    assert sum(r.state["hands"][seat]["equipment"].values()) == before_cards - len(action["cards"])
    assert sum(r.state["fossils"][seat].values()) == before_fossils + len(symbols)


# ---------------------------------------------------------------- Miscela di colori


def test_miscela_di_colori_the_player_chooses_which_cards_pay() -> None:
    def mixed_payment_choice(state: dict, seat: int, legal: list) -> bool:
        return sum(a["type"] == "finish_mixed" for a in legal) >= 3

    r = reach(mixed_payment_choice, range(0, 200))
    options = [a for a in r.legal if a["type"] == "finish_mixed"]
    assert "finish" not in kinds(r.legal)
    need = len(options[0]["colours"])
    assert all(len(a["colours"]) == need for a in options)
    chosen = options[-1]  # not the move's own colour first: the engine would never pick it alone
    seat, hand = r.seat, dict(r.state["hands"][r.seat]["explorer"])
    events = r.act({"type": "finish_mixed", "colours": list(reversed(chosen["colours"]))})
    moved = next(e for e in events if e["type"] == "moved")
    assert sorted(moved["cards"]) == sorted(chosen["colours"])
    for c in COLOURS:
        assert r.state["hands"][seat]["explorer"][c] == hand[c] - chosen["colours"].count(c)


# ---------------------------------------------------------------- kept events are hidden


def test_kept_event_cards_are_held_like_a_hand() -> None:
    def kept_drawn(state: dict, seat: int, legal: list) -> bool:
        return bool(state["kept"][seat]) and head(state)["kind"] == "turn"

    r = reach(kept_drawn, range(0, 200))
    seat = r.seat
    other = (seat + 1) % r.state["players"]
    assert GAME.view(r.state, seat)["hand"]["kept"] == r.state["kept"][seat]
    for viewer in (other, None):
        entry = GAME.view(r.state, viewer)["players"][seat]
        assert entry["kept_count"] == len(r.state["kept"][seat]) and "kept" not in entry


def test_a_kept_event_card_is_announced_without_its_face() -> None:
    seen: list[tuple[list, int]] = []
    for seed in range(0, 30):
        r = reach(lambda s, seat, legal: head(s)["kind"] == "turn", [seed])
        chooser = random.Random(seed)
        while GAME.to_act(r.state):
            events = r.act(chooser.choice(r.legal))
            for e in events:
                if e["type"] == "event_card" and e["kept"]:
                    seen.append((events, e["seat"]))
        if seen:
            break
    assert seen
    events, drawer = seen[0]
    public = [e for e in GAME.visible_events(events, (drawer + 1) % 2) if e["type"] == "event_card"]
    private = [e for e in GAME.visible_events(events, drawer) if e["type"] == "event_card"]
    assert any("card" not in e for e in public) and all("card" not in e for e in public if e["kept"])
    assert any("card" in e and e["kept"] for e in private)


# ---------------------------------------------------------------- lists in any order


def test_payments_listed_in_another_order_are_accepted() -> None:
    def two_kinds_of_card(state: dict, seat: int, legal: list) -> bool:
        return any(a["type"] == "discover" and len(set(a["cards"])) >= 2 for a in legal)

    r = reach(two_kinds_of_card, range(0, 200))
    action = next(a for a in r.legal if a["type"] == "discover" and len(set(a["cards"])) >= 2)
    shuffled = {**action, "cards": list(reversed(action["cards"]))}
    assert shuffled["cards"] != action["cards"]
    twin = copy.deepcopy(r)
    GAME.check(r.state, r.seat, shuffled)
    r.act(shuffled)
    twin.act(action)
    assert r.state == twin.state


def test_adventure_colours_in_another_order_are_accepted() -> None:
    def two_colours(state: dict, seat: int, legal: list) -> bool:
        return any(a["type"] in ("accept_adventure", "protect") and len(set(a["colours"])) >= 2 for a in legal)

    r = reach(two_colours, range(0, 200))
    action = next(a for a in r.legal if a["type"] in ("accept_adventure", "protect") and len(set(a["colours"])) >= 2)
    twin = copy.deepcopy(r)
    r.act({**action, "colours": list(reversed(action["colours"]))})
    twin.act(action)
    assert r.state == twin.state


def test_a_wrong_payment_is_refused_for_what_it_pays() -> None:
    def discovery(state: dict, seat: int, legal: list) -> bool:
        return any(a["type"] == "discover" for a in legal)

    r = reach(discovery, range(0, 200))
    held = r.state["hands"][r.seat]["equipment"]
    missing = next(t for t in EQUIP if held[t] == 0) if any(held[t] == 0 for t in EQUIP) else "lamp"
    bad = {"type": "discover", "cards": [missing] * 4, "flexible": 0, "lamp": False}
    with pytest.raises(IllegalAction) as info:
        GAME.check(r.state, r.seat, bad)
    assert info.value.rule == "discovery" and "order" in info.value.message


# ---------------------------------------------------------------- re-entering the start


def _spring_reentry(state: dict, seat: int, legal: list) -> list[dict] | None:
    """A move by ``seat`` from a spring that steps aside, comes back, then can still end."""
    if head(state)["kind"] != "turn" or state["phase"] != 1:
        return None
    board = BOARDS[1]
    for a in legal:
        if a["type"] != "choose":
            continue
        start = state["explorers"][a["colour"]]
        if start == "start" or board.kind(start) != "spring":
            continue
        probe = copy.deepcopy(state)
        GAME.apply(probe, seat, a, _rng())
        for side in [s["to"] for s in GAME.legal_actions(probe, seat) if s["type"] == "step"]:
            if side == "end" or board.depth(side) != board.depth(start) or board.kind(side) in ("spring", *BLOCKING):
                continue
            aside = copy.deepcopy(probe)
            GAME.apply(aside, seat, {"type": "step", "to": side}, _rng())
            if {"type": "step", "to": start} in GAME.legal_actions(aside, seat):
                return [a, {"type": "step", "to": side}, {"type": "step", "to": start}]
    return None


def _rng() -> Rng:
    return Rng(b"probe")


def test_a_move_that_comes_back_to_its_starting_spring_triggers_it() -> None:
    r: Reached = reach(lambda s, seat, legal: _spring_reentry(s, seat, legal) is not None, range(0, 300))
    plan = _spring_reentry(r.state, r.seat, r.legal)
    assert plan is not None
    seat = r.seat
    water = r.state["water"][seat]
    for action in plan:
        r.act(action)
    assert GAME.view(r.state, None)["decision"]["springs"] == 1, "the starting spring, entered again"
    supply = r.state["supply"]
    events = finish_move(r, random.Random(1))
    moved = next(e for e in events if e["type"] == "moved")
    assert moved["water"] >= 1 and r.state["water"][seat] >= water + 1
    assert supply >= 1


# ---------------------------------------------------------------- asking every seat concerned


@pytest.mark.parametrize(
    ("kind", "decline"), [("offer", "decline_adventure"), ("lightning", "take_strike"), ("discover", "pass_discovery")]
)
def test_a_seat_that_cannot_pay_is_still_asked_and_may_only_decline(kind: str, decline: str) -> None:
    def cannot_pay(state: dict, seat: int, legal: list) -> bool:
        return head(state)["kind"] == kind and len(legal) == 1

    r = reach(cannot_pay, range(0, 200))
    assert r.legal == [{"type": decline}]
    assert r.seat in GAME.to_act(r.state) and GAME.view(r.state, None)["to_act"] == [r.seat]


def test_identical_lamp_draws_still_ask_which_to_return() -> None:
    def lamp_alike(state: dict, seat: int, legal: list) -> bool:
        return head(state)["kind"] == "lamp" and len(set(head(state)["drawn"])) == 1

    r = reach(lamp_alike, range(0, 300))
    assert r.legal == [{"type": "lamp_return", "fossil": head(r.state)["drawn"][0]}]
