"""Combining vehicles: only those on one meeting point at the start of the move ("all'inizio
della mossa … sullo stesso punto d'incontro"), named in any order. Each situation is played up
to through the public contract, then checked."""

from __future__ import annotations

import copy

import pytest

from service.engine import IllegalAction, Rng
from service.games.esploratore import GAME
from service.games.esploratore import rules as R
from tests.games.esploratore.checks import meets

from .reach import reach


def own(state: dict, seat: int) -> list[dict]:
    return [v for v in state["vehicles"] if v["owner"] == seat]


def finish_phase_one(r) -> None:
    """After a play: keep own vehicles where they are (or the forced shift), then draw."""
    while r.state["phase"] in ("shift", "draw"):
        skip = {"type": "skip_shift"}
        r.act(skip if skip in r.legal else r.legal[0])


def _pair(state: dict, seat: int) -> tuple[int, int, list[int]] | None:
    """(position, line, vehicle ids) of two or more own combinable vehicles sharing a slot."""
    slots: dict[tuple[int, int], list[dict]] = {}
    for v in own(state, seat):
        if v["kind"] != "factory":
            slots.setdefault((v["pos"], v["line"]), []).append(v)
    for (pos, line), group in slots.items():
        if len(group) >= 2 and [v["kind"] for v in group] != ["station", "station"]:
            return pos, line, [v["id"] for v in group]
    return None


def _meeting_play(state: dict, seat: int, legal: list[dict], appears: bool) -> dict | None:
    """A legal play on the slot of an own pair that makes a meeting point appear there
    (``appears``) or disappear, the line being kept."""
    if state["phase"] != "play" or (pair := _pair(state, seat)) is None:
        return None
    pos, line, _ = pair
    if meets(state, pos, line) == appears:
        return None
    for a in legal:
        if a["type"] == "play" and R.POS_INDEX[a["position"]] == pos:
            lines, meet = R.CARDS[a["card"]].masks(a["flip"])
            if lines >> line & 1 and bool(meet >> line & 1) == appears:
                return a
    return None


def test_a_meeting_point_that_appears_during_the_turn_does_not_allow_combining() -> None:
    r = reach(
        lambda s, seat, legal: _meeting_play(s, seat, legal, appears=True) is not None,
        players=3,
        seeds=range(400),
        randomness=0.3,
    )
    pos, line, ids = _pair(r.state, r.seat)
    seat = r.seat
    r.act(_meeting_play(r.state, r.seat, r.legal, appears=True))
    finish_phase_one(r)
    assert r.seat == seat and r.state["phase"] == "build"
    assert meets(r.state, pos, line)  # the vehicles now stand on a meeting point...
    combines = [a for a in r.legal if a["type"] == "combine"]
    assert not [a for a in combines if set(a["vehicles"]) & set(ids)]  # ...that came too late
    with pytest.raises(IllegalAction) as info:
        GAME.apply(r.state, seat, {"type": "combine", "vehicles": ids[:2]}, r.rng)
    assert info.value.code == "combine_rule"


def test_vehicles_on_a_meeting_point_at_the_turn_start_combine_even_if_a_play_removed_it() -> None:
    r = reach(
        lambda s, seat, legal: _meeting_play(s, seat, legal, appears=False) is not None,
        players=3,
        seeds=range(400),
        randomness=0.3,
    )
    pos, line, ids = _pair(r.state, r.seat)
    seat = r.seat
    r.act(_meeting_play(r.state, r.seat, r.legal, appears=False))
    finish_phase_one(r)
    assert r.seat == seat and r.state["phase"] == "build" and not meets(r.state, pos, line)
    assert any(set(a["vehicles"]) <= set(ids) for a in r.legal if a["type"] == "combine")


def test_combine_accepts_the_vehicle_ids_in_any_order() -> None:
    r = reach(lambda s, seat, legal: any(a["type"] == "combine" for a in legal), players=2)
    combine = max((a for a in r.legal if a["type"] == "combine"), key=lambda a: len(a["vehicles"]))
    position = r.rng.position()
    results = []
    for ids in (combine["vehicles"], list(reversed(combine["vehicles"]))):
        state, events = GAME.apply(
            copy.deepcopy(r.state), r.seat, {"type": "combine", "vehicles": ids}, Rng(r.rng.seed, position)
        )
        results.append((state, events))
    assert results[0] == results[1]
    with pytest.raises(IllegalAction):  # the same vehicle twice is still no combination
        GAME.apply(
            copy.deepcopy(r.state),
            r.seat,
            {"type": "combine", "vehicles": [combine["vehicles"][0]] * 2},
            Rng(r.rng.seed, position),
        )
