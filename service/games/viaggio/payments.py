"""Ways to pay in Viaggio al centro della terra: explorer cards for a sea adventure or a mixed
move, equipment cards for a discovery, and the canonical form of a list of cards paid.

A payment is a set of cards: the legal actions list each distinct set once, in the seed's
order of colours and equipment types, and :func:`canonical` puts a client's list in that order
so any order is accepted.
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Any

from service.games.viaggio.data import COLOURS, EQUIP

_LIST_ORDERS = {"colours": {c: i for i, c in enumerate(COLOURS)}, "cards": {t: i for i, t in enumerate(EQUIP)}}


def canonical(action: Any) -> Any:
    """``action`` with its lists of colours or equipment cards in the listed order. Anything
    that is not such a list is left as it is for the shape check to judge."""
    if not isinstance(action, dict):
        return action
    out = action
    for name, order in _LIST_ORDERS.items():
        value = action.get(name)
        if isinstance(value, list) and all(isinstance(v, str) and v in order for v in value):
            out = {**out, name: sorted(value, key=order.__getitem__)}
    return out


def explorer_payments(hand: dict[str, int], cost: dict[str, Any]) -> list[list[str]]:
    """Every set of explorer cards from ``hand`` that pays ``cost``: named ``colours``, ``same``
    (that many of one colour) or ``any`` (that many of any colours)."""
    if "colours" in cost:
        need: dict[str, int] = {}
        for c in cost["colours"]:
            need[c] = need.get(c, 0) + 1
        return [sorted(cost["colours"], key=COLOURS.index)] if all(hand[c] >= n for c, n in need.items()) else []
    if "same" in cost:
        n = cost["same"]
        return [[c] * n for c in COLOURS if hand[c] >= n]
    return [
        list(combo)
        for combo in combinations_with_replacement(COLOURS, cost["any"])
        if all(hand[c] >= combo.count(c) for c in set(combo))
    ]


def discovery_payments(
    symbols: list[str], equipment: dict[str, int], wild: int, lamp_allowed: bool
) -> list[dict[str, Any]]:
    """Every way to pay a discovery's ``symbols`` as ``discover`` actions: which equipment
    cards leave the hand, how many of the ``wild`` kept *Uso flessibile* cards stand in for
    missing ones (each for one card), and whether a lamp is added (the mover only). A fixed
    symbol takes a card of its type or a stand-in, the lamp a lamp card or a stand-in, a star
    any card."""
    owned = [t for t in EQUIP if equipment[t] > 0]
    out = []
    for lamp in (False, True) if lamp_allowed else (False,):
        need: dict[str, int] = {}
        for t in [s for s in symbols if s != "star"] + (["lamp"] if lamp else []):
            need[t] = need.get(t, 0) + 1
        total = len(symbols) + lamp
        for flexible in range(min(wild, total) + 1):
            for cards in combinations_with_replacement(owned, total - flexible):
                if any(cards.count(t) > equipment[t] for t in set(cards)):
                    continue
                if sum(max(0, k - cards.count(t)) for t, k in need.items()) <= flexible:
                    out.append({"type": "discover", "cards": list(cards), "flexible": flexible, "lamp": lamp})
    return out
