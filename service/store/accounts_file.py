"""The accounts of the file store: tables in the matches' SQLite file, written through its
connection and transactions (:meth:`service.store.file.FileStore.transaction`), so they
survive restarts and ``kill -9`` as the matches do, and every worker sharing the file sees
them. Other processes' appends show in the file's ``data_version``, which the file feed polls
(:class:`service.live.feeds.FileFeed`); this process's wake its streams at once."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

import orjson

from service.store.accounts import EVENTS_KEPT, BotRow, StoredEvent, bot_topic, is_bot_topic
from service.store.file import FileStore

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bots (
    name_key TEXT PRIMARY KEY,
    record BLOB NOT NULL,
    key_hash TEXT NOT NULL,
    played INTEGER NOT NULL DEFAULT 0,
    faults TEXT NOT NULL DEFAULT '{}'
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bot_keys (
    key_hash TEXT PRIMARY KEY,
    name_key TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS challenges (
    id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    record BLOB NOT NULL,
    expires_at REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS challenges_by_expiry ON challenges (expires_at);
CREATE TABLE IF NOT EXISTS challenge_expiry (
    id TEXT PRIMARY KEY,
    expires_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS challenge_expiry_by_time ON challenge_expiry (expires_ms);
CREATE TABLE IF NOT EXISTS bot_events (
    name_key TEXT NOT NULL,
    id INTEGER NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (name_key, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bot_logs (
    name_key TEXT PRIMARY KEY,
    last_id INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bot_pending (
    name_key TEXT NOT NULL,
    pend TEXT NOT NULL,
    id INTEGER NOT NULL,
    body BLOB NOT NULL,
    PRIMARY KEY (name_key, pend)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bot_matches (
    match_id TEXT PRIMARY KEY,
    names TEXT NOT NULL,
    expires_at REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS bot_matches_by_expiry ON bot_matches (expires_at);
CREATE TABLE IF NOT EXISTS bot_presence (
    name_key TEXT NOT NULL,
    stream_id TEXT NOT NULL,
    until_ms INTEGER NOT NULL,
    PRIMARY KEY (name_key, stream_id)
) WITHOUT ROWID;
"""


class FileAccounts:
    """Bots, challenges, event logs and presence in the file store's SQLite file."""

    def __init__(self, store: FileStore, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._clock = clock
        self._listeners: list[Callable[[str, int], None]] = []
        store.add_schema(_SCHEMA)

    def on_append(self, listener: Callable[[str, int], None]) -> None:
        """Call ``listener(topic, event_id)`` after each append of this process."""
        self._listeners.append(listener)

    # -- bots ------------------------------------------------------------------------------

    def create_bot(self, name_key: str, record: bytes, key_hash: str) -> bool:
        with self._store.transaction(write=True) as db:
            if db.execute("SELECT 1 FROM bots WHERE name_key = ?", (name_key,)).fetchone():
                return False
            db.execute("INSERT INTO bots (name_key, record, key_hash) VALUES (?, ?, ?)", (name_key, record, key_hash))
            db.execute("INSERT OR REPLACE INTO bot_keys (key_hash, name_key) VALUES (?, ?)", (key_hash, name_key))
            return True

    def bot(self, name_key: str) -> BotRow | None:
        with self._store.transaction(write=False) as db:
            row = db.execute(
                "SELECT record, key_hash, played, faults FROM bots WHERE name_key = ?", (name_key,)
            ).fetchone()
        return _row(row) if row else None

    def bot_by_key(self, key_hash: str) -> str | None:
        with self._store.transaction(write=False) as db:
            row = db.execute("SELECT name_key FROM bot_keys WHERE key_hash = ?", (key_hash,)).fetchone()
        return str(row[0]) if row else None

    def update_bot(self, name_key: str, record: bytes) -> None:
        with self._store.transaction(write=True) as db:
            db.execute("UPDATE bots SET record = ? WHERE name_key = ?", (record, name_key))

    def set_key(self, name_key: str, old_hash: str, new_hash: str) -> None:
        with self._store.transaction(write=True) as db:
            db.execute("DELETE FROM bot_keys WHERE key_hash = ?", (old_hash,))
            if new_hash:
                db.execute("INSERT OR REPLACE INTO bot_keys (key_hash, name_key) VALUES (?, ?)", (new_hash, name_key))
            db.execute("UPDATE bots SET key_hash = ? WHERE name_key = ?", (new_hash, name_key))

    def count_match(self, name_key: str, fault: str | None) -> None:
        with self._store.transaction(write=True) as db:
            row = db.execute("SELECT faults FROM bots WHERE name_key = ?", (name_key,)).fetchone()
            if row is None:
                return
            faults = orjson.loads(row[0])
            if fault is not None:
                faults[fault] = faults.get(fault, 0) + 1
            db.execute(
                "UPDATE bots SET played = played + 1, faults = ? WHERE name_key = ?",
                (orjson.dumps(faults).decode(), name_key),
            )

    def list_bots(self, after: str | None, count: int) -> list[tuple[str, BotRow]]:
        with self._store.transaction(write=False) as db:
            rows = db.execute(
                "SELECT name_key, record, key_hash, played, faults FROM bots WHERE name_key > ? "
                "ORDER BY name_key LIMIT ?",
                (after or "", count),
            ).fetchall()
        return [(str(r[0]), _row(r[1:])) for r in rows]

    # -- challenges ------------------------------------------------------------------------

    def create_challenge(self, challenge_id: str, record: bytes, ttl: int, expires_ms: int) -> None:
        with self._store.transaction(write=True) as db:
            _forget_expired(db, "challenges", "id", self._clock())
            db.execute(
                "INSERT OR REPLACE INTO challenges (id, version, record, expires_at) VALUES (?, 0, ?, ?)",
                (challenge_id, record, self._clock() + ttl),
            )
            db.execute(
                "INSERT OR REPLACE INTO challenge_expiry (id, expires_ms) VALUES (?, ?)", (challenge_id, expires_ms)
            )

    def challenge(self, challenge_id: str) -> tuple[int, bytes] | None:
        with self._store.transaction(write=False) as db:
            row = db.execute(
                "SELECT version, record FROM challenges WHERE id = ? AND expires_at > ?", (challenge_id, self._clock())
            ).fetchone()
        return (int(row[0]), bytes(row[1])) if row else None

    def update_challenge(self, challenge_id: str, expected_version: int, record: bytes, ttl: int, open_: bool) -> bool:
        with self._store.transaction(write=True) as db:
            changed = db.execute(
                "UPDATE challenges SET version = version + 1, record = ?, expires_at = ? WHERE id = ? AND version = ?",
                (record, self._clock() + ttl, challenge_id, expected_version),
            ).rowcount
            if changed and not open_:
                db.execute("DELETE FROM challenge_expiry WHERE id = ?", (challenge_id,))
            return bool(changed)

    def due_challenges(self, now_ms: int, limit: int) -> list[str]:
        with self._store.transaction(write=False) as db:
            rows = db.execute(
                "SELECT id FROM challenge_expiry WHERE expires_ms <= ? ORDER BY expires_ms LIMIT ?", (now_ms, limit)
            ).fetchall()
        return [str(r[0]) for r in rows]

    # -- events ----------------------------------------------------------------------------

    def append_event(self, name_key: str, body: bytes, pend: str | None = None, unpend: str | None = None) -> int:
        with self._store.transaction(write=True) as db:
            db.execute(
                "INSERT INTO bot_logs (name_key, last_id) VALUES (?, 1) "
                "ON CONFLICT (name_key) DO UPDATE SET last_id = last_id + 1",
                (name_key,),
            )
            event_id = int(db.execute("SELECT last_id FROM bot_logs WHERE name_key = ?", (name_key,)).fetchone()[0])
            db.execute("INSERT INTO bot_events (name_key, id, body) VALUES (?, ?, ?)", (name_key, event_id, body))
            db.execute("DELETE FROM bot_events WHERE name_key = ? AND id <= ?", (name_key, event_id - EVENTS_KEPT))
            if unpend is not None:
                db.execute("DELETE FROM bot_pending WHERE name_key = ? AND pend = ?", (name_key, unpend))
            if pend is not None:
                db.execute(
                    "INSERT OR REPLACE INTO bot_pending (name_key, pend, id, body) VALUES (?, ?, ?, ?)",
                    (name_key, pend, event_id, body),
                )
        for listener in self._listeners:
            listener(bot_topic(name_key), event_id)
        return event_id

    def events_after(self, name_key: str, after: int, count: int) -> list[StoredEvent]:
        with self._store.transaction(write=False) as db:
            rows = db.execute(
                "SELECT id, body FROM bot_events WHERE name_key = ? AND id > ? ORDER BY id LIMIT ?",
                (name_key, after, count),
            ).fetchall()
        return [StoredEvent(int(r[0]), bytes(r[1])) for r in rows]

    def pending(self, name_key: str) -> tuple[list[StoredEvent], int]:
        with self._store.transaction(write=False) as db:
            rows = db.execute("SELECT id, body FROM bot_pending WHERE name_key = ? ORDER BY id", (name_key,)).fetchall()
            last = db.execute("SELECT last_id FROM bot_logs WHERE name_key = ?", (name_key,)).fetchone()
        return [StoredEvent(int(r[0]), bytes(r[1])) for r in rows], int(last[0]) if last else 0

    def last_ids(self, topics: list[str]) -> dict[str, int]:
        """The last event id of each bot topic of ``topics`` (for the file feed's poll)."""
        names = [t[1:] for t in topics if is_bot_topic(t)]
        if not names:
            return {}
        with self._store.transaction(write=False) as db:
            rows = db.execute(
                f"SELECT name_key, last_id FROM bot_logs WHERE name_key IN ({','.join('?' * len(names))})", names
            ).fetchall()
        return {bot_topic(str(r[0])): int(r[1]) for r in rows}

    def link_match(self, match_id: str, names: list[str], ttl: int) -> None:
        with self._store.transaction(write=True) as db:
            _forget_expired(db, "bot_matches", "match_id", self._clock())
            db.execute(
                "INSERT OR REPLACE INTO bot_matches (match_id, names, expires_at) VALUES (?, ?, ?)",
                (match_id, orjson.dumps(names).decode(), self._clock() + ttl),
            )

    def match_bots(self, match_id: str) -> list[str] | None:
        with self._store.transaction(write=False) as db:
            row = db.execute(
                "SELECT names FROM bot_matches WHERE match_id = ? AND expires_at > ?", (match_id, self._clock())
            ).fetchone()
        return list(orjson.loads(row[0])) if row else None

    # -- presence --------------------------------------------------------------------------

    def touch_presence(self, name_key: str, stream_id: str, until_ms: int) -> None:
        with self._store.transaction(write=True) as db:
            db.execute(
                "INSERT OR REPLACE INTO bot_presence (name_key, stream_id, until_ms) VALUES (?, ?, ?)",
                (name_key, stream_id, until_ms),
            )

    def drop_presence(self, name_key: str, stream_id: str) -> None:
        with self._store.transaction(write=True) as db:
            db.execute("DELETE FROM bot_presence WHERE name_key = ? AND stream_id = ?", (name_key, stream_id))

    def streams(self, name_key: str, now_ms: int) -> int:
        with self._store.transaction(write=False) as db:
            row = db.execute(
                "SELECT count(*) FROM bot_presence WHERE name_key = ? AND until_ms > ?", (name_key, now_ms)
            ).fetchone()
        return int(row[0])

    def online_bots(self, now_ms: int, count: int) -> list[str]:
        with self._store.transaction(write=False) as db:
            rows = db.execute(
                "SELECT DISTINCT name_key FROM bot_presence WHERE until_ms > ? ORDER BY name_key LIMIT ?",
                (now_ms, count),
            ).fetchall()
        return [str(r[0]) for r in rows]


FORGET_BATCH = 100
"""Expired rows one write deletes at most, so that the write stays short."""


def _forget_expired(db: sqlite3.Connection, table: str, key: str, now: float) -> None:
    """Delete a batch of ``table``'s rows past their ``expires_at``: what Redis lets expire on
    its own. Each new row clears up to :data:`FORGET_BATCH` old ones, so the table holds little
    more than its live rows."""
    expired = f"SELECT {key} FROM {table} WHERE expires_at <= ? LIMIT ?"  # table, key: this module's names
    db.execute(f"DELETE FROM {table} WHERE {key} IN ({expired})", (now, FORGET_BATCH))


def _row(row: tuple) -> BotRow:
    record, key_hash, played, faults = row
    return BotRow(bytes(record), str(key_hash), int(played), dict(orjson.loads(faults)))
