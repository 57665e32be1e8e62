"""Small readings of an Esploratore state shared by the rule tests."""

from __future__ import annotations

from service.games.esploratore.engine import top_masks


def meets(state: dict, pos: int, line: int) -> bool:
    """Whether the card on top at ``pos`` has a meeting point on ``line``."""
    return bool(top_masks(state, pos)[1] >> line & 1)
