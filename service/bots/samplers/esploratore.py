"""Esploratore's sampler: the draw piles, the reserve and the other hands, drawn from the
cards the seat has not seen.

The cards in play (``seeds/esploratore/cards.json``; without C1-C7 in the beginners'
variant) less those on the table and in the seat's hand are the unseen ones. Each position's
draw pile holds only cards of that position (a wild card lies in the pile it was dealt to),
so each pile takes its size's worth from the unseen cards of its position, at random; the
rest are shuffled and dealt to the other hands and the reserve. Given the piles, every way to
deal the rest is equally likely, so the draw is uniform over the deals the view allows.

The view shows everything public the engine keeps (the shift under way, the vehicles that
began the turn on a meeting point, the partners asked to barter) except, under the
``hidden_totals`` option, other seats' resources. Those the sample estimates: each hidden
yield of a past round is taken to be the seat's own yield of that round (what it knows of a
typical rival), and the totals their sums with this round's public yields; upkeep paid and
trades made by others stay unknown to it.
"""

from __future__ import annotations

import random
from typing import Any

from service.bots.esploratore import state_vehicles
from service.engine import Game, State, View
from service.games.esploratore import rules as R


def _pile_of(card_id: str) -> int:
    """The draw pile a card is dealt to: its position's, or a wild card's own."""
    card = R.CARDS[card_id]
    if not card.wild:
        return card.home
    wilds = [c for c in R.PLAYING_CARDS if R.CARDS[c].wild]
    return R.WILD_POSITIONS[wilds.index(card_id)]


def sample_state(game: Game[Any], view: View, seat: int, rng: random.Random) -> State:
    players = view["players"]
    options = dict(view["options"])
    own = [face["card"] for face in view["hand"]]
    table = [[dict(entry) for entry in position["stack"]] for position in view["positions"]]
    on_table = {entry["card"] for stack in table for entry in stack}
    unseen = sorted(R.DECK[options["beginners"]] - on_table - set(own))
    rng.shuffle(unseen)
    piles: list[list[str]] = []
    for p, position in enumerate(view["positions"]):
        mine = [c for c in unseen if _pile_of(c) == p]
        piles.append(mine[: position["pile"]])
    in_piles = {c for pile in piles for c in pile}
    rest = [c for c in unseen if c not in in_piles]
    hands: list[list[str]] = []
    for other, size in enumerate(view["hand_sizes"]):
        hands.append(own if other == seat else rest[:size])
        rest = rest[0 if other == seat else size :]
    reserve = rest[: view["reserve"]]
    vehicles = state_vehicles(view)
    phase, order, to_act = view["phase"], list(view["order"]), view["to_act"]
    current = view["offer"]["from"] if phase == "barter" else (to_act[0] if to_act else order[0])
    sheet, totals = _score_sheet(view, seat)
    state: State = {
        "players": players,
        "opts": options,
        "piles": piles,
        "reserve": reserve,
        "hands": hands,
        "table": table,
        "vehicles": vehicles,
        "next_vid": max((v["id"] for v in vehicles), default=-1) + 1,
        "totals": totals,
        "round_yield": [list(y) for y in view["score_sheet"]["this_round"]],
        "sheet": sheet,
        "round": view["round"],
        "order": order,
        "turn": 0 if phase == "deal" else order.index(current),
        "phase": phase,
        "deal": order.index(current) if phase == "deal" else 0,
        "moved": list(view["moved"]),
        "start_meeting": {
            str(began["vehicle"]): [R.POS_INDEX[began["position"]], began["line"]]
            for began in view["began_on_meeting_point"]
        },
        "shift_pos": None if view["shift"] is None else R.POS_INDEX[view["shift"]["position"]],
        "shift_forced": None if view["shift"] is None else view["shift"]["forced"],
        "upkeep_need": list(view["upkeep_due"]) if view["upkeep_due"] is not None else [0, 0, 0, 0],
        "offer": dict(view["offer"]) if view["offer"] else None,
        "asked": list(view["asked"]),
        "race_winner": None,
        "last_order_tie": False,
        "last_yield": [list(y) for y in sheet[-1]["yields"]] if sheet else None,
    }
    return state


def _score_sheet(view: View, seat: int) -> tuple[list[dict[str, Any]], list[list[int]]]:
    """The past rounds' yields and every seat's totals, hidden ones estimated (module docstring)."""
    shown = view["score_sheet"]
    sheet = [
        {"round": r["round"], "yields": [list(y) if y is not None else list(r["yields"][seat]) for y in r["yields"]]}
        for r in shown["rounds"]
    ]
    totals = []
    for s, total in enumerate(shown["totals"]):
        if total is not None:
            totals.append(list(total))
        else:
            past = [sum(r["yields"][s][i] for r in sheet) for i in range(len(R.RESOURCES))]
            totals.append([a + b for a, b in zip(past, shown["this_round"][s], strict=True)])
    return sheet, totals
