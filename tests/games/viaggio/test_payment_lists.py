"""Payments and adventure colours are lists a client may send in any order, and a wrong payment
is refused for what it pays. Reached by seeded play through the public contract."""

from __future__ import annotations

import copy

import pytest

from service.engine import IllegalAction
from service.games.viaggio import GAME
from service.games.viaggio.data import EQUIP
from tests.games.viaggio.reach import reach


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
