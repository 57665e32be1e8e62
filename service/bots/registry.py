"""Bots by name, for any game: ``level1`` to ``level5``, with ``random`` and ``heuristic`` as
the names levels 1 and 2 had first.

- level 1: :class:`~service.bots.random_bot.RandomBot`;
- level 2: the game's heuristic bot, in its own module under ``service.bots``;
- levels 3-5: one search (:mod:`service.bots.search`) around the heuristic bot with a growing
  budget per decision, playing on states drawn by the game's sampler,
  ``service.bots.samplers.<module>``, where ``<module>`` is the basename of the game's
  heuristic bot module. A game whose sampler module does not exist has no levels 3-5
  (:func:`make_bot` says so).

:data:`HEURISTIC_BOTS` is the only table naming the games' bots, so the arena runner and the
house seats find a game's bot without importing every game's bot up front.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from service.bots.base import Bot
from service.bots.random_bot import RandomBot
from service.bots.search import Budget, Sampler, SearchBot
from service.games import games

HEURISTIC_BOTS: dict[str, tuple[str, str]] = {
    "the-game": ("service.bots.the_game", "TheGameBot"),
    "esploratore": ("service.bots.esploratore", "EsploratoreBot"),
    "viaggio-al-centro-della-terra": ("service.bots.viaggio", "ViaggioBot"),
    "halunken-und-spelunken": ("service.bots.halunken_und_spelunken", "HalunkenBot"),
    "isola-dei-vulcani": ("service.bots.isola_dei_vulcani", "IsolaDeiVulcaniBot"),
}
"""Game id -> (module, class) of the game's heuristic bot."""

SEARCH_BUDGETS: dict[str, Budget] = {
    "level3": Budget(iterations=16, seconds=0.1, candidates=2),
    "level4": Budget(iterations=64, seconds=0.35, candidates=3, deep=True),
    "level5": Budget(iterations=256, seconds=1.0, candidates=4, deep=True),
}
"""The search levels' budgets per decision: rollouts, the moves they compare (the heuristic's
and its next choices) and, from level 4, rollouts judged further on where the game's bot
names a farther horizon. The rollouts rule wherever they fit in the time; on the test machine
that depends on the game and the level (docs/levels.md says where)."""

THINKING_MARGIN_MS = 250
"""What a search keeps of its seat's clock for sending and committing its move (a house seat,
an arena bot): it stops thinking this long before its deadline."""

ALIASES = {"random": "level1", "heuristic": "level2"}
"""The first names of levels 1 and 2, still accepted everywhere."""

LEVELS = ("level1", "level2", *SEARCH_BUDGETS)
BOT_NAMES = (*LEVELS, *ALIASES)


class NoSampler(KeyError):
    """The game has no sampler yet, so no search levels."""


def sampler_of(game_id: str) -> Sampler:
    """The game's ``sample_state``, found by the naming convention.

    :raises NoSampler: the game has no sampler module.
    """
    module = HEURISTIC_BOTS[game_id][0].rsplit(".", 1)[1]
    try:
        samplers: ModuleType = importlib.import_module(f"service.bots.samplers.{module}")
    except ModuleNotFoundError:
        raise NoSampler(f"{game_id} has no sampler (service/bots/samplers/{module}.py), so no levels 3-5") from None
    sample: Sampler = samplers.sample_state
    return sample


def levels_of(game_id: str) -> tuple[str, ...]:
    """The levels ``game_id`` has: all five, or levels 1 and 2 while it has no sampler."""
    try:
        sampler_of(game_id)
    except NoSampler:
        return LEVELS[:2]
    return LEVELS


def is_search(name: str) -> bool:
    """Whether bot ``name`` is a search level (CPU-bound for up to its time cap)."""
    return name in SEARCH_BUDGETS


def heuristic_bot(game_id: str) -> Bot:
    """A fresh instance of the game's heuristic bot (level 2, and the search's rollout policy)."""
    module, cls = HEURISTIC_BOTS[game_id]
    bot: Bot = getattr(importlib.import_module(module), cls)()
    return bot


def make_bot(game_id: str, name: str, *, within_s: float | None = None) -> Bot:
    """A fresh bot called ``name`` for ``game_id``; a search level stops after ``within_s``
    seconds at the latest, when given (a house seat's clock).

    :raises KeyError: for an unknown bot name, a game with no heuristic bot, or a search
        level for a game with no sampler (:class:`NoSampler`).
    """
    level = ALIASES.get(name, name)
    if level == "level1":
        return RandomBot()
    if level == "level2":
        return heuristic_bot(game_id)
    if level in SEARCH_BUDGETS:
        return SearchBot(games()[game_id], sampler_of(game_id), heuristic_bot(game_id), SEARCH_BUDGETS[level], within_s)
    raise KeyError(name)
