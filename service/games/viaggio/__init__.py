"""Viaggio al centro della terra (Rüdiger Dorn, Kosmos 2008)."""

from service.games.viaggio.engine import Viaggio

GAME = Viaggio()

__all__ = ["GAME", "Viaggio"]
