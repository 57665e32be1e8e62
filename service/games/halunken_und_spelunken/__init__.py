"""Halunken und Spelunken: introductory game, standard game with Black Jack, two-player variant."""

from service.games.halunken_und_spelunken.engine import HalunkenUndSpelunken

GAME = HalunkenUndSpelunken()

__all__ = ["GAME", "HalunkenUndSpelunken"]
