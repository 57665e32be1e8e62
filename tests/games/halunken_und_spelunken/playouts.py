"""Seeded random playouts of Halunken und Spelunken through ``setup`` / ``legal_actions`` /
``apply``, step by step, to reach a situation by play rather than by writing a state by hand."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from service.engine import Rng
from service.games.halunken_und_spelunken import GAME


@dataclass
class Step:
    """One decision of a random playout: the state before it, who acted, what, and the events."""

    before: dict[str, Any]
    seat: int
    action: dict[str, Any]
    after: dict[str, Any]
    events: list[dict[str, Any]]


def random_steps(players: int, variant: str, seeds: range) -> Iterator[Step]:
    """Every decision of seeded random playouts, one match after the other."""
    for seed in seeds:
        chooser = random.Random(seed)
        rng = Rng(seed.to_bytes(32, "big"))
        state = GAME.setup(players, GAME.resolve_options(players, {"variant": variant}), rng)
        while to_act := GAME.to_act(state):
            seat = chooser.choice(to_act)
            action = chooser.choice(GAME.legal_actions(state, seat))
            before = copy.deepcopy(state)
            rng = Rng(rng.seed, rng.position())
            state, events = GAME.apply(state, seat, action, rng)
            yield Step(before, seat, action, state, events)


def first(steps: Iterator[Step], found: Callable[[Step], bool]) -> Step:
    return next(step for step in steps if found(step))


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]
