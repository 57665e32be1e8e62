"""Crafted boards and bot-played matches for scenario tests of L'Isola dei Vulcani."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

from service.bots.isola_dei_vulcani import IsolaDeiVulcaniBot
from service.engine import Rng
from service.games.isola_dei_vulcani import GAME


def line(n: int, r: int = 0) -> list[str]:
    return [f"{q},{r}" for q in range(n)]


def crafted(
    players: int,
    cells: dict[str, int],
    *,
    volcanoes: dict[str, int] | None = None,
    lava: tuple[str, ...] | list[str] = (),
    geysers: list[tuple[str, int]] | None = None,
    current: int = 0,
) -> dict[str, Any]:
    """A state on a hand-made board: ``cells`` maps hex keys to tile ids, ``volcanoes`` hex
    keys to volcano numbers, ``geysers`` lists (hex, direction)."""
    state = GAME.setup(players, GAME.resolve_options(players, {}), Rng(b"crafted"))
    volcanoes = volcanoes or {}
    state["hexes"] = {
        k: {
            "tile": t,
            "volcano": volcanoes.get(k),
            "lava": k in lava,
            "villages": [],
            "lying_moai": [],
            "colonists": [0] * players,
        }
        for k, t in cells.items()
    }
    state["volcanoes"] = {str(v): k for k, v in volcanoes.items()}
    state["volcano_tokens"] = sorted(volcanoes.values())
    state["geysers"] = [{"hex": h, "dir": d, "moai": None, "sunk": False} for h, d in geysers or []]
    state["cracks"] = []
    state["supply"]["lava"] = 47 - sum(1 for k in cells if k in lava)
    state["first_player"] = 0
    state["current"] = current
    for p in state["seats"]:
        p["colonists_on_boat"] = 0
        p["landing_bay"] = []
    return state


def bot_states(players: int, setup: str, seed: int) -> Iterator[dict[str, Any]]:
    """The states of a seeded match played through the public contract by the heuristic bot
    in every seat (the first seat of ``to_act`` decides), each yielded before its decision
    and the final one last. Copy a state before applying actions of your own to it."""
    bots = [IsolaDeiVulcaniBot() for _ in range(players)]
    rng = Rng(seed.to_bytes(8, "big"))
    chooser = random.Random(seed)
    state = GAME.setup(players, GAME.resolve_options(players, {"setup": setup}), rng)
    while to_act := GAME.to_act(state):
        yield state
        seat = to_act[0]
        action = bots[seat].choose(GAME.view(state, seat), GAME.legal_actions(state, seat), chooser)
        state, _ = GAME.apply(state, seat, action, rng)
    yield state


def first_state(players: int, setup: str, seeds: range, found: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """A copy of the first state of the seeded bot matches where ``found`` holds."""
    for seed in seeds:
        for state in bot_states(players, setup, seed):
            if found(state):
                return copy.deepcopy(state)
    raise AssertionError("no match over these seeds reaches the situation")
