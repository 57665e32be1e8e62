"""Reaching a situation by play: seeded matches driven through the public contract.

Tests of the rulebook points must not write inner state where play can reach the situation.
:func:`reach` plays seeded matches (heuristic bots, optionally mixed with random choices, every
action taken from ``legal_actions`` and applied with ``apply``) and stops at the first decision
where ``found(state, seat, legal)`` holds, so the test continues from a state real play made.
Predicates may read the state; nothing here writes it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.bots.esploratore import EsploratoreBot
from service.engine import Rng
from service.games.esploratore import GAME

Found = Callable[[dict[str, Any], int, list[dict[str, Any]]], bool]


@dataclass
class Reached:
    """A match stopped at a decision: its state, the seat to act, its legal actions, the rng."""

    state: dict[str, Any]
    seat: int
    legal: list[dict[str, Any]]
    rng: Rng
    seed: int

    def act(self, action: dict[str, Any], seat: int | None = None) -> list[dict[str, Any]]:
        """Apply ``action`` (for ``seat``, default the stopped seat) and refresh the decision."""
        self.state, events = GAME.apply(self.state, self.seat if seat is None else seat, action, self.rng)
        to_act = GAME.to_act(self.state)
        if to_act:
            self.seat = to_act[0]
            self.legal = GAME.legal_actions(self.state, self.seat)
        return events


def reach(
    found: Found,
    *,
    players: int = 2,
    options: dict[str, Any] | None = None,
    seeds: range = range(200),
    randomness: float = 0.0,
) -> Reached:
    """The first decision, over seeded matches, at which ``found`` holds.

    Each seat plays the heuristic bot; with probability ``randomness`` a decision is a
    uniformly random legal action instead (to visit situations bots avoid).
    """
    for seed in seeds:
        rng = Rng(seed.to_bytes(32, "big"))
        chooser = random.Random(seed)
        bot = EsploratoreBot()
        state = GAME.setup(players, GAME.resolve_options(players, options or {}), rng)
        while to_act := GAME.to_act(state):
            seat = to_act[0]
            legal = GAME.legal_actions(state, seat)
            if found(state, seat, legal):
                return Reached(state, seat, legal, rng, seed)
            if chooser.random() < randomness:
                action = chooser.choice(legal)
            else:
                action = bot.choose(GAME.view(state, seat), legal, chooser)
            state, _ = GAME.apply(state, seat, action, rng)
    raise AssertionError("no seeded match reached the situation")
