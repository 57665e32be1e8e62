"""The per-process feeds of service/live/feeds.py: a subscription hears of each commit of its
match, from this process and (file store, Redis) from others."""

from __future__ import annotations

import time

import pytest

from service.live.feeds import FileFeed, LocalFeed, RedisFeed, ShardedRedisFeed, open_feed
from service.store import FileStore, MemoryStore, RedisStore
from service.tokens import new_match_id


def test_the_memory_store_tells_its_feed_of_each_commit() -> None:
    store = MemoryStore()
    feed = LocalFeed(store)
    match_id, other = new_match_id(), new_match_id()
    store.create(match_id, b"v0", 60)
    store.create(other, b"v0", 60)
    with feed.subscribe(match_id) as subscription:
        assert subscription.wait_ready(0)
        store.commit(other, 0, b"v1", b"e", 60)
        assert not subscription.wait(0.01), "another match's commit wakes nobody here"
        store.commit(match_id, 0, b"v1", b"e", 60)
        assert subscription.wait(1) and subscription.latest == 1
        assert feed.followers() == 1
    assert feed.followers() == 0 and feed.followed() == []


def heard(subscription, version: int, within: float = 2.0) -> bool:
    """Whether ``subscription`` hears of ``version`` in time (a feed may also wake it for a
    version it already knew: a wake-up is a hint to read)."""
    deadline = time.monotonic() + within
    while subscription.latest < version and time.monotonic() < deadline:
        subscription.wait(0.05)
    return subscription.latest == version


def test_a_file_feed_hears_commits_of_another_connection(tmp_path) -> None:
    """Two FileStore objects are two connections, as two worker processes have."""
    here, there = FileStore(tmp_path / "m.sqlite3"), FileStore(tmp_path / "m.sqlite3")
    feed = FileFeed(here, interval=0.01)
    match_id = new_match_id()
    here.create(match_id, b"v0", 60)
    try:
        with feed.subscribe(match_id) as subscription:
            there.commit(match_id, 0, b"v1", b"e", 60)
            assert heard(subscription, 1)
            here.commit(match_id, 1, b"v2", b"e", 60)
            assert heard(subscription, 2)
    finally:
        feed.close()
        here.close()
        there.close()


@pytest.mark.parametrize("kind", ["redis", "cluster"])
def test_a_redis_feed_hears_commits_once_subscribed(kind: str, request: pytest.FixtureRequest) -> None:
    """One Redis: SUBSCRIBE to the commits' PUBLISH; a cluster: SSUBSCRIBE to their SPUBLISH."""
    cluster = kind == "cluster"
    store = RedisStore.from_url(
        request.getfixturevalue("redis_cluster_url" if cluster else "redis_url"), cluster=cluster
    )
    feed = open_feed(store)
    assert isinstance(feed, ShardedRedisFeed if cluster else RedisFeed)
    match_id = new_match_id()
    store.create(match_id, b"v0", 60)
    try:
        first, second = feed.subscribe(match_id), feed.subscribe(match_id)
        assert first.wait_ready(5) and second.wait_ready(5)
        store.commit(match_id, 0, b"v1", b"e", 60)
        assert first.wait(2) and second.wait(2) and first.latest == second.latest == 1
        first.close()
        store.commit(match_id, 1, b"v2", b"e", 60)
        assert second.wait(2) and second.latest == 2
        second.close()
        assert feed.followed() == []
    finally:
        feed.close()


@pytest.mark.parametrize("kind", ["memory", "file"])
def test_a_subscription_closed_twice_is_forgotten_once(kind: str, tmp_path) -> None:
    store = MemoryStore() if kind == "memory" else FileStore(tmp_path / "m.sqlite3")
    feed = LocalFeed(store) if kind == "memory" else FileFeed(store)
    match_id = new_match_id()
    one, two = feed.subscribe(match_id), feed.subscribe(match_id)
    one.close()
    one.close()
    assert feed.followers() == 1
    two.close()
    assert feed.followers() == 0
    feed.close()
