"""Match storage: Redis when configured, else a SQLite file (or memory, for tests)."""

from __future__ import annotations

from pathlib import Path

from service.store.accounts import AccountStore, BotRow, StoredEvent, bot_topic, is_bot_topic
from service.store.accounts_file import FileAccounts
from service.store.accounts_memory import MemoryAccounts
from service.store.accounts_redis import RedisAccounts
from service.store.base import (
    IDENTITY_BYTES,
    CommitResult,
    Listed,
    ListedMatch,
    ListFilter,
    ListPosition,
    Loaded,
    MatchDamaged,
    MatchStore,
    StoreMisconfigured,
    StoreUnavailable,
    Timing,
    new_identity,
)
from service.store.file import FileStore, Offload, default_path
from service.store.ladders import LadderStore
from service.store.ladders_file import FileLadders
from service.store.ladders_memory import MemoryLadders
from service.store.ladders_redis import RedisLadders
from service.store.memory import MemoryStore
from service.store.redis_store import RedisStore

#: The values of ``REFEREE_STORE`` when ``REDIS_URL`` is not set.
EMBEDDED_KINDS = ("file", "memory")


def open_store(
    kind: str,
    *,
    redis_url: str | None = None,
    redis_cluster: bool = False,
    redis_wait_replicas: int = 0,
    db_path: Path | None = None,
    timeout: float = 2.0,
    check_redis_policy: bool = True,
    listing_window: int = 24 * 3600,
    offload: Offload | None = None,
) -> MatchStore:
    """The store the settings ask for: ``redis`` at ``redis_url`` (a Redis Cluster when
    ``redis_cluster``; refusing an evicting Redis unless told not to check), ``file`` at
    ``db_path``, or ``memory``. ``listing_window`` is how long the Redis listing index keeps an
    entry (seconds); ``offload`` runs the ``COMMIT`` of the file store's batches of moves (their
    fsync), by default where it is made."""
    if kind == "redis":
        if not redis_url:
            raise ValueError("the redis store needs a URL")
        store = RedisStore.from_url(
            redis_url, timeout, cluster=redis_cluster, replica_acks=redis_wait_replicas, listing_window=listing_window
        )
        if check_redis_policy:
            store.check_eviction_policy()
        return store
    if kind == "file":
        return FileStore(db_path or default_path(), offload=offload)
    if kind == "memory":
        return MemoryStore()
    raise ValueError(f"unknown store kind {kind!r}")


def open_accounts(store: MatchStore) -> AccountStore:
    """The accounts kept beside ``store``'s matches, in the same backend."""
    if isinstance(store, RedisStore):
        return RedisAccounts(store.client)
    if isinstance(store, FileStore):
        return FileAccounts(store)
    if isinstance(store, MemoryStore):
        return MemoryAccounts()
    raise TypeError(f"no accounts for {type(store).__name__}")


def open_ladders(store: MatchStore) -> LadderStore:
    """The ladders kept beside ``store``'s matches, in the same backend."""
    if isinstance(store, RedisStore):
        return RedisLadders(store.client)
    if isinstance(store, FileStore):
        return FileLadders(store)
    if isinstance(store, MemoryStore):
        return MemoryLadders()
    raise TypeError(f"no ladders for {type(store).__name__}")


__all__ = [
    "LadderStore",
    "open_ladders",
    "EMBEDDED_KINDS",
    "AccountStore",
    "BotRow",
    "FileAccounts",
    "MemoryAccounts",
    "RedisAccounts",
    "StoredEvent",
    "bot_topic",
    "is_bot_topic",
    "open_accounts",
    "IDENTITY_BYTES",
    "CommitResult",
    "FileStore",
    "ListFilter",
    "ListPosition",
    "Listed",
    "ListedMatch",
    "Loaded",
    "MatchDamaged",
    "MatchStore",
    "MemoryStore",
    "RedisStore",
    "StoreMisconfigured",
    "StoreUnavailable",
    "Timing",
    "default_path",
    "new_identity",
    "open_store",
]
