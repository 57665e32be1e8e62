"""The declared shapes of what a game answers: its view, its events and its outcome's detail.

Each game declares them as JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) in a
``shapes.json`` inside its own package, beside its engine, so the OpenAPI document can type
them per game (schemas/game_types.py) and a test can check every view, event and outcome the
engine produces against them (tests/test_game_shapes.py): an engine that changes a shape
without its declaration fails the suite. A field the declaration does not list is allowed (a
client must ignore it); every field it lists is typed.

They are part of the API, not game data: they ship with the code, not in ``seeds/`` (which
``REFEREE_SEEDS_DIR`` may point elsewhere, and whose hash a replay names).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from service.engine.game import Game


@dataclass(frozen=True)
class Shapes:
    """One game's declared schemas."""

    view: dict[str, Any]
    events: dict[str, dict[str, Any]]
    """By event ``type``."""
    outcome_detail: dict[str, Any]


@cache
def _declared(package: str) -> Shapes:
    declared = orjson.loads((resources.files(package) / "shapes.json").read_bytes())
    return Shapes(declared["view"], declared["events"], declared["outcome_detail"])


def shapes(game: Game) -> Shapes:
    """The schemas declared in ``shapes.json`` of the package that defines ``game``'s class."""
    package = sys.modules[type(game).__module__].__package__
    if not package:  # pragma: no cover - a game class defined outside a package
        raise LookupError(f"{type(game).__qualname__} is not in a package with a shapes.json")
    return _declared(package)
