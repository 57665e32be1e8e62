"""What a match costs Redis: at most 10 KB after 100 keyed moves, everything included, and at
most :data:`WRITE_BUDGET` bytes handed to Redis by one move (issue 14, "Memory per match").

Every game is played with its heuristic bot on every seat and an Idempotency-Key on every
move, at four players (the most that every game takes; Esploratore also at seven). A
dictionary that no longer fits what the games write (new fields, a changed state) shows here
first: build a new one (tools/build_dictionaries.py). Figures for every game: bench/README.md.
"""

from __future__ import annotations

import random

import pytest
import redis

from service.referee import Referee, stored_idempotency_key
from service.store import RedisStore
from service.tokens import SeatTokens, StateTokens
from tools.build_dictionaries import play

#: Bytes a finished 100-move match may take in Redis: 100,000 such matches per GiB.
MATCH_BUDGET = 10 * 1024

#: The length of a stored Idempotency-Key (:func:`service.referee.stored_idempotency_key`).
KEY_LENGTH = len(stored_idempotency_key("bearer", "key"))

#: Bytes one move may hand Redis: the new record (a delta), the base record when the move
#: rewrites it, the log entry and the idempotency key.
WRITE_BUDGET = 1280

#: Bytes a move hands Redis on average over a match (170-330 measured, bench/README.md): more
#: means deltas grew (records changed shape) or the dictionaries no longer fit the games.
MEAN_WRITE_BUDGET = 384


@pytest.mark.parametrize(
    ("game_id", "players"),
    [
        ("the-game", 4),
        ("halunken-und-spelunken", 4),
        ("viaggio-al-centro-della-terra", 4),
        ("isola-dei-vulcani", 4),
        ("esploratore", 4),
        ("esploratore", 7),
    ],
)
def test_a_100_move_match_fits_the_budget(redis_url: str, game_id: str, players: int) -> None:
    client = redis.Redis.from_url(redis_url)
    store = RedisStore(client)
    referee = Referee(store, StateTokens(b"budget"), SeatTokens(b"budget"), 600)
    written, base = [], None
    for match_id in play(referee, game_id, players, 100, random.Random(f"budget:{game_id}"), keyed=True):
        loaded = store.load(match_id)
        if loaded.version:
            (entry,) = store.history(match_id, loaded.version - 1, loaded.version)
            rebased = len(loaded.base) if loaded.base != base else 0
            written.append(len(loaded.record) + rebased + len(entry) + KEY_LENGTH)
            base = loaded.base
    assert len(written) >= 90 or referee.get_match(match_id, None)["status"] == "finished"
    used = {key: client.memory_usage(key, samples=0) for key in client.scan_iter(f"m:{{{match_id}}}*")}
    assert sum(used.values()) <= MATCH_BUDGET, used
    assert max(written) <= WRITE_BUDGET
    assert sum(written) / len(written) <= MEAN_WRITE_BUDGET
