"""One ladders-store suite, run against the memory store, the SQLite file store, real Redis
and a real Redis Cluster: versioned documents as a compare-and-set, listing by prefix, and
the lease that names one pairing node."""

from __future__ import annotations

import secrets
import threading

import pytest

from service.store import LadderStore, open_ladders


@pytest.fixture(params=["memory", "file", "redis", "cluster"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def ladders(store) -> LadderStore:
    return open_ladders(store)


def _prefix() -> str:
    """Keys of this test only (the Redis backends are shared with other tests)."""
    return f"t{secrets.token_hex(6)}/"


def test_a_document_is_created_once_and_written_only_over_the_version_read(ladders: LadderStore) -> None:
    key = _prefix() + "a"
    assert ladders.get(key) is None
    assert ladders.put(key, 0, b"one")
    assert not ladders.put(key, 0, b"again")
    assert ladders.get(key) == (1, b"one")
    assert not ladders.put(key, 2, b"ahead")
    assert ladders.put(key, 1, b"two")
    assert ladders.get(key) == (2, b"two")


def test_racing_writers_of_one_version_never_both_win(ladders: LadderStore) -> None:
    key = _prefix() + "race"
    ladders.put(key, 0, b"0")
    wins: list[int] = []

    def write(n: int) -> None:
        if ladders.put(key, 1, str(n).encode()):
            wins.append(n)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(wins) == 1 and ladders.get(key) == (2, str(wins[0]).encode())


def test_keys_lists_a_prefix_in_order(ladders: LadderStore) -> None:
    prefix = _prefix()
    for name in ("b", "a", "c"):
        ladders.put(prefix + name, 0, b"x")
    ladders.put(_prefix() + "other", 0, b"x")
    assert ladders.keys(prefix) == [prefix + "a", prefix + "b", prefix + "c"]


def test_a_lease_has_one_holder_until_it_lapses(ladders: LadderStore) -> None:
    name = _prefix()
    assert ladders.lease_holder(name, 1000) is None
    assert ladders.hold_lease(name, "node-a", 1000, 4000)
    assert not ladders.hold_lease(name, "node-b", 2000, 5000)
    assert ladders.hold_lease(name, "node-a", 3000, 6000)  # renewed by its holder
    assert ladders.lease_holder(name, 5999) == "node-a"
    assert ladders.lease_holder(name, 6000) is None
    assert ladders.hold_lease(name, "node-b", 6000, 9000)  # lapsed: anyone takes it
    assert not ladders.hold_lease(name, "node-a", 7000, 10000)
    assert ladders.lease_holder(name, 7000) == "node-b"


def test_a_queue_gives_its_items_in_order_until_they_are_removed(ladders: LadderStore) -> None:
    queue = _prefix() + "q"
    assert ladders.queued(queue, 10) == []
    for item in (b"one", b"two", b"three"):
        ladders.push(queue, item)
    ladders.push(_prefix() + "other", b"elsewhere")
    first = ladders.queued(queue, 2)
    assert [item for _, item in first] == [b"one", b"two"]
    assert ladders.queued(queue, 2) == first  # read again until removed
    ladders.unqueue(queue, [first[0][0]])
    ladders.unqueue(queue, [first[0][0]])  # removing twice changes nothing
    assert [item for _, item in ladders.queued(queue, 10)] == [b"two", b"three"]
    ladders.unqueue(queue, [item_id for item_id, _ in ladders.queued(queue, 10)])
    assert ladders.queued(queue, 10) == []


def test_pushes_from_many_threads_are_all_kept(ladders: LadderStore) -> None:
    queue = _prefix() + "many"
    threads = [threading.Thread(target=ladders.push, args=(queue, str(n).encode())) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(int(item) for _, item in ladders.queued(queue, 100)) == list(range(16))
