"""The uniformly random bot: works for every game, and always finishes one.

Engines split long turns into atomic actions plus an explicit end of turn, so uniform choice
over the legal list terminates (each game's property tests check it).
"""

from __future__ import annotations

import random

from service.engine import Action, View


class RandomBot:
    """Picks a legal action uniformly at random."""

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        return rng.choice(legal)
