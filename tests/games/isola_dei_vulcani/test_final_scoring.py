"""Final scoring: lying Moai are Moai too, so they count for the adjacency bonus beside erected
ones. Reached through seeded bot matches."""

from __future__ import annotations

from service.games.isola_dei_vulcani import GAME
from service.games.isola_dei_vulcani import board as B
from tests.games.isola_dei_vulcani.helpers import first_state


def _groups(where):
    groups = []
    for k in where:
        joined = [g for g in groups if any(o == k or B.distance(o, k) == 1 for o in g)]
        merged = [k] + [o for g in joined for o in g]
        groups = [g for g in groups if g not in joined] + [merged]
    return groups


def _lying_moai_adjacent(state):
    if not state["over"]:
        return False
    for s in range(state["players"]):
        lying = [k for k, h in state["hexes"].items() for _ in range(h["lying_moai"].count(s))]
        erected = [g["hex"] for g in state["geysers"] if not g["sunk"] and g["moai"] == s]
        if any(len(g) >= 2 and set(g) & set(lying) for g in _groups(lying + erected)):
            return True
    return False


def test_final_adjacency_bonus_counts_lying_moai():
    state = first_state(2, "standard", range(20), _lying_moai_adjacent)
    final = GAME.outcome(state)["detail"]["breakdown"]
    counted_lying = False
    for s in range(2):
        lying = [k for k, h in state["hexes"].items() for _ in range(h["lying_moai"].count(s))]
        erected = [g["hex"] for g in state["geysers"] if not g["sunk"] and g["moai"] == s]
        expect = 2 * sum(len(g) for g in _groups(lying + erected) if len(g) >= 2)
        only_erected = 2 * sum(len(g) for g in _groups(erected) if len(g) >= 2)
        assert final[s]["adjacent_moai"] == expect
        assert final[s]["moai"] == 2 * (len(lying) + len(erected))
        counted_lying |= expect > only_erected
    assert counted_lying
