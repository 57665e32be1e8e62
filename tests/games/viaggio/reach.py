"""Reaching a situation of Viaggio by play, through the public contract only.

:func:`reach` plays seeded matches (seats alternate the game's heuristic bot and uniformly
random choices, so both purposeful and odd lines occur) and stops at the first decision where
a predicate holds. Tests then act from there with ``legal_actions`` and ``apply``; nothing is
written into the state by hand.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from service.bots.viaggio import ViaggioBot
from service.engine import Rng
from service.games.viaggio import GAME

Predicate = Callable[[dict[str, Any], int, list[dict[str, Any]]], bool]


@dataclass
class Reached:
    """A decision reached by play: the state, the seat to act and its legal actions, and a
    way to go on with the match's own chance."""

    state: dict[str, Any]
    seat: int
    legal: list[dict[str, Any]]
    seed: int
    rng_position: int

    def rng(self) -> Rng:
        return Rng(self.seed.to_bytes(32, "big"), self.rng_position)

    def act(self, action: dict[str, Any], seat: int | None = None) -> list[dict[str, Any]]:
        """Apply ``action`` (by the reached seat unless told) and move on; returns the events."""
        rng = self.rng()
        self.state, events = GAME.apply(self.state, self.seat if seat is None else seat, action, rng)
        self.rng_position = rng.position()
        to_act = GAME.to_act(self.state)
        if to_act:
            self.seat = to_act[0]
            self.legal = GAME.legal_actions(self.state, self.seat)
        return events


def players_for(seed: int) -> int:
    return 2 + seed % 3


def reach(
    predicate: Predicate, seeds: Iterable[int], *, players: int | None = None, bots_only: bool = False
) -> Reached:
    """The first decision of the seeded matches where ``predicate(state, seat, legal)`` holds;
    ``players`` fixes the player count (default: 2, 3, 4 by seed), ``bots_only`` seats the
    heuristic bot everywhere (purposeful lines only)."""
    for seed in seeds:
        found = _search(predicate, seed, players or players_for(seed), bots_only)
        if found is not None:
            return found
    raise AssertionError("no match of the given seeds reaches the situation")


def _search(predicate: Predicate, seed: int, players: int, bots_only: bool) -> Reached | None:
    rng = Rng(seed.to_bytes(32, "big"))
    chooser = random.Random(seed)
    bots = [ViaggioBot() if bots_only or (s + seed) % 2 == 0 else None for s in range(players)]
    state = GAME.setup(players, {}, rng)
    while to_act := GAME.to_act(state):
        seat = to_act[0]
        legal = GAME.legal_actions(state, seat)
        if predicate(state, seat, legal):
            return Reached(copy.deepcopy(state), seat, legal, seed, rng.position())
        bot = bots[seat]
        action = bot.choose(GAME.view(state, seat), legal, chooser) if bot else chooser.choice(legal)
        rng = Rng(seed.to_bytes(32, "big"), rng.position())
        state, _ = GAME.apply(state, seat, action, rng)
    return None


def finish_move(reached: Reached, chooser: random.Random) -> list[dict[str, Any]]:
    """Play the pending move to its end with random legal move actions; all the events."""
    events: list[dict[str, Any]] = []
    while reached.state["tasks"] and reached.state["tasks"][0]["kind"] == "move":
        events += reached.act(chooser.choice(reached.legal))
    return events
