"""Game data (boards, decks, card faces) lives in ``seeds/<game-id>/`` as JSON, not in code.

The repository keeps it in its top-level ``seeds/``; the wheel ships the same files inside the
package as ``service/seeds/`` (see setup.py), read through importlib.resources, so an installed
referee runs from any directory. ``REFEREE_SEEDS_DIR`` points elsewhere when set.
"""

from __future__ import annotations

import os
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import orjson


def seeds_dir() -> Traversable:
    """Where the game data is read from: ``REFEREE_SEEDS_DIR``, else the copy shipped in the
    installed package, else (a checkout, or an editable install) the repository's ``seeds/``."""
    configured = os.environ.get("REFEREE_SEEDS_DIR")
    if configured:
        return Path(configured)
    shipped = resources.files("service") / "seeds"
    if shipped.is_dir():
        return shipped
    return Path(__file__).resolve().parents[2] / "seeds"


@cache
def load_seed(game_id: str, name: str) -> Any:
    """The parsed JSON file ``seeds/<game_id>/<name>.json`` (read once per process).

    Callers must not mutate what they get: it is shared.
    """
    return orjson.loads((seeds_dir() / game_id / f"{name}.json").read_bytes())
