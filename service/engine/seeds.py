"""Game data (boards, decks, card faces) lives in ``seeds/<game-id>/`` as JSON, not in code.

``REFEREE_SEEDS_DIR`` points elsewhere (the Docker image sets it); by default the folder is
the ``seeds/`` beside the ``service`` package in the checkout.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

import orjson


def seeds_dir() -> Path:
    configured = os.environ.get("REFEREE_SEEDS_DIR")
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "seeds"


@cache
def load_seed(game_id: str, name: str) -> Any:
    """The parsed JSON file ``seeds/<game_id>/<name>.json`` (read once per process).

    Callers must not mutate what they get: it is shared.
    """
    path = seeds_dir() / game_id / f"{name}.json"
    return orjson.loads(path.read_bytes())
