"""Set-up lava: "in every area with a volcano, only on the first space around the volcano", on
every space of the areas without one."""

from __future__ import annotations

import pytest

from service.engine import Rng
from service.games.isola_dei_vulcani import GAME
from service.games.isola_dei_vulcani import board as B


@pytest.mark.parametrize("setup", ["standard", "advanced"])
def test_setup_lava_only_on_the_first_spaces_around_the_own_volcano(setup):
    state = GAME.setup(3, {"setup": setup}, Rng(b"lava"))
    for k, h in state["hexes"].items():
        own = state["volcanoes"].get(str(h["tile"]))
        assert h["lava"] == (h["volcano"] is None and (own is None or B.distance(k, own) == 1)), k
    on_board = sum(h["lava"] for h in state["hexes"].values())
    assert state["supply"]["lava"] == 47 - on_board
