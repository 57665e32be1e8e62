"""The catalogue of games: every package under ``service.games`` that exposes ``GAME``.

Discovery keeps the registry free of edits when a game is added: a game package only has to
define ``GAME = TheEngine()`` in its ``__init__``.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

import service.games
from service.engine.game import Game


@cache
def games() -> dict[str, Game]:
    """Every registered game by id, in id order."""
    found: dict[str, Game] = {}
    for module in pkgutil.iter_modules(service.games.__path__):
        if not module.ispkg:
            continue
        game = getattr(importlib.import_module(f"service.games.{module.name}"), "GAME", None)
        if isinstance(game, Game):
            found[game.id] = game
    return dict(sorted(found.items()))


def get_game(game_id: str) -> Game | None:
    """The game with this id, or ``None``."""
    return games().get(game_id)
