"""Every seat a decision concerns is asked, even one that can only decline (one that cannot pay,
identical lamp draws): skipping it would tell the table what it holds. Reached by seeded play
through the public contract."""

from __future__ import annotations

import pytest

from service.games.viaggio import GAME
from tests.games.viaggio.reach import reach
from tests.games.viaggio.readings import head


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
