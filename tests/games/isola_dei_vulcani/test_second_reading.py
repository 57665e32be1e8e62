"""Issue 13, "Rules, second reading": each point reached through play (seeded bot matches and
the public contract), not by writing inner state by hand."""

from __future__ import annotations

import pytest

from service.engine import Rng
from service.games.isola_dei_vulcani import GAME
from service.games.isola_dei_vulcani import board as B
from service.games.isola_dei_vulcani import faults as F
from service.games.isola_dei_vulcani.state import pieces_on
from tests.games.isola_dei_vulcani.helpers import bot_states, first_state

RULEBOOK_END = "two_volcanoes_or_fewer"


# -- the island breaks apart ---------------------------------------------------------------------


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


# -- set-up lava -----------------------------------------------------------------------------


@pytest.mark.parametrize("setup", ["standard", "advanced"])
def test_setup_lava_only_on_the_first_spaces_around_the_own_volcano(setup):
    state = GAME.setup(3, {"setup": setup}, Rng(b"lava"))
    for k, h in state["hexes"].items():
        own = state["volcanoes"].get(str(h["tile"]))
        assert h["lava"] == (h["volcano"] is None and (own is None or B.distance(k, own) == 1)), k
    on_board = sum(h["lava"] for h in state["hexes"].values())
    assert state["supply"]["lava"] == 47 - on_board


# -- final scoring: lying Moai are adjacent Moai too -----------------------------------------


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


# -- prayer tokens save anyone's piece -------------------------------------------------------


def _prays_for_another(state):
    d = state["decision"]
    return (
        bool(d)
        and d["kind"] == "prayer"
        and any(a["type"] == "pray" and a["owner"] != s for s in d["waiting"] for a in GAME.legal_actions(state, s))
    )


def test_a_prayer_token_saves_another_players_piece():
    state = first_state(3, "standard", range(10), _prays_for_another)
    payer, action = next(
        (s, a)
        for s in state["decision"]["waiting"]
        for a in GAME.legal_actions(state, s)
        if a["type"] == "pray" and a["owner"] != s
    )
    owner, hex_, piece = action["owner"], action["hex"], action["piece"]
    before = pieces_on(state["hexes"][hex_], piece).count(owner)
    tokens = [p["prayer_tokens"] for p in state["seats"]]
    rng = Rng(b"pray")
    state, events = GAME.apply(state, payer, action, rng)
    assert {"type": "prayed", "seat": payer, "hex": hex_, "piece": action["piece"], "owner": owner} in events
    while state["decision"] is not None and state["decision"]["kind"] == "prayer":
        seat = GAME.to_act(state)[0]
        state, more = GAME.apply(state, seat, {"type": "accept_loss"}, rng)
        events += more
    assert state["hexes"][hex_]["lava"], "the lava still lands there"
    assert pieces_on(state["hexes"][hex_], piece).count(owner) == 1, "the prayed-for piece stays"
    assert state["seats"][payer]["prayer_tokens"] == tokens[payer] - 1
    assert state["seats"][owner]["prayer_tokens"] == tokens[owner]
    destroyed = [p for e in events if e["type"] == "destroyed" and e["hex"] == hex_ for p in e["pieces"]]
    assert sum(1 for p in destroyed if p == {"seat": owner, "piece": action["piece"]}) == before - 1


# -- rescue after a sinking: in order, unseen until final ----------------------------------------


def _rescue_with_two_others(state):
    d = state["decision"]
    return bool(d) and d["kind"] == "rescue" and d["stage"] == "actor" and len(d["others"]) >= 2


def test_rescue_the_acting_player_first_then_the_others_unseen():
    state = first_state(4, "standard", range(10), _rescue_with_two_others)
    d = state["decision"]
    actor, (a, b, *_) = d["actor"], d["others"]
    rng = Rng(b"rescue")
    assert GAME.to_act(state) == [actor], "1. il giocatore di turno"
    assert GAME.legal_actions(state, a) == []
    to = d["targets"][0]
    state, events = GAME.apply(state, actor, {"type": "rescue", "to": to}, rng)
    assert events[0] == {"type": "rescue_chosen", "seat": actor, "dest": to}
    assert GAME.to_act(state) == sorted(d["others"]), "2. gli altri giocatori"
    assert GAME.view(state, b)["decision"]["actor_choice"] == to, "the actor's choice is final"
    mine = d["targets"][-1]
    action = {"type": "rescue", "to": mine}
    state, events = GAME.apply(state, a, action, rng)
    assert events == [] and GAME.to_act(state) == sorted(s for s in d["others"] if s != a)
    for viewer in (b, actor, None):
        shown = GAME.view(state, viewer)["decision"]
        assert "moves" not in shown and a in shown["answered"]
        assert shown.get("your_choice") == (to if viewer == actor else None), "never a's choice"
        assert GAME.redact_action(action, a, viewer) == {"type": "rescue", "to": None}
    assert GAME.view(state, a)["decision"]["your_choice"] == mine
    assert GAME.redact_action(action, a, a) == action
    while GAME.to_act(state) and state["decision"] is not None and state["decision"]["kind"] == "rescue":
        state, more = GAME.apply(state, GAME.to_act(state)[0], {"type": "abandon"}, rng)
        events += more
    sunk = next(e for e in events if e["type"] == "sunk")
    assert {"seat": a, "hex": mine, "colonists": 1} in sunk["saved"]
    assert any(s["seat"] == actor and s["hex"] == to for s in sunk["saved"])
