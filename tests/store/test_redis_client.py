"""The one Redis client every part of the service shares (service/store/redis_client.py)."""

from __future__ import annotations

import threading

from service.store import RedisStore
from service.tokens import new_match_id


def test_more_concurrent_commands_than_redis_pys_default_pool_all_get_a_connection(redis_url: str) -> None:
    """A node's worker holds up to a thousand requests and streams at once; redis-py 8's default
    pool (100 connections) would fail the 101st concurrent command, and the node answer 503."""
    store = RedisStore.from_url(redis_url)
    match_id = new_match_id()
    store.create(match_id, b"v0", 60)
    errors: list[BaseException] = []
    start = threading.Barrier(150)

    def hold_a_connection() -> None:
        try:
            start.wait()
            store.client.blpop([f"referee-test:{match_id}:never"], timeout=0.3)  # held 0.3 s
            assert store.load(match_id).version == 0
        except BaseException as exc:  # collected, asserted below
            errors.append(exc)

    threads = [threading.Thread(target=hold_a_connection) for _ in range(150)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
