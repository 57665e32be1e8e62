"""L'Isola dei Vulcani: the engine package (see engine.py and docs/isola-dei-vulcani.md)."""

from service.games.isola_dei_vulcani.engine import IsolaDeiVulcani

GAME = IsolaDeiVulcani()

__all__ = ["GAME", "IsolaDeiVulcani"]
