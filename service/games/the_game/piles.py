"""The four piles and the rule for laying a card on one ("I mucchietti: regole per calare carte").

An ascending pile takes any higher card, a descending pile any lower one; the only exception
is "la mossa al contrario": exactly ``backwards_step`` (10) lower on an ascending pile,
exactly 10 higher on a descending one, as often as a player likes. Piles are plain dicts
``{"direction": "up"|"down", "top": int, "count": int}`` so the state stays JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Pile = dict[str, Any]


def fits(pile: Pile, card: int, step: int) -> bool:
    """Whether ``card`` may be laid on ``pile`` now."""
    return fits_top(pile["direction"] == "up", pile["top"], card, step)


def fits_top(up: bool, top: int, card: int, step: int) -> bool:
    """:func:`fits` for a pile given by its direction and top (for searches over many tops)."""
    if up:
        return card > top or card == top - step
    return card < top or card == top + step


def is_backwards(pile: Pile, card: int, step: int) -> bool:
    """Whether laying ``card`` on ``pile`` is the backwards move (the ±10 exception)."""
    return card == pile["top"] + (-step if pile["direction"] == "up" else step)


def gap(pile: Pile, card: int) -> int:
    """How far ``card`` moves the pile along its direction (negative for a backwards move)."""
    return card - pile["top"] if pile["direction"] == "up" else pile["top"] - card


def can_lay(hand: Sequence[int], piles: Sequence[Pile], count: int, step: int) -> bool:
    """Whether some order of laying ``count`` cards from ``hand`` is legal.

    Decides the end of the match ("il giocatore di turno non è in grado di calare il numero
    minimo di carte"). A depth-first search over at most three cards of a hand of at most
    eight on four piles: at most 32³ steps, usually a handful.
    """
    if count <= 0:
        return True
    for i, card in enumerate(hand):
        for p, pile in enumerate(piles):
            if fits(pile, card, step):
                rest = [*hand[:i], *hand[i + 1 :]]
                moved = [*piles[:p], {**pile, "top": card}, *piles[p + 1 :]]
                if can_lay(rest, moved, count - 1, step):
                    return True
    return False


def describe(pile: Pile, index: int) -> str:
    """A pile as players name it in messages: 'ascending pile 0 (top 47)'."""
    kind = "ascending" if pile["direction"] == "up" else "descending"
    return f"{kind} pile {index} (top {pile['top']})"
