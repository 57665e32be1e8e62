"""Finished matches and their replays, for the replay tests."""

from __future__ import annotations

import copy
import random
from typing import Any

from service.engine import Rng
from service.games import games
from tests.support.http import MatchClient

#: A fixed replay signing key for tests (the 32-byte private seed, hex).
TEST_REPLAY_KEY = "5e" * 32


def play_finished(client: Any, game_id: str, seed: int = 1) -> MatchClient:
    """A match of ``game_id`` at its smallest player count, played to the end at random."""
    game = games()[game_id]
    match = MatchClient.create(client, game_id, game.min_players, seed=f"{seed:064x}")
    assert match.play_to_end(random.Random(seed))["status"] == "finished"
    return match


def fetch_replay(client: Any, match: MatchClient) -> dict[str, Any]:
    response = client.get(f"{match.url}/replay")
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def state_before(document: dict[str, Any], version: int) -> tuple[dict[str, Any], int]:
    """The engine state and Rng position just before the action that produced ``version``."""
    game = games()[document["game"]]
    rng = Rng(document["seed"])
    state = game.setup(document["players"], document["options"], rng)
    position = rng.position()
    for entry in document["actions"][: version - 1]:
        rng = Rng(document["seed"], position)
        state, _ = game.apply(state, entry["seat"], entry["action"], rng)
        position = rng.position()
    return state, position


def edited(document: dict[str, Any]) -> dict[str, Any]:
    """A deep copy to tamper with."""
    return copy.deepcopy(document)
