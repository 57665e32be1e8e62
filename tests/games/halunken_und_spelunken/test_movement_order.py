"""The order pieces move in: "Il giocatore che ha usato la carta di valore più basso parte per
primo, seguito dagli avversari in ordine decrescente delle loro carte giocate", read as lowest
card first, then ascending (docs/halunken-und-spelunken.md)."""

from __future__ import annotations

from typing import Any

from service.engine import Rng
from service.games.halunken_und_spelunken import GAME
from tests.games.halunken_und_spelunken.playouts import of_type


def test_movement_order_is_lowest_first_then_ascending() -> None:
    state = GAME.setup(4, GAME.resolve_options(4, {"variant": "introductory"}), Rng(b"order"))
    for seat, space in enumerate((0, 3, 6, 9)):
        state, _ = GAME.apply(state, seat, {"type": "place_captain", "space": space}, Rng(b"x"))
    events: list[dict[str, Any]] = []
    for seat, card in enumerate((7, 1, 5, 3)):
        assert {"type": "play", "card": card} in GAME.legal_actions(state, seat)
        state, more = GAME.apply(state, seat, {"type": "play", "card": card}, Rng(b"x"))
        events += more
    moved = of_type(events, "captain_moved")
    assert [(e["seat"], e["steps"]) for e in moved] == [(1, 1), (3, 3), (2, 5), (0, 7)], (
        "1, 3, 5, 7 — not 1, then 7, 5, 3 as a literal 'decrescente' would give"
    )
    assert state["captains"] == [7, 4, 11, 12]
