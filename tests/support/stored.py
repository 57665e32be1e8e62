"""Reading a served match straight from its store, behind the server's back: a request on the
match would apply its passed deadlines itself, so only this shows what the sweeper did; and
only the store shows whether a match's state is what its log gives."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import orjson
import redis

from service.engine import EngineError
from service.games import games
from service.match import Match, Move, replay
from service.store import MatchStore
from service.store.redis_store import _match_key


def on_file(db: Path, match_id: str) -> tuple[int, bytes, bytes | None]:
    """The version, record and base record of a match in a SQLite file store (for
    :meth:`Match.decode`)."""
    with sqlite3.connect(db) as connection:
        version, record, base = connection.execute(
            "SELECT version, record, base FROM matches WHERE id = ?", (match_id,)
        ).fetchone()
    return int(version), bytes(record), bytes(base) if base is not None else None


def on_redis(url: str, match_id: str) -> tuple[int, bytes, bytes | None]:
    """The version, record and base record of a match in Redis (for :meth:`Match.decode`)."""
    version, record, base = redis.Redis.from_url(url).hmget(_match_key(match_id), ["v", "d", "b"])
    return int(version), record, base


def disagreement_with_log(store: MatchStore, match_id: str) -> str | None:
    """Why the match's stored state is not the one its log gives, replayed through the engine
    from the seed (``None`` when it is): a state the log never had, a log entry the engine
    refuses, or a log that skips or repeats a version."""
    loaded = store.load(match_id)
    assert loaded is not None, f"match {match_id} is not in the store"
    match = Match.decode(loaded.version, loaded.record, loaded.base)
    moves = [Move.decode(raw) for raw in store.history(match_id, 0, loaded.version)]
    if [move.version for move in moves] != list(range(1, match.version + 1)):
        return f"the log's versions are {[move.version for move in moves]}, the match is at {match.version}"
    try:
        state, rng = replay(games()[match.game_id], match, moves)
    except EngineError as exc:
        return f"the log does not replay: {exc}"
    if orjson.loads(orjson.dumps(state)) != match.state or rng != match.rng:
        return f"the state at version {match.version} is not the one its log gives"
    return None
