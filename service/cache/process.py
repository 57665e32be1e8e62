"""The last known record of recently active matches: one round trip per move.

A move is decided on the match's record at the version of the seat's state token. Reading it
from the store costs a round trip before the compare-and-set, yet the node that answered the
previous move of the match already knows that record: it committed it. So each node keeps,
per recently active match, the last record it saw (created, committed, loaded, or
answered by a refused commit) with its version, and a move whose state token names that
version is checked and committed on it without reading first.

The entry is a hint, never the truth: the store's compare-and-set decides whether the store
still holds that very record. The entry keeps the record's identity with it
(:mod:`service.store.base`), and the commit made from it passes that back, so the version
alone never vouches for it: after the store lost writes (Redis restarted from an older
snapshot, a failover) the match comes back to the version numbers the lost records had, but
not to their identities. When the store holds another record (another node moved the match,
the request is a retry whose answer was lost, or the cached record was lost), the refused
commit answers the current record and what the idempotency key produced, in the same round
trip, and the move is checked again on those (:meth:`service.referee.Referee.act`); nothing
is ever applied to a state the store does not hold. The store's word wins: every record it
answers (a load, a commit, a refused commit's answer) replaces the entry, whatever version
the entry had, and the entry is dropped when a commit's outcome is unknown, so it never
outlives a failed commit.

Entries are the record bytes (opaque here, whatever their encoding). Engines change a state in
place while they apply a move, so a decoded match is never shared between requests: the
objects a process committed are kept apart, each handed to one request at a time
(:mod:`service.cache.decoded`). The least recently used entry goes when the cache
is full (``REFEREE_MATCH_CACHE_SIZE`` entries per process; 0 turns the cache off).

That is the cache of one process. A server with several workers shares one cache between them
instead (:mod:`service.cache.node`), with the same interface, :class:`RecordCache`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Protocol

from service.store import Loaded


class RecordCache(Protocol):
    """What the referee asks of a match cache."""

    def record(self, match_id: str, version: int) -> Loaded | None: ...

    def remember(self, match_id: str, loaded: Loaded) -> None: ...

    def forget(self, match_id: str) -> None: ...


class MatchCache:
    """A bounded LRU map ``match_id -> Loaded`` (version, record, base record, identity), safe
    to share between threads and greenlets."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, Loaded] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def record(self, match_id: str, version: int) -> Loaded | None:
        """The cached record of ``match_id`` if it is at ``version``."""
        with self._lock:
            entry = self._entries.get(match_id)
            if entry is not None:
                self._entries.move_to_end(match_id)
        return entry if entry is not None and entry.version == version else None

    def remember(self, match_id: str, loaded: Loaded) -> None:
        """Keep ``loaded`` as the match's latest known record, whatever version the entry
        had (an idempotency answer, which belongs to one request, is not kept)."""
        if self.capacity <= 0:
            return
        with self._lock:
            self._entries[match_id] = Loaded(loaded.version, loaded.record, None, loaded.base, loaded.identity)
            self._entries.move_to_end(match_id)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)

    def forget(self, match_id: str) -> None:
        """Drop the match's entry (its commit's outcome is unknown, or it no longer exists)."""
        with self._lock:
            self._entries.pop(match_id, None)
