"""Match storage: Redis when configured, an embedded in-process store otherwise."""

from service.store.base import CommitResult, Loaded, MatchStore, StoreUnavailable
from service.store.memory import MemoryStore
from service.store.redis_store import RedisStore


def open_store(redis_url: str | None, timeout: float = 2.0) -> MatchStore:
    """The store the settings ask for: Redis at ``redis_url``, or the embedded one."""
    return RedisStore.from_url(redis_url, timeout) if redis_url else MemoryStore()


__all__ = [
    "CommitResult",
    "Loaded",
    "MatchStore",
    "MemoryStore",
    "RedisStore",
    "StoreUnavailable",
    "open_store",
]
