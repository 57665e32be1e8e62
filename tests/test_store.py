"""One storage suite, run against the memory store, the SQLite file store and real Redis."""

from __future__ import annotations

import threading

import pytest

from service.store import FileStore, MemoryStore
from service.tokens import new_match_id



@pytest.fixture(params=["memory", "file", "redis"])
def store_kind(request: pytest.FixtureRequest) -> str:
    """Every store, as ``store`` (tests/conftest.py) builds it."""
    return request.param


def test_create_load_and_refuse_a_taken_id(store) -> None:
    match_id = new_match_id()
    assert store.create(match_id, b'{"a":1}', 60)
    assert not store.create(match_id, b'{"a":2}', 60)
    loaded = store.load(match_id)
    assert (loaded.version, loaded.record, loaded.idempotent_version) == (0, b'{"a":1}', None)
    assert store.load(new_match_id()) is None


def test_commit_is_a_compare_and_set_with_log(store) -> None:
    match_id = new_match_id()
    store.create(match_id, b"v0", 60)
    first = store.commit(match_id, 0, b"v1", b"entry1", 60)
    assert (first.committed, first.version) == (True, 1)
    stale = store.commit(match_id, 0, b"other", b"entryX", 60)
    assert (stale.committed, stale.version) == (False, 1)
    assert store.load(match_id).record == b"v1"
    store.commit(match_id, 1, b"v2", b"entry2", 60)
    assert store.history(match_id, 0, 10) == [b"entry1", b"entry2"]
    assert store.history(match_id, 1, 2) == [b"entry2"]
    assert store.history_length(match_id) == 2


def test_commit_on_a_missing_match_reports_it(store) -> None:
    result = store.commit(new_match_id(), 0, b"v1", b"e", 60)
    assert (result.committed, result.version) == (False, -1)


def test_an_idempotency_key_remembers_the_version_it_produced(store) -> None:
    match_id = new_match_id()
    store.create(match_id, b"v0", 60)
    store.commit(match_id, 0, b"v1", b"e1", 60, "key-1")
    store.commit(match_id, 1, b"v2", b"e2", 60, "key-2")
    assert store.load(match_id, "key-1").idempotent_version == 1
    assert store.load(match_id, "key-2").idempotent_version == 2
    assert store.load(match_id, "key-3").idempotent_version is None
    refused = store.commit(match_id, 0, b"v1'", b"e", 60, "key-3")
    assert not refused.committed
    assert store.load(match_id, "key-3").idempotent_version is None, "a refused commit kept its key"


def test_racing_commits_of_one_version_let_exactly_one_win(store) -> None:
    match_id = new_match_id()
    store.create(match_id, b"v0", 60)
    results = []
    barrier = threading.Barrier(16)

    def submit(i: int) -> None:
        barrier.wait()
        results.append(store.commit(match_id, 0, f"v1-{i}".encode(), f"e{i}".encode(), 60))

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r.committed for r in results) == 1
    assert store.load(match_id).version == 1
    assert store.history_length(match_id) == 1


@pytest.mark.parametrize("store_kind", ["memory", "file"])
def test_embedded_stores_expire_idle_matches(store_kind: str, tmp_path) -> None:
    now = [1000.0]
    clock = lambda: now[0]  # noqa: E731
    store = MemoryStore(clock=clock) if store_kind == "memory" else FileStore(tmp_path / "m.sqlite3", clock=clock)
    store.create("idle-match-1", b"v0", 60)
    now[0] += 59
    assert store.load("idle-match-1") is not None
    store.commit("idle-match-1", 0, b"v1", b"e", 60)
    now[0] += 59
    assert store.load("idle-match-1") is not None, "a move refreshes the time to live"
    now[0] += 2
    assert store.load("idle-match-1") is None
    assert store.history("idle-match-1", 0, 10) == []
    assert store.commit("idle-match-1", 1, b"v2", b"e", 60).version == -1
    assert store.create("idle-match-1", b"new", 60), "an expired id is free again"
    assert store.load("idle-match-1").version == 0 and store.history_length("idle-match-1") == 0


def test_redis_keys_share_a_hash_tag_and_expire(redis_url: str) -> None:
    import redis as redis_py

    from service.store import RedisStore

    client = redis_py.Redis.from_url(redis_url)
    store = RedisStore(client)
    match_id = new_match_id()
    store.create(match_id, b"v0", 120)
    store.commit(match_id, 0, b"v1", b"e", 300, "k")
    keys = sorted(k.decode() for k in client.keys(f"m:{{{match_id}}}*"))
    assert keys == [f"m:{{{match_id}}}", f"m:{{{match_id}}}:idem", f"m:{{{match_id}}}:log"]
    assert all(250 < client.ttl(k) <= 300 for k in keys)
    store.commit(match_id, 1, b"v2", b"e", 900)
    assert all(850 < client.ttl(k) <= 900 for k in keys), "every commit renews the kept keys with the match"


@pytest.mark.parametrize("store_kind", ["memory", "file"])
def test_embedded_ping_answers(store) -> None:
    store.ping()
