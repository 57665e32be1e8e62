"""The five games and the registry that names them: one package per game (pure rules over
the engine contract, no Flask, no Redis), each exposing its engine as ``GAME`` and listed
here, the one place that says what the referee can play.

The packages are imported on first use rather than with this module: some read their game
data (``seeds/``) as they load, and a server whose data is missing must still start and say
so on ``/readyz`` instead of failing to import.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType
from typing import Any

from service.engine.game import Game

PACKAGES = ("esploratore", "halunken_und_spelunken", "isola_dei_vulcani", "the_game", "viaggio")
"""The game packages under ``service.games``, one per game."""


@cache
def games() -> Mapping[str, Game[Any]]:
    """Every registered game by id, in id order."""
    engines = (importlib.import_module(f"{__name__}.{package}").GAME for package in PACKAGES)
    return MappingProxyType({game.id: game for game in sorted(engines, key=lambda game: game.id)})


def get_game(game_id: str) -> Game[Any] | None:
    """The game with this id, or ``None``."""
    return games().get(game_id)
