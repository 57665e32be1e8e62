"""Bots by name, for any game: ``random`` everywhere, ``heuristic`` the game's own bot.

Each game's heuristic bot lives in its own module under ``service.bots``; this table is the
only place that names them, so the arena runner and the house seats find a game's bot without
importing every game's bot up front.
"""

from __future__ import annotations

import importlib

from service.bots.base import Bot
from service.bots.random_bot import RandomBot

HEURISTIC_BOTS: dict[str, tuple[str, str]] = {
    "the-game": ("service.bots.the_game", "TheGameBot"),
    "esploratore": ("service.bots.esploratore", "EsploratoreBot"),
    "viaggio-al-centro-della-terra": ("service.bots.viaggio", "ViaggioBot"),
    "halunken-und-spelunken": ("service.bots.halunken_und_spelunken", "HalunkenBot"),
    "isola-dei-vulcani": ("service.bots.isola_dei_vulcani", "IsolaDeiVulcaniBot"),
}
"""Game id -> (module, class) of the game's heuristic bot."""

BOT_NAMES = ("random", "heuristic")


def make_bot(game_id: str, name: str) -> Bot:
    """A fresh bot called ``name`` for ``game_id``.

    :raises KeyError: for an unknown bot name, or ``heuristic`` for a game that has none.
    """
    if name == "random":
        return RandomBot()
    if name == "heuristic":
        module, cls = HEURISTIC_BOTS[game_id]
        return getattr(importlib.import_module(module), cls)()
    raise KeyError(name)
