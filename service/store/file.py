"""The file store: matches in one SQLite file, the default of ``referee serve`` without Redis.

The same semantics as the Redis store: a move is one transaction that compares the version,
writes the record, appends the log entry and remembers the idempotency key, so a process
killed at any point leaves the old state or the new one. The database runs in WAL mode with
``synchronous=FULL``: a move is on disk before it is acknowledged, so it survives ``kill -9``
and a power cut (one fsync, about 0.2 ms here, as much as a Redis round trip). Several
worker processes share the file: each opens its own connection, writers take the lock at
the start of their transaction (``BEGIN IMMEDIATE``) and wait up to ``busy_timeout`` for it.

Matches expire like Redis keys: an expired match is never served, and every ten seconds at
most a new match's transaction also deletes up to 50 expired ones with their logs (a few
milliseconds; 18,000 an hour per process), so the file does not keep matches nobody reads
again. Times are wall-clock seconds, since they must outlive the process.

Every call is one short transaction on an indexed row, so it holds a gevent hub or a worker
thread for well under a millisecond.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from service.store.base import CommitResult, Loaded, StoreUnavailable

log = logging.getLogger("referee.store")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    record BLOB NOT NULL,
    expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS matches_by_expiry ON matches (expires_at);
CREATE TABLE IF NOT EXISTS moves (
    match_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    entry BLOB NOT NULL,
    PRIMARY KEY (match_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS idempotency (
    match_id TEXT NOT NULL,
    key TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (match_id, key)
) WITHOUT ROWID;
"""

#: SQLite integers are signed 64-bit; no log is longer than this.
_MAX_INDEX = 2**63 - 1

#: How many expired matches one sweep deletes at most, to keep each write short.
_SWEEP_BATCH = 50


def default_path() -> Path:
    """Where matches live unless ``REFEREE_DB_PATH`` says otherwise: the user's data folder
    (``$XDG_DATA_HOME/referee/matches.sqlite3``, ``~/.local/share`` by default), the same
    whatever folder ``referee serve`` starts from."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "referee" / "matches.sqlite3"


class FileStore:
    """Matches in a SQLite file; safe to share between threads and between processes."""

    def __init__(
        self,
        path: Path | str,
        clock: Callable[[], float] = time.time,
        sweep_interval: float = 10.0,
        busy_timeout_ms: int = 5000,
    ) -> None:
        self.path = Path(path)
        self._clock = clock
        self._sweep_interval = sweep_interval
        self._busy_timeout_ms = busy_timeout_ms
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._pid = 0
        self._next_sweep = 0.0

    # -- connection ------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        """This process's connection, opened on first use (after gunicorn forks, never in
        the master), with the schema in place."""
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        connection.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        connection.executescript(_SCHEMA)
        self._connection, self._pid = connection, os.getpid()
        return connection

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction, serialized within the process; a writer holds the file's write
        lock from its first statement, so a compare-and-set cannot interleave with
        another process's."""
        with self._lock:
            try:
                connection = self._connect()
                connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            except sqlite3.Error as exc:
                raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc
            try:
                yield connection
                connection.execute("COMMIT")
            except BaseException as exc:
                if connection.in_transaction:
                    try:
                        connection.execute("ROLLBACK")
                    except sqlite3.Error:
                        log.exception("rollback failed on %s", self.path)
                if isinstance(exc, sqlite3.Error):
                    raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc
                raise

    @staticmethod
    def _live_version(connection: sqlite3.Connection, match_id: str, now: float) -> tuple[int, bytes] | None:
        row = connection.execute(
            "SELECT version, record FROM matches WHERE id = ? AND expires_at > ?", (match_id, now)
        ).fetchone()
        return (int(row[0]), bytes(row[1])) if row else None

    @staticmethod
    def _delete(connection: sqlite3.Connection, match_ids: list[str]) -> None:
        for table, column in (("moves", "match_id"), ("idempotency", "match_id"), ("matches", "id")):
            connection.executemany(f"DELETE FROM {table} WHERE {column} = ?", [(m,) for m in match_ids])

    def _sweep(self, connection: sqlite3.Connection, now: float) -> None:
        """Delete a batch of expired matches, at most once per sweep interval."""
        if now < self._next_sweep:
            return
        self._next_sweep = now + self._sweep_interval
        expired = [
            row[0]
            for row in connection.execute(
                "SELECT id FROM matches WHERE expires_at <= ? LIMIT ?", (now, _SWEEP_BATCH)
            )
        ]
        if expired:
            self._delete(connection, expired)
            log.info("deleted %d expired matches from %s", len(expired), self.path)

    # -- the store interface ---------------------------------------------------------------

    def create(self, match_id: str, record: bytes, ttl: int) -> bool:
        now = self._clock()
        with self._transaction(write=True) as connection:
            self._sweep(connection, now)
            if self._live_version(connection, match_id, now) is not None:
                return False
            self._delete(connection, [match_id])
            connection.execute(
                "INSERT INTO matches (id, version, record, expires_at) VALUES (?, 0, ?, ?)",
                (match_id, record, now + ttl),
            )
            return True

    def load(self, match_id: str, idempotency_key: str | None = None) -> Loaded | None:
        now = self._clock()
        with self._transaction(write=False) as connection:
            live = self._live_version(connection, match_id, now)
            if live is None:
                return None
            produced = None
            if idempotency_key is not None:
                row = connection.execute(
                    "SELECT version FROM idempotency WHERE match_id = ? AND key = ?", (match_id, idempotency_key)
                ).fetchone()
                produced = int(row[0]) if row else None
            return Loaded(live[0], live[1], produced)

    def commit(
        self,
        match_id: str,
        expected_version: int,
        record: bytes,
        log_entry: bytes,
        ttl: int,
        idempotency_key: str | None = None,
    ) -> CommitResult:
        now = self._clock()
        with self._transaction(write=True) as connection:
            live = self._live_version(connection, match_id, now)
            if live is None:
                return CommitResult(False, -1)
            if live[0] != expected_version:
                return CommitResult(False, live[0])
            new_version = expected_version + 1
            connection.execute(
                "UPDATE matches SET version = ?, record = ?, expires_at = ? WHERE id = ?",
                (new_version, record, now + ttl, match_id),
            )
            connection.execute(
                "INSERT INTO moves (match_id, idx, entry) VALUES (?, ?, ?)", (match_id, expected_version, log_entry)
            )
            if idempotency_key:
                connection.execute(
                    "INSERT OR REPLACE INTO idempotency (match_id, key, version) VALUES (?, ?, ?)",
                    (match_id, idempotency_key, new_version),
                )
            return CommitResult(True, new_version)

    def history(self, match_id: str, start: int, stop: int) -> list[bytes]:
        stop = min(stop, _MAX_INDEX)
        if stop <= start:
            return []
        with self._transaction(write=False) as connection:
            if self._live_version(connection, match_id, self._clock()) is None:
                return []
            rows = connection.execute(
                "SELECT entry FROM moves WHERE match_id = ? AND idx >= ? AND idx < ? ORDER BY idx",
                (match_id, start, stop),
            )
            return [bytes(row[0]) for row in rows]

    def history_length(self, match_id: str) -> int:
        with self._transaction(write=False) as connection:
            live = self._live_version(connection, match_id, self._clock())
            return live[0] if live else 0

    def ping(self) -> None:
        """Take and release the write lock: fails while the file cannot be written."""
        with self._transaction(write=True):
            pass

    def close(self) -> None:
        """Close this process's connection (tests; a server just exits)."""
        with self._lock:
            if self._connection is not None and self._pid == os.getpid():
                self._connection.close()
            self._connection = None
