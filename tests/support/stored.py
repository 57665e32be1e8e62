"""Reading a served match straight from its store, behind the server's back: a request on the
match would apply its passed deadlines itself, so only this shows what the sweeper did."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import redis

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
