"""The ladders of the file store: three tables in the matches' SQLite file, written through its
transactions, so every worker sharing the file sees them and they survive ``kill -9``."""

from __future__ import annotations

from service.store.file import FileStore

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ladder_documents (
    key TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    body BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ladder_leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    until_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ladder_queue (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    queue TEXT NOT NULL,
    item BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS ladder_queue_order ON ladder_queue (queue, id);
"""


class FileLadders:
    """Versioned documents and leases in the file store's SQLite file."""

    def __init__(self, store: FileStore) -> None:
        self._store = store
        store.add_schema(_SCHEMA)

    def get(self, key: str) -> tuple[int, bytes] | None:
        with self._store.transaction(write=False) as db:
            row = db.execute("SELECT version, body FROM ladder_documents WHERE key = ?", (key,)).fetchone()
        return (int(row[0]), bytes(row[1])) if row else None

    def put(self, key: str, expected_version: int, body: bytes) -> bool:
        with self._store.transaction(write=True) as db:
            if expected_version == 0:
                inserted = db.execute(
                    "INSERT OR IGNORE INTO ladder_documents (key, version, body) VALUES (?, 1, ?)", (key, body)
                ).rowcount
                return bool(inserted)
            changed = db.execute(
                "UPDATE ladder_documents SET version = version + 1, body = ? WHERE key = ? AND version = ?",
                (body, key, expected_version),
            ).rowcount
            return bool(changed)

    def keys(self, prefix: str) -> list[str]:
        with self._store.transaction(write=False) as db:
            rows = db.execute(
                "SELECT key FROM ladder_documents WHERE substr(key, 1, ?) = ? ORDER BY key", (len(prefix), prefix)
            ).fetchall()
        return [row[0] for row in rows]

    def hold_lease(self, name: str, holder: str, now_ms: int, until_ms: int) -> bool:
        with self._store.transaction(write=True) as db:
            changed = db.execute(
                "INSERT INTO ladder_leases (name, holder, until_ms) VALUES (?, ?, ?) "
                "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms "
                "WHERE ladder_leases.holder = excluded.holder OR ladder_leases.until_ms <= ?",
                (name, holder, until_ms, now_ms),
            ).rowcount
            return bool(changed)

    def lease_holder(self, name: str, now_ms: int) -> str | None:
        with self._store.transaction(write=False) as db:
            row = db.execute(
                "SELECT holder FROM ladder_leases WHERE name = ? AND until_ms > ?", (name, now_ms)
            ).fetchone()
        return row[0] if row else None

    def push(self, queue: str, item: bytes) -> None:
        with self._store.transaction(write=True) as db:
            db.execute("INSERT INTO ladder_queue (queue, item) VALUES (?, ?)", (queue, item))

    def queued(self, queue: str, count: int) -> list[tuple[str, bytes]]:
        with self._store.transaction(write=False) as db:
            rows = db.execute(
                "SELECT id, item FROM ladder_queue WHERE queue = ? ORDER BY id LIMIT ?", (queue, count)
            ).fetchall()
        return [(str(row[0]), bytes(row[1])) for row in rows]

    def unqueue(self, queue: str, ids: list[str]) -> None:
        with self._store.transaction(write=True) as db:
            db.executemany("DELETE FROM ladder_queue WHERE id = ? AND queue = ?", [(int(i), queue) for i in ids])
