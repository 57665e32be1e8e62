"""The Game (``the-game``): a cooperative card game for 1–5 players; see ``game.py``."""

from service.games.the_game.game import TheGame

GAME = TheGame()

__all__ = ["GAME", "TheGame"]
