"""What the SQLite file store adds to the common store suite (tests/test_store.py): matches
outlive the process, expired ones are deleted, several processes share one file, and a
file it cannot write is a 503, not a 500."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.store import FileStore, StoreUnavailable


def test_matches_outlive_the_store_object(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    first = FileStore(path)
    first.create("durable-1", b"v0", 60)
    first.commit("durable-1", 0, b"v1", b"e1", 60, "key-1")
    first.close()
    again = FileStore(path)
    loaded = again.load("durable-1", "key-1")
    assert (loaded.version, loaded.record, loaded.idempotent_version) == (1, b"v1", 1)
    assert again.history("durable-1", 0, 10) == [b"e1"]


def test_a_file_written_before_base_records_and_identities_opens_and_gains_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE matches (id TEXT PRIMARY KEY, version INTEGER NOT NULL, record BLOB NOT NULL,"
        " expires_at REAL NOT NULL);"
        f"INSERT INTO matches VALUES ('old-1', 0, X'7b7d', {2**40});"
    )
    old.commit()
    old.close()
    store = FileStore(path)
    loaded = store.load("old-1")
    assert (loaded.version, loaded.record, loaded.base, loaded.identity) == (0, b"{}", None, b"")
    committed = store.commit("old-1", 0, b"d1", b"e1", 60, base=b"b1", expected_identity=b"")
    assert committed.committed and store.load("old-1").base == b"b1"
    again = FileStore(path).load("old-1")
    assert (again.base, again.identity) == (b"b1", committed.identity), "a second opening finds the columns there"


def test_the_file_is_in_wal_mode_and_syncs_every_commit(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "m.sqlite3")
    store.create("wal-1", b"v0", 60)
    raw = sqlite3.connect(tmp_path / "m.sqlite3")
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._connect().execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_expired_matches_are_deleted_from_the_file(tmp_path: Path) -> None:
    now = [1000.0]
    path = tmp_path / "m.sqlite3"
    store = FileStore(path, clock=lambda: now[0], sweep_interval=10)
    for i in range(3):
        store.create(f"old-{i}", b"v0", 60)
        store.commit(f"old-{i}", 0, b"v1", b"e", 60, "k")
    now[0] += 61
    store.create("new-1", b"v0", 60)
    raw = sqlite3.connect(path)
    assert [r[0] for r in raw.execute("SELECT id FROM matches")] == ["new-1"]
    assert raw.execute("SELECT count(*) FROM moves").fetchone()[0] == 0
    assert raw.execute("SELECT count(*) FROM idempotency").fetchone()[0] == 0


def _commit_until(path: str, attempts: int, wins: multiprocessing.Queue) -> None:
    store = FileStore(path)
    won = 0
    for _ in range(attempts):
        version = store.load("shared-1").version
        won += store.commit("shared-1", version, f"v{version + 1}".encode(), f"e{version + 1}".encode(), 60).committed
    wins.put(won)


def test_worker_processes_share_one_file_with_one_winner_per_version(tmp_path: Path) -> None:
    path = str(tmp_path / "m.sqlite3")
    FileStore(path).create("shared-1", b"v0", 60)
    # Spawned, not forked: a forked child inherits SQLite's per-process table of open files and
    # their locks from this long-lived pytest process (other tests' stores), which a server's
    # workers never do (gunicorn's master opens no store), and which can break the file locks.
    context = multiprocessing.get_context("spawn")
    wins: multiprocessing.Queue = context.Queue()
    processes = [context.Process(target=_commit_until, args=(path, 60, wins)) for _ in range(3)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
        assert process.exitcode == 0
    total = sum(wins.get(timeout=5) for _ in processes)
    store = FileStore(path)
    assert store.load("shared-1").version == total
    assert store.history("shared-1", 0, total + 5) == [f"e{i}".encode() for i in range(1, total + 1)]


def test_a_file_locked_for_too_long_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    store = FileStore(path, busy_timeout_ms=50)
    store.create("locked-1", b"v0", 60)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreUnavailable):
            store.commit("locked-1", 0, b"v1", b"e", 60)
        with pytest.raises(StoreUnavailable):
            store.ping()
    finally:
        holder.execute("ROLLBACK")
    assert store.commit("locked-1", 0, b"v1", b"e", 60).committed, "nothing was left half-open"


def test_moves_committed_at_once_share_a_transaction_and_each_is_checked_alone(tmp_path: Path) -> None:
    """Group commit: moves that arrive while a batch syncs go in the next batch's one
    transaction, each compared and written as if alone (a second move on the same version
    loses to the first), every caller gets its own answer, and listeners hear each win."""
    synced: list[int] = []

    def offload(work: Callable[[], Any]) -> Any:
        synced.append(1)
        time.sleep(0.005)  # a slow disk: the other threads queue meanwhile
        return work()

    store = FileStore(tmp_path / "m.sqlite3", offload=offload)
    heard: list[tuple[str, int]] = []
    store.on_commit(lambda match_id, version: heard.append((match_id, version)))
    ids = [f"match-{n:04d}" for n in range(12)]
    for match_id in ids:
        store.create(match_id, b"v0", 60)
    results: dict[tuple[str, int], bool] = {}
    start = threading.Barrier(24)

    def play(match_id: str, attempt: int) -> None:
        start.wait()
        results[(match_id, attempt)] = store.commit(match_id, 0, b"v1-%d" % attempt, b"e%d" % attempt, 60).committed

    threads = [threading.Thread(target=play, args=(m, a)) for m in ids for a in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for match_id in ids:
        assert results[(match_id, 0)] != results[(match_id, 1)], "one winner per version"
        assert store.load(match_id).version == 1 and store.history_length(match_id) == 1
    assert sorted(heard) == [(match_id, 1) for match_id in ids]
    assert len(synced) < 24, "moves that arrived together were synced together"
