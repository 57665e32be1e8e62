"""Upkeep: the government trade only "in caso il baratto … non fosse possibile", once every
barter is refused. Played up to through the public contract, then checked."""

from __future__ import annotations

import pytest

from service.engine import IllegalAction
from service.games.esploratore import GAME
from service.games.esploratore import rules as R

from .reach import reach


def test_government_trade_only_once_no_barter_is_possible() -> None:
    def barter_before_trade(state: dict, seat: int, legal: list[dict]) -> bool:
        return (
            state["phase"] == "upkeep"
            and any(a["type"] == "offer" for a in legal)
            and max(state["totals"][seat]) >= R.TRADE_FACTOR
        )

    r = reach(barter_before_trade, players=4, options={"upkeep": True}, seeds=range(300), randomness=0.2)
    seat = r.seat
    assert not [a for a in r.legal if a["type"] == "trade"]
    short = next(a["get"] for a in r.legal if a["type"] == "offer")
    rich = max(R.RESOURCES, key=lambda res: r.state["totals"][seat][R.RESOURCES.index(res)])
    with pytest.raises(IllegalAction) as info:
        GAME.apply(r.state, seat, {"type": "trade", "give": rich, "get": short}, r.rng)
    assert info.value.code == "trade_rule" and "barter" in str(info.value)
    while offers := [a for a in r.legal if a["type"] == "offer"]:
        r.act(offers[0])
        assert r.seat == offers[0]["partner"]
        r.act({"type": "decline_offer"})
        assert r.seat == seat
    trades = [a for a in r.legal if a["type"] == "trade"]
    if any(r.state["upkeep_need"][i] > r.state["totals"][seat][i] for i in range(4)):
        assert trades, "every barter refused: the government trade is open"
