"""A move that comes back to the Hans spring it started on triggers that spring again. Reached by
seeded play through the public contract."""

from __future__ import annotations

import copy
import random

from service.engine import Rng
from service.games.viaggio import GAME
from service.games.viaggio.board import BLOCKING
from service.games.viaggio.data import BOARDS
from tests.games.viaggio.reach import Reached, finish_move, reach
from tests.games.viaggio.readings import head


def _spring_reentry(state: dict, seat: int, legal: list) -> list[dict] | None:
    """A move by ``seat`` from a spring that steps aside, comes back, then can still end."""
    if head(state)["kind"] != "turn" or state["phase"] != 1:
        return None
    board = BOARDS[1]
    for a in legal:
        if a["type"] != "choose":
            continue
        start = state["explorers"][a["colour"]]
        if start == "start" or board.kind(start) != "spring":
            continue
        probe = copy.deepcopy(state)
        GAME.apply(probe, seat, a, _rng())
        for side in [s["to"] for s in GAME.legal_actions(probe, seat) if s["type"] == "step"]:
            if side == "end" or board.depth(side) != board.depth(start) or board.kind(side) in ("spring", *BLOCKING):
                continue
            aside = copy.deepcopy(probe)
            GAME.apply(aside, seat, {"type": "step", "to": side}, _rng())
            if {"type": "step", "to": start} in GAME.legal_actions(aside, seat):
                return [a, {"type": "step", "to": side}, {"type": "step", "to": start}]
    return None


def _rng() -> Rng:
    return Rng(b"probe")


def test_a_move_that_comes_back_to_its_starting_spring_triggers_it() -> None:
    r: Reached = reach(lambda s, seat, legal: _spring_reentry(s, seat, legal) is not None, range(0, 300))
    plan = _spring_reentry(r.state, r.seat, r.legal)
    assert plan is not None
    seat = r.seat
    water = r.state["water"][seat]
    for action in plan:
        r.act(action)
    assert GAME.view(r.state, None)["decision"]["springs"] == 1, "the starting spring, entered again"
    supply = r.state["supply"]
    events = finish_move(r, random.Random(1))
    moved = next(e for e in events if e["type"] == "moved")
    assert moved["water"] >= 1 and r.state["water"][seat] >= water + 1
    assert supply >= 1
