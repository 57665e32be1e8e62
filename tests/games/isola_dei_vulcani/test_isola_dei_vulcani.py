"""L'Isola dei Vulcani: contract, set-up, map generator, rulebook examples and scenarios."""

from __future__ import annotations

import copy

import orjson
import pytest

from service.engine import IllegalAction, InvalidOptions, Rng, load_seed
from service.games.isola_dei_vulcani import GAME
from service.games.isola_dei_vulcani import board as B
from tests.games.isola_dei_vulcani.helpers import crafted, line
from tests.support.contract import assert_replays, random_playout

SETUPS = ["standard", "advanced"]


def settle(state, queue, seed=b"s"):
    state["queue"] = list(queue)
    events: list = []
    GAME._settle(state, Rng(seed), events)
    return events


def kinds(events):
    return [e["type"] for e in events]


# -- contract ----------------------------------------------------------------------------------


@pytest.mark.parametrize("setup", SETUPS)
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_playouts_end_and_replay(players, setup, seed):
    playout = random_playout(GAME, players, {"setup": setup}, seed=seed)
    assert_replays(GAME, playout)
    outcome = GAME.outcome(playout.state)
    assert outcome["winners"] and min(outcome["ranks"]) == 1


def test_options_and_player_counts():
    assert GAME.resolve_options(2, {}) == {"setup": "standard"}
    assert GAME.resolve_options(4, {"setup": "advanced"}) == {"setup": "advanced"}
    with pytest.raises(InvalidOptions, match="2–4 players"):
        GAME.resolve_options(5, {})
    with pytest.raises(InvalidOptions, match="'setup' does not accept 'expert'"):
        GAME.resolve_options(2, {"setup": "expert"})


# -- set-up ------------------------------------------------------------------------------------


def test_standard_setup():
    state = GAME.setup(3, {"setup": "standard"}, Rng(b"x"))
    hexes = state["hexes"]
    assert len(hexes) == 50 and len(state["volcanoes"]) == 8
    assert sorted(state["volcano_tokens"]) == list(range(1, 9))
    volcanic_tiles = {h["tile"] for h in hexes.values() if h["volcano"]}
    assert volcanic_tiles == set(range(1, 9))
    for k, h in hexes.items():
        own = state["volcanoes"].get(str(h["tile"]))
        expect = h["volcano"] is None and (own is None or own in B.neighbours(k))
        assert h["lava"] == expect, k
    # "solo nel primo spazio intorno al vulcano" of its own area: these three hexes of the
    # straight volcano tiles are two steps from their volcano, so they start bare.
    for k in ("1,5", "6,3", "7,5"):
        own = state["volcanoes"][str(hexes[k]["tile"])]
        assert B.distance(k, own) == 2 and not hexes[k]["lava"], k
    on_board = sum(h["lava"] for h in hexes.values())
    assert state["supply"] == {"lava": 47 - on_board, "cracks": 26, "prayer": 12}
    assert state["supply"]["lava"] >= 0
    bay = B.standard_map()["bay"]
    for p in state["seats"]:
        assert p["colonists_on_boat"] == 1 and p["landing_bay"] == bay
        supply = (p["villages_in_supply"], p["colonists_in_supply"], p["moai_in_supply"], p["prayer_tokens"])
        assert supply == (6, 4, 14, 0) and p["score"] == 0
    assert state["current"] == state["first_player"]
    legal = GAME.legal_actions(state, state["first_player"])
    assert {a["to"] for a in legal if a["type"] == "move"} == set(bay)
    # every crater of the standard map faces another land hex
    for g in state["geysers"]:
        assert B.step(g["hex"], g["dir"]) in hexes and hexes[g["hex"]]["volcano"] is None


def _check_map(hexes, players_bays=None):
    land = {B.parse(k) for k in hexes}
    assert not B.has_hole(land)
    # connected
    start = next(iter(hexes))
    seen, todo = {start}, [start]
    while todo:
        for n in B.neighbours(todo.pop()):
            if n in hexes and n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == set(hexes)
    by_tile: dict[int, list[str]] = {}
    for k, h in hexes.items():
        by_tile.setdefault(h["tile"], []).append(k)
    assert set(range(1, 9)) <= set(by_tile)
    tiles = B.tiles()
    for t, ks in by_tile.items():
        assert len(ks) == len(tiles[t]["hexes"])
    # phase 1: inner tiles touch two others each
    for t in range(1, 6):
        touching = {
            hexes[n]["tile"]
            for k in by_tile[t]
            for n in B.neighbours(k)
            if n in hexes and hexes[n]["tile"] in range(1, 6) and hexes[n]["tile"] != t
        }
        assert len(touching) >= 2, t
    # inner (straight-edged) tiles never touch the sea
    for t in range(1, 6):
        for k in by_tile[t]:
            assert all(n in hexes for n in B.neighbours(k)), (t, k)
    # phase 2: coastal volcano tiles touch the inner block and keep a coast
    for t in (6, 7, 8):
        nbrs = [n for k in by_tile[t] for n in B.neighbours(k)]
        assert any(n in hexes and hexes[n]["tile"] <= 5 for n in nbrs)
        assert any(n not in hexes for n in nbrs)
    if players_bays:
        coast = set(B.coast_hexes(hexes))
        for bay in players_bays:
            assert 1 <= len(bay) <= 3 and set(bay) <= coast


def test_standard_map_is_legal():
    board = B.build_board(B.standard_map()["placements"], B.standard_map()["craters"])
    _check_map(board["hexes"], [B.standard_map()["bay"]])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_map_generator_validity_over_many_seeds(players):
    layouts = set()
    for seed in range(16):
        state = GAME.setup(players, {"setup": "advanced"}, Rng(seed.to_bytes(4, "big") + bytes([players])))
        bays = [p["landing_bay"] for p in state["seats"]]
        _check_map(state["hexes"], bays)
        assert len({tuple(b) for b in bays}) == players, "one distinct landing bay per player"
        layouts.add(tuple(sorted(state["hexes"])))
        for g in state["geysers"]:
            assert state["hexes"][g["hex"]]["volcano"] is None
    assert len(layouts) >= 15, "maps differ between seeds"


# -- actions -----------------------------------------------------------------------------------


def test_colonists_never_cross_a_crack_and_land_from_the_boat():
    cells = {k: 9 for k in line(3)}
    state = crafted(2, cells, lava=line(3))
    state["seats"][0]["colonists_on_boat"] = 1
    state["seats"][0]["landing_bay"] = ["0,0"]
    state, _ = GAME.apply(state, 0, {"type": "move", "from": "boat", "to": "0,0"}, Rng(b"a"))
    assert state["hexes"]["0,0"]["colonists"][0] == 1 and state["action_points"] == 3
    state["cracks"] = [B.edge("0,0", "1,0")]
    assert {"type": "move", "from": "0,0", "to": "1,0"} not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, {"type": "move", "from": "0,0", "to": "1,0"}, Rng(b"a"))
    assert info.value.code == "crack"


def test_carve_move_with_moai_build_and_create():
    cells = {"0,0": 10, "1,0": 10, "2,0": 11}
    state = crafted(2, cells, lava=["0,0", "1,0", "2,0"])
    state["hexes"]["0,0"]["colonists"][0] = 1
    rng = Rng(b"a")
    state, _ = GAME.apply(state, 0, {"type": "carve", "hex": "0,0"}, rng)
    assert state["hexes"]["0,0"]["lying_moai"] == [0] and not state["hexes"]["0,0"]["lava"]
    state, _ = GAME.apply(state, 0, {"type": "move_moai", "from": "0,0", "to": "1,0"}, rng)
    assert state["hexes"]["1,0"]["lying_moai"] == [0] and state["hexes"]["1,0"]["colonists"][0] == 1
    assert state["action_points"] == 2
    state, ev = GAME.apply(state, 0, {"type": "build", "hex": "1,0"}, rng)
    assert state["hexes"]["1,0"]["villages"] == [0] and state["seats"][0]["score"] == 1
    assert state["action_points"] == 0 and GAME.legal_actions(state, 0) == [{"type": "end_turn"}]
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, {"type": "create", "hex": "1,0"}, rng)
    assert info.value.code == "not_enough_action_points"
    # next turn of seat 0: one colonist per village in the area per turn
    state["action_points"] = 4
    state, _ = GAME.apply(state, 0, {"type": "create", "hex": "1,0"}, rng)
    assert state["hexes"]["1,0"]["colonists"][0] == 2
    assert {"type": "create", "hex": "1,0"} not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, {"type": "create", "hex": "1,0"}, rng)
    assert info.value.code == "area_limit"
    # a second village in the same area allows a second colonist
    state["hexes"]["0,0"]["lava"] = True
    state["hexes"]["0,0"]["colonists"][0] = 1
    state, _ = GAME.apply(state, 0, {"type": "build", "hex": "0,0"}, rng)
    state["action_points"] = 4
    state, _ = GAME.apply(state, 0, {"type": "create", "hex": "0,0"}, rng)
    assert state["created_this_turn"] == {"10": 2}


def test_prayer_tokens_cost_one_more_each_and_once_a_turn():
    state = crafted(2, {"0,0": 9, "1,0": 9}, geysers=[("0,0", 0)])
    rng = Rng(b"a")
    state, ev = GAME.apply(state, 0, {"type": "buy_prayer"}, rng)
    assert ev[0]["cost"] == 1 and state["action_points"] == 3 and state["seats"][0]["prayer_tokens"] == 1
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, {"type": "buy_prayer"}, rng)
    assert info.value.code == "prayer_once_a_turn"
    state, _ = GAME.apply(state, 0, {"type": "end_turn"}, rng)
    state, _ = GAME.apply(state, 1, {"type": "end_turn"}, rng)
    state, ev = GAME.apply(state, 0, {"type": "buy_prayer"}, rng)
    assert ev[0]["cost"] == 2 and state["action_points"] == 2
    state["prayer_bought_this_turn"] = False
    state["action_points"] = 2
    assert {"type": "buy_prayer"} not in GAME.legal_actions(state, 0), "the third costs 3 AP"
    assert state["supply"]["prayer"] == 10


# -- scoring examples of the rulebook ----------------------------------------------------------


def _erect_series(villages: int) -> list[int]:
    """Erect three Moai in one area holding ``villages`` villages of the same colour."""
    cells = {"0,0": 1, "1,0": 1, "0,1": 1}
    state = crafted(2, cells, geysers=[("1,0", 0), ("1,0", 1), ("1,0", 5)])
    for k in ["0,0", "0,1"][:villages]:
        state["hexes"][k]["villages"].append(0)
    state["hexes"]["1,0"]["colonists"][0] = 1
    state["hexes"]["1,0"]["lying_moai"] = [0, 0, 0]
    points = []
    rng = Rng(b"erect")
    for g in range(3):
        state["action_points"] = 4
        state, ev = GAME.apply(state, 0, {"type": "erect", "geyser": g}, rng)
        points += [e["points"] for e in ev if e["type"] == "moai_points"]
    return points


def test_moai_points_with_one_village_are_1_2_3():
    assert _erect_series(1) == [1, 2, 3]


def test_moai_points_with_two_villages_are_2_4_6():
    assert _erect_series(2) == [2, 4, 6]


def test_moai_in_an_area_without_villages_is_one_point_each():
    assert _erect_series(0) == [1, 1, 1]


def test_other_colours_villages_do_not_multiply():
    cells = {"0,0": 1, "1,0": 1}
    state = crafted(2, cells, geysers=[("1,0", 0)])
    state["hexes"]["0,0"]["villages"] = [1, 1]
    state["hexes"]["1,0"]["colonists"][0] = 1
    state["hexes"]["1,0"]["lying_moai"] = [0]
    state, ev = GAME.apply(state, 0, {"type": "erect", "geyser": 0}, Rng(b"a"))
    assert [e["points"] for e in ev if e["type"] == "moai_points"] == [1]


@pytest.mark.parametrize("size,bonus", [(1, 0), (2, 4), (3, 6), (4, 8)])
def test_final_adjacent_moai_examples(size, bonus):
    cells = {k: 9 for k in line(6)}
    state = crafted(2, cells, geysers=[(k, 5) for k in line(6)])
    for g in range(size):
        state["geysers"][g]["moai"] = 0
    # a separate single Moai of the same colour adds no adjacency bonus
    state["geysers"][5]["moai"] = 0
    final = GAME.final_breakdown(state)[0]
    assert final["adjacent_moai"] == bonus
    assert final["moai"] == 2 * (size + 1)


def test_final_scoring_and_tie_breaks():
    cells = {k: 9 for k in line(4)}
    state = crafted(3, cells)
    h = state["hexes"]
    # seat 0: 1 village (3) + 1 colonist (4) + 1 prayer (2) = 9 + 0 during play
    h["0,0"]["villages"] = [0]
    h["0,0"]["colonists"] = [1, 0, 0]
    state["seats"][0]["prayer_tokens"] = 1
    # seat 1: 2 colonists = 8, plus 1 point during play = 9: more colonists wins the tie
    h["1,0"]["colonists"] = [0, 2, 0]
    state["seats"][1]["score"] = 1
    # seat 2: 1 lying Moai (2) + 7 during play = 9 with no colonist
    h["2,0"]["lying_moai"] = [2]
    state["seats"][2]["score"] = 7
    state["final_round"] = True
    state["current"] = 2
    state, ev = GAME.apply(state, 2, {"type": "end_turn"}, Rng(b"a"))
    out = GAME.outcome(state)
    assert out["scores"] == [9, 9, 9]
    assert out["ranks"] == [2, 1, 3] and out["winners"] == [1]
    assert out["detail"]["breakdown"][0]["villages"] == 3


def test_tie_on_everything_shares_the_rank():
    state = crafted(2, {"0,0": 9})
    state["final_round"] = True
    state["current"] = 1
    state, _ = GAME.apply(state, 1, {"type": "end_turn"}, Rng(b"a"))
    assert GAME.outcome(state)["ranks"] == [1, 1] and GAME.outcome(state)["winners"] == [0, 1]


# -- eruptions ---------------------------------------------------------------------------------


def _eruption_board():
    v = "0,0"
    cells = {v: 1}
    for d in range(6):
        for k in (1, 2, 3):
            cells[B.step(v, d, k)] = 2
    # SW: only the first hex, SE: the first hex is another volcano
    for k in (2, 3):
        del cells[B.step(v, 4, k)]
    lava = [B.step(v, 1, 1), B.step(v, 2, 1), B.step(v, 2, 2)] + [B.step(v, 3, k) for k in (1, 2, 3)]
    state = crafted(2, cells, volcanoes={v: 1, B.step(v, 5, 1): 2}, lava=lava)
    return state


def test_eruption_lava_in_each_direction_and_at_the_coast():
    state = _eruption_board()
    v = "0,0"
    expect = [B.step(v, 0, 1), B.step(v, 1, 2), B.step(v, 2, 3), B.step(v, 4, 1)]
    assert GAME.lava_targets(state, 1) == expect, "W runs into the sea: no lava; SE hits a volcano"
    sw = B.step(v, 4, 1)
    state["hexes"][sw]["villages"] = [1]
    state["hexes"][sw]["lying_moai"] = [0]
    before = state["supply"]["lava"]
    events = settle(state, [{"step": "erupt", "volcano": 1}])
    for k in expect:
        assert state["hexes"][k]["lava"]
    assert state["supply"]["lava"] == before - 4
    assert state["hexes"][sw]["villages"] == [] and state["hexes"][sw]["lying_moai"] == []
    seats = state["seats"]
    assert seats[1]["villages_in_supply"] == 7 and seats[0]["moai_in_supply"] == 15, "pieces back to supply"
    assert "destroyed" in kinds(events)


def test_erected_moai_survive_lava():
    state = _eruption_board()
    e = B.step("0,0", 0, 1)
    state["geysers"] = [{"hex": e, "dir": 0, "moai": 1, "sunk": False}]
    settle(state, [{"step": "erupt", "volcano": 1}])
    assert state["hexes"][e]["lava"] and state["geysers"][0]["moai"] == 1


def test_prayer_tokens_are_spent_out_of_turn_by_several_seats():
    state = _eruption_board()
    sw, e = B.step("0,0", 4, 1), B.step("0,0", 0, 1)
    state["hexes"][sw]["villages"] = [1, 1]
    state["hexes"][e]["lying_moai"] = [0]
    state["seats"][1]["prayer_tokens"] = 1
    state["seats"][0]["prayer_tokens"] = 2
    state["current"] = 0
    settle(state, [{"step": "erupt", "volcano": 1}])
    assert GAME.to_act(state) == [0, 1]
    # a token saves "un Moai o un villaggio", anyone's
    assert GAME.legal_actions(state, 1) == [
        {"type": "pray", "hex": e, "piece": "moai", "owner": 0},
        {"type": "pray", "hex": sw, "piece": "village", "owner": 1},
        {"type": "accept_loss"},
    ]
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, {"type": "end_turn"}, Rng(b"a"))
    assert info.value.code == "decision_pending"
    state, _ = GAME.apply(state, 1, {"type": "pray", "hex": sw, "piece": "village", "owner": 1}, Rng(b"a"))
    assert GAME.to_act(state) == [0], "seat 1 has no token left"
    state, ev = GAME.apply(state, 0, {"type": "accept_loss"}, Rng(b"a"))
    assert state["decision"] is None
    assert state["hexes"][sw]["villages"] == [1], "one village saved, one destroyed"
    assert state["hexes"][sw]["lava"]
    assert state["hexes"][e]["lying_moai"] == [] and state["seats"][0]["prayer_tokens"] == 2
    assert state["seats"][1]["prayer_tokens"] == 0 and state["supply"]["prayer"] == 12, "spent tokens leave the game"


def test_erect_with_an_eruption_through_perform():
    """Find a seed whose die shows a volcano, then erect: crack, eruption, points, in order."""
    faces = load_seed("isola-dei-vulcani", "rules")["die"]
    seed = next(s for s in range(100) if faces[Rng(bytes([s])).below(6)] == "volcano")
    state = _eruption_board()
    e = B.step("0,0", 0, 1)
    ne2 = B.step("0,0", 1, 2)
    state["geysers"] = [{"hex": e, "dir": 2, "moai": None, "sunk": False}]
    state["hexes"][e]["colonists"][0] = 1
    state["hexes"][e]["lying_moai"] = [0]
    state["volcano_tokens"] = [1]
    state, ev = GAME.apply(state, 0, {"type": "erect", "geyser": 0}, Rng(bytes([seed])))
    assert kinds(ev)[:4] == ["erected", "die", "eruption", "moai_points"]
    assert ev[0]["crack"] == B.edge(e, B.step(e, 2))
    assert state["cracks"] == [ev[0]["crack"]] and state["supply"]["cracks"] == 25
    assert state["hexes"][ne2]["lava"]


def test_a_crater_facing_an_existing_crack_adds_none():
    cells = {"0,0": 9, "1,0": 10}
    state = crafted(2, cells, geysers=[("1,0", 3)])
    state["cracks"] = [B.edge("0,0", "1,0")]
    state["supply"]["cracks"] = 25
    state["hexes"]["1,0"]["colonists"][0] = 1
    state["hexes"]["1,0"]["lying_moai"] = [0]
    state, ev = GAME.apply(state, 0, {"type": "erect", "geyser": 0}, Rng(b"a"))
    assert ev[0]["crack"] is None and state["supply"]["cracks"] == 25


def test_double_eruption_when_no_lava_is_left():
    state = _eruption_board()
    for h in state["hexes"].values():
        h["lava"] = False
    k = B.step("0,0", 0, 1)
    state["hexes"][k]["lava"] = True
    state["hexes"][k]["colonists"][0] = 1
    state, ev = GAME.apply(state, 0, {"type": "carve", "hex": k}, Rng(b"double"))
    assert "double_eruption" in kinds(ev)
    drawn = next(e for e in ev if e["type"] == "double_eruption")["volcanoes"]
    assert sorted(drawn) == [1, 2]
    assert [e["volcano"] for e in ev if e["type"] == "eruption"] == drawn
    assert any(h["lava"] for h in state["hexes"].values())


# -- sinking -----------------------------------------------------------------------------------


def _line_board(n=6, volcanoes=None, players=2):
    cells = {k: i + 9 for i, k in enumerate(line(n))}
    return crafted(players, cells, volcanoes=volcanoes or {})


def test_sinking_fewer_hexes_sinks():
    state = _line_board(6, {"0,0": 1, "5,0": 2, "4,0": 3})
    state["cracks"] = [B.edge("1,0", "2,0")]
    state["hexes"]["1,0"]["villages"] = [1]
    state["hexes"]["0,0"]["lava"] = False
    state["hexes"]["1,0"]["lava"] = True
    lava_before = state["supply"]["lava"]
    ev = settle(state, [{"step": "sink"}])
    assert "sunk" in kinds(ev)
    assert set(state["hexes"]) == set(line(6)[2:])
    assert state["seats"][1]["villages_in_supply"] == 7
    assert 1 not in state["volcano_tokens"] and "1" not in state["volcanoes"]
    assert state["cracks"] == [] and state["supply"]["lava"] == lava_before + 1


def test_sinking_tie_on_hexes_fewer_volcanoes_sinks():
    state = _line_board(6, {"0,0": 1, "4,0": 2, "5,0": 3})
    state["cracks"] = [B.edge("2,0", "3,0")]
    settle(state, [{"step": "sink"}])
    assert set(state["hexes"]) == {"3,0", "4,0", "5,0"}, "the left part has 1 volcano, the right 2"


def test_sinking_full_tie_draws_a_volcano_token():
    sunk_sides = set()
    for seed in range(12):
        state = _line_board(6, {"0,0": 1, "5,0": 2})
        state["cracks"] = [B.edge("2,0", "3,0")]
        ev = settle(state, [{"step": "sink"}], seed=bytes([seed]))
        drawn = next(e for e in ev if e["type"] == "sinking_draw")["volcano"]
        assert str(drawn) not in state["volcanoes"], "the part holding the drawn volcano sinks"
        sunk_sides.add(drawn)
    assert sunk_sides == {1, 2}


def test_sinking_rescue_decisions_all_for_actor_one_for_others():
    state = _line_board(6, {"5,0": 1}, players=3)
    state["cracks"] = [B.edge("1,0", "2,0")]
    state["current"] = 1
    state["hexes"]["0,0"]["colonists"] = [2, 2, 0]
    state["hexes"]["1,0"]["colonists"] = [1, 1, 0]
    settle(state, [{"step": "sink"}])
    d = state["decision"]
    assert d["kind"] == "rescue" and d["targets"] == ["2,0"]
    assert GAME.to_act(state) == [1], "1. the acting player first"
    assert GAME.legal_actions(state, 1) == [{"type": "rescue", "to": "2,0"}, {"type": "abandon"}]
    state, _ = GAME.apply(state, 1, {"type": "rescue", "to": "2,0"}, Rng(b"a"))
    assert GAME.to_act(state) == [0], "2. then the others"
    state, ev = GAME.apply(state, 0, {"type": "rescue", "to": "2,0"}, Rng(b"a"))
    assert state["hexes"]["2,0"]["colonists"] == [1, 3, 0], "actor saves all 3, seat 0 one"
    assert state["seats"][0]["colonists_in_supply"] == 4 + 2 and state["seats"][1]["colonists_in_supply"] == 4
    assert "0,0" not in state["hexes"] and state["decision"] is None


def test_sinking_through_an_erected_moai_and_end_after_the_round():
    # 4 volcanoes; the crack of the Moai cuts off a part with 2 of them: 2 remain -> end
    cells = {k: 9 + i for i, k in enumerate(line(7))}
    state = crafted(2, cells, volcanoes={"0,0": 1, "1,0": 2, "5,0": 3, "6,0": 4}, geysers=[("3,0", 3)])
    state["cracks"] = []
    state["hexes"]["3,0"]["colonists"][1] = 1
    state["hexes"]["3,0"]["lying_moai"] = [1]
    state["hexes"]["3,0"]["lava"] = False
    state["current"] = 1
    state["volcano_tokens"] = []  # no eruption in this test
    state, ev = GAME.apply(state, 1, {"type": "erect", "geyser": 0}, Rng(b"a"))
    assert "sunk" in kinds(ev) and "final_round" in kinds(ev)
    assert set(state["hexes"]) == {"3,0", "4,0", "5,0", "6,0"}
    assert state["final_round"] and state["end_reason"] == "two_volcanoes_or_fewer"
    # seat 1 is the last seat of the round (first player is 0): the match ends with its turn
    state, ev = GAME.apply(state, 1, {"type": "end_turn"}, Rng(b"a"))
    assert state["over"] and GAME.to_act(state) == [] and GAME.legal_actions(state, 0) == []
    assert GAME.outcome(state)["scores"][1] == 1 + 2 + 4


def test_the_round_completes_after_the_end_is_triggered():
    state = _line_board(3, {"0,0": 1})
    state["first_player"] = 0
    state["current"] = 0
    state["final_round"] = True
    state, _ = GAME.apply(state, 0, {"type": "end_turn"}, Rng(b"a"))
    assert not state["over"] and GAME.to_act(state) == [1]
    state, _ = GAME.apply(state, 1, {"type": "end_turn"}, Rng(b"a"))
    assert state["over"]


def test_late_noticed_sinking_is_worth_three_points():
    state = _line_board(6, {"5,0": 1})
    state["cracks"] = [B.edge("1,0", "2,0")]  # enclosed, but nobody sank it
    state["current"] = 1
    state["hexes"]["0,0"]["colonists"] = [1, 2]
    assert {"type": "claim_sinking"} in GAME.legal_actions(state, 1)
    state, ev = GAME.apply(state, 1, {"type": "claim_sinking"}, Rng(b"a"))
    assert state["decision"]["late"] and GAME.to_act(state) == [1], "the claimer acts first"
    state, _ = GAME.apply(state, 1, {"type": "rescue", "to": "2,0"}, Rng(b"a"))
    state, _ = GAME.apply(state, 0, {"type": "abandon"}, Rng(b"a"))
    assert state["seats"][1]["score"] == 3
    assert state["hexes"]["2,0"]["colonists"] == [0, 2]
    assert {"type": "claim_sinking"} not in GAME.legal_actions(state, 1)
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 1, {"type": "claim_sinking"}, Rng(b"a"))
    assert info.value.code == "nothing_enclosed"


# -- views and hidden information --------------------------------------------------------------


def test_views_hide_only_the_volcano_token_order():
    for seed in range(3):
        playout = random_playout(GAME, 3, {"setup": "advanced"}, seed=seed, probe_illegal=False)
        state = playout.state
        other = copy.deepcopy(state)
        other["volcano_tokens"] = list(reversed(other["volcano_tokens"]))
        for viewer in (None, 0, 1, 2):
            assert GAME.view(state, viewer) | {"you": 0} == GAME.view(other, viewer) | {"you": 0}
    state = GAME.setup(4, {"setup": "standard"}, Rng(b"v"))
    view = GAME.view(state, None)
    assert view["volcano_tokens"] == sorted(state["volcano_tokens"])
    for field in ("hexes", "cracks", "supply", "players_info", "geysers", "volcanoes"):
        assert field in view
    assert orjson.loads(orjson.dumps(view)) == view


def test_explain_names_rules():
    state = crafted(2, {"0,0": 9, "1,0": 9})
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, {"type": "carve", "hex": "0,0"}, Rng(b"a"))
    assert info.value.code == "no_colonist"
    state["hexes"]["0,0"]["colonists"][0] = 1
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, {"type": "build", "hex": "0,0"}, Rng(b"a"))
    assert info.value.code == "no_lava"
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, {"type": "pray", "hex": "0,0", "piece": "moai", "owner": 0}, Rng(b"a"))
    assert info.value.code == "no_decision"


# -- eager random play: decisions, sinkings, conservation of pieces ----------------------------


def _conserved(state):
    hexes = state["hexes"]
    n = state["players"]
    lava = sum(h["lava"] for h in hexes.values())
    assert lava + state["supply"]["lava"] == 47
    assert 0 <= state["supply"]["cracks"] and len(state["cracks"]) + state["supply"]["cracks"] <= 26
    spent_or_held = 12 - state["supply"]["prayer"]
    assert sum(p["prayer_tokens"] for p in state["seats"]) <= spent_or_held
    for s in range(n):
        p = state["seats"][s]
        assert sum(h["villages"].count(s) for h in hexes.values()) + p["villages_in_supply"] == 6
        erected = sum(1 for g in state["geysers"] if not g["sunk"] and g["moai"] == s)
        assert sum(h["lying_moai"].count(s) for h in hexes.values()) + erected + p["moai_in_supply"] == 14
        on_board = sum(h["colonists"][s] for h in hexes.values())
        assert on_board + p["colonists_on_boat"] + p["colonists_in_supply"] == 5
        supplies = (p["villages_in_supply"], p["moai_in_supply"], p["colonists_in_supply"], p["prayer_tokens"])
        assert min(supplies) >= 0
    for e in state["cracks"]:
        a, b = e.split("|")
        assert a in hexes and b in hexes
    assert len(GAME.components(state)) == 1 or state["decision"] is not None


@pytest.mark.parametrize("setup", SETUPS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_eager_playouts_keep_pieces_and_replay(players, setup):
    """Random play that prefers building and erecting reaches eruptions, prayers and sinkings."""
    import random

    from tests.support.contract import Playout

    seen: set[str] = set()
    for seed in range(3):
        chooser = random.Random(seed)
        rng_seed = bytes([players, seed]) * 16
        rng = Rng(rng_seed)
        options = {"setup": setup}
        state = GAME.setup(players, options, rng)
        playout = Playout(rng_seed, players, options)
        for _ in range(20000):
            to_act = GAME.to_act(state)
            if not to_act:
                break
            seat = chooser.choice(to_act)
            legal = GAME.legal_actions(state, seat)
            eager = [a for a in legal if a["type"] in ("erect", "move_moai", "carve", "build")]
            if eager and chooser.random() < 0.8:
                action = chooser.choice(eager)
            else:
                rest = [a for a in legal if a["type"] != "end_turn"]
                action = chooser.choice(rest if rest and chooser.random() < 0.85 else legal)
            rng = Rng(rng_seed, rng.position())
            state, events = GAME.apply(state, seat, copy.deepcopy(action), rng)
            seen.update(e["type"] for e in events)
            assert all("to" not in e for e in events), "'to' is reserved for addressed events"
            playout.moves.append((seat, action))
            _conserved(state)
        assert GAME.outcome(state) is not None
        playout.state = state
        playout.rng_counter = rng.position()
        assert_replays(GAME, playout)
    assert {"erected", "eruption", "moai_points", "built"} <= seen
