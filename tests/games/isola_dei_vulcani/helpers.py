"""Crafted boards for scenario tests of L'Isola dei Vulcani."""

from __future__ import annotations

from typing import Any

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
            "moai": [],
            "colonists": [0] * players,
        }
        for k, t in cells.items()
    }
    state["volcanoes"] = {str(v): k for k, v in volcanoes.items()}
    state["pile"] = sorted(volcanoes.values())
    state["geysers"] = [{"hex": h, "dir": d, "moai": None, "sunk": False} for h, d in geysers or []]
    state["cracks"] = []
    state["supply"]["lava"] = 47 - sum(1 for k in cells if k in lava)
    state["first"] = 0
    state["current"] = current
    for p in state["pl"]:
        p["boat"] = 0
        p["bay"] = []
    return state
