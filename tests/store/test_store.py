"""One storage suite, run against the memory store, the SQLite file store, real Redis and a
real Redis Cluster."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from service.store import (
    IDENTITY_BYTES,
    FileStore,
    Listed,
    ListFilter,
    ListPosition,
    Loaded,
    MemoryStore,
    RedisStore,
)
from service.tokens import new_match_id


@pytest.fixture(params=["memory", "file", "redis", "cluster"])
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


def test_a_commit_may_replace_the_base_record_and_every_load_answers_it(store) -> None:
    match_id = new_match_id()
    store.create(match_id, b"v0", 60)
    assert store.load(match_id).base is None
    store.commit(match_id, 0, b"d1", b"e1", 60, base=b"base-1")
    second = store.commit(match_id, 1, b"d2", b"e2", 60)
    assert (store.load(match_id).record, store.load(match_id).base) == (b"d2", b"base-1")
    refused = store.commit(match_id, 0, b"dX", b"eX", 60, base=b"base-X")
    assert not refused.committed and refused.current == Loaded(2, b"d2", None, b"base-1", second.identity)
    store.commit(match_id, 2, b"d3", b"e3", 60, "key-3", base=b"base-3")
    loaded = store.load(match_id, "key-3")
    assert (loaded.version, loaded.record, loaded.idempotent_version, loaded.base) == (3, b"d3", 3, b"base-3")


def test_a_refused_commit_answers_the_match_as_a_load_would(store) -> None:
    """The put-or-get a cached record relies on: one round trip tells the referee the
    current record, version and what the request's idempotency key produced."""
    match_id = new_match_id()
    store.create(match_id, b"v0", 60)
    first = store.commit(match_id, 0, b"v1", b"e1", 60, "key-1")
    behind = store.commit(match_id, 0, b"other", b"eX", 60)
    assert (behind.committed, behind.version) == (False, 1)
    assert behind.current == store.load(match_id) == Loaded(1, b"v1", None, None, first.identity)
    keyed = store.commit(match_id, 0, b"other", b"eX", 60, "key-1")
    assert keyed.current == store.load(match_id, "key-1") == Loaded(1, b"v1", 1, None, first.identity)
    fresh_key = store.commit(match_id, 0, b"other", b"eX", 60, "key-2")
    assert fresh_key.current == Loaded(1, b"v1", None, None, first.identity)
    assert store.history(match_id, 0, 10) == [b"e1"], "a refused commit appended nothing"


def test_a_used_idempotency_key_refuses_a_commit_even_at_the_current_version(store) -> None:
    """A key names one request: a second move under it is never committed, so a referee
    committing on a cached record (without reading the key first) still gets the key's
    earlier version back."""
    match_id = new_match_id()
    store.create(match_id, b"v0", 60)
    first = store.commit(match_id, 0, b"v1", b"e1", 60, "key-1")
    again = store.commit(match_id, 1, b"v2", b"e2", 60, "key-1", expected_identity=first.identity)
    assert (again.committed, again.version, again.current) == (False, 1, Loaded(1, b"v1", 1, None, first.identity))
    assert store.history_length(match_id) == 1
    assert store.commit(match_id, 1, b"v2", b"e2", 60, "key-2").committed


def test_every_write_gives_the_record_a_new_identity_that_loads_and_refusals_answer(store) -> None:
    match_id = new_match_id()
    created = store.create(match_id, b"v0", 60)
    assert isinstance(created, bytes) and len(created) == IDENTITY_BYTES
    assert store.load(match_id).identity == created
    first = store.commit(match_id, 0, b"v1", b"e1", 60, expected_identity=created)
    assert first.committed and first.identity not in (b"", created)
    assert store.load(match_id).identity == first.identity
    refused = store.commit(match_id, 0, b"vX", b"eX", 60, expected_identity=created)
    assert not refused.committed and refused.identity == b"" and refused.current.identity == first.identity


def test_a_commit_made_from_another_record_of_the_same_version_is_refused(store) -> None:
    """What a store that lost writes looks like to a cache: the match is back at a version
    number a lost record had, under another record. The commit made from the lost record
    changes nothing and answers the record the store holds."""
    match_id = new_match_id()
    created = store.create(match_id, b"v0", 60)
    held = store.commit(match_id, 0, b"v1", b"e1", 60, base=b"b1", expected_identity=created)
    lost_identity = bytes(b ^ 0xFF for b in held.identity)
    refused = store.commit(match_id, 1, b"v2", b"e2", 60, "key-2", expected_identity=lost_identity)
    assert (refused.committed, refused.version) == (False, 1)
    assert refused.current == Loaded(1, b"v1", None, b"b1", held.identity) == store.load(match_id)
    assert store.history(match_id, 0, 10) == [b"e1"]
    assert store.load(match_id, "key-2").idempotent_version is None, "a refused commit kept its key"
    assert store.commit(match_id, 1, b"v2", b"e2", 60, "key-2", expected_identity=held.identity).committed


def test_a_record_written_before_identities_reads_and_goes_on(store) -> None:
    """A record stored by the version before has no identity: it loads with ``b""``, a commit
    naming none succeeds on it and writes one, and a commit naming any other is refused."""
    match_id = new_match_id()
    store.create(match_id, b"v0", 60)
    store.commit(match_id, 0, b"v1", b"e1", 60)
    _drop_identity(store, match_id)
    assert store.load(match_id).identity == b""
    assert not store.commit(match_id, 1, b"vX", b"eX", 60, expected_identity=b"\0" * IDENTITY_BYTES).committed
    refused = store.commit(match_id, 0, b"vX", b"eX", 60, expected_identity=b"")
    assert not refused.committed and refused.current == Loaded(1, b"v1")
    second = store.commit(match_id, 1, b"v2", b"e2", 60, expected_identity=b"")
    assert second.committed and len(second.identity) == IDENTITY_BYTES
    assert store.load(match_id).identity == second.identity
    assert not store.commit(match_id, 2, b"v3", b"e3", 60, expected_identity=b"").committed
    assert store.history(match_id, 0, 10) == [b"e1", b"e2"]


def _drop_identity(store, match_id: str) -> None:
    """Make the match's record look like one written before records had identities."""
    if isinstance(store, MemoryStore):
        store._matches[match_id].identity = b""
    elif isinstance(store, FileStore):
        with sqlite3.connect(store.path) as connection:
            connection.execute("UPDATE matches SET identity = NULL WHERE id = ?", (match_id,))
    else:
        store.client.hdel(f"m:{{{match_id}}}", "i")


def test_commit_on_a_missing_match_reports_it(store) -> None:
    result = store.commit(new_match_id(), 0, b"v1", b"e", 60)
    assert (result.committed, result.version, result.current) == (False, -1, None)


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
    clock = lambda: now[0]
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


def test_a_redis_that_lost_its_scripts_loads_them_again(redis_url: str) -> None:
    """A restarted Redis, or a replica promoted in a failover, has none of the scripts: the
    first write after it loads them and goes through, once."""
    import redis as redis_py

    from service.store import RedisStore

    client = redis_py.Redis.from_url(redis_url)
    store = RedisStore(client)
    match_id = new_match_id()
    client.script_flush()
    assert store.create(match_id, b"v0", 60, listed=Listed("the-game", "active", 1), due_ms=None)
    client.script_flush()
    assert store.commit(match_id, 0, b"v1", b"e1", 60).committed
    client.script_flush()
    stale = store.commit(match_id, 0, b"other", b"eX", 60)
    assert (stale.committed, stale.version, stale.current.record) == (False, 1, b"v1")
    assert store.history(match_id, 0, 10) == [b"e1"]


@pytest.mark.parametrize("store_kind", ["redis", "cluster"])
def test_a_create_run_twice_is_answered_as_created_and_writes_once(store, monkeypatch) -> None:
    """A create is re-sent when its reply is lost (the client's retry) or its master fails
    over: the second run finds the record the first wrote, by its identity, and answers
    created instead of an id collision, writing nothing."""
    match_id = new_match_id()
    identity = IDENTITY_BYTES * b"i"
    monkeypatch.setattr("service.store.redis_store.new_identity", lambda: identity)
    assert store.create(match_id, b"v0", 60) == identity
    assert store.create(match_id, b"other", 60) == identity
    loaded = store.load(match_id)
    assert (loaded.version, loaded.record, loaded.identity) == (0, b"v0", identity)
    monkeypatch.setattr("service.store.redis_store.new_identity", lambda: IDENTITY_BYTES * b"j")
    assert store.create(match_id, b"v0", 60) is None


@pytest.mark.parametrize("store_kind", ["memory", "file"])
def test_embedded_ping_answers(store) -> None:
    store.ping()


@pytest.mark.parametrize("store_kind", ["redis", "cluster"])
def test_a_commit_publishes_the_new_version_on_the_match_channel(
    store_kind: str, request: pytest.FixtureRequest
) -> None:
    """PUBLISH on one Redis; on a cluster SPUBLISH, which reaches SSUBSCRIBE clients of the
    match's shard (plain SUBSCRIBE clients of a cluster would need every node)."""
    from service.store import RedisStore
    from service.store.redis_client import connect

    cluster = store_kind == "cluster"
    url = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")
    client = connect(url, cluster=cluster)
    store = RedisStore(client)
    match_id = new_match_id()
    channel = f"m:{{{match_id}}}:v"
    pubsub = client.pubsub()
    if cluster:
        pubsub.ssubscribe(channel)
        receive = pubsub.get_sharded_message
    else:
        pubsub.subscribe(channel)
        receive = pubsub.get_message
    store.create(match_id, b"v0", 60)
    store.commit(match_id, 0, b"v1", b"e1", 60)
    messages = []
    for _ in range(50):
        message = receive(timeout=0.1)
        if message and message["type"] in ("message", "smessage"):
            messages.append(message["data"])
            break
    pubsub.close()
    assert messages == [b"1"]


def test_on_a_cluster_every_key_of_a_match_lives_on_one_master(redis_cluster) -> None:
    from service.store import RedisStore
    from service.store.redis_client import connect

    client = connect(redis_cluster.url, cluster=True)
    store = RedisStore(client)
    match_ids = [new_match_id() for _ in range(12)]
    for match_id in match_ids:
        store.create(match_id, b"v0", 60)
        store.commit(match_id, 0, b"v1", b"e", 60, "k")
    masters = set()
    for match_id in match_ids:
        keys = [f"m:{{{match_id}}}", f"m:{{{match_id}}}:log", f"m:{{{match_id}}}:idem"]
        nodes = {redis_cluster.master_of(key).port for key in keys}
        assert len(nodes) == 1
        masters |= nodes
        assert all(client.exists(key) for key in keys)
    assert len(masters) > 1, "twelve matches spread over the masters"


def test_on_a_cluster_every_master_must_not_evict(redis_cluster) -> None:
    from service.store import RedisStore, StoreMisconfigured

    store = RedisStore.from_url(redis_cluster.url, cluster=True)
    store.check_eviction_policy()
    last = redis_cluster.nodes[-1]
    last.client().config_set("maxmemory-policy", "allkeys-lru")
    try:
        with pytest.raises(StoreMisconfigured, match=f"'allkeys-lru' on 127.0.0.1:{last.port}"):
            store.check_eviction_policy()
    finally:
        last.client().config_set("maxmemory-policy", "noeviction")


def test_on_a_cluster_readiness_writes_on_every_master(redis_cluster) -> None:
    from service.store import RedisStore, StoreUnavailable

    store = RedisStore.from_url(redis_cluster.url, cluster=True)
    store.ping()
    written = {node.port for node in redis_cluster.nodes if node.client().keys("referee:ready:*")}
    assert written == {node.port for node in redis_cluster.nodes}
    last = redis_cluster.nodes[-1]
    last.client().config_set("maxmemory", "1")
    try:
        with pytest.raises(StoreUnavailable):
            store.ping()
    finally:
        last.client().config_set("maxmemory", "0")


def test_a_write_no_replica_confirms_is_not_acknowledged(redis_cluster) -> None:
    """With ``replica_acks`` the store waits for replicas; this cluster has none, so a commit
    answers StoreUnavailable (a 503) after the wait, although the master holds it — a retry
    of the same request then finds it (tests/e2e/test_cluster.py has replicas)."""
    from service.store import RedisStore, StoreUnavailable

    plain = RedisStore.from_url(redis_cluster.url, cluster=True)
    waiting = RedisStore.from_url(redis_cluster.url, 2.0, cluster=True, replica_acks=1)
    match_id = new_match_id()
    with pytest.raises(StoreUnavailable, match="0 of 1 replicas"):
        waiting.create(match_id, b"v0", 60)
    assert plain.load(match_id).version == 0
    with pytest.raises(StoreUnavailable, match="0 of 1 replicas"):
        waiting.commit(match_id, 0, b"v1", b"e", 60)
    assert plain.load(match_id).version == 1


def _listed(game: str, updated_ms: int, status: str = "active") -> Listed:
    return Listed(game, status, updated_ms)


def _page_ids(store, which: ListFilter, count: int) -> list[list[str]]:
    """Every page of the listing of ``which``, ``count`` entries at a time."""
    pages, after = [], None
    while True:
        entries, after = store.list_matches(which, after, count)
        pages.append([e.position.match_id for e in entries])
        if after is None:
            return pages


def test_the_listing_is_newest_first_filtered_and_paged(store) -> None:
    """Commits move a match up the listing; game and status filter it (on Redis the status is
    the referee's to check on the record, so only the game is checked there)."""
    game, other = f"game-{new_match_id()}", f"game-{new_match_id()}"
    now = int(time.time() * 1000)
    ids = [new_match_id() for _ in range(5)]
    for i, match_id in enumerate(ids):
        assert store.create(match_id, f"r{i}".encode(), 600, _listed(game, now - 5000 + 1000 * i))
    store.create(new_match_id(), b"other", 600, _listed(other, now))
    store.commit(ids[0], 0, b"r0+", b"e", 600, listed=_listed(game, now + 1, "finished"))
    expected = [ids[0], ids[4], ids[3], ids[2], ids[1]]
    assert sum(_page_ids(store, ListFilter(game, None, now - 60_000), 2), []) == expected
    assert [len(page) for page in _page_ids(store, ListFilter(game, None, now - 60_000), 2)] == [2, 2, 1]
    entries, _ = store.list_matches(ListFilter(game, None, now - 60_000), None, 1)
    assert (entries[0].version, entries[0].record, entries[0].position.updated_ms) == (1, b"r0+", now + 1)
    assert sum(_page_ids(store, ListFilter(game, None, now - 3500), 10), []) == expected[:4], "older ones left"
    if not isinstance(store, RedisStore):
        assert _page_ids(store, ListFilter(game, "finished", now - 60_000), 10) == [[ids[0]]]


@pytest.mark.parametrize("store_kind", ["memory", "file"])
def test_a_listing_skips_expired_matches(store_kind: str, tmp_path) -> None:
    now = [1000.0]
    clock = lambda: now[0]
    store = MemoryStore(clock=clock) if store_kind == "memory" else FileStore(tmp_path / "m.sqlite3", clock=clock)
    store.create("idle-match-1", b"v0", 60, _listed("g", 1_000_000))
    store.create("busy-match-1", b"v0", 600, _listed("g", 1_000_001))
    now[0] += 61
    assert _page_ids(store, ListFilter("g", None, 0), 10) == [["busy-match-1"]]


def test_redis_listing_keys_are_sharded_by_hour_and_expire(redis_url: str) -> None:
    """No listing key is global: each belongs to one hour and one shard of match ids, has its
    own hash tag, and expires a listing window after its hour."""
    import redis as redis_py

    from service.store.redis_store import LISTING_BUCKET_MS, listing_key, listing_shard

    client = redis_py.Redis.from_url(redis_url)
    store = RedisStore(client, listing_window=3600)
    game = f"game-{new_match_id()}"
    now = int(time.time() * 1000)
    hour = now // LISTING_BUCKET_MS
    ids = [new_match_id() for _ in range(40)]
    for match_id in ids:
        store.create(match_id, b"v0", 600, _listed(game, now))
    store.commit(ids[0], 0, b"v1", b"e", 600, listed=_listed(game, now + LISTING_BUCKET_MS))
    keys = {k.decode() for k in client.keys(f"ix:{game}:*")}
    assert keys == {listing_key(hour, listing_shard(m), game) for m in ids} | {
        listing_key(hour + 1, listing_shard(ids[0]), game)
    }
    assert len(keys) > 8, "the matches spread over the shards"
    assert all(k.endswith("}") and "{" in k for k in keys)
    ttl_ms = client.pttl(listing_key(hour, listing_shard(ids[1]), game))
    assert (
        (hour + 1) * LISTING_BUCKET_MS + 3_600_000 - now - 5000
        < ttl_ms
        <= (hour + 1) * LISTING_BUCKET_MS + 3_600_000 - now
    )
    # The match moved to the next hour: its old entry is a hint the referee skips; the store
    # lists both, newest first.
    entries, _ = store.list_matches(
        ListFilter(game, None, now - 1000), ListPosition(now + LISTING_BUCKET_MS + 1, "~"), 100
    )
    assert [e.position.match_id for e in entries].count(ids[0]) == 2
    assert entries[0].position == ListPosition(now + LISTING_BUCKET_MS, ids[0])
