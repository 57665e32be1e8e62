"""Redis judges a timed commit by its own clock, in the same step as the compare-and-set
(service/store/commit.lua), on a single Redis and on a Redis Cluster (each match by its own
shard's clock); and a node's StoreClock follows the store's clock, whatever its own says."""

from __future__ import annotations

import time

import pytest

from service.clock import StoreClock, wall_ms
from service.store import RedisStore, StoreUnavailable, Timing
from service.tokens import new_match_id


@pytest.fixture(params=["redis", "cluster"])
def redis_store(request: pytest.FixtureRequest) -> RedisStore:
    if request.param == "cluster":
        return RedisStore.from_url(request.getfixturevalue("redis_cluster_url"), cluster=True)
    return RedisStore.from_url(request.getfixturevalue("redis_url"))


def test_a_commit_outside_its_timing_changes_nothing_and_answers_the_stores_time(redis_store) -> None:
    match_id = new_match_id()
    redis_store.create(match_id, b"v0", 60)
    now = redis_store.time_ms()
    for timing in (Timing(not_before_ms=now + 60_000), Timing(before_ms=now - 1), Timing(now + 60_000, now + 90_000)):
        refused = redis_store.commit(match_id, 0, b"v1", b"e1", 60, timing=timing)
        assert (refused.committed, refused.mistimed, refused.version, refused.current) == (False, True, 0, None)
        assert refused.store_ms is not None and abs(refused.store_ms - now) < 5_000
    assert redis_store.load(match_id).version == 0 and redis_store.history_length(match_id) == 0
    inside = redis_store.commit(match_id, 0, b"v1", b"e1", 60, timing=Timing(now - 1_000, now + 60_000))
    assert inside.committed and not inside.mistimed and inside.store_ms is not None
    assert redis_store.load(match_id).version == 1
    untimed = redis_store.commit(match_id, 1, b"v2", b"e2", 60)
    assert untimed.committed and untimed.store_ms is None, "an untimed commit does not read the clock"


def test_a_version_that_moved_on_is_answered_before_the_timing(redis_store) -> None:
    match_id = new_match_id()
    redis_store.create(match_id, b"v0", 60)
    redis_store.commit(match_id, 0, b"v1", b"e1", 60)
    stale = redis_store.commit(match_id, 0, b"x", b"ex", 60, timing=Timing(before_ms=0))
    assert not stale.mistimed and stale.current is not None and stale.current.version == 1


class ShiftedClock:
    """A node's own clock, off by ``shift_ms`` from the truth."""

    def __init__(self, shift_ms: int) -> None:
        self.shift_ms = shift_ms

    def __call__(self) -> int:
        return wall_ms() + self.shift_ms


@pytest.mark.parametrize("shift_ms", [1_500, -1_500, 3_600_000])
def test_a_store_clock_tells_the_stores_time_whatever_the_nodes_clock(redis_url: str, shift_ms: int) -> None:
    store = RedisStore.from_url(redis_url)
    clock = StoreClock(store.time_ms, local_ms=ShiftedClock(shift_ms))
    before, told, after = store.time_ms(), clock(), store.time_ms()
    assert before - 20 <= told <= after + 20
    assert abs(clock.offset_ms + shift_ms) < 50


def test_a_store_clock_reads_the_store_once_an_interval_and_takes_in_what_the_store_says() -> None:
    readings: list[int] = []

    def store_ms() -> int:
        readings.append(1)
        return 1_000_000

    local = ShiftedClock(0)
    local.shift_ms = 1_000_000 - wall_ms()  # this node's clock agrees with the store's at first
    clock = StoreClock(store_ms, resync_seconds=0.2, local_ms=local)
    clock(), clock(), clock()
    assert len(readings) == 1
    local.shift_ms += 700  # this node's clock steps 0.7 s ahead
    assert clock() - 1_000_000 >= 690, "until the next reading, this node's clock is trusted"
    clock.observe(1_000_000)  # a commit the store refused says what its clock says
    assert abs(clock() - 1_000_000) < 20
    time.sleep(0.25)
    clock()
    assert len(readings) == 2


def test_a_store_that_cannot_be_read_leaves_the_offset_and_is_not_asked_again_at_once() -> None:
    calls: list[int] = []

    def down() -> int:
        calls.append(1)
        raise StoreUnavailable("no Redis")

    clock = StoreClock(down, resync_seconds=60)
    assert abs(clock() - wall_ms()) < 20 and clock.offset_ms == 0
    clock()
    assert len(calls) == 1
