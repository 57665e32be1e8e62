"""Writes from a process whose Redis Cluster slot map is out of date.

Each referee process keeps its own copy of the cluster's slot map, and sends a match's writes
straight to the master that copy names (redis-py's cluster pipeline refuses scripts). After a
failover whose old master came back as its successor's replica, that node answers the write
with ``MOVED`` instead of a connection failure; the store follows the move once, so the write
lands on the new master instead of answering 503.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.store import RedisStore
from service.tokens import new_match_id
from tests.support import cluster


@pytest.fixture
def replicated() -> Iterator[cluster.LocalCluster]:
    """Three masters with one replica each, for one test (its failover changes who serves what)."""
    if not cluster.tools_available():
        from tests.conftest import missing_redis

        missing_redis("redis-server or redis-cli is not installed (needed for the Redis Cluster tests)")
    local = cluster.LocalCluster(cluster.free_block(6), masters=3, replicas=1).start()
    yield local
    local.stop()


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
