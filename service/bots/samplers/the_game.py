"""The Game's sampler: the other hands and the draw pile's order, drawn from the unseen cards.

A seat sees its own hand, the piles' tops, every card laid (``laid``), the size of each hand
and of the draw pile. The cards it has not seen are exactly the full deck
(``seeds/the-game/cards.json``) less its hand and the laid ones; they are shuffled and dealt
to the other hands (sorted, as the engine keeps hands) and the draw pile.

One thing public is not in the view: how many turns ends a fire card has been uncovered for
(it burns out at the end of the next player's turn). With nothing played this turn the card
was laid by the player before, so the current turn is its last; with cards played, it may be
the current player's own. The sample then assumes the worse, that this turn is its last, so
the search never counts on a turn the fire may not leave it.
"""

from __future__ import annotations

import random
from typing import Any

from service.engine import Game, State, View
from service.games.the_game.game import rules


def sample_state(game: Game[Any], view: View, seat: int, rng: random.Random) -> State:
    data = rules()
    players = len(view["hand_counts"])
    options = dict(view["options"])
    own = list(view["hand"])
    unseen = sorted(set(range(data["lowest"], data["highest"] + 1)).difference(view["laid"], own))
    rng.shuffle(unseen)
    hands: list[list[int]] = []
    for other, count in enumerate(view["hand_counts"]):
        if other == seat:
            hands.append(own)
        else:
            hands.append(sorted(unseen[:count]))
            unseen = unseen[count:]
    agreement = view["starter_agreement"]
    return {
        "players": players,
        "options": options,
        "hand_size": data["hand_size"][str(players)] - (1 if options["smaller_hands"] else 0),
        "hands": hands,
        "deck": unseen,
        "piles": [
            {
                "direction": pile["direction"],
                "top": pile["top"],
                "count": pile["count"],
                "burning": data["fire_deadline_turns"] - 1 if pile["on_fire"] else None,
            }
            for pile in view["piles"]
        ],
        "turn": view["turn"],
        "agreement": None
        if agreement is None
        else {k: (list(v) if isinstance(v, list) else v) for k, v in agreement.items()},
        "played": view["played_this_turn"],
        "over": view["over"],
        "reason": view["reason"],
    }


def _copy(value: Any) -> Any:
    """A list copied (the sample must share nothing with the view), anything else as is."""
    return list(value) if isinstance(value, list) else value
