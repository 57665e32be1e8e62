"""The declared shapes of what a game answers: its view, its events and its outcome's detail.

Each game declares them as JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) in
``seeds/<game-id>/shapes.json``, beside its data, so the OpenAPI document can type them per
game (schemas/game_types.py) and a test can check every view, event and outcome the engine
produces against them (tests/test_game_shapes.py): an engine that changes a shape without its
declaration fails the suite. A field the declaration does not list is allowed (a client must
ignore it); every field it lists is typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.engine.seeds import load_seed


@dataclass(frozen=True)
class Shapes:
    """One game's declared schemas."""

    view: dict[str, Any]
    events: dict[str, dict[str, Any]]
    """By event ``type``."""
    outcome_detail: dict[str, Any]


def shapes(game_id: str) -> Shapes:
    """The schemas declared in ``seeds/<game_id>/shapes.json``."""
    declared = load_seed(game_id, "shapes")
    return Shapes(declared["view"], declared["events"], declared["outcome_detail"])
