"""Esploratore – In viaggio verso le stelle (game id ``esploratore``)."""

from .engine import Esploratore

GAME = Esploratore()

__all__ = ["GAME", "Esploratore"]
