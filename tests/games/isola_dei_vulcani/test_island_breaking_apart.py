"""The island breaks apart as the rulebook has it: cracking every fault edge leaves parts of at
most two volcanoes (the standard map, generated maps, any order of cracking), and matches
played by bots end by the rulebook's condition, two volcanoes or fewer."""

from __future__ import annotations

import pytest

from service.engine import Rng
from service.games.isola_dei_vulcani import GAME
from service.games.isola_dei_vulcani import board as B
from service.games.isola_dei_vulcani import faults as F
from tests.games.isola_dei_vulcani.helpers import bot_states

RULEBOOK_END = "two_volcanoes_or_fewer"


def _assert_breaks_apart(hexes, craters):
    faults = F.fault_edges(hexes, craters)
    assert len(faults) <= 26, "no more fault edges than crack tiles"
    for part in F.parts(hexes, faults):
        assert sum(1 for k in part if hexes[k]["volcano"] is not None) <= 2
    for c in craters:
        assert hexes[c["hex"]]["volcano"] is None and B.step(c["hex"], c["dir"]) in hexes


def test_standard_map_with_every_fault_cracked_leaves_cells_of_two_volcanoes():
    standard = B.standard_map()
    board = B.build_board(standard["placements"], standard["craters"])
    hexes = board["hexes"]
    _assert_breaks_apart(hexes, board["geysers"])
    faults = F.fault_edges(hexes, board["geysers"])
    cells = F.parts(hexes, faults)
    assert len(faults) == 20 and sorted(len(c) for c in cells) == [7, 8, 16, 19]
    assert all(sum(1 for k in c if hexes[k]["volcano"]) == 2 for c in cells)
    assert F.breaks_apart(hexes, board["geysers"], crack_tiles=26)
    assert not F.breaks_apart(hexes, board["geysers"], crack_tiles=19)


def test_standard_craters_are_what_the_fault_rule_draws_for_that_map():
    standard = B.standard_map()
    hexes = B.build_board(standard["placements"], [])["hexes"]
    order = lambda cs: sorted((c["hex"], c["dir"]) for c in cs)
    assert order(F.design_craters(hexes)) == order(standard["craters"])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_generated_maps_keep_the_invariant(players):
    for seed in range(4):
        state = GAME.setup(players, {"setup": "advanced"}, Rng(bytes([players, seed])))
        _assert_breaks_apart(state["hexes"], state["geysers"])


def test_taking_every_fault_edge_leaves_two_volcanoes_whatever_the_order():
    """Crack the fault edges of the standard map one by one in a seeded random order,
    sinking the smaller part at each cut as the rulebook says: two volcanoes are left."""
    standard = B.standard_map()
    board = B.build_board(standard["placements"], standard["craters"])
    for seed in range(5):
        edges = sorted(F.fault_edges(board["hexes"], board["geysers"]))
        Rng(bytes([seed])).shuffle(edges)
        land, cracked = dict(board["hexes"]), set()
        for e in edges:
            if not all(k in land for k in e.split("|")):
                continue
            cracked.add(e)
            while len(parts := F.parts(land, cracked)) > 1:
                smaller = min(parts, key=lambda p: (len(p), sum(1 for k in p if land[k]["volcano"])))
                for k in smaller:
                    del land[k]
        assert sum(1 for h in land.values() if h["volcano"]) <= 2


@pytest.mark.parametrize(
    "setup,players,seed", [("standard", 2, 1), ("standard", 3, 2), ("advanced", 2, 3), ("advanced", 4, 4)]
)
def test_bot_matches_end_by_the_rulebook_condition(setup, players, seed):
    *_, final = bot_states(players, setup, seed)
    outcome = GAME.outcome(final)
    assert outcome["detail"]["end_reason"] == RULEBOOK_END
    assert len(final["volcanoes"]) <= 2 and final["round"] < 40
