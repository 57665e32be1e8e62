"""The equipment cards that stand in for others: "Uso flessibile" (for the revealed equipment
in the lava, or when only it makes a move possible; two copies pay two symbols of one
discovery) and "Miscela di colori" (the player chooses which cards pay). Each situation is
reached by seeded play through the public contract (``reach``), then checked."""

from __future__ import annotations

import copy
import random
from typing import Any

from service.games.viaggio import GAME
from service.games.viaggio.data import COLOURS, FLEX
from tests.games.viaggio.reach import finish_move, reach
from tests.games.viaggio.readings import head


def kinds(legal: list[dict[str, Any]]) -> set[str]:
    return {a["type"] for a in legal}


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
