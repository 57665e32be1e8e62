"""Writes from a process whose Redis Cluster slot map is out of date.

Each referee process keeps its own copy of the cluster's slot map, and sends a match's writes
straight to the master that copy names (redis-py's cluster pipeline refuses scripts). After a
failover whose old master came back as its successor's replica, that node answers the write
with ``MOVED`` instead of a connection failure; the store follows the move once, so the write
lands on the new master instead of answering 503. While a slot moves from one master to another
(a resharding) the store follows ``ASK`` and waits out ``TRYAGAIN`` as well.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from redis.crc import key_slot

from service.store import RedisStore
from service.tokens import new_match_id
from tests.support import cluster


def _cluster_of_its_own(masters: int, replicas: int) -> Iterator[cluster.LocalCluster]:
    """A Redis Cluster for one test: each test here changes which node serves what."""
    if not cluster.tools_available():
        from tests.conftest import missing_redis

        missing_redis("redis-server or redis-cli is not installed (needed for the Redis Cluster tests)")
    size = masters * (1 + replicas)
    local = cluster.LocalCluster(cluster.free_block(size), masters=masters, replicas=replicas).start()
    yield local
    local.stop()


@pytest.fixture
def replicated() -> Iterator[cluster.LocalCluster]:
    """Three masters with one replica each (a failover promotes one)."""
    yield from _cluster_of_its_own(3, 1)


@pytest.fixture
def masters() -> Iterator[cluster.LocalCluster]:
    """Three masters (a slot moves from one to another)."""
    yield from _cluster_of_its_own(3, 0)


def _match_served_by(local: cluster.LocalCluster, node: cluster.Node) -> str:
    """A new match id whose keys live on ``node``."""
    while True:
        match_id = new_match_id()
        if local.master_of(f"m:{{{match_id}}}").port == node.port:
            return match_id


@pytest.mark.parametrize("replica_acks", [0, 1])
def test_writes_sent_to_a_master_that_became_a_replica_land_on_its_successor(
    replicated: cluster.LocalCluster, replica_acks: int
) -> None:
    # A replica of a busy test machine may take longer than the default half second to confirm.
    committer = RedisStore.from_url(replicated.url, timeout=8, cluster=True, replica_acks=replica_acks)
    creator = RedisStore.from_url(replicated.url, timeout=8, cluster=True, replica_acks=replica_acks)
    match_id = new_match_id()
    assert committer.create(match_id, b"v0", 60)
    assert creator.load(match_id) is not None  # both processes have read the slot map
    old = replicated.master_of(f"m:{{{match_id}}}")

    new = replicated.fail_over(old)

    result = committer.commit(match_id, 0, b"v1", b"entry1", 60)
    assert (result.committed, result.version) == (True, 1)
    assert new.client().hget(f"m:{{{match_id}}}", "v") == b"1"
    created = _match_served_by(replicated, new)
    assert creator.create(created, b"w0", 60)
    assert new.client().hget(f"m:{{{created}}}", "v") == b"0"
    loaded = committer.load(match_id)
    assert loaded is not None and (loaded.version, loaded.record) == (1, b"v1")


def _node_id(node: cluster.Node) -> str:
    found = node.client().execute_command("CLUSTER MYID")
    return found.decode() if isinstance(found, bytes) else str(found)


def _match_in_slot(slot: int) -> str:
    """A new match id whose keys hash to ``slot``."""
    while key_slot(f"m:{{{(match_id := new_match_id())}}}".encode()) != slot:
        pass
    return match_id


def test_writes_while_a_slot_moves_to_another_master_land_there(masters: cluster.LocalCluster) -> None:
    """A resharding moves a slot as redis-cli does: the target imports it, the source migrates
    it, its keys move (``MIGRATE``), then every node is told the target serves it. Meanwhile the
    source answers a write to a missing key with ``ASK`` and one touching keys that are split
    or missing with ``TRYAGAIN`` (a commit names its match's channel, never a key, so it gets
    ``TRYAGAIN`` until the move ends); the store follows the first and waits out the second,
    where it answered 503 before."""
    store = RedisStore.from_url(masters.url, timeout=8, cluster=True)
    match_id = new_match_id()
    assert store.create(match_id, b"v0", 60)
    assert store.commit(match_id, 0, b"v1", b"entry1", 60).committed
    key = f"m:{{{match_id}}}"
    source = masters.master_of(key)
    target = next(node for node in masters.nodes if node is not source)
    slot = key_slot(key.encode())
    target.client().execute_command("CLUSTER SETSLOT", slot, "IMPORTING", _node_id(source))
    source.client().execute_command("CLUSTER SETSLOT", slot, "MIGRATING", _node_id(target))
    keys = source.client().execute_command("CLUSTER GETKEYSINSLOT", slot, 100)
    source.client().execute_command("MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", *keys)

    created = _match_in_slot(slot)
    assert store.create(created, b"w0", 60)  # ASK: the target takes it

    def end_the_move() -> None:
        for node in masters.nodes:
            node.client().execute_command("CLUSTER SETSLOT", slot, "NODE", _node_id(target))

    ending = threading.Timer(0.3, end_the_move)
    ending.start()
    try:
        result = store.commit(match_id, 1, b"v2", b"entry2", 60)  # TRYAGAIN, then MOVED
    finally:
        ending.join()
    assert (result.committed, result.version) == (True, 2)
    assert target.client().hget(key, "v") == b"2"
    assert target.client().hget(f"m:{{{created}}}", "v") == b"0"
    loaded = store.load(match_id)
    assert loaded is not None and (loaded.version, loaded.record) == (2, b"v2")
