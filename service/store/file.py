"""The file store: matches in one SQLite file, the default of ``referee serve`` without Redis.

The same semantics as the Redis store: a move is one transaction that compares the version
and the record's identity, writes the record, appends the log entry and remembers the
idempotency key, so a process killed at any point leaves the old state or the new one. The
database runs in WAL mode with ``synchronous=FULL``: a move is on disk before it is
acknowledged, so it survives ``kill -9`` and a power cut. An fsync costs from 0.2 ms to
several milliseconds depending on the disk, so moves that arrive while one is being written
are committed together, each checked as if alone, in one transaction and one fsync (group
commit, :mod:`service.store.batches`). Several worker processes share the file: each opens
its own connection, writers take the lock at the start of their transaction (``BEGIN
IMMEDIATE``) and wait up to ``busy_timeout`` for it.

Matches expire like Redis keys: an expired match is never served, and every ten seconds at
most a new match's transaction also deletes up to 50 expired ones with their logs (a few
milliseconds; 18,000 an hour per process), so the file does not keep matches nobody reads
again. Times are wall-clock seconds, since they must outlive the process.

Every call is one short transaction on an indexed row; the ``COMMIT`` of a batch of moves,
which waits for the disk, runs through ``offload`` (in a gevent worker, on a real thread, so
the hub serves other requests meanwhile).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from service.store.base import (
    CommitResult,
    Listed,
    ListedMatch,
    ListFilter,
    ListPosition,
    Loaded,
    StoreUnavailable,
    Timing,
    new_identity,
)
from service.store.batches import Batches, Pending

log = logging.getLogger("referee.store")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    record BLOB NOT NULL,
    expires_at REAL NOT NULL,
    base BLOB,
    identity BLOB
);
CREATE INDEX IF NOT EXISTS matches_by_expiry ON matches (expires_at);
CREATE TABLE IF NOT EXISTS moves (
    match_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    entry BLOB NOT NULL,
    PRIMARY KEY (match_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS listing (
    match_id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    status TEXT NOT NULL,
    updated_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS listing_by_update ON listing (updated_ms, match_id);
CREATE INDEX IF NOT EXISTS listing_by_game ON listing (game, updated_ms, match_id);
CREATE TABLE IF NOT EXISTS due (
    match_id TEXT PRIMARY KEY,
    due_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS due_by_time ON due (due_ms);
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


@dataclass(frozen=True)
class _Commit:
    """One move's compare-and-set, as :meth:`FileStore.commit` takes it."""

    match_id: str
    expected_version: int
    record: bytes
    log_entry: bytes
    ttl: int
    idempotency_key: str | None
    base: bytes | None
    listed: Listed | None
    due_ms: int | None
    expected_identity: bytes | None


Offload = Callable[[Callable[[], Any]], Any]
"""Runs a blocking call and answers what it returned."""


def _at_once(work: Callable[[], Any]) -> Any:
    return work()


class FileStore:
    """Matches in a SQLite file; safe to share between threads and between processes."""

    def __init__(
        self,
        path: Path | str,
        clock: Callable[[], float] = time.time,
        sweep_interval: float = 10.0,
        busy_timeout_ms: int = 5000,
        offload: Offload | None = None,
    ) -> None:
        """``offload`` runs the ``COMMIT`` of a batch of moves, which waits for the disk (by
        default on the calling thread; a gevent worker passes its pool of real threads)."""
        self.path = Path(path)
        self._offload = offload or _at_once
        self._commits: Batches[_Commit] = Batches(self._commit_batch)
        self._clock = clock
        self._sweep_interval = sweep_interval
        self._busy_timeout_ms = busy_timeout_ms
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._pid = 0
        self._next_sweep = 0.0
        self._listeners: list[Callable[[str, int], None]] = []
        self._schemas: list[str] = []

    def add_schema(self, schema: str) -> None:
        """Tables of another part kept in the same file (:mod:`service.store.accounts_file`),
        created with the matches' on every connection."""
        with self._lock:
            self._schemas.append(schema)
            if self._connection is not None and self._pid == os.getpid():
                self._connection.executescript(schema)

    def on_commit(self, listener: Callable[[str, int], None]) -> None:
        """Call ``listener(match_id, version)`` after each commit of this process
        (:mod:`service.live.feeds`; other processes' commits show in :meth:`data_version`)."""
        self._listeners.append(listener)

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
        for schema in self._schemas:
            connection.executescript(schema)
        self._add_columns(connection)
        self._connection, self._pid = connection, os.getpid()
        return connection

    @staticmethod
    def _add_columns(connection: sqlite3.Connection) -> None:
        """A file written before records were stored as deltas has no ``base`` column, one
        written before records had identities no ``identity`` column: add them (columns that
        default to NULL: no row is rewritten, the file stays readable). Another process may
        add one at the same moment."""
        for column in ("base", "identity"):
            if column not in {row[1] for row in connection.execute("PRAGMA table_info(matches)")}:
                try:
                    connection.execute(f"ALTER TABLE matches ADD COLUMN {column} BLOB")
                except sqlite3.OperationalError:
                    if column not in {row[1] for row in connection.execute("PRAGMA table_info(matches)")}:
                        raise

    @contextmanager
    def transaction(self, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction, serialized within the process (also for the accounts kept in the
        same file); a writer holds the file's write
        lock from its first statement, so a compare-and-set cannot interleave with
        another process's."""
        with self._lock, self._open_transaction(write) as connection:
            yield connection

    @contextmanager
    def _open_transaction(self, write: bool, sync: Offload = _at_once) -> Iterator[sqlite3.Connection]:
        """:meth:`transaction` for a caller that holds the process's lock already; its
        ``COMMIT`` (the fsync) runs through ``sync``."""
        try:
            connection = self._connect()
            connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc
        try:
            yield connection
            sync(lambda: connection.execute("COMMIT"))
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
    def _live_version(connection: sqlite3.Connection, match_id: str, now: float) -> Loaded | None:
        """The live match's version, record, base and identity (no idempotency key looked up)."""
        row = connection.execute(
            "SELECT version, record, base, identity FROM matches WHERE id = ? AND expires_at > ?", (match_id, now)
        ).fetchone()
        if row is None:
            return None
        version, record, base, identity = row
        return Loaded(
            int(version), bytes(record), None, bytes(base) if base is not None else None, bytes(identity or b"")
        )

    @staticmethod
    def _set_due(connection: sqlite3.Connection, match_id: str, due_ms: int | None) -> None:
        if due_ms is None:
            connection.execute("DELETE FROM due WHERE match_id = ?", (match_id,))
        else:
            connection.execute(
                "INSERT INTO due (match_id, due_ms) VALUES (?, ?) "
                "ON CONFLICT (match_id) DO UPDATE SET due_ms = excluded.due_ms",
                (match_id, due_ms),
            )

    @staticmethod
    def _delete(connection: sqlite3.Connection, match_ids: list[str]) -> None:
        for table, column in (
            ("moves", "match_id"),
            ("idempotency", "match_id"),
            ("listing", "match_id"),
            ("due", "match_id"),
            ("matches", "id"),
        ):
            connection.executemany(f"DELETE FROM {table} WHERE {column} = ?", [(m,) for m in match_ids])

    def _sweep(self, connection: sqlite3.Connection, now: float) -> None:
        """Delete a batch of expired matches, at most once per sweep interval."""
        if now < self._next_sweep:
            return
        self._next_sweep = now + self._sweep_interval
        expired = [
            row[0]
            for row in connection.execute("SELECT id FROM matches WHERE expires_at <= ? LIMIT ?", (now, _SWEEP_BATCH))
        ]
        if expired:
            self._delete(connection, expired)
            log.info("deleted %d expired matches from %s", len(expired), self.path)

    # -- the store interface ---------------------------------------------------------------

    @staticmethod
    def _list(connection: sqlite3.Connection, match_id: str, listed: Listed | None) -> None:
        if listed is not None:
            connection.execute(
                "INSERT OR REPLACE INTO listing (match_id, game, status, updated_ms) VALUES (?, ?, ?, ?)",
                (match_id, listed.game, listed.status, listed.updated_ms),
            )

    def create(
        self, match_id: str, record: bytes, ttl: int, listed: Listed | None = None, due_ms: int | None = None
    ) -> bytes | None:
        now, identity = self._clock(), new_identity()
        with self.transaction(write=True) as connection:
            self._sweep(connection, now)
            if self._live_version(connection, match_id, now) is not None:
                return None
            self._delete(connection, [match_id])
            connection.execute(
                "INSERT INTO matches (id, version, record, expires_at, identity) VALUES (?, 0, ?, ?, ?)",
                (match_id, record, now + ttl, identity),
            )
            self._list(connection, match_id, listed)
            self._set_due(connection, match_id, due_ms)
            return identity

    @staticmethod
    def _produced(connection: sqlite3.Connection, match_id: str, idempotency_key: str | None) -> int | None:
        """The version ``idempotency_key`` produced, if it was used."""
        if not idempotency_key:
            return None
        row = connection.execute(
            "SELECT version FROM idempotency WHERE match_id = ? AND key = ?", (match_id, idempotency_key)
        ).fetchone()
        return int(row[0]) if row else None

    def load(self, match_id: str, idempotency_key: str | None = None) -> Loaded | None:
        now = self._clock()
        with self.transaction(write=False) as connection:
            live = self._live_version(connection, match_id, now)
            if live is None:
                return None
            return replace(live, idempotent_version=self._produced(connection, match_id, idempotency_key))

    def commit(
        self,
        match_id: str,
        expected_version: int,
        record: bytes,
        log_entry: bytes,
        ttl: int,
        idempotency_key: str | None = None,
        base: bytes | None = None,
        listed: Listed | None = None,
        due_ms: int | None = None,
        expected_identity: bytes | None = None,
        timing: Timing | None = None,  # the referee's clock is this process's: already judged
    ) -> CommitResult:
        result: CommitResult = self._commits.submit(
            _Commit(
                match_id,
                expected_version,
                record,
                log_entry,
                ttl,
                idempotency_key,
                base,
                listed,
                due_ms,
                expected_identity,
            )
        )
        if result.committed:
            for listener in self._listeners:
                listener(match_id, result.version)
        return result

    def _commit_batch(self, batch: list[Pending[_Commit]]) -> None:
        """The moves of ``batch`` in one transaction, so one fsync (group commit): each
        checked and written as it would be alone, in order (a later one sees an earlier
        one's write). Its ``COMMIT`` runs through ``offload``, holding this process's lock:
        in a gevent worker on a real thread, so the worker serves its other requests, and
        queues their moves for the next batch, while the file syncs."""
        with self._lock, self._open_transaction(write=True, sync=self._offload) as connection:
            results = [self._commit_one(connection, pending.item) for pending in batch]
        for pending, result in zip(batch, results, strict=True):
            pending.answer(result)

    def _commit_one(self, connection: sqlite3.Connection, commit: _Commit) -> CommitResult:
        now, identity = self._clock(), new_identity()
        match_id, expected_version = commit.match_id, commit.expected_version
        live = self._live_version(connection, match_id, now)
        if live is None:
            return CommitResult(False, -1)
        produced = self._produced(connection, match_id, commit.idempotency_key)
        if (
            live.version != expected_version
            or (commit.expected_identity is not None and live.identity != commit.expected_identity)
            or produced is not None
        ):
            return CommitResult(False, live.version, replace(live, idempotent_version=produced))
        new_version = expected_version + 1
        connection.execute(
            "UPDATE matches SET version = ?, record = ?, base = coalesce(?, base), expires_at = ?, identity = ? "
            "WHERE id = ?",
            (new_version, commit.record, commit.base, now + commit.ttl, identity, match_id),
        )
        connection.execute(
            "INSERT INTO moves (match_id, idx, entry) VALUES (?, ?, ?)", (match_id, expected_version, commit.log_entry)
        )
        if commit.idempotency_key:
            connection.execute(
                "INSERT OR REPLACE INTO idempotency (match_id, key, version) VALUES (?, ?, ?)",
                (match_id, commit.idempotency_key, new_version),
            )
        self._list(connection, match_id, commit.listed)
        self._set_due(connection, match_id, commit.due_ms)
        return CommitResult(True, new_version, identity=identity)

    def history(self, match_id: str, start: int, stop: int) -> list[bytes]:
        stop = min(stop, _MAX_INDEX)
        if stop <= start:
            return []
        with self.transaction(write=False) as connection:
            if self._live_version(connection, match_id, self._clock()) is None:
                return []
            rows = connection.execute(
                "SELECT entry FROM moves WHERE match_id = ? AND idx >= ? AND idx < ? ORDER BY idx",
                (match_id, start, stop),
            )
            return [bytes(row[0]) for row in rows]

    def history_length(self, match_id: str) -> int:
        with self.transaction(write=False) as connection:
            live = self._live_version(connection, match_id, self._clock())
            return live.version if live else 0

    def list_matches(
        self, which: ListFilter, after: ListPosition | None, count: int
    ) -> tuple[list[ListedMatch], ListPosition | None]:
        conditions = ["l.updated_ms >= ?", "m.expires_at > ?"]
        values: list[object] = [which.since_ms, self._clock()]
        if which.game is not None:
            conditions.append("l.game = ?")
            values.append(which.game)
        if which.status is not None:
            conditions.append("l.status = ?")
            values.append(which.status)
        if after is not None:
            conditions.append("(l.updated_ms, l.match_id) < (?, ?)")
            values += [after.updated_ms, after.match_id]
        with self.transaction(write=False) as connection:
            rows = connection.execute(
                "SELECT l.match_id, l.updated_ms, m.version, m.record, m.base FROM listing l "
                f"JOIN matches m ON m.id = l.match_id WHERE {' AND '.join(conditions)} "
                "ORDER BY l.updated_ms DESC, l.match_id DESC LIMIT ?",
                (*values, count + 1),
            ).fetchall()
        page = [
            ListedMatch(
                ListPosition(int(r[1]), r[0]), int(r[2]), bytes(r[3]), bytes(r[4]) if r[4] is not None else None
            )
            for r in rows[:count]
        ]
        return page, page[-1].position if len(rows) > count else None

    def data_version(self) -> int:
        """SQLite's ``data_version`` of this process's connection: it changes when another
        connection (another process) commits, so one cheap read says whether to look."""
        with self.transaction(write=False) as connection:
            return int(connection.execute("PRAGMA data_version").fetchone()[0])

    def versions(self, match_ids: list[str]) -> dict[str, int]:
        """The current version of each live match of ``match_ids``."""
        now = self._clock()
        found: dict[str, int] = {}
        with self.transaction(write=False) as connection:
            for start in range(0, len(match_ids), 500):
                chunk = match_ids[start : start + 500]
                rows = connection.execute(
                    f"SELECT id, version FROM matches WHERE expires_at > ? AND id IN ({','.join('?' * len(chunk))})",
                    (now, *chunk),
                )
                found.update((row[0], int(row[1])) for row in rows)
        return found

    def ping(self) -> None:
        """Take and release the write lock: fails while the file cannot be written."""
        with self.transaction(write=True):
            pass

    def due(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        with self.transaction(write=False) as connection:
            rows = connection.execute(
                "SELECT match_id, due_ms FROM due WHERE due_ms <= ? ORDER BY due_ms LIMIT ?", (now_ms, limit)
            )
            return [(row[0], int(row[1])) for row in rows]

    def reschedule(self, match_id: str, seen_ms: int, due_ms: int | None) -> None:
        now = self._clock()
        with self.transaction(write=True) as connection:
            row = connection.execute("SELECT due_ms FROM due WHERE match_id = ?", (match_id,)).fetchone()
            if row is not None and int(row[0]) == seen_ms:
                live = self._live_version(connection, match_id, now) is not None
                self._set_due(connection, match_id, due_ms if live else None)

    def close(self) -> None:
        """Close this process's connection (tests; a server just exits)."""
        with self._lock:
            if self._connection is not None and self._pid == os.getpid():
                self._connection.close()
            self._connection = None
