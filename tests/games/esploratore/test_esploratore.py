"""Esploratore: contract, yield table, vehicles, orbital continuity, wild cards, every option."""

from __future__ import annotations

import copy
import json
import random

import orjson
import pytest

from service.engine import IllegalAction, Rng
from service.games.esploratore import GAME
from service.games.esploratore import rules as R
from service.games.esploratore.engine import connected_to_earth, continuous
from tests.support.contract import assert_replays, random_playout

OPTION_SETS = [
    {},
    {"beginners": True},
    {"race_250": True},
    {"upkeep": True},
    {"hidden_totals": True},
    {"beginners": True, "race_250": True, "upkeep": True, "hidden_totals": True},
]
P = R.POS_INDEX


# -- helpers ---------------------------------------------------------------------------------


def new(players: int = 2, **opts: bool) -> dict:
    return GAME.setup(players, GAME.resolve_options(players, opts), Rng(b"esploratore-test"))


def take(state: dict, cid: str) -> None:
    """Remove card ``cid`` from wherever it is (piles, reserve, hands, table)."""
    for pile in [*state["piles"], state["reserve"], *state["hands"]]:
        if cid in pile:
            pile.remove(cid)
    for stack in state["table"]:
        stack[:] = [e for e in stack if e["card"] != cid]


def lay(state: dict, pos: str, cid: str, flip: bool = False) -> None:
    take(state, cid)
    state["table"][P[pos]].append({"card": cid, "flip": flip})


def give(state: dict, seat: int, cid: str) -> None:
    """Put ``cid`` in the seat's hand in place of its first card (hand size stays 4)."""
    take(state, cid)
    state["reserve"].append(state["hands"][seat].pop(0))
    state["hands"][seat].append(cid)


def vehicle(state: dict, owner: int, pos: str, line: int, kind: str = "ship", mult: int | None = None) -> int:
    vid = state["next_vid"]
    state["next_vid"] += 1
    mult = mult if mult is not None else {"ship": 1, "station": 2, "factory": 3}[kind]
    state["vehicles"].append({"id": vid, "owner": owner, "kind": kind, "mult": mult, "pos": P[pos], "line": line})
    return vid


def at_phase(state: dict, phase: str) -> int:
    """Make it the current seat's ``phase``; returns that seat."""
    state["phase"] = phase
    GAME._start_turn(state)
    return GAME.current(state)


def act(state: dict, seat: int, action: dict) -> list:
    state, events = GAME.apply(state, seat, action, Rng(b"act"))
    return events


def bridge(state: dict, *pairs: tuple[str, str]) -> None:
    for pos, cid in pairs:
        lay(state, pos, cid)


# -- contract ----------------------------------------------------------------------------------


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "+".join(o) or "standard")
@pytest.mark.parametrize("players", range(2, 8))
def test_random_playouts_replay(players: int, options: dict) -> None:
    for seed in (players, 100 + players):
        playout = random_playout(GAME, players, options, seed=seed)
        assert_replays(GAME, playout)
        out = GAME.outcome(playout.state)
        assert out is not None and out["winners"]


def test_state_roundtrips_and_has_91_cards() -> None:
    state = new(7)
    assert orjson.loads(orjson.dumps(state)) == state
    assert len(R.PLAYING_CARDS) == 91
    counts = {p: sum(1 for c in R.PLAYING_CARDS if R.CARDS[c].pos == P[p]) for p in R.POSITIONS}
    assert set(counts.values()) == {7}
    assert sum(1 for c in R.PLAYING_CARDS if R.CARDS[c].wild) == 7
    everywhere = [c for pile in state["piles"] for c in pile] + [c for h in state["hands"] for c in h]
    assert sorted(everywhere) == sorted(R.PLAYING_CARDS)


# -- set-up and start ---------------------------------------------------------------------------


def test_setup_deals_one_card_of_each_inner_pile_and_highest_earth_starts() -> None:
    for seed in range(20):
        state = GAME.setup(4, GAME.resolve_options(4, {}), Rng(seed.to_bytes(4, "big")))
        for hand in state["hands"]:
            assert len(hand) == 4
        # each pile of the inner planets gave one card per player
        assert [len(state["piles"][P[p]]) for p in ("mercury", "venus", "earth", "mars")] == [4, 4, 4, 4]
        # wild cards were shuffled into the seven inner piles
        ranks = [max((R.CARDS[c].rank for c in h), default=0) for h in state["hands"]]
        first = state["order"][0]
        assert ranks[first] == max(ranks)
        legal = GAME.legal_actions(state, first)
        best = [c for c in state["hands"][first] if R.CARDS[c].rank == max(ranks)][0]
        assert legal == [{"type": "play", "card": best, "position": "earth", "flip": False}]
        assert state["order"] == [(first + i) % 4 for i in range(4)]


def test_first_player_plays_earth_draws_then_phase_two() -> None:
    state = new(3)
    seat = state["order"][0]
    (play,) = GAME.legal_actions(state, seat)
    act(state, seat, play)
    assert state["table"][R.EARTH][-1]["card"] == play["card"]
    assert state["phase"] == "draw"
    draws = GAME.legal_actions(state, seat)
    assert {a["pile"] for a in draws} == {p for p in R.POSITIONS if state["piles"][P[p]]}
    act(state, seat, {"type": "draw", "pile": "pluto"})
    assert len(state["hands"][seat]) == 4 and state["phase"] == "build"
    # after Earth only Earth, Venus, Mars cards (or wild cards on inner positions) can be played
    state["phase"] = "play"
    for a in GAME.legal_actions(state, seat):
        if a["type"] == "play":
            card = R.CARDS[a["card"]]
            assert a["position"] in ("venus", "earth", "mars") or card.wild


def test_exchange_puts_card_in_reserve_and_forbids_playing() -> None:
    state = new(2)
    lay(state, "earth", "C7")
    seat = at_phase(state, "play")
    card = state["hands"][seat][0]
    act(state, seat, {"type": "exchange", "card": card})
    assert card in state["reserve"] and state["phase"] == "draw"
    assert all(a["type"] == "draw" for a in GAME.legal_actions(state, seat))
    act(state, seat, {"type": "draw", "pile": "reserve"})
    assert state["hands"][seat].count(card) == 1 and state["phase"] == "build"


# -- yield table ---------------------------------------------------------------------------------

RULEBOOK_YIELDS = {
    "mercury": {"bronze": 6},
    "venus": {"biomass": 2, "water": 3},
    "earth": {"bronze": 1, "biomass": 1, "energy": 1, "water": 1},
    "mars": {"bronze": 2, "energy": 3},
    "asteroids": {"bronze": 2, "biomass": 2, "energy": 2, "water": 1},
    "jupiter": {"biomass": 4, "energy": 4},
    "saturn": {"bronze": 4, "energy": 4, "water": 4},
    "space1": {},
    "space2": {},
    "uranus": {"bronze": 7, "energy": 7},
    "neptune": {"bronze": 8, "energy": 8},
    "pluto": {"energy": 20},
}


def test_yield_table_matches_rulebook() -> None:
    for pos, expected in RULEBOOK_YIELDS.items():
        assert R.YIELD[P[pos]] == [expected.get(r, 0) for r in R.RESOURCES], pos
    assert [
        sum(R.YIELD[P[p]])
        for p in ("mercury", "venus", "earth", "mars", "asteroids", "jupiter", "saturn", "uranus", "neptune", "pluto")
    ] == [6, 5, 4, 5, 7, 8, 12, 14, 16, 20]


def _card_with(pos: int, line: int, meeting: bool = False) -> str | None:
    for cid in R.PLAYING_CARDS:
        card = R.CARDS[cid]
        if card.pos == pos and (card.meet if meeting else card.lines) >> line & 1:
            return cid
    return None


@pytest.mark.parametrize("pos", [p for p in R.POSITIONS if not p.startswith("space")])
def test_each_planet_yields_its_table_row_to_a_connected_ship(pos: str) -> None:
    lo, hi = sorted((P[pos], R.EARTH))
    for line in range(R.NLINES):
        cards = {p: _card_with(p, line) for p in range(lo, hi + 1)}
        cards[P[pos]] = _card_with(P[pos], line, meeting=True)
        if all(cards.values()):
            break
    else:  # pragma: no cover - the seed always has such a bridge
        raise AssertionError("no bridge")
    state = new(2)
    for p, cid in cards.items():
        lay(state, R.POSITIONS[p], cid)
    assert continuous(state, line, P[pos], R.EARTH)
    seat = at_phase(state, "move")
    vehicle(state, seat, pos, line)
    act(state, seat, {"type": "end_moves"})
    assert state["totals"][seat] == R.YIELD[P[pos]]


def _inner_line(state: dict) -> None:
    """Earth, Mars and Asteroids all carrying line 0; meeting points on line 0 at Mars."""
    lay(state, "earth", "C7")  # lines 0,2,3,4,5,6; meeting 3,5
    lay(state, "mars", "MAR-1")  # lines 0,1,2,4,5; meeting 0,4
    lay(state, "asteroids", "AST-2")  # lines 0,2,3,4,6; meeting 0,3


def test_ship_on_connected_meeting_point_gets_single_yield() -> None:
    state = new(2)
    _inner_line(state)
    seat = at_phase(state, "move")
    vehicle(state, seat, "mars", 0)
    events = act(state, seat, {"type": "end_moves"})
    assert state["totals"][seat] == [2, 0, 3, 0]  # 2 bronze, 3 energy
    assert {"type": "scored", "seat": seat, "resources": [2, 0, 3, 0]} in events


def test_no_yield_off_meeting_point_or_when_line_is_broken() -> None:
    state = new(2)
    _inner_line(state)
    seat = at_phase(state, "move")
    vehicle(state, seat, "mars", 2)  # line 2 at Mars: no meeting point there
    act(state, seat, {"type": "end_moves"})
    assert state["totals"][seat] == [0, 0, 0, 0]
    state = new(2)
    lay(state, "earth", "C1")  # lines 0,1,3,4,6
    lay(state, "mars", "MAR-5")  # lines 1,2,4,5,6; meeting 4,6
    lay(state, "asteroids", "AST-4")  # lines 1,2,4,5,6; meeting 4,6
    state["table"][P["mars"]] = [{"card": "MAR-2", "flip": False}]  # lines 1,2,3,5,6: line 4 broken
    seat = at_phase(state, "move")
    vid = vehicle(state, seat, "asteroids", 4)
    assert not connected_to_earth(state, state["vehicles"][-1])
    act(state, seat, {"type": "end_moves"})
    assert state["totals"][seat] == [0, 0, 0, 0]
    assert vid == state["vehicles"][-1]["id"]


# -- vehicles ----------------------------------------------------------------------------------


def test_station_doubles_and_factory_triples() -> None:
    state = new(2)
    _inner_line(state)
    seat = at_phase(state, "move")
    vehicle(state, seat, "mars", 0, "station")
    act(state, seat, {"type": "end_moves"})
    assert state["totals"][seat] == [4, 0, 6, 0]
    state = new(2)
    _inner_line(state)
    seat = at_phase(state, "move")
    vehicle(state, seat, "asteroids", 0, "factory")
    act(state, seat, {"type": "end_moves"})
    assert state["totals"][seat] == [6, 6, 6, 3]


def test_factory_storage_rises_when_cut_off_and_resets_after_yield() -> None:
    state = new(2)
    lay(state, "earth", "C1")  # lines 0,1,3,4,6 (no line 2)
    lay(state, "mars", "MAR-1")  # meeting 0,4
    seat = at_phase(state, "move")
    # on Mars, line 4 meeting point: Earth C1 carries line 4 -> connected; use line 0 on Mars
    # but break it by Earth lacking... C1 carries 0, so cut Mars from Earth with a line Earth lacks
    state["table"][P["mars"]] = [{"card": "MAR-3", "flip": False}]  # lines 0,2,3,4,6; meeting 0,3
    state["table"][R.EARTH] = [{"card": "C3", "flip": False}]  # lines 1,2,3,5,6: line 0 broken
    vid = vehicle(state, seat, "mars", 0, "factory")
    fac = state["vehicles"][-1]
    for expected in (4, 5, 6, 6):
        state["phase"] = "move"
        act(state, seat, {"type": "end_moves"})
        state["turn"] = state["order"].index(seat)
        assert fac["mult"] == expected and state["totals"][seat] == [0, 0, 0, 0]
    state["table"][R.EARTH] = [{"card": "C4", "flip": False}]  # lines 0,2,3,4,6: reconnected
    state["phase"] = "move"
    act(state, seat, {"type": "end_moves"})
    assert state["totals"][seat] == [12, 0, 18, 0]  # 6 x (2 bronze, 3 energy)
    assert fac["mult"] == 3 and fac["id"] == vid


def test_build_ship_on_free_earth_orbit_only() -> None:
    state = new(2)
    lay(state, "earth", "C2")  # lines 0,1,2,4,5
    seat = at_phase(state, "build")
    other = 1 - seat
    vehicle(state, other, "earth", 0)
    vehicle(state, seat, "earth", 1)
    builds = [a["line"] for a in GAME.legal_actions(state, seat) if a["type"] == "build"]
    assert builds == [2, 4, 5]
    act(state, seat, {"type": "build", "line": 4})
    assert state["phase"] == "move"
    assert [v for v in state["vehicles"] if v["owner"] == seat and v["line"] == 4][0]["kind"] == "ship"
    # at most three vehicles (the three dice)
    state = new(2)
    lay(state, "earth", "C2")
    seat = at_phase(state, "build")
    for line in (0, 1, 2):
        vehicle(state, seat, "earth", line)
    assert not [a for a in GAME.legal_actions(state, seat) if a["type"] == "build"]
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, {"type": "build", "line": 4}, Rng(b"x"))
    assert info.value.code == "vehicle_limit"


def test_combine_ships_into_station_and_factory_on_meeting_point_since_turn_start() -> None:
    state = new(2)
    _inner_line(state)
    seat = GAME.current(state)
    a = vehicle(state, seat, "mars", 0)
    b = vehicle(state, seat, "mars", 0)
    c = vehicle(state, seat, "mars", 0)
    d = vehicle(state, seat, "mars", 2)  # not on a meeting point
    at_phase(state, "build")
    combos = [x["vehicles"] for x in GAME.legal_actions(state, seat) if x["type"] == "combine"]
    assert sorted(combos) == sorted([[a, b], [a, c], [b, c], [a, b, c]])
    assert all(d not in x for x in combos)
    act(state, seat, {"type": "combine", "vehicles": [a, b]})
    kinds = {v["id"]: v["kind"] for v in state["vehicles"]}
    assert kinds == {a: "station", c: "ship", d: "ship"}
    at_phase(state, "build")
    combos = [x["vehicles"] for x in GAME.legal_actions(state, seat) if x["type"] == "combine"]
    assert combos == [[a, c]]
    act(state, seat, {"type": "combine", "vehicles": [a, c]})
    assert {v["id"]: (v["kind"], v["mult"]) for v in state["vehicles"]} == {a: ("factory", 3), d: ("ship", 1)}
    # vehicles that arrived this turn (phase 1 shift) may not combine
    state = new(2)
    _inner_line(state)
    seat = at_phase(state, "build")
    vehicle(state, seat, "mars", 0)
    vehicle(state, seat, "mars", 0)
    assert not [x for x in GAME.legal_actions(state, seat) if x["type"] == "combine"]


def test_ship_moves_along_continuous_line_and_stations_only_change_orbit() -> None:
    state = new(2)
    _inner_line(state)  # line 0 on Earth, Mars, Asteroids; Jupiter empty
    seat = at_phase(state, "move")
    ship = vehicle(state, seat, "earth", 0)
    station = vehicle(state, seat, "mars", 4, "station")
    legal = GAME.legal_actions(state, seat)
    ship_moves = {(a["position"], a["line"]) for a in legal if a["type"] == "move" and a["vehicle"] == ship}
    assert ("mars", 0) in ship_moves and ("asteroids", 0) in ship_moves
    assert ("jupiter", 0) not in ship_moves  # no card there
    assert {(p, ln) for p, ln in ship_moves if p == "earth"} == {("earth", ln) for ln in (2, 3, 4, 5, 6)}
    station_moves = {(a["position"], a["line"]) for a in legal if a["type"] == "move" and a["vehicle"] == station}
    assert station_moves == {("mars", ln) for ln in (0, 1, 2, 5)}
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, {"type": "move", "vehicle": station, "position": "asteroids", "line": 4}, Rng(b"x"))
    assert info.value.code == "movement_rule"
    act(state, seat, {"type": "move", "vehicle": ship, "position": "asteroids", "line": 0})
    assert not [a for a in GAME.legal_actions(state, seat) if a["type"] == "move" and a["vehicle"] == ship]


def test_line_continuity_across_cards_stops_at_a_break_and_other_explorers_block_the_end() -> None:
    state = new(2)
    lay(state, "earth", "C7")  # lines 0,2,3,4,5,6
    lay(state, "mars", "MAR-2")  # lines 1,2,3,5,6: line 0 broken here
    lay(state, "asteroids", "AST-2")  # line 0 again
    assert not continuous(state, 0, R.EARTH, P["asteroids"])
    assert continuous(state, 5, R.EARTH, P["mars"]) and not continuous(state, 5, R.EARTH, P["asteroids"])
    assert continuous(state, 3, R.EARTH, P["asteroids"])
    seat = at_phase(state, "move")
    ship = vehicle(state, seat, "earth", 3)
    vehicle(state, 1 - seat, "mars", 3)
    dests = {(a["position"], a["line"]) for a in GAME.legal_actions(state, seat) if a.get("vehicle") == ship}
    assert ("asteroids", 3) in dests  # passing another explorer's vehicle is allowed
    assert ("mars", 3) not in dests  # ending on its slot is not


# -- playing cards: orbits kept, placement, wild cards ------------------------------------------


def test_card_must_keep_lines_of_other_explorers_vehicles() -> None:
    state = new(2)
    lay(state, "earth", "C7")
    seat = at_phase(state, "play")
    vehicle(state, 1 - seat, "earth", 0)
    give(state, seat, "C3")  # lines 1,2,3,5,6: lacks line 0
    give(state, seat, "C4")  # lines 0,2,3,4,6
    plays = {(a["card"], a["position"]) for a in GAME.legal_actions(state, seat) if a["type"] == "play"}
    assert ("C4", "earth") in plays and ("C3", "earth") not in plays
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, {"type": "play", "card": "C3", "position": "earth", "flip": False}, Rng(b"x"))
    assert info.value.code == "orbit_kept"


def test_own_stranded_vehicle_must_shift_to_another_orbit() -> None:
    state = new(2)
    lay(state, "earth", "C7")
    seat = at_phase(state, "play")
    vid = vehicle(state, seat, "earth", 0)
    give(state, seat, "C3")  # lacks line 0
    act(state, seat, {"type": "play", "card": "C3", "position": "earth", "flip": False})
    assert state["phase"] == "shift"
    legal = GAME.legal_actions(state, seat)
    assert {"type": "skip_shift"} not in legal
    assert {a["line"] for a in legal} == {1, 2, 3, 5, 6}
    act(state, seat, {"type": "shift", "vehicle": vid, "line": 5})
    assert state["vehicles"][-1]["line"] == 5 and state["phase"] == "draw"


def test_placement_on_or_beside_revealed_card() -> None:
    state = new(2)
    lay(state, "earth", "C7")
    seat = at_phase(state, "play")
    give(state, seat, "JUP-1")
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, {"type": "play", "card": "JUP-1", "position": "jupiter", "flip": False}, Rng(b"x"))
    assert info.value.code == "placement_rule"
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, {"type": "play", "card": "JUP-1", "position": "mars", "flip": False}, Rng(b"x"))
    assert info.value.code == "wrong_position"
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, {"type": "play", "card": "C7", "position": "earth", "flip": False}, Rng(b"x"))
    assert info.value.code == "card_not_in_hand"


def test_wild_card_gathers_the_stack_into_the_reserve_and_keeps_every_line() -> None:
    state = new(2)
    lay(state, "earth", "C7")
    lay(state, "mars", "MAR-1")
    lay(state, "mars", "MAR-2")
    seat = at_phase(state, "play")
    vehicle(state, 1 - seat, "mars", 6)
    give(state, seat, "W1")
    positions = {a["position"] for a in GAME.legal_actions(state, seat) if a["type"] == "play" and a["card"] == "W1"}
    assert positions == {"venus", "earth", "mars", "asteroids"}  # inner positions on/beside cards
    reserve = len(state["reserve"])
    events = act(state, seat, {"type": "play", "card": "W1", "position": "mars", "flip": False})
    assert state["table"][P["mars"]] == [{"card": "W1", "flip": False}]
    assert {"MAR-1", "MAR-2"} <= set(state["reserve"]) and len(state["reserve"]) == reserve + 2
    assert any(e["type"] == "gathered" for e in events)
    # a wild card never goes beyond Saturn
    lay(state, "saturn", "SAT-1")
    state["phase"] = "play"
    give(state, seat, "W2")
    positions = {a["position"] for a in GAME.legal_actions(state, seat) if a["type"] == "play" and a["card"] == "W2"}
    assert "space1" not in positions and "saturn" in positions
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, {"type": "play", "card": "W2", "position": "space1", "flip": False}, Rng(b"x"))
    assert info.value.code == "wild_position"


# -- rounds, order, end ---------------------------------------------------------------------------


def test_next_round_starts_with_lowest_yield_with_resource_tie_breaks() -> None:
    state = new(4)
    state["sheet"] = [{"round": 1, "yields": [[5, 0, 0, 0], [0, 0, 0, 5], [0, 0, 5, 0], [3, 3, 3, 3]]}]
    # equal totals 5: least water -> seats 0 and 2; then least energy -> seat 0
    assert GAME._next_order(state, Rng(b"x")) == [0, 1, 2, 3]
    state["sheet"][0]["yields"] = [[5, 0, 0, 0], [0, 0, 0, 5], [0, 5, 0, 0], [3, 3, 3, 3]]
    # seats 0 and 2: water 0, energy 0; biomass: seat 0 has less
    assert GAME._next_order(state, Rng(b"x"))[0] == 0
    state["sheet"][0]["yields"] = [[9, 0, 0, 0], [0, 0, 0, 9], [1, 1, 1, 1], [3, 3, 3, 3]]
    assert GAME._next_order(state, Rng(b"x")) == [2, 3, 0, 1]
    state["sheet"][0]["yields"] = [[1, 1, 1, 1]] * 4  # full tie: by lot
    firsts = {GAME._next_order(state, Rng(bytes([i])))[0] for i in range(30)}
    assert len(firsts) > 1


def test_match_ends_after_twelve_rounds_and_each_player_has_one_turn_per_round() -> None:
    playout = random_playout(GAME, 3, {}, seed=7, probe_illegal=False)
    state = playout.state
    assert len(state["sheet"]) == 12 and state["round"] == 12
    assert sum(1 for _, a in playout.moves if a["type"] == "end_moves") == 36


def test_winner_by_most_resource_types_led_with_tie_breaks() -> None:
    state = new(3)
    state["phase"] = "over"
    state["totals"] = [[10, 10, 0, 0], [0, 0, 10, 1], [0, 0, 0, 0]]
    out = GAME.outcome(state)
    assert out["scores"] == [2, 2, 0]
    # both lead two types: more water wins
    assert out["winners"] == [1] and out["ranks"] == [2, 1, 3]
    state["totals"] = [[10, 10, 0, 5], [0, 0, 10, 5], [0, 0, 0, 0]]
    out = GAME.outcome(state)  # seat 0 leads bronze, biomass, water (shared)
    assert out["scores"] == [3, 2, 0] and out["winners"] == [0]
    state["totals"] = [[4, 0, 3, 5], [4, 0, 3, 5], [0, 0, 0, 0]]
    out = GAME.outcome(state)
    assert out["winners"] == [0, 1] and out["ranks"] == [1, 1, 3]


# -- options -----------------------------------------------------------------------------------


def test_beginners_variant_fixed_earth_deal_and_upside_down() -> None:
    state = new(3, beginners=True)
    assert state["table"][R.EARTH] == [{"card": "EARTH", "flip": False}]
    assert not any(R.CARDS[c].pos == R.EARTH and not R.CARDS[c].wild for pile in state["piles"] for c in pile)
    assert state["phase"] == "deal"
    seat = GAME.to_act(state)[0]
    piles = {a["pile"] for a in GAME.legal_actions(state, seat)}
    assert piles == {"asteroids", "jupiter", "saturn", "space1", "space2", "uranus", "neptune", "pluto"}
    for _ in range(3):
        s = GAME.to_act(state)[0]
        act(state, s, {"type": "draw", "pile": "pluto"})
    assert state["phase"] == "play" and all(len(h) == 4 for h in state["hands"])
    seat = GAME.current(state)
    give(state, seat, "MAR-1")  # lines 0,1,2,4,5; meeting 0,4 -> upside down: 1,2,4,5,6; meeting 2,6
    plays = [a for a in GAME.legal_actions(state, seat) if a["type"] == "play" and a["card"] == "MAR-1"]
    assert {a["flip"] for a in plays} == {False, True}
    act(state, seat, {"type": "play", "card": "MAR-1", "position": "mars", "flip": True})
    view = GAME.view(state, seat)
    assert view["positions"][P["mars"]]["top"]["lines"] == [1, 2, 4, 5, 6]
    assert view["positions"][P["mars"]]["top"]["meeting"] == [2, 6]
    # upside down is refused in the standard game
    state = new(2)
    lay(state, "earth", "C7")
    seat = at_phase(state, "play")
    give(state, seat, "MAR-1")
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, {"type": "play", "card": "MAR-1", "position": "mars", "flip": True}, Rng(b"x"))
    assert info.value.code == "upside_down"


def test_race_250_ends_the_match_at_once() -> None:
    state = new(3, race_250=True)
    _inner_line(state)
    seat = at_phase(state, "move")
    state["totals"][seat] = [100, 100, 45, 0]
    vehicle(state, seat, "mars", 0)
    events = act(state, seat, {"type": "end_moves"})
    assert state["phase"] == "over" and any(e["type"] == "race_won" for e in events)
    out = GAME.outcome(state)
    assert out["winners"] == [seat] and out["scores"][seat] == 250
    assert all(GAME.legal_actions(state, s) == [] for s in range(3))
    # without the option the same total does not end the match
    state = new(3)
    _inner_line(state)
    seat = at_phase(state, "move")
    state["totals"][seat] = [100, 100, 45, 0]
    vehicle(state, seat, "mars", 0)
    act(state, seat, {"type": "end_moves"})
    assert state["phase"] == "play"


def test_upkeep_variant_charges_crews_trades_at_factor_five_and_loses_unpaid_vehicles() -> None:
    state = new(2, upkeep=True)
    _inner_line(state)
    seat = at_phase(state, "move")
    state["totals"][seat] = [10, 0, 0, 1]
    vehicle(state, seat, "earth", 3)  # Earth yields everything: free
    vehicle(state, seat, "mars", 2)  # Mars lacks biomass and water: 1 each
    station = vehicle(state, seat, "asteroids", 1, "station")  # all four types there: free
    act(state, seat, {"type": "end_moves"})
    # the Earth ship sits on Earth's meeting point (line 3): +1 of each
    assert state["totals"][seat] == [11, 1, 1, 2]
    assert state["phase"] == "upkeep" and state["upkeep_need"] == [0, 1, 0, 1]
    legal = GAME.legal_actions(state, seat)
    assert {"type": "pay_upkeep"} in legal
    act(state, seat, {"type": "pay_upkeep"})
    assert state["totals"][seat] == [11, 0, 1, 1]
    assert len([v for v in state["vehicles"] if v["owner"] == seat]) == 3
    # a shortfall: trade 5 bronze for 1 biomass with the government
    state = new(2, upkeep=True)
    _inner_line(state)
    seat = at_phase(state, "move")
    state["totals"][seat] = [12, 0, 0, 0]
    vehicle(state, seat, "mars", 2, "station")  # needs 2 biomass and 2 water
    act(state, seat, {"type": "end_moves"})
    assert state["upkeep_need"] == [0, 2, 0, 2]
    trades = [a for a in GAME.legal_actions(state, seat) if a["type"] == "trade"]
    assert {(a["give"], a["get"]) for a in trades} == {("bronze", "biomass"), ("bronze", "water")}
    act(state, seat, {"type": "trade", "give": "bronze", "get": "water"})
    act(state, seat, {"type": "trade", "give": "bronze", "get": "water"})
    assert state["totals"][seat] == [2, 0, 0, 2]
    assert not [a for a in GAME.legal_actions(state, seat) if a["type"] == "trade"]
    events = act(state, seat, {"type": "pay_upkeep"})
    lost = [e for e in events if e["type"] == "upkeep_paid"][0]["lost"]
    assert len(lost) == 1 and not [v for v in state["vehicles"] if v["owner"] == seat]
    _ = station


def test_upkeep_barter_with_explorer_met_at_same_planet() -> None:
    state = new(3, upkeep=True)
    _inner_line(state)
    seat = at_phase(state, "move")
    partner, stranger = [s for s in range(3) if s != seat]
    state["totals"][seat] = [5, 0, 0, 1]
    state["totals"][partner] = [0, 3, 0, 0]
    vehicle(state, seat, "mars", 0)  # meeting point at Mars; needs 1 biomass, 1 water
    vehicle(state, partner, "mars", 4)  # also on a Mars meeting point
    vehicle(state, stranger, "asteroids", 0)
    act(state, seat, {"type": "end_moves"})
    offers = [a for a in GAME.legal_actions(state, seat) if a["type"] == "offer"]
    assert offers and {a["partner"] for a in offers} == {partner}
    act(state, seat, {"type": "offer", "partner": partner, "give": "bronze", "get": "biomass", "amount": 1})
    assert GAME.to_act(state) == [partner]
    assert GAME.legal_actions(state, partner) == [{"type": "accept_offer"}, {"type": "decline_offer"}]
    act(state, partner, {"type": "accept_offer"})
    assert state["totals"][seat][:2] == [6, 1] and state["totals"][partner][:2] == [1, 2]
    assert GAME.to_act(state) == [seat]
    assert not [a for a in GAME.legal_actions(state, seat) if a["type"] == "offer"]  # asked once per turn
    act(state, seat, {"type": "pay_upkeep"})
    assert len([v for v in state["vehicles"] if v["owner"] == seat]) == 1


def test_hidden_totals_option_hides_other_totals_until_the_end() -> None:
    state = new(3, hidden_totals=True)
    state["totals"] = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 9, 9, 9]]
    state["sheet"] = [{"round": 1, "yields": [[1, 0, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0]]}]
    view = GAME.view(state, 1)
    assert view["score_sheet"]["totals"] == [None, [5, 6, 7, 8], None]
    assert view["score_sheet"]["rounds"][0]["yields"] == [None, [2, 0, 0, 0], None]
    assert GAME.view(state, None)["score_sheet"]["totals"] == [None, None, None]
    assert GAME.view(new(3), None)["score_sheet"]["totals"] == [[0, 0, 0, 0]] * 3
    state["phase"] = "over"
    assert GAME.view(state, 1)["score_sheet"]["totals"][0] == [1, 2, 3, 4]


# -- views and hidden information ----------------------------------------------------------------


def _hidden_ids(state: dict, seat: int | None) -> set[str]:
    hidden = {c for pile in state["piles"] for c in pile} | set(state["reserve"])
    for s, hand in enumerate(state["hands"]):
        if s != seat:
            hidden |= set(hand)
    return hidden


@pytest.mark.parametrize("options", [{}, {"beginners": True, "upkeep": True, "hidden_totals": True}])
def test_views_never_leak_hands_or_pile_order(options: dict) -> None:
    for players in (2, 5, 7):
        playout = random_playout(GAME, players, options, seed=players, probe_illegal=False)
        rng = Rng(playout.seed)
        state = GAME.setup(players, playout.options, rng)
        for i, (seat, action) in enumerate(playout.moves):
            if i % 7 == 0:
                for viewer in [None, *range(players)]:
                    text = json.dumps(GAME.view(state, viewer))
                    for cid in _hidden_ids(state, viewer):
                        assert f'"{cid}"' not in text, (viewer, cid)
                    if viewer is not None:
                        assert [c["card"] for c in GAME.view(state, viewer)["hand"]] == state["hands"][viewer]
            rng = Rng(playout.seed, rng.position())
            state, events = GAME.apply(state, seat, copy.deepcopy(action), rng)
            for viewer in [None, *range(players)]:
                text = json.dumps(GAME.visible_events(events, viewer))
                known = {action["card"]} if action["type"] == "exchange" and viewer == seat else set()
                # cards gathered by a wild card lay face up on the table: public knowledge
                known |= {c for e in events if e["type"] == "gathered" for c in e["cards"]}
                for cid in _hidden_ids(state, viewer) - known:
                    assert f'"{cid}"' not in text
                redacted = json.dumps(GAME.redact_action(action, seat, viewer))
                if action["type"] == "exchange" and viewer != seat:
                    assert action["card"] not in redacted


def test_views_of_states_differing_only_in_hidden_cards_are_equal() -> None:
    state = new(4)
    other = copy.deepcopy(state)
    rnd = random.Random(3)
    for pile in other["piles"]:
        rnd.shuffle(pile)
    # swap a card between seat 1's hand and a pile of the same size
    other["hands"][1][0], other["piles"][P["pluto"]][0] = other["piles"][P["pluto"]][0], other["hands"][1][0]
    for viewer in (None, 0, 2, 3):
        assert GAME.view(state, viewer) == GAME.view(other, viewer)
    assert GAME.view(state, 1) != GAME.view(other, 1)


def test_view_shows_table_vehicles_and_score_sheet() -> None:
    state = new(2)
    _inner_line(state)
    vehicle(state, 0, "mars", 0, "station")
    view = GAME.view(state, 0)
    assert view["positions"][P["mars"]]["top"] == {
        "card": "MAR-1",
        "flip": False,
        "lines": [0, 1, 2, 4, 5],
        "meeting": [0, 4],
    }
    assert view["vehicles"][0] == {
        "id": 0,
        "owner": 0,
        "kind": "station",
        "multiplier": 2,
        "position": "mars",
        "line": 0,
        "meeting_point": True,
        "connected": True,
    }
    assert set(view["score_sheet"]) == {"resources", "totals", "this_round", "rounds"}
    assert len(view["hand"]) == 4 and "hand" not in GAME.view(state, None)
    assert view["positions"][P["pluto"]]["pile"] == 7
