"""Ladders: continuous pairing of online bots, ratings and leaderboards (docs/ladders.md)."""

from service.ladders.ladders import Ladders

__all__ = ["Ladders"]
